"""Integer arguments and ranged inputs at the binding's edge: every integer
keyword is range-checked (no value wraps modulo 2^32, none is negative) and
refused with InvalidArgumentError naming the keyword, and a call that reads a
range of rows copies only those rows of an input it cannot read in place."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import sinew
from conftest import grid2d

WRAPS = [2**32 + 1, 2**32 + 5, 2**64, -1]

LIMB_PARENTS = np.array([-1, 0, 1])
LIMB_IB = np.tile(np.eye(4, dtype=np.float32), (3, 1, 1))


@pytest.fixture(scope="module")
def bar():
    bbw = sinew.Bbw(triangles=grid2d(12, 2, 6.0, 1.0), points=np.float32([[0, 0.5, 0], [6, 0.5, 0]]))
    bbw.solve()
    return bbw


def lattice():
    return sinew.Lattice(count=(4, 4, 4))


def soffd():
    driver = np.float32([[0, 0, 0], [1, 0, 0], [0, 1, 0]])
    s = sinew.Soffd(driver, np.uint32([[0, 1, 2]]))
    s.register(np.float32([[0.2, 0.2, 0.1]]))
    return s


# Each case: the keyword the message must name, and a call taking the value.
CASES = {
    "count[0]": lambda v, bbw: sinew.Lattice(count=(v, 4, 4)),
    "order[2]": lambda v, bbw: sinew.Lattice(order=(4, 4, v)),
    "samples_per_axis": lambda v, bbw: lattice().check_folds(samples_per_axis=v),
    "max_triangles": lambda v, bbw: lattice().refine(np.float32([[0.1, 0.1, 0.1], [0.9, 0.1, 0.1], [0.1, 0.9, 0.1]]),
                                                      np.uint32([[0, 1, 2]]), 1e-3, max_triangles=v),
    "max_iterations": lambda v, bbw: bbw.solve(max_iterations=v),
    "coarse_levels": lambda v, bbw: bbw.solve(coarse_levels=v),
    "grid_resolution": lambda v, bbw: sinew.Bbw(triangles=grid2d(4, 4, 1.0, 1.0), grid_resolution=v,
                                                points=np.float32([[0.5, 0.5, 0]])),
    "influence_count": lambda v, bbw: bbw.top_k(v),
    "iterations": lambda v, bbw: sinew.BbwPose(bbw).solve({0: np.eye(4, dtype=np.float32)}, iterations=v),
    "cluster_count": lambda v, bbw: sinew.BbwPose(bbw, cluster_count=v),
    "joint": lambda v, bbw: sinew.bone_links(LIMB_PARENTS, LIMB_IB, v, [[0, 1]], [[0.5, 0.5]]),
    "link_count": lambda v, bbw: sinew.bone_links(LIMB_PARENTS, LIMB_IB, 1, [[0, 1]], [[0.5, 0.5]], link_count=v),
    "joint_count": lambda v, bbw: sinew.Skin(np.uint32([[0]]), np.float32([[1]]), joint_count=v),
    "max_contributors": lambda v, bbw: soffd().register(np.float32([[0.2, 0.2, 0.1]]), max_contributors=v),
    "point": lambda v, bbw: soffd().contributors(v),
    "vertex": lambda v, bbw: sinew.Skin(np.uint32([[0]]), np.float32([[1]])).vertex_influences(v),
}


# Counts and element numbers are size_t: 2^32 + 1 is theirs to judge (past
# the element count, or too large), 2^64 and -1 are refused at the edge.
SIZE_KEYWORDS = {"joint_count", "max_triangles", "point", "vertex"}


@pytest.mark.parametrize("keyword", sorted(CASES))
@pytest.mark.parametrize("value", WRAPS)
def test_integers_out_of_range_are_refused_naming_the_keyword(bar, keyword, value):
    if keyword in SIZE_KEYWORDS and 0 <= value < 2**63:
        try:
            CASES[keyword](value, bar)  # a cap of 2^32 + 1 triangles is a cap
        except sinew.Error as error:
            assert str(value) in str(error)  # judged whole, not wrapped
        return
    expected = sinew.IndexOutOfRangeError if keyword in ("point", "vertex") else sinew.InvalidArgumentError
    with pytest.raises(expected, match=r"^" + keyword.replace("[", r"\[").replace("]", r"\]") + r": expected "):
        CASES[keyword](value, bar)


def test_in_range_integers_still_work(bar):
    # The edge of uint32 is taken (and then judged by the library, not wrapped).
    with pytest.raises(sinew.Error) as caught:
        sinew.Lattice(count=(2**32 - 1, 4, 4))
    assert "4294967295 control points" in str(caught.value)
    # numpy integers are integers.
    joints, weights = bar.top_k(np.int64(2))
    assert joints.shape[1] == 2
    # Floats are not.
    with pytest.raises(sinew.InvalidArgumentError, match=r"^influence_count: expected an int, got 2.5"):
        sinew._sinew.bbw_top_k(bar._handle, None, 2.5)


def test_pose_iterations_minus_one_returns():
    # Was 4,294,967,295 iterations with the GIL released: a call that never returned.
    bbw = sinew.Bbw(triangles=grid2d(4, 1, 2.0, 0.5), points=np.float32([[0, 0.25, 0], [2, 0.25, 0]]))
    bbw.solve()
    with pytest.raises(sinew.InvalidArgumentError, match="iterations"):
        sinew.BbwPose(bbw).solve({0: np.eye(4, dtype=np.float32)}, iterations=-1)


RANGED_SCRIPT = textwrap.dedent("""
    import resource, sys
    import numpy as np
    import sinew
    def rss_mib():
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    lattice = sinew.Lattice(count=(4, 4, 4))
    lattice.set_displacements(np.random.default_rng(1).normal(0, 0.05, (64, 3)).astype(np.float32))
    p = np.float32([0.25, 0.5, 0.75])
    big = np.broadcast_to(p, (2**26, 3))  # 768 MiB as packed float32, 12 bytes of memory here
    before = rss_mib()
    out = lattice.deform(big, first=5, count=4)
    grown = rss_mib() - before
    expect = lattice.deform(np.tile(p, (4, 1)))
    assert np.array_equal(out[5:9], expect), (out[5:9], expect)
    print(grown)
""")


def test_a_ranged_call_copies_only_its_rows():
    env = dict(os.environ)
    env.pop("MALLOC_PERTURB_", None)  # meson's malloc fill touches every page allocated
    result = subprocess.run([sys.executable, "-c", RANGED_SCRIPT], capture_output=True, text=True, env=env,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    grown = float(result.stdout.split()[-1])
    # Copying the whole input grows the resident set by 768 MiB; 4 rows need a few pages.
    assert grown < 64, f"resident set grew by {grown:.0f} MiB"


def test_ranged_inputs_of_every_kind_give_the_rows_of_a_packed_copy(bar):
    rng = np.random.default_rng(3)
    # A float64 input (always converted) against its float32 copy, range [3, 7).
    pts = rng.uniform(0.1, 0.9, (10, 3))
    lat = lattice()
    lat.set_displacements(rng.normal(0, 0.05, (64, 3)).astype(np.float32))
    whole = lat.deform(pts.astype(np.float32))
    part = lat.deform(pts, first=3, count=4)
    np.testing.assert_array_equal(part[3:7], whole[3:7])
    params_whole = lat.evaluate(pts.astype(np.float32))
    params_part = lat.evaluate(pts, first=3, count=4)
    np.testing.assert_array_equal(params_part[3:7], params_whole[3:7])
    # BBW at points.
    q = rng.uniform(0.1, 0.9, (10, 3)) * [6, 1, 0]
    w_whole = bar.point_weights(q.astype(np.float32))
    w_part = bar.point_weights(q, first=2, count=5)
    np.testing.assert_array_equal(w_part[2:7], w_whole[2:7])
    j_whole, k_whole = bar.top_k(2, points=q.astype(np.float32))
    j_part, k_part = bar.top_k(2, points=q, first=2, count=5)
    np.testing.assert_array_equal(j_part[2:7], j_whole[2:7])
    np.testing.assert_array_equal(k_part[2:7], k_whole[2:7])
    # Skin positions.
    skin = sinew.Skin(np.uint32([[0, 1]] * 10), np.float32([[0.25, 0.75]] * 10))
    palette = skin.palette(np.stack([np.eye(4), np.diag([2, 1, 1, 1])]).astype(np.float32))
    full = skin.deform(palette, pts.astype(np.float32))[0]
    ranged = skin.deform(palette, pts, first=4, count=3)[0]
    np.testing.assert_array_equal(ranged[4:7], full[4:7])
