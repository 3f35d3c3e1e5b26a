"""Wrap (SOFFD): a dense mesh follows a driver mesh (a cage, any polygons,
non-manifold allowed).

The binding is made once, saved with the library's save() into the wrapped
object's custom property WRAP_DATA (base64 of the bytes), and loaded back the
first time a reopened file needs it, never bound again. The deformed positions
go into the shape key WRAP_KEY (relative to the rest Basis), updated when the
frame changes or the driver moves; bake() keys them per frame for playback.
"""
import base64
import uuid

import bpy
import numpy as np
from bpy.app.handlers import persistent

from . import binding, mesh_data

WRAP_DATA = "sinew_wrap_data"
WRAP_KEY = "sinew wrap"
# How often each path ran in this session (the tests check that a reopened file loads and never binds).
stats = {"bound": 0, "loaded": 0}
# Loaded bindings by object: (the bind's token, sinew.Soffd).
_cache = {}
_updating = False


class SinewWrapSettings(bpy.types.PropertyGroup):
    driver: bpy.props.PointerProperty(
        name="Driver", type=bpy.types.Object, poll=lambda self, obj: obj.type == "MESH",
        description="The mesh this one follows")
    token: bpy.props.StringProperty(
        name="Bind Token", description="Names one bind, so a cached binding is never used for another")
    live: bpy.props.BoolProperty(
        name="Live", default=True, description="Follow the driver on frame changes and edits")
    error: bpy.props.StringProperty(
        name="Error", description="Why the last live update failed (empty when it worked)")


def is_wrapped(obj):
    return obj.type == "MESH" and WRAP_DATA in obj and obj.sinew_wrap.driver is not None


def soffd_of(obj):
    """The object's binding: the cached one, or loaded from the saved bytes."""
    token = obj.sinew_wrap.token
    cached = _cache.get(obj.as_pointer())
    if cached is not None and cached[0] == token:
        return cached[1]
    sinew = binding.sinew()
    soffd = sinew.Soffd.load(base64.b64decode(obj[WRAP_DATA]))
    stats["loaded"] += 1
    _cache[obj.as_pointer()] = (token, soffd)
    return soffd


def bind(obj, driver, depsgraph, weight_threshold=0.0, max_contributors=0):
    """Binds obj's rest vertices to the driver as it is now (both in world space)."""
    sinew = binding.sinew()
    driver_points = mesh_data.evaluated_world_vertices(driver, depsgraph)
    driver_mesh = driver.evaluated_get(depsgraph).to_mesh()
    try:
        faces = mesh_data.polygons(driver_mesh)
    finally:
        driver.evaluated_get(depsgraph).to_mesh_clear()
    rest = _rest_vertices(obj)
    soffd = sinew.Soffd(driver_points, faces)
    soffd.register(mesh_data.world(obj.matrix_world, rest), weight_threshold=weight_threshold,
                   max_contributors=max_contributors)
    stats["bound"] += 1
    obj[WRAP_DATA] = base64.b64encode(soffd.save()).decode("ascii")
    obj.sinew_wrap.driver = driver
    obj.sinew_wrap.token = uuid.uuid4().hex
    obj.sinew_wrap.live = True
    _cache[obj.as_pointer()] = (obj.sinew_wrap.token, soffd)
    _wrap_key(obj).value = 1.0
    return soffd


def unbind(obj):
    _cache.pop(obj.as_pointer(), None)
    if WRAP_DATA in obj:
        del obj[WRAP_DATA]
    obj.sinew_wrap.driver = None
    obj.sinew_wrap.token = ""
    keys = obj.data.shape_keys
    if keys is not None and WRAP_KEY in keys.key_blocks:
        obj.shape_key_remove(keys.key_blocks[WRAP_KEY])


def _rest_vertices(obj):
    """The mesh's rest positions: its Basis shape key when it has one, else its vertices."""
    keys = obj.data.shape_keys
    if keys is None:
        return mesh_data.vertices(obj.data)
    co = np.empty(len(obj.data.vertices) * 3, dtype=np.float32)
    keys.reference_key.data.foreach_get("co", co)
    return co.reshape(-1, 3).astype(np.float64)


def _wrap_key(obj):
    if obj.data.shape_keys is None:
        obj.shape_key_add(name="Basis", from_mix=False)
    key = obj.data.shape_keys.key_blocks.get(WRAP_KEY)
    return key if key is not None else obj.shape_key_add(name=WRAP_KEY, from_mix=False)


def deformed(obj, depsgraph):
    """obj's vertices, in its own space, placed by the driver as depsgraph evaluates it."""
    soffd = soffd_of(obj)
    driver_points = mesh_data.evaluated_world_vertices(obj.sinew_wrap.driver, depsgraph)
    points = soffd.deform(soffd.element_frames(driver_points))
    return mesh_data.local_from_world(obj.matrix_world, points.astype(np.float64))


def _write(key, positions):
    key.data.foreach_set("co", positions.astype(np.float32).ravel())


def update(obj, depsgraph):
    """Writes the deformed positions into the wrap shape key."""
    global _updating
    _updating = True
    try:
        _write(_wrap_key(obj), deformed(obj, depsgraph))
        obj.data.update()
    finally:
        _updating = False


def bake(obj, scene, frames):
    """One shape key per frame, keyed to 1 on its frame and 0 on the next and
    previous, for playback without the add-on; live following is turned off."""
    obj.sinew_wrap.live = False
    _wrap_key(obj).value = 0.0
    baked = []
    for frame in frames:
        scene.frame_set(frame)
        positions = deformed(obj, bpy.context.evaluated_depsgraph_get())
        name = f"{WRAP_KEY} {frame:04d}"
        key = obj.data.shape_keys.key_blocks.get(name) or obj.shape_key_add(name=name, from_mix=False)
        _write(key, positions)
        for f, value in ((frame - 1, 0.0), (frame, 1.0), (frame + 1, 0.0)):
            key.value = value
            key.keyframe_insert("value", frame=f)
        baked.append(key)
    obj.data.update()
    return baked


def _live_objects(scene):
    return [o for o in scene.objects if is_wrapped(o) and o.sinew_wrap.live]


def _update_live(obj, depsgraph):
    """update() from a handler: a failure (a driver whose modifiers change its
    vertex count, a missing binding) is kept in the settings and printed once,
    and the shape key keeps its last positions."""
    try:
        sinew = binding.sinew()
        try:
            update(obj, depsgraph)
            message = ""
        except sinew.Error as error:
            message = str(error)
    except ImportError as error:
        message = str(error)
    if message != obj.sinew_wrap.error:
        if message:
            print(f"sinew wrap of {obj.name}: {message}")
        obj.sinew_wrap.error = message


@persistent
def on_frame_change(scene, depsgraph):
    for obj in _live_objects(scene):
        _update_live(obj, depsgraph)


@persistent
def on_depsgraph_update(scene, depsgraph):
    if _updating:
        return
    moved = {u.id.original for u in depsgraph.updates
             if isinstance(u.id, bpy.types.Object) and (u.is_updated_geometry or u.is_updated_transform)}
    if not moved:
        return
    for obj in _live_objects(scene):
        if obj.sinew_wrap.driver in moved:
            _update_live(obj, depsgraph)


@persistent
def on_load(*_):
    _cache.clear()


HANDLERS = (
    (bpy.app.handlers.frame_change_post, on_frame_change),
    (bpy.app.handlers.depsgraph_update_post, on_depsgraph_update),
    (bpy.app.handlers.load_post, on_load),
)


def register():
    bpy.utils.register_class(SinewWrapSettings)
    bpy.types.Object.sinew_wrap = bpy.props.PointerProperty(type=SinewWrapSettings)
    for handlers, function in HANDLERS:
        handlers.append(function)


def unregister():
    for handlers, function in HANDLERS:
        if function in handlers:
            handlers.remove(function)
    del bpy.types.Object.sinew_wrap
    bpy.utils.unregister_class(SinewWrapSettings)
    _cache.clear()
