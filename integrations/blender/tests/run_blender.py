"""meson test runner of the Blender suite: skips (exit 77) when blender is
not installed, else runs test_addon.py in a headless Blender with the add-on
found from its folder and the binding from the build tree.

run_blender.py ADDON_DIR BINDING_DIR OUT_DIR"""
import os
import shutil
import subprocess
import sys
import tempfile

addon_dir, binding_dir, out_dir = (os.path.abspath(a) for a in sys.argv[1:4])
blender = shutil.which("blender")
if blender is None:
    print("blender is not installed (Debian: apt-get install blender): skipping the Blender add-on tests")
    sys.exit(77)
data = os.environ.get("SINEW_DATA_DIR", "")
if not os.path.isfile(os.path.join(data, "libigl-tutorial-data", "arm.obj")):
    print(f"the shared data set is not at SINEW_DATA_DIR={data!r}: skipping the Blender add-on tests")
    sys.exit(77)
os.makedirs(out_dir, exist_ok=True)
with tempfile.TemporaryDirectory() as scripts:
    # Blender finds user add-ons in BLENDER_USER_SCRIPTS/addons: link the add-on's folder there as it is.
    os.makedirs(os.path.join(scripts, "addons"))
    os.symlink(os.path.join(addon_dir, "sinew_tools"), os.path.join(scripts, "addons", "sinew_tools"))
    env = dict(os.environ, BLENDER_USER_SCRIPTS=scripts, SINEW_PYTHONPATH=binding_dir,
               PYTHONDONTWRITEBYTECODE="1")
    test = os.path.join(os.path.dirname(os.path.abspath(__file__)), "test_addon.py")
    status = subprocess.call([blender, "-b", "--factory-startup", "--python-exit-code", "1", "--python", test,
                              "--", out_dir], env=env)
sys.exit(status)
