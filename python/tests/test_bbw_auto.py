"""sinew.auto_weights: a surface and a skeleton in, the skinning layout out.
Every vertex weighted on the cases that break the plain route (a bone leaving
the mesh, an inside-out shell, a triangle soup, a floating part, flat art),
rows on the simplex and ready for sinew.Skin, and errors that name Python
keywords."""
import numpy as np
import pytest

import sinew


def ellipsoid(centre, radii, nu=16, nv=10):
    """A closed UV ellipsoid wound outwards: (vertices, triangles)."""
    verts = [[centre[0], centre[1], centre[2] + radii[2]]]
    for i in range(1, nv):
        th = np.pi * i / nv
        for j in range(nu):
            ph = 2 * np.pi * j / nu
            verts.append([centre[0] + radii[0] * np.sin(th) * np.cos(ph), centre[1] + radii[1] * np.sin(th) * np.sin(ph),
                          centre[2] + radii[2] * np.cos(th)])
    verts.append([centre[0], centre[1], centre[2] - radii[2]])
    bottom = len(verts) - 1

    def ring(i, j):
        return 1 + (i - 1) * nu + j % nu

    tris = []
    for j in range(nu):
        tris.append([0, ring(1, j), ring(1, j + 1)])
        tris.append([ring(nv - 1, j), bottom, ring(nv - 1, j + 1)])
        for i in range(1, nv - 1):
            tris.append([ring(i, j), ring(i + 1, j), ring(i, j + 1)])
            tris.append([ring(i + 1, j), ring(i + 1, j + 1), ring(i, j + 1)])
    return np.array(verts, np.float32), np.array(tris, np.uint32)


def limb():
    """A capsule-like limb along x with two bones; the second bone's tail leaves the mesh."""
    v, t = ellipsoid((0.0, 0.0, 0.0), (1.0, 0.2, 0.2), 24, 12)
    joints = np.array([[-0.8, 0, 0], [0.0, 0, 0], [1.6, 0, 0]], np.float32)
    bones = np.array([[0, 1], [1, 2]], np.uint32)
    return v, t, joints, bones


def check_rows(joints, weights, handles):
    assert joints.dtype == np.uint32 and weights.dtype == np.float32
    assert np.all(weights >= 0) and np.all(weights <= 1)
    np.testing.assert_allclose(weights.sum(axis=1), 1.0, atol=1e-5)
    assert np.all(joints < handles)
    assert np.all(np.diff(weights, axis=1) <= 0)


def test_limb_with_a_bone_leaving_the_mesh_binds_and_skins():
    v, t, joints, bones = limb()
    j, w, report = sinew.auto_weights(v, t, joints, bones)
    check_rows(j, w, 2)
    assert report["unweighted_surface_vertex_count"] == 0
    assert report["clipped_handle_count"] == 1 and report["first_clipped_handle"] == 1
    assert 0.3 < report["max_clip_distance"] < 0.8
    assert report["converged"] and report["error_bound"] <= 1e-3
    # The ends belong to their bones.
    assert j[np.argmin(v[:, 0]), 0] == 0 and j[np.argmax(v[:, 0]), 0] == 1
    skin = sinew.Skin(j, w, joint_count=2)
    posed = skin.pose(np.tile(np.eye(4, dtype=np.float32), (2, 1, 1)), v)
    np.testing.assert_allclose(posed, v, atol=1e-6)
    with pytest.raises(sinew.OutsideDomainError, match="bone 1"):
        sinew.auto_weights(v, t, joints, bones, handle_outside="refuse")


def test_inside_out_soup_binds_as_the_mesh():
    v, t, joints, bones = limb()
    j1, w1, _ = sinew.auto_weights(v, t, joints, bones)
    soup = v[t[:, ::-1]].reshape(-1, 3)                  # every triangle its own vertices, wound inwards
    tris = np.arange(len(soup), dtype=np.uint32).reshape(-1, 3)
    j2, w2, report = sinew.auto_weights(soup, tris, joints, bones)
    assert report["welded_vertex_count"] == len(v) and report["flipped_component_count"] == 1
    corners = t[:, ::-1].reshape(-1)
    np.testing.assert_array_equal(j2, j1[corners])
    np.testing.assert_allclose(w2, w1[corners], atol=1e-6)


def test_floating_part_and_flat_art_are_weighted():
    v, t, joints, bones = limb()
    bead_v, bead_t = ellipsoid((0.0, 0.8, 0.0), (0.05, 0.05, 0.05), 8, 6)
    both_v = np.vstack([v, bead_v])
    both_t = np.vstack([t, bead_t + len(v)])
    j, w, report = sinew.auto_weights(both_v, both_t, joints, bones, influence_count=2)
    check_rows(j, w, 2)
    assert report["unweighted_surface_vertex_count"] == 0 and report["attached_surface_vertex_count"] > 0
    # Flat art in the xy plane: a strip of quads, two bones along it.
    xs, ys = np.meshgrid(np.linspace(0, 2, 21), np.linspace(0, 0.4, 5), indexing="ij")
    flat = np.stack([xs.ravel(), ys.ravel(), np.zeros(xs.size)], axis=1).astype(np.float32)
    quads = [(i * 5 + k, (i + 1) * 5 + k, i * 5 + k + 1, (i + 1) * 5 + k + 1) for i in range(20) for k in range(4)]
    tris = np.array([[a, b, d] for a, b, c, d in quads] + [[a, d, c] for a, b, c, d in quads], np.uint32)
    fj = np.array([[0.2, 0.2, 0], [1.0, 0.2, 0], [1.8, 0.2, 0]], np.float32)
    j, w, report = sinew.auto_weights(flat, tris, fj, [[0, 1], [1, 2]])
    assert report["dimension"] == 2
    check_rows(j, w, 2)


def test_errors_name_python_keywords():
    v, t, joints, bones = limb()
    with pytest.raises(sinew.InvalidArgumentError, match="influence_count"):
        sinew.auto_weights(v, t, joints, bones, influence_count=0)
    with pytest.raises(sinew.InvalidArgumentError, match="handle_outside"):
        sinew.auto_weights(v, t, joints, bones, handle_outside="ignore")
    with pytest.raises(sinew.InvalidArgumentError, match="joint_positions"):
        sinew.auto_weights(v, t, joints[:, :2], bones)
    bad = joints.copy()
    bad[1, 2] = np.nan
    with pytest.raises(sinew.NonFiniteError, match="joint 1"):
        sinew.auto_weights(v, t, bad, bones)


def test_skin_refusal_names_the_python_keyword():
    """The skin's refusal of an all-zero row says what a Python caller passes, not the C constant."""
    joints = np.zeros((3, 1), np.uint32)
    weights = np.array([[1.0], [0.0], [1.0]], np.float32)
    with pytest.raises(sinew.InvalidWeightsError) as caught:
        sinew.Skin(joints, weights, joint_count=1)
    assert "unweighted_joint=" in caught.value.message and "SINEW_" not in caught.value.message
