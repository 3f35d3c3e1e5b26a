"""The SOFFD character workflow with pose-space correctives, from Python, on
libigl's arm and its skeleton (the C example examples/character/ does the
same with a PNG):

1. load the skin (arm.obj) and the skeleton (arm.tgf: shoulder, upper arm,
   forearm, hand);
2. make a driver from the skin, with more vertices at the joints;
3. bind each driver point rigidly to its nearest bone segment;
4. register the skin on the driver (SOFFD);
5. key an elbow corrective at 90 degrees (Gaussian over the elbow's
   swing-twist pose numbers: the driver points near the elbow go where a
   smooth bend puts them) and a muscle bulge against the elbow angle (a
   caller scalar, linear kernel);
6. bend the elbow 0 to 120 degrees over 5 frames, posing the driver without
   and with the correctives, and the skin follows.

    SINEW_DATA_DIR=../shared/data PYTHONPATH=build/python python3 \\
        python/examples/character_workflow.py [out_dir]

Writes arm_plain_NN.obj and arm_corrected_NN.obj into out_dir (default
out/python-character) and checks what it shows: the rest pose gives the skin
back with and without the correctives, the elbow key is reproduced at its
pose, the elbow keeps its thickness with the correctives and the bulge grows
with the angle. Exits 77 (skipped) without the shared data."""

import os
import pathlib
import sys

import numpy as np

import sinew

UPPER, FOREARM = 1, 2           # bone numbers in arm.tgf's order
FRAMES, KEY_FRAME = 5, 3        # 0, 30, 60, 90, 120 degrees; the elbow key at 90
BEND_HALF_WIDTH = 1.5           # the smooth bend's half-width along the upper arm, in upper-arm radii
BULGE_HEIGHT = 0.5              # the bulge's height at 120 degrees, in upper-arm radii


def frame_angle(frame):
    """The elbow's angle at a frame: 0 to 120 degrees, in equal steps."""
    return np.radians(120.0) * frame / (FRAMES - 1)


def check(ok, what):
    """Prints a check of what the example shows; exits 1 when it fails."""
    print(f"  check: {what}: {'yes' if ok else 'NO'}")
    if not ok:
        sys.exit(1)


def data_dir():
    default = pathlib.Path(__file__).resolve().parents[2] / ".." / "shared" / "data"
    return pathlib.Path(os.environ.get("SINEW_DATA_DIR") or default)


def read_obj(path):
    positions, triangles = [], []
    for line in open(path):
        words = line.split()
        if words and words[0] == "v":
            positions.append([float(w) for w in words[1:4]])
        elif words and words[0] == "f":
            face = [int(w.split("/")[0]) - 1 for w in words[1:]]
            triangles += [(face[0], face[i], face[i + 1]) for i in range(1, len(face) - 1)]
    return np.asarray(positions, np.float32), np.asarray(triangles, np.uint32)


def read_tgf(path):
    """libigl's .tgf: joints (index x y z ...), '#', bones (1-based joint pairs)."""
    joints, bones, part = [], [], 0
    for line in open(path):
        words = line.split()
        if words and words[0] == "#":
            part += 1
        elif words and part == 0:
            joints.append([float(w) for w in words[1:4]])
        elif words and part == 1:
            bones.append([int(words[0]) - 1, int(words[1]) - 1])
    return np.asarray(joints, np.float32), np.asarray(bones, np.uint32)


def write_obj(path, positions, triangles):
    with open(path, "w") as f:
        f.writelines(f"v {p[0]:.6f} {p[1]:.6f} {p[2]:.6f}\n" for p in positions)
        f.writelines(f"f {t[0] + 1} {t[1] + 1} {t[2] + 1}\n" for t in triangles)


def unit(v):
    return v / np.linalg.norm(v)


class Elbow:
    """The elbow's hinge: the forearm and hand turn about `axis` through
    `centre`; the forearm folds toward `inside` (across the upper arm)."""

    def __init__(self, joints, bones):
        self.shoulder = joints[bones[UPPER][0]].astype(np.float64)
        self.centre = joints[bones[FOREARM][0]].astype(np.float64)
        self.wrist = joints[bones[FOREARM][1]].astype(np.float64)
        upper, fore = self.centre - self.shoulder, self.wrist - self.centre
        self.axis = unit(np.cross(upper, fore))      # the arm is bent a little at rest: bend on in that plane
        self.inside = unit(np.cross(self.axis, upper))

    def matrix(self, angle):
        """4x4 (numpy convention) turning by angle about the hinge."""
        k = self.axis
        cross = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
        r = np.eye(3) + np.sin(angle) * cross + (1 - np.cos(angle)) * cross @ cross
        m = np.eye(4)
        m[:3, :3], m[:3, 3] = r, self.centre - r @ self.centre
        return m

    def turn(self, points, angles):
        """Each point turned by its own angle about the hinge."""
        return np.stack([(self.matrix(a) @ np.append(p, 1.0))[:3] for p, a in zip(points, angles)])

    def bone_worlds(self, angle, bone_count):
        bent = self.matrix(angle).astype(np.float32)
        return np.stack([bent if b >= FOREARM else np.eye(4, dtype=np.float32) for b in range(bone_count)])

    def pose(self, angle):
        """The elbow's swing-twist pose numbers (twist about the forearm)."""
        q = np.append(self.axis * np.sin(angle / 2), np.cos(angle / 2))[None].astype(np.float32)
        return sinew.swing_twist(q, (self.wrist - self.centre)[None].astype(np.float32))[0]


def smooth_bend(elbow, points, angle, radius):
    """Where a smooth bend puts each point: turned by a share of the angle
    that ramps from 0 on the upper arm to 1 past the elbow."""
    along = unit(elbow.centre - elbow.shoulder)
    width = BEND_HALF_WIDTH * radius
    x = np.clip(((points - elbow.centre) @ along + width) / (2 * width), 0.0, 1.0)
    return elbow.turn(points, angle * x * x * (3 - 2 * x))


def upper_arm_frame(elbow, points):
    """Each point's place along the upper arm (0 shoulder, 1 elbow) and its
    offset from the bone's axis."""
    axis = elbow.centre - elbow.shoulder
    t = (points - elbow.shoulder) @ axis / (axis @ axis)
    return t, points - elbow.shoulder - t[:, None] * axis


def main(out_dir):
    data = data_dir() / "libigl-tutorial-data"
    if not (data / "arm.obj").is_file() or not (data / "arm.tgf").is_file():
        print(f"skipped: {data}/arm.obj and arm.tgf not found (set SINEW_DATA_DIR)")
        return 77
    out_dir.mkdir(parents=True, exist_ok=True)
    skin, triangles = read_obj(data / "arm.obj")
    joints, bones = read_tgf(data / "arm.tgf")
    elbow = Elbow(joints, bones)
    t, radial = upper_arm_frame(elbow, skin)
    radius = float(np.median(np.linalg.norm(radial[(t > 0.2) & (t < 0.8)], axis=1)))
    print(f"character: libigl arm, {len(skin)} vertices, {len(bones)} bones; upper arm radius {radius:.3f}")

    # 2. The driver, decimated from the skin, finer at the joints.
    driver, driver_triangles, report = sinew.driver_from_skin(skin, triangles, target_triangle_count=300,
                                                              joint_positions=joints, bones=bones)
    print(f"driver: {len(driver)} points, {len(driver_triangles)} triangles; largest distance skin to driver "
          f"{report.skin_to_driver_distance:.4f} (diagonal {report.diagonal:.3f})")

    # 3. Each driver point rigidly to its nearest bone segment.
    capsules = [sinew.Capsule(joints[a], joints[b], 0.0, i) for i, (a, b) in enumerate(bones)]
    bound = sinew.capsule_weights(driver, capsules, influence_count=1, scoring="nearest_segment")
    bone_of = bound.joints[:, 0]
    driver_skin = sinew.Skin(bound.joints, bound.weights, len(bones))

    # 4. The skin registered on the driver.
    soffd = sinew.Soffd(driver, driver_triangles)
    # Every element above 1e-3 of a point's largest weight, uncapped: the
    # wide blend rounds the elbow's crease (the default's 4 nearest elements
    # follow it and pinch the bent elbow).
    soffd.register(skin, weight_threshold=1e-3, max_contributors=2**32 - 1)

    # 5. The correctives, offsets of the driver's rest points. The elbow key:
    # the smooth bend carried back to the bind pose by the inverse of each
    # point's bone motion.
    key_angle, last_angle = frame_angle(KEY_FRAME), frame_angle(FRAMES - 1)
    target = smooth_bend(elbow, driver.astype(np.float64), key_angle, radius)
    back = np.where((bone_of >= FOREARM)[:, None], elbow.turn(target, np.full(len(target), -key_angle)), target)
    elbow_offsets = (back - driver).astype(np.float32)
    elbow_fix = sinew.Corrective(elbow_offsets[None], poses=elbow.pose(key_angle)[None])
    # The bulge: the inside of the upper arm's middle swells, in proportion to the angle.
    t, radial = upper_arm_frame(elbow, driver.astype(np.float64))
    r = np.linalg.norm(radial, axis=1)
    side = np.clip(radial @ elbow.inside / r, 0.0, None)
    along = np.where((t > 0.15) & (t < 0.8), np.sin(np.pi * (t - 0.15) / 0.65), 0.0)
    amount = np.where(bone_of == UPPER, BULGE_HEIGHT * radius * along ** 2 * side ** 2, 0.0)
    bulge = sinew.Corrective((amount[:, None] * radial / r[:, None])[None].astype(np.float32),
                             poses=[[last_angle]], kernel="linear")
    print(f"correctives: elbow keyed at 90 degrees ({elbow_fix.info.offset_count} driver points), "
          f"bulge against the angle ({bulge.info.offset_count})")

    # 6. The animation.
    t_skin, _ = upper_arm_frame(elbow, skin)
    middle = (t_skin > 0.3) & (t_skin < 0.65)
    rest_clearance = np.linalg.norm(skin - elbow.centre, axis=1).min()
    last_bulge = 0.0
    for frame in range(FRAMES):
        angle = frame_angle(frame)
        worlds = elbow.bone_worlds(angle, len(bones))
        after_elbow = elbow_fix.deform(elbow.pose(angle), driver)
        corrected = bulge.deform(np.float32([angle]), after_elbow)
        plain_skin = soffd.pose(driver_skin.pose(worlds, driver))
        corrected_skin = soffd.pose(driver_skin.pose(worlds, corrected))
        write_obj(out_dir / f"arm_plain_{frame:02d}.obj", plain_skin, triangles)
        write_obj(out_dir / f"arm_corrected_{frame:02d}.obj", corrected_skin, triangles)
        clearance = [np.linalg.norm(s - elbow.centre, axis=1).min() for s in (plain_skin, corrected_skin)]
        bulge_now = float(((corrected_skin - plain_skin)[middle] @ elbow.inside).max())
        print(f"elbow {np.degrees(angle):5.1f}: skin within {clearance[0]:.4f} of the elbow joint without, "
              f"{clearance[1]:.4f} with correctives (rest {rest_clearance:.4f}); bulge {bulge_now:.4f}")
        # Without the correctives the inside of the bend closes in on the joint.
        check(clearance[1] >= 0.9 * rest_clearance, "with the correctives the elbow keeps its thickness")
        tolerance = 1e-5 * report.diagonal  # float rounding of skinning and frames
        if frame == 0:
            check(np.abs(plain_skin - skin).max() <= tolerance, "rest pose gives the skin back (identity at bind)")
            check(np.array_equal(plain_skin, corrected_skin), "with the correctives too, bit for bit")
        else:
            check(bulge_now > last_bulge, "the bulge grew since the last frame")
        if frame == KEY_FRAME:
            check(elbow_fix.weights(elbow.pose(angle))[0] == 1.0, "elbow key weight exactly 1 at its pose")
            check(np.array_equal(after_elbow, driver + elbow_offsets), "corrected rest driver = rest + key offsets")
            posed = driver_skin.pose(worlds, after_elbow)
            check(np.abs(posed - target).max() <= tolerance, "posed, it reproduces the key")
        last_bulge = bulge_now
    print(f"wrote {FRAMES} frames into {out_dir} (arm_plain_NN.obj, arm_corrected_NN.obj)")
    return 0


if __name__ == "__main__":
    sys.exit(main(pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "out/python-character")))
