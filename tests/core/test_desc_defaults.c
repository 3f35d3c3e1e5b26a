/* The resolved-defaults queries (docs/api.md, Defaults): each reports the
 * documented values for a zero desc, passes given fields through, writes no
 * further than the caller's struct_size, and a call given the query's output
 * does exactly what the same call given zeros does (bit for bit). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "support.h"

/* ---- documented values --------------------------------------------------- */

static void zero_descs_resolve_to_the_documented_defaults(void **state)
{
    (void)state;
    sinew_bbw_desc b;
    SINEW_INIT(&b);
    assert_int_equal(sinew_bbw_desc_defaults(NULL, &b), SINEW_OK);
    assert_int_equal(b.grid_resolution, 32);
    assert_true(b.handle_tolerance == 1e-4f);
    assert_null(b.triangles);

    sinew_bbw_solve_desc s;
    SINEW_INIT(&s);
    assert_int_equal(sinew_bbw_solve_desc_defaults(NULL, &s), SINEW_OK);
    assert_true(s.tolerance == 1e-4);
    assert_int_equal(s.max_iterations, 5000);
    assert_true(s.penalty == 0.03);
    assert_true(s.shape_strength == 0.0);   /* no mask: no strength */
    assert_int_equal(s.coarse_levels, 0);     /* automatic is a mode, not a value */

    sinew_bbw_auto_desc ad;
    SINEW_INIT(&ad);
    assert_int_equal(sinew_bbw_auto_desc_defaults(NULL, &ad), SINEW_OK);
    assert_int_equal(ad.influence_count, 4);
    assert_int_equal(ad.grid_resolution, 32);
    assert_true(ad.tolerance == SINEW_BBW_AUTO_TOLERANCE);
    assert_int_equal(ad.max_iterations, 5000);
    assert_int_equal(ad.handle_outside, SINEW_BBW_OUTSIDE_CLIP);

    sinew_bbw_pose_desc pd;
    SINEW_INIT(&pd);
    assert_int_equal(sinew_bbw_pose_desc_defaults(NULL, &pd), SINEW_OK);
    assert_int_equal(pd.cluster_count, 0);   /* follows from the domain and the handles */
    assert_int_equal(pd.transform, SINEW_BBW_POSE_AFFINE);

    sinew_bbw_pose_solve_desc ps;
    SINEW_INIT(&ps);
    assert_int_equal(sinew_bbw_pose_solve_desc_defaults(NULL, &ps), SINEW_OK);
    assert_int_equal(ps.iterations, 5);
    assert_int_equal(ps.cold_start, 0);

    sinew_skin_desc sk;
    SINEW_INIT(&sk);
    assert_int_equal(sinew_skin_desc_defaults(NULL, &sk), SINEW_OK);
    assert_true(sk.weight_tolerance == 1e-3f);   /* float weights */
    assert_int_equal(sk.joint_type, SINEW_INDEX_U32);
    assert_int_equal(sk.blend, SINEW_SKIN_BLEND_LINEAR);
    assert_int_equal(sk.kernel, SINEW_SKIN_KERNEL_AUTO);

    sinew_skin_capsule_desc cap;
    SINEW_INIT(&cap);
    assert_int_equal(sinew_skin_capsule_desc_defaults(NULL, &cap), SINEW_OK);
    assert_int_equal(cap.influence_count, 4);
    assert_true(cap.falloff == 0.5f && cap.radius_quantile == 0.9f);
    assert_int_equal(cap.scoring, SINEW_SKIN_CAPSULE_SCORE_BLEND);

    sinew_skin_smooth_desc sm;
    SINEW_INIT(&sm);
    assert_int_equal(sinew_skin_smooth_desc_defaults(NULL, &sm), SINEW_OK);
    assert_int_equal(sm.iterations, 3);
    assert_true(sm.strength == 0.5f);

    sinew_skin_line_desc ln;
    SINEW_INIT(&ln);
    assert_int_equal(sinew_skin_line_desc_defaults(NULL, &ln), SINEW_OK);
    assert_int_equal(ln.influence_count, 4);
    assert_true(ln.blend == 0.2f);
    assert_true(ln.max_distance == 0.0f);   /* no limit: a mode */

    sinew_skin_example_desc ex;
    SINEW_INIT(&ex);
    assert_int_equal(sinew_skin_example_desc_defaults(NULL, &ex), SINEW_OK);
    assert_int_equal(ex.influence_count, 4);
    assert_int_equal(ex.max_subsets, 70);
    assert_int_equal(ex.candidate_count, 0);   /* every joint: a mode */

    sinew_skin_links_desc lk;
    SINEW_INIT(&lk);
    assert_int_equal(sinew_skin_links_desc_defaults(NULL, &lk), SINEW_OK);
    assert_true(fabs(lk.max_link_angle - 3.14159265358979 / 3.0) < 1e-7);   /* 60 degrees */
    assert_int_equal(lk.link_count, 0);   /* no range_of_motion: nothing to derive it from */

    sinew_corrective_desc co;
    SINEW_INIT(&co);
    assert_int_equal(sinew_corrective_desc_defaults(NULL, &co), SINEW_OK);
    assert_true(co.radius == 0.0);      /* measured on the poses */
    assert_true(co.smoothing == 0.0);   /* none: a value */
    assert_int_equal(co.kernel, SINEW_CORRECTIVE_KERNEL_GAUSSIAN);
    assert_int_equal(co.pose_size, 0);

    sinew_lattice_desc l;
    SINEW_INIT(&l);
    assert_int_equal(sinew_lattice_desc_defaults(NULL, &l), SINEW_OK);
    for (int a = 0; a < 3; ++a) {
        assert_int_equal(l.order[a], 4);
        assert_int_equal(l.count[a], 4);
        assert_true(l.extents[a] == 1.0f);
        for (int c = 0; c < 3; ++c) assert_true(l.axes[a][c] == (a == c ? 1.0f : 0.0f));
    }

    sinew_placement_desc p;
    SINEW_INIT(&p);
    assert_int_equal(sinew_placement_desc_defaults(NULL, &p), SINEW_OK);
    assert_int_equal(p.path_order, 4);
    assert_true(p.view[0] == 0.0f && p.view[1] == 0.0f && p.view[2] == -1.0f);
    assert_int_equal(p.count[0], 24);
    assert_int_equal(p.count[1], 6);
    assert_int_equal(p.count[2], 4);
    assert_int_equal(p.oversample, 8);

    sinew_placement_relax_desc r;
    SINEW_INIT(&r);
    assert_int_equal(sinew_placement_relax_desc_defaults(NULL, &r), SINEW_OK);
    assert_true(r.stiffness == 1.0f && r.mass == 1.0f && r.damping == 1.0f);
    assert_true(r.angle_degrees == 10.0f);
    assert_int_equal(r.neighbourhood, 1);
    assert_int_equal(r.max_steps, 20000);

    sinew_soffd_desc o;
    SINEW_INIT(&o);
    assert_int_equal(sinew_soffd_desc_defaults(NULL, &o), SINEW_OK);
    assert_true(o.local == 8.0f);
    assert_true(o.length_scale == 0.0f);   /* depends on the driver */

    sinew_soffd_register_desc rd;
    SINEW_INIT(&rd);
    assert_int_equal(sinew_soffd_register_desc_defaults(NULL, &rd), SINEW_OK);
    assert_true(rd.weight_threshold == 1e-3f);
    assert_int_equal(rd.max_contributors, 4); /* the 4 nearest, faded */
    assert_true(rd.max_distance == 0.0f);  /* no limit is a mode, not a value */
    assert_int_equal(rd.exact, 0);
    sinew_soffd_register_desc exact;
    SINEW_INIT(&exact);
    exact.exact = 1;                        /* no threshold and no cap: both stay 0 */
    assert_int_equal(sinew_soffd_register_desc_defaults(&exact, &rd), SINEW_OK);
    assert_true(rd.weight_threshold == 0.0f);
    assert_int_equal(rd.max_contributors, 0);
    assert_int_equal(rd.exact, 1);
}

static void given_fields_pass_through_and_dependent_defaults_follow(void **state)
{
    (void)state;
    sinew_bbw_solve_desc s, rs;
    SINEW_INIT(&s);
    SINEW_INIT(&rs);
    static const float mask[2] = {1, 0};
    s.tolerance = 1e-6;
    s.shape_mask = mask;
    s.shape_mask_count = 2;
    assert_int_equal(sinew_bbw_solve_desc_defaults(&s, &rs), SINEW_OK);
    assert_true(rs.tolerance == 1e-6);
    assert_true(rs.shape_mask == mask);
    assert_int_equal(rs.shape_mask_count, 2);
    assert_true(rs.shape_strength == 1.0);   /* with a mask */
    assert_int_equal(rs.max_iterations, 5000);

    sinew_bbw_auto_desc a, ra;
    SINEW_INIT(&a);
    SINEW_INIT(&ra);
    a.influence_count = 7;
    a.max_iterations = 12;
    assert_int_equal(sinew_bbw_auto_desc_defaults(&a, &ra), SINEW_OK);
    assert_int_equal(ra.influence_count, 7);
    assert_int_equal(ra.max_iterations, 12);
    assert_int_equal(ra.grid_resolution, 32);

    /* Clusters: min(elements, max(16, 5 * handles)), once both are known. */
    sinew_trimesh tm = {{NULL, 0, 0}, NULL, 100, SINEW_INDEX_U32, 0};
    sinew_bbw_pose_desc pd, rpd;
    SINEW_INIT(&pd);
    SINEW_INIT(&rpd);
    pd.handle_count = 3;
    assert_int_equal(sinew_bbw_pose_desc_defaults(&pd, &rpd), SINEW_OK);
    assert_int_equal(rpd.cluster_count, 0);   /* no domain */
    pd.triangles = &tm;
    assert_int_equal(sinew_bbw_pose_desc_defaults(&pd, &rpd), SINEW_OK);
    assert_int_equal(rpd.cluster_count, 16);
    pd.handle_count = 7;
    assert_int_equal(sinew_bbw_pose_desc_defaults(&pd, &rpd), SINEW_OK);
    assert_int_equal(rpd.cluster_count, 35);
    pd.handle_count = 30;
    assert_int_equal(sinew_bbw_pose_desc_defaults(&pd, &rpd), SINEW_OK);
    assert_int_equal(rpd.cluster_count, 100);   /* one per element */
    pd.cluster_count = 9;
    pd.transform = SINEW_BBW_POSE_SIMILARITY;
    assert_int_equal(sinew_bbw_pose_desc_defaults(&pd, &rpd), SINEW_OK);
    assert_int_equal(rpd.cluster_count, 9);
    assert_int_equal(rpd.transform, SINEW_BBW_POSE_SIMILARITY);
    assert_ptr_equal(rpd.triangles, &tm);

    sinew_bbw_pose_solve_desc ps, rps;
    SINEW_INIT(&ps);
    SINEW_INIT(&rps);
    ps.iterations = 2;
    ps.cold_start = 1;
    assert_int_equal(sinew_bbw_pose_solve_desc_defaults(&ps, &rps), SINEW_OK);
    assert_int_equal(rps.iterations, 2);
    assert_int_equal(rps.cold_start, 1);

    sinew_skin_desc sk, rsk;
    SINEW_INIT(&sk);
    SINEW_INIT(&rsk);
    sk.weight_type = SINEW_SKIN_WEIGHT_UNORM8;
    assert_int_equal(sinew_skin_desc_defaults(&sk, &rsk), SINEW_OK);
    assert_true(rsk.weight_tolerance == 0.0f);   /* a rule on each vertex's raw sum, not one number */
    sk.weight_type = SINEW_SKIN_WEIGHT_F32;
    sk.weight_tolerance = 0.01f;
    sk.vertex_count = 5;
    assert_int_equal(sinew_skin_desc_defaults(&sk, &rsk), SINEW_OK);
    assert_true(rsk.weight_tolerance == 0.01f);
    assert_int_equal(rsk.vertex_count, 5);

    sinew_skin_capsule_desc cap, rcap;
    SINEW_INIT(&cap);
    SINEW_INIT(&rcap);
    cap.falloff = 2.0f;
    cap.unbound = SINEW_SKIN_UNBOUND_NEAREST;
    assert_int_equal(sinew_skin_capsule_desc_defaults(&cap, &rcap), SINEW_OK);
    assert_true(rcap.falloff == 2.0f && rcap.radius_quantile == 0.9f);
    assert_int_equal(rcap.unbound, SINEW_SKIN_UNBOUND_NEAREST);

    sinew_skin_smooth_desc sm, rsm;
    SINEW_INIT(&sm);
    SINEW_INIT(&rsm);
    sm.iterations = 11;
    assert_int_equal(sinew_skin_smooth_desc_defaults(&sm, &rsm), SINEW_OK);
    assert_int_equal(rsm.iterations, 11);
    assert_true(rsm.strength == 0.5f);

    sinew_skin_line_desc ln, rln;
    SINEW_INIT(&ln);
    SINEW_INIT(&rln);
    ln.influence_count = 2;
    ln.max_distance = 3.0f;
    assert_int_equal(sinew_skin_line_desc_defaults(&ln, &rln), SINEW_OK);
    assert_int_equal(rln.influence_count, 2);
    assert_true(rln.max_distance == 3.0f && rln.blend == 0.2f);

    sinew_skin_example_desc ex, rex;
    SINEW_INIT(&ex);
    SINEW_INIT(&rex);
    ex.max_subsets = 1;
    assert_int_equal(sinew_skin_example_desc_defaults(&ex, &rex), SINEW_OK);
    assert_int_equal(rex.max_subsets, 1);
    assert_int_equal(rex.influence_count, 4);

    /* Links: ceil(range / angle), a whole number of steps exactly. */
    sinew_skin_links_desc lk, rlk;
    SINEW_INIT(&lk);
    SINEW_INIT(&rlk);
    lk.range_of_motion = 3.14159265f;   /* 180 degrees in 60-degree links */
    assert_int_equal(sinew_skin_links_desc_defaults(&lk, &rlk), SINEW_OK);
    assert_int_equal(rlk.link_count, 3);
    lk.max_link_angle = 0.5f;
    lk.range_of_motion = 1.2f;
    assert_int_equal(sinew_skin_links_desc_defaults(&lk, &rlk), SINEW_OK);
    assert_int_equal(rlk.link_count, 3);
    assert_true(rlk.max_link_angle == 0.5f);
    lk.max_link_angle = 0.01f;   /* 120 links: above SINEW_SKIN_MAX_LINKS, left to the call to refuse */
    assert_int_equal(sinew_skin_links_desc_defaults(&lk, &rlk), SINEW_OK);
    assert_int_equal(rlk.link_count, 0);
    lk.link_count = 7;
    assert_int_equal(sinew_skin_links_desc_defaults(&lk, &rlk), SINEW_OK);
    assert_int_equal(rlk.link_count, 7);

    sinew_corrective_desc co, rco;
    SINEW_INIT(&co);
    SINEW_INIT(&rco);
    co.kernel = SINEW_CORRECTIVE_KERNEL_WEIGHTS;
    co.key_count = 6;
    co.radius = 0.25;
    assert_int_equal(sinew_corrective_desc_defaults(&co, &rco), SINEW_OK);
    assert_int_equal(rco.pose_size, 6);   /* the pose is the key weights */
    assert_true(rco.radius == 0.25);
    co.pose_size = 2;   /* ignored by WEIGHTS, but given: passed through */
    assert_int_equal(sinew_corrective_desc_defaults(&co, &rco), SINEW_OK);
    assert_int_equal(rco.pose_size, 2);

    sinew_lattice_desc l, rl;
    SINEW_INIT(&l);
    SINEW_INIT(&rl);
    l.order[1] = 2;
    l.count[2] = 9;
    l.extents[0] = 3.0f;   /* one extent given: the others stay 0 (create refuses them) */
    assert_int_equal(sinew_lattice_desc_defaults(&l, &rl), SINEW_OK);
    assert_int_equal(rl.order[0], 4);
    assert_int_equal(rl.order[1], 2);
    assert_int_equal(rl.count[1], 2);   /* count 0 = the axis' order */
    assert_int_equal(rl.count[2], 9);
    assert_true(rl.extents[0] == 3.0f && rl.extents[1] == 0.0f);

    sinew_placement_relax_desc r, rr;
    SINEW_INIT(&r);
    SINEW_INIT(&rr);
    r.stiffness = 2.0f;
    r.mass = 0.5f;
    assert_int_equal(sinew_placement_relax_desc_defaults(&r, &rr), SINEW_OK);
    assert_true(rr.damping == 2.0f);   /* sqrt(k / M) */

    sinew_placement_desc p, rp;
    SINEW_INIT(&p);
    SINEW_INIT(&rp);
    p.order[2] = 3;
    p.view[0] = 1.0f;
    assert_int_equal(sinew_placement_desc_defaults(&p, &rp), SINEW_OK);
    assert_int_equal(rp.count[2], 3);   /* w count 0 = the w order */
    assert_true(rp.view[0] == 1.0f && rp.view[2] == 0.0f);
}

static void resolved_structs_follow_the_struct_rules(void **state)
{
    (void)state;
    assert_int_equal(sinew_soffd_desc_defaults(NULL, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(sinew_last_error(), "resolved"));
    sinew_soffd_desc zeroed;
    memset(&zeroed, 0, sizeof zeroed);
    assert_int_equal(sinew_soffd_desc_defaults(NULL, &zeroed), SINEW_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(sinew_last_error(), "SINEW_INIT"));
    /* An older, smaller resolved struct is written no further than its size. */
    union {
        sinew_placement_relax_desc d;
        unsigned char bytes[sizeof(sinew_placement_relax_desc)];
    } old;
    memset(&old, 0x5a, sizeof old);
    old.d.struct_size = offsetof(sinew_placement_relax_desc, angle_degrees);
    assert_int_equal(sinew_placement_relax_desc_defaults(NULL, &old.d), SINEW_OK);
    assert_int_equal(old.d.struct_size, offsetof(sinew_placement_relax_desc, angle_degrees));
    assert_true(old.d.stiffness == 1.0f && old.d.damping == 1.0f);
    for (size_t i = offsetof(sinew_placement_relax_desc, angle_degrees); i < sizeof old; ++i)
        assert_int_equal(old.bytes[i], 0x5a);
    /* A desc with an unknown nonzero byte beyond the library's struct. */
    struct {
        sinew_soffd_desc d;
        uint32_t extra;
    } newer;
    memset(&newer, 0, sizeof newer);
    newer.d.struct_size = sizeof newer;
    newer.extra = 1;
    sinew_soffd_desc out;
    SINEW_INIT(&out);
    assert_int_equal(sinew_soffd_desc_defaults(&newer.d, &out), SINEW_ERROR_UNSUPPORTED);
}

/* ---- the calls use what the queries report -------------------------------- */

static void lattice_from_the_resolved_desc_is_the_same(void **state)
{
    (void)state;
    sinew_lattice_desc zero, resolved;
    SINEW_INIT(&zero);
    SINEW_INIT(&resolved);
    zero.count[0] = 6;
    assert_int_equal(sinew_lattice_desc_defaults(&zero, &resolved), SINEW_OK);
    sinew_lattice *a = NULL, *b = NULL;
    assert_int_equal(sinew_lattice_create(NULL, &zero, &a), SINEW_OK);
    assert_int_equal(sinew_lattice_create(NULL, &resolved, &b), SINEW_OK);
    sinew_lattice_info ia, ib;
    SINEW_INIT(&ia);
    SINEW_INIT(&ib);
    assert_int_equal(sinew_lattice_get_info(a, &ia), SINEW_OK);
    assert_int_equal(sinew_lattice_get_info(b, &ib), SINEW_OK);
    assert_memory_equal(&ia, &ib, sizeof ia);
    /* The same deformation, bit for bit, under the same displacement. */
    float move[3] = {0.1f, -0.2f, 0.3f}, pa[3 * 4], pb[3 * 4];
    sinew_points d = {move, 1, 0};
    assert_int_equal(sinew_lattice_set_displacements(a, &d, 7, 1), SINEW_ERROR_INDEX_OUT_OF_RANGE);
    d.count = 8;
    float moves[3 * 8];
    for (int i = 0; i < 24; ++i) moves[i] = move[i % 3] * (float)(i + 1) / 24.0f;
    d.data = moves;
    assert_int_equal(sinew_lattice_set_displacements(a, &d, 0, 8), SINEW_OK);
    assert_int_equal(sinew_lattice_set_displacements(b, &d, 0, 8), SINEW_OK);
    const float pts[3 * 4] = {0.1f, 0.2f, 0.3f, 0.5f, 0.5f, 0.5f, 0.9f, 0.1f, 0.7f, 0.3f, 0.8f, 0.2f};
    sinew_points in = {pts, 4, 0};
    assert_int_equal(sinew_lattice_deform(a, &in, NULL, pa, 0, NULL, 0, 0, 4), SINEW_OK);
    assert_int_equal(sinew_lattice_deform(b, &in, NULL, pb, 0, NULL, 0, 0, 4), SINEW_OK);
    assert_memory_equal(pa, pb, sizeof pa);
    sinew_lattice_destroy(a);
    sinew_lattice_destroy(b);
}

/* The floor z = 0 over [-10, 10]^2 with a path along x, 5 above it. */
static sinew_placement *placement_over_floor(const sinew_placement_desc *given)
{
    static const float floor_v[12] = {-10, -10, 0, 10, -10, 0, 10, 10, 0, -10, 10, 0};
    static const uint32_t floor_t[6] = {0, 1, 2, 0, 2, 3};
    static const float path[6] = {-4, 0, 5, 4, 0, 5};
    sinew_placement_desc d = *given;
    d.path = (sinew_points){path, 2, 0};
    d.width = 1.0f;
    d.height = 1.0f;
    d.scene = (sinew_trimesh){{floor_v, 4, 0}, floor_t, 2, SINEW_INDEX_U32, 0};
    sinew_placement *p = NULL;
    assert_int_equal(sinew_placement_create(NULL, &d, &p), SINEW_OK);
    return p;
}

static float *control_points(const sinew_placement *p, size_t *n)
{
    sinew_lattice_info info;
    SINEW_INIT(&info);
    assert_int_equal(sinew_lattice_get_info(sinew_placement_lattice(p), &info), SINEW_OK);
    float *pts = malloc(3 * info.point_count * sizeof(float));
    assert_non_null(pts);
    assert_int_equal(sinew_lattice_points(sinew_placement_lattice(p), pts, 0, 0, info.point_count), SINEW_OK);
    *n = info.point_count;
    return pts;
}

static void placement_and_relax_from_resolved_descs_are_the_same(void **state)
{
    (void)state;
    sinew_placement_desc zero, resolved;
    SINEW_INIT(&zero);
    SINEW_INIT(&resolved);
    assert_int_equal(sinew_placement_desc_defaults(&zero, &resolved), SINEW_OK);
    sinew_placement *a = placement_over_floor(&zero), *b = placement_over_floor(&resolved);
    sinew_placement_relax_desc rz, rr;
    SINEW_INIT(&rz);
    SINEW_INIT(&rr);
    rz.stiffness = 3.0f;   /* a damping default that is not 1 */
    assert_int_equal(sinew_placement_relax_desc_defaults(&rz, &rr), SINEW_OK);
    sinew_placement_relax_report ra, rb;
    SINEW_INIT(&ra);
    SINEW_INIT(&rb);
    assert_int_equal(sinew_placement_push(a, 3, 2, 0.5f), SINEW_OK);
    assert_int_equal(sinew_placement_push(b, 3, 2, 0.5f), SINEW_OK);
    sinew_result r1 = sinew_placement_relax(NULL, a, &rz, &ra), r2 = sinew_placement_relax(NULL, b, &rr, &rb);
    assert_int_equal(r1, r2);
    assert_int_equal(ra.steps, rb.steps);
    assert_true(ra.steps > 0);
    size_t na, nb;
    float *pa = control_points(a, &na), *pb = control_points(b, &nb);
    assert_int_equal(na, nb);
    assert_memory_equal(pa, pb, 3 * na * sizeof(float));
    free(pa);
    free(pb);
    sinew_placement_destroy(a);
    sinew_placement_destroy(b);
}

static void soffd_from_the_resolved_desc_is_the_same(void **state)
{
    (void)state;
    static const float quad[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0};
    static const uint32_t idx[] = {0, 1, 2, 2, 1, 3};
    sinew_polymesh m = {{quad, 4, 0}, idx, NULL, 2, SINEW_INDEX_U32};
    sinew_soffd_desc resolved;
    SINEW_INIT(&resolved);
    assert_int_equal(sinew_soffd_desc_defaults(NULL, &resolved), SINEW_OK);
    sinew_soffd *a = NULL, *b = NULL;
    assert_int_equal(sinew_soffd_create(NULL, &m, NULL, &a), SINEW_OK);
    assert_int_equal(sinew_soffd_create(NULL, &m, &resolved, &b), SINEW_OK);
    const float pts[] = {0.2f, 0.2f, 0.4f, 0.9f, 0.6f, -0.3f, 2.0f, 2.0f, 1.0f};
    sinew_points s = {pts, 3, 0};
    assert_int_equal(sinew_soffd_register(NULL, a, &s, NULL), SINEW_OK);
    assert_int_equal(sinew_soffd_register(NULL, b, &s, NULL), SINEW_OK);
    const float bent[] = {0, 0, 0, 1, 0, 0.3f, 0, 1, 0, 1, 1, 0.6f};
    sinew_points d = {bent, 4, 0};
    float fa[32], fb[32], oa[9], ob[9];
    assert_int_equal(sinew_soffd_element_frames(a, &d, fa, 32), SINEW_OK);
    assert_int_equal(sinew_soffd_element_frames(b, &d, fb, 32), SINEW_OK);
    assert_int_equal(sinew_soffd_deform(a, fa, 32, NULL, oa, 0, NULL, 0, 0, 3), SINEW_OK);
    assert_int_equal(sinew_soffd_deform(b, fb, 32, NULL, ob, 0, NULL, 0, 0, 3), SINEW_OK);
    assert_memory_equal(oa, ob, sizeof oa);
    sinew_soffd_destroy(a);
    sinew_soffd_destroy(b);
}

enum { GRID = 8, GRID_VERTICES = (GRID + 1) * (GRID + 1), GRID_TRIANGLES = 2 * GRID * GRID };

/* The unit square as an 8 x 8 grid of split cells. */
static sinew_trimesh unit_square_grid(void)
{
    static float positions[3 * GRID_VERTICES];
    static uint32_t triangles[3 * GRID_TRIANGLES];
    for (uint32_t j = 0; j <= GRID; ++j)
        for (uint32_t i = 0; i <= GRID; ++i) {
            float *v = &positions[3 * (j * (GRID + 1) + i)];
            v[0] = (float)i / GRID, v[1] = (float)j / GRID, v[2] = 0.0f;
        }
    for (uint32_t j = 0, t = 0; j < GRID; ++j)
        for (uint32_t i = 0; i < GRID; ++i, t += 6) {
            uint32_t a = j * (GRID + 1) + i, b = a + 1, c = a + GRID + 1, d = c + 1;
            const uint32_t cell[6] = {a, b, d, a, d, c};
            memcpy(&triangles[t], cell, sizeof cell);
        }
    return (sinew_trimesh){{positions, GRID_VERTICES, 0}, triangles, GRID_TRIANGLES, SINEW_INDEX_U32, 0};
}

/* Three point handles at grid vertices. */
static const uint32_t grid_handles[3] = {1 * (GRID + 1) + 1, 2 * (GRID + 1) + 7, 7 * (GRID + 1) + 3};

static void bbw_from_resolved_descs_is_the_same(void **state)
{
    (void)state;
    sinew_trimesh tm = unit_square_grid();
    const float *positions = tm.positions.data;
    float pts[9];
    for (int h = 0; h < 3; ++h) memcpy(pts + 3 * h, positions + 3 * grid_handles[h], 3 * sizeof(float));
    sinew_bbw_desc zero, resolved;
    SINEW_INIT(&zero);
    zero.triangles = &tm;
    zero.points = (sinew_points){pts, 3, 0};
    SINEW_INIT(&resolved);
    assert_int_equal(sinew_bbw_desc_defaults(&zero, &resolved), SINEW_OK);
    assert_ptr_equal(resolved.triangles, &tm);
    sinew_bbw *a = NULL, *b = NULL;
    assert_int_equal(sinew_bbw_create(NULL, &zero, &a), SINEW_OK);
    assert_int_equal(sinew_bbw_create(NULL, &resolved, &b), SINEW_OK);
    sinew_bbw_solve_desc sz, sr;
    SINEW_INIT(&sz);
    SINEW_INIT(&sr);
    assert_int_equal(sinew_bbw_solve_desc_defaults(&sz, &sr), SINEW_OK);
    assert_int_equal(sinew_bbw_solve(NULL, a, &sz), SINEW_OK);
    assert_int_equal(sinew_bbw_solve(NULL, b, &sr), SINEW_OK);
    sinew_bbw_info ia, ib;
    SINEW_INIT(&ia);
    SINEW_INIT(&ib);
    assert_int_equal(sinew_bbw_get_info(a, &ia), SINEW_OK);
    assert_int_equal(sinew_bbw_get_info(b, &ib), SINEW_OK);
    assert_int_equal(ia.iterations, ib.iterations);
    assert_int_equal(ia.vertex_count, ib.vertex_count);
    size_t n = ia.vertex_count * 3;
    float *wa = malloc(n * sizeof(float)), *wb = malloc(n * sizeof(float));
    assert_non_null(wa);
    assert_non_null(wb);
    assert_int_equal(sinew_bbw_vertex_weights(a, wa, 0, ia.vertex_count), SINEW_OK);
    assert_int_equal(sinew_bbw_vertex_weights(b, wb, 0, ib.vertex_count), SINEW_OK);
    assert_memory_equal(wa, wb, n * sizeof(float));
    free(wa);
    free(wb);
    sinew_bbw_destroy(a);
    sinew_bbw_destroy(b);
}

static void bbw_auto_from_the_resolved_desc_is_the_same(void **state)
{
    (void)state;
    /* The flat grid in the xz plane: weighted as the 2D domain it is. */
    sinew_trimesh grid = unit_square_grid();
    static float xz[3 * GRID_VERTICES];
    for (size_t v = 0; v < GRID_VERTICES; ++v) {
        const float *p = &grid.positions.data[3 * v];
        xz[3 * v] = p[0], xz[3 * v + 1] = 0.0f, xz[3 * v + 2] = p[1];
    }
    sinew_trimesh tm = grid;
    tm.positions.data = xz;
    float pts[9];
    for (int h = 0; h < 3; ++h) memcpy(pts + 3 * h, xz + 3 * grid_handles[h], 3 * sizeof(float));
    sinew_bbw_auto_desc zero, resolved;
    SINEW_INIT(&zero);
    zero.surface = &tm;
    zero.points = (sinew_points){pts, 3, 0};
    SINEW_INIT(&resolved);
    assert_int_equal(sinew_bbw_auto_desc_defaults(&zero, &resolved), SINEW_OK);
    enum { K = 4, ENTRIES = K * GRID_VERTICES };
    uint32_t ja[ENTRIES], jb[ENTRIES];
    float wa[ENTRIES], wb[ENTRIES];
    sinew_bbw_auto_report ra, rb;
    SINEW_INIT(&ra);
    SINEW_INIT(&rb);
    assert_int_equal(sinew_bbw_auto_weights(NULL, &zero, ja, wa, ENTRIES, &ra), SINEW_OK);
    assert_int_equal(sinew_bbw_auto_weights(NULL, &resolved, jb, wb, ENTRIES, &rb), SINEW_OK);
    assert_int_equal(ra.iterations, rb.iterations);
    assert_true(ra.error_bound == rb.error_bound);
    assert_memory_equal(ja, jb, sizeof ja);
    assert_memory_equal(wa, wb, sizeof wa);
}

static void bbw_pose_from_resolved_descs_is_the_same(void **state)
{
    (void)state;
    sinew_trimesh tm = unit_square_grid();
    float pts[9];
    for (int h = 0; h < 3; ++h) memcpy(pts + 3 * h, tm.positions.data + 3 * grid_handles[h], 3 * sizeof(float));
    sinew_bbw_desc bd;
    SINEW_INIT(&bd);
    bd.triangles = &tm;
    bd.points = (sinew_points){pts, 3, 0};
    sinew_bbw *b = NULL;
    assert_int_equal(sinew_bbw_create(NULL, &bd, &b), SINEW_OK);
    assert_int_equal(sinew_bbw_solve(NULL, b, NULL), SINEW_OK);
    static float weights[3 * GRID_VERTICES];
    assert_int_equal(sinew_bbw_vertex_weights(b, weights, 0, GRID_VERTICES), SINEW_OK);
    sinew_bbw_destroy(b);

    sinew_bbw_pose_desc zero, resolved;
    SINEW_INIT(&zero);
    zero.triangles = &tm;
    zero.handle_count = 3;
    zero.weights = weights;
    SINEW_INIT(&resolved);
    assert_int_equal(sinew_bbw_pose_desc_defaults(&zero, &resolved), SINEW_OK);
    assert_int_equal(resolved.cluster_count, 16);   /* fewer than the 128 triangles: clustered */
    sinew_bbw_pose *pa = NULL, *pb = NULL;
    assert_int_equal(sinew_bbw_pose_create(NULL, &zero, &pa), SINEW_OK);
    assert_int_equal(sinew_bbw_pose_create(NULL, &resolved, &pb), SINEW_OK);
    sinew_bbw_pose_info ia, ib;
    SINEW_INIT(&ia);
    SINEW_INIT(&ib);
    assert_int_equal(sinew_bbw_pose_get_info(pa, &ia), SINEW_OK);
    assert_int_equal(sinew_bbw_pose_get_info(pb, &ib), SINEW_OK);
    assert_int_equal(ia.cluster_count, ib.cluster_count);

    /* Handle 0 pinned, handle 2 pulled: the free handle 1 is inferred. */
    sinew_bbw_pose_position pos[2] = {{0, {0}, {0}}, {2, {0}, {0}}};
    memcpy(pos[0].rest, pts, sizeof pos[0].rest);
    memcpy(pos[0].target, pts, sizeof pos[0].target);
    memcpy(pos[1].rest, pts + 6, sizeof pos[1].rest);
    memcpy(pos[1].target, pts + 6, sizeof pos[1].target);
    pos[1].target[0] += 0.3f;
    pos[1].target[1] -= 0.1f;
    sinew_bbw_pose_solve_desc sz, sr;
    SINEW_INIT(&sz);
    sz.positions = pos;
    sz.position_count = 2;
    sz.cold_start = 1;
    SINEW_INIT(&sr);
    assert_int_equal(sinew_bbw_pose_solve_desc_defaults(&sz, &sr), SINEW_OK);
    float ta[48] = {0}, tb[48] = {0};
    size_t scratch_bytes = sinew_bbw_pose_scratch_size(pa, 2);
    assert_int_equal(scratch_bytes, sinew_bbw_pose_scratch_size(pb, 2));
    void *scratch = aligned_alloc(64, (scratch_bytes + 63) / 64 * 64);
    assert_non_null(scratch);
    sinew_bbw_pose_report rza, rzb;
    SINEW_INIT(&rza);
    SINEW_INIT(&rzb);
    assert_int_equal(sinew_bbw_pose_solve(pa, &sz, ta, 48, scratch, scratch_bytes, &rza), SINEW_OK);
    assert_int_equal(sinew_bbw_pose_solve(pb, &sr, tb, 48, scratch, scratch_bytes, &rzb), SINEW_OK);
    assert_int_equal(rza.iterations, 5);
    assert_int_equal(rzb.iterations, 5);
    assert_true(rza.energy == rzb.energy);
    assert_memory_equal(ta, tb, sizeof ta);
    free(scratch);
    sinew_bbw_pose_destroy(pa);
    sinew_bbw_pose_destroy(pb);
}

/* Two joints, three vertices whose float sums are 1 - 4e-4 (accepted and
 * scaled at the default tolerance), 1, and 1 + 2e-3 (refused by it). */
static void skin_from_the_resolved_desc_is_the_same(void **state)
{
    (void)state;
    static const uint32_t joints[6] = {0, 1, 1, 0, 0, 1};
    static const float weights[6] = {0.6f, 0.3996f, 1.0f, 0.0f, 0.502f, 0.5f};
    sinew_skin_desc zero, resolved;
    SINEW_INIT(&zero);
    zero.vertex_count = 2;
    zero.joint_count = 2;
    zero.influence_count = 2;
    zero.joints = joints;
    zero.weights = weights;
    SINEW_INIT(&resolved);
    assert_int_equal(sinew_skin_desc_defaults(&zero, &resolved), SINEW_OK);
    sinew_skin *a = NULL, *b = NULL;
    assert_int_equal(sinew_skin_create(NULL, &zero, &a), SINEW_OK);
    assert_int_equal(sinew_skin_create(NULL, &resolved, &b), SINEW_OK);
    for (size_t v = 0; v < 2; ++v) {
        uint32_t ja[2], jb[2];
        float wa[2], wb[2];
        size_t na = 0, nb = 0;
        assert_int_equal(sinew_skin_vertex_influences(a, v, ja, wa, 2, &na), SINEW_OK);
        assert_int_equal(sinew_skin_vertex_influences(b, v, jb, wb, 2, &nb), SINEW_OK);
        assert_int_equal(na, nb);
        assert_memory_equal(ja, jb, na * sizeof *ja);
        assert_memory_equal(wa, wb, na * sizeof *wa);
    }
    sinew_skin_destroy(a);
    sinew_skin_destroy(b);
    zero.vertex_count = 3;
    resolved.vertex_count = 3;
    sinew_skin *c = NULL;
    assert_int_equal(sinew_skin_create(NULL, &zero, &c), SINEW_ERROR_INVALID_WEIGHTS);
    char message[512];
    strncpy(message, sinew_last_error(), sizeof message - 1);
    message[sizeof message - 1] = '\0';
    assert_int_equal(sinew_skin_create(NULL, &resolved, &c), SINEW_ERROR_INVALID_WEIGHTS);
    assert_string_equal(sinew_last_error(), message);
    assert_null(c);
}

/* Four vertices along x, two bones meeting at x = 1. */
static const float tool_points[12] = {0.1f, 0.05f, 0, 0.9f, 0.1f, 0, 1.15f, -0.1f, 0, 1.8f, 0.2f, 0};

static void capsule_and_line_from_resolved_descs_are_the_same(void **state)
{
    (void)state;
    const sinew_points pts = {tool_points, 4, 0};
    const sinew_skin_capsule caps[2] = {{{0, 0, 0}, {1, 0, 0}, 0.0f, 0}, {{1, 0, 0}, {2, 0, 0}, 0.0f, 1}};
    sinew_skin_capsule_desc cz, cr;
    SINEW_INIT(&cz);
    SINEW_INIT(&cr);
    assert_int_equal(sinew_skin_capsule_desc_defaults(&cz, &cr), SINEW_OK);
    uint32_t ja[16], jb[16];
    float wa[16], wb[16];
    sinew_result r1 = sinew_skin_capsule_weights(NULL, &pts, caps, 2, &cz, ja, wa, NULL);
    sinew_result r2 = sinew_skin_capsule_weights(NULL, &pts, caps, 2, &cr, jb, wb, NULL);
    assert_int_equal(r1, SINEW_OK);
    assert_int_equal(r2, SINEW_OK);
    assert_memory_equal(ja, jb, sizeof ja);
    assert_memory_equal(wa, wb, sizeof wa);

    const sinew_skin_line_bone bones[2] = {{{0, 0, 0}, {1, 0, 0}, 0, SINEW_SKIN_NO_PARENT},
                                           {{1, 0, 0}, {2, 0, 0}, 1, 0}};
    sinew_skin_line_desc lz, lr;
    SINEW_INIT(&lz);
    SINEW_INIT(&lr);
    assert_int_equal(sinew_skin_line_desc_defaults(&lz, &lr), SINEW_OK);
    assert_int_equal(sinew_skin_point_to_line_weights(NULL, &pts, bones, 2, &lz, ja, wa, NULL), SINEW_OK);
    assert_int_equal(sinew_skin_point_to_line_weights(NULL, &pts, bones, 2, &lr, jb, wb, NULL), SINEW_OK);
    assert_memory_equal(ja, jb, sizeof ja);
    assert_memory_equal(wa, wb, sizeof wa);
    /* The vertex 0.15 past the joint is in the default band (0.2 of a bone): blended. */
    assert_true(wa[8] > 0.0f && wa[8] < 1.0f);
}

static void smoothing_from_the_resolved_desc_is_the_same(void **state)
{
    (void)state;
    sinew_trimesh grid = unit_square_grid();
    enum { K = 2 };
    uint32_t ja[K * GRID_VERTICES], jb[K * GRID_VERTICES];
    float wa[K * GRID_VERTICES], wb[K * GRID_VERTICES];
    for (size_t v = 0; v < GRID_VERTICES; ++v) {
        float x = grid.positions.data[3 * v];
        ja[K * v] = 0, ja[K * v + 1] = 1;
        wa[K * v] = x < 0.5f ? 1.0f : 0.0f;   /* a hard step to smooth */
        wa[K * v + 1] = 1.0f - wa[K * v];
    }
    memcpy(jb, ja, sizeof ja);
    memcpy(wb, wa, sizeof wa);
    sinew_skin_smooth_desc sz, sr;
    SINEW_INIT(&sz);
    SINEW_INIT(&sr);
    assert_int_equal(sinew_skin_smooth_desc_defaults(&sz, &sr), SINEW_OK);
    assert_int_equal(sinew_skin_smooth_weights(NULL, &grid, K, ja, wa, &sz), SINEW_OK);
    assert_int_equal(sinew_skin_smooth_weights(NULL, &grid, K, jb, wb, &sr), SINEW_OK);
    assert_memory_equal(ja, jb, sizeof ja);
    assert_memory_equal(wa, wb, sizeof wa);
}

static void example_weights_from_the_resolved_desc_are_the_same(void **state)
{
    (void)state;
    /* Six joints translating by different amounts; the examples are arbitrary
     * moves, so the unconstrained optimum uses more joints than the 4 slots. */
    enum { N = 4, J = 6, E = 3 };
    float matrices[16 * E * J], moved[E][3 * N];
    for (int e = 0; e < E; ++e)
        for (int j = 0; j < J; ++j) {
            float *m = matrices + 16 * (e * J + j);
            memset(m, 0, 16 * sizeof *m);
            m[0] = m[5] = m[10] = m[15] = 1.0f;
            m[12] = (float)((j * 7 + e * 3) % 5) - 2.0f;
            m[13] = (float)((j * 5 + e) % 3) - 1.0f;
            m[14] = (float)((j + 2 * e) % 4) * 0.5f;
        }
    for (int e = 0; e < E; ++e)
        for (int i = 0; i < 3 * N; ++i) moved[e][i] = tool_points[i] + 0.3f * (float)((i * 3 + e * 5) % 7) - 0.9f;
    const sinew_points rest = {tool_points, N, 0};
    const sinew_points examples[E] = {{moved[0], N, 0}, {moved[1], N, 0}, {moved[2], N, 0}};
    sinew_skin_example_desc dz, dr;
    SINEW_INIT(&dz);
    SINEW_INIT(&dr);
    assert_int_equal(sinew_skin_example_desc_defaults(&dz, &dr), SINEW_OK);
    uint32_t ja[4 * N], jb[4 * N];
    float wa[4 * N], wb[4 * N], ra[N], rb[N];
    sinew_result r1 = sinew_skin_example_weights(NULL, &rest, examples, E, matrices, J, &dz, ja, wa, ra, NULL);
    sinew_result r2 = sinew_skin_example_weights(NULL, &rest, examples, E, matrices, J, &dr, jb, wb, rb, NULL);
    assert_int_equal(r1, SINEW_OK);
    assert_int_equal(r2, SINEW_OK);
    assert_memory_equal(ja, jb, sizeof ja);
    assert_memory_equal(wa, wb, sizeof wa);
    assert_memory_equal(ra, rb, sizeof ra);
}

static void bone_links_from_the_resolved_desc_are_the_same(void **state)
{
    (void)state;
    /* shoulder -> elbow -> wrist along x; the elbow split over 100 degrees. */
    const uint32_t parents[3] = {SINEW_SKIN_NO_PARENT, 0, 1};
    float ib[48];
    for (int j = 0; j < 3; ++j) {
        memset(ib + 16 * j, 0, 16 * sizeof(float));
        ib[16 * j] = ib[16 * j + 5] = ib[16 * j + 10] = ib[16 * j + 15] = 1.0f;
        ib[16 * j + 12] = -(float)j;
    }
    const uint32_t in_j[4] = {0, 1, 1, 2};
    const float in_w[4] = {0.4f, 0.6f, 0.7f, 0.3f};
    sinew_skin_links_desc dz, dr;
    SINEW_INIT(&dz);
    dz.range_of_motion = 100.0f * 3.14159265f / 180.0f;
    SINEW_INIT(&dr);
    assert_int_equal(sinew_skin_links_desc_defaults(&dz, &dr), SINEW_OK);
    assert_int_equal(dr.link_count, 2);
    uint32_t pa[8], pb[8], oja[4], ojb[4];
    float iba[128], ibb[128], owa[4], owb[4];
    size_t ca = 0, cb = 0;
    sinew_skin_links_report ra, rb;
    SINEW_INIT(&ra);
    SINEW_INIT(&rb);
    assert_int_equal(sinew_skin_bone_links(NULL, 3, parents, ib, 1, &dz, 2, 2, in_j, in_w, pa, iba, 8, &ca, oja, owa, &ra),
                     SINEW_OK);
    assert_int_equal(sinew_skin_bone_links(NULL, 3, parents, ib, 1, &dr, 2, 2, in_j, in_w, pb, ibb, 8, &cb, ojb, owb, &rb),
                     SINEW_OK);
    assert_int_equal(ca, 4);
    assert_int_equal(cb, 4);
    assert_memory_equal(pa, pb, ca * sizeof *pa);
    assert_memory_equal(iba, ibb, 16 * ca * sizeof *iba);
    assert_memory_equal(oja, ojb, sizeof oja);
    assert_memory_equal(owa, owb, sizeof owa);
    assert_memory_equal(&ra, &rb, sizeof ra);
}

static void corrective_from_the_resolved_desc_is_the_same(void **state)
{
    (void)state;
    /* Three keys in a 2D pose space, two points, dense offsets. */
    static const float poses[6] = {1.0f, 0.0f, 0.0f, 1.0f, 0.7f, 0.7f};
    static const float offsets[3 * 2 * 3] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0.5f, 0.5f, 0, -1, 0, 0, 0, 0, 2};
    for (int kernel = SINEW_CORRECTIVE_KERNEL_GAUSSIAN; kernel <= SINEW_CORRECTIVE_KERNEL_WEIGHTS; ++kernel) {
        sinew_corrective_desc zero, resolved;
        SINEW_INIT(&zero);
        zero.point_count = 2;
        zero.key_count = 3;
        zero.kernel = (sinew_corrective_kernel)kernel;
        if (kernel != SINEW_CORRECTIVE_KERNEL_WEIGHTS) zero.pose_size = 2, zero.poses = poses;
        zero.offsets = offsets;
        SINEW_INIT(&resolved);
        assert_int_equal(sinew_corrective_desc_defaults(&zero, &resolved), SINEW_OK);
        sinew_corrective *a = NULL, *b = NULL;
        sinew_result ra = sinew_corrective_create(NULL, &zero, &a), rb = sinew_corrective_create(NULL, &resolved, &b);
        assert_int_equal(ra, rb);
        if (ra != SINEW_OK) continue;   /* LINEAR/CUBIC with 3 keys in 2D may not span: both refuse alike */
        sinew_corrective_info ia, ib;
        SINEW_INIT(&ia);
        SINEW_INIT(&ib);
        assert_int_equal(sinew_corrective_get_info(a, &ia), SINEW_OK);
        assert_int_equal(sinew_corrective_get_info(b, &ib), SINEW_OK);
        assert_memory_equal(&ia, &ib, sizeof ia);
        const float pose[3] = {0.4f, 0.8f, 0.1f};
        float wa[3], wb[3];
        assert_int_equal(sinew_corrective_weights(a, pose, ia.pose_size, wa, 3), SINEW_OK);
        assert_int_equal(sinew_corrective_weights(b, pose, ib.pose_size, wb, 3), SINEW_OK);
        assert_memory_equal(wa, wb, sizeof wa);
        sinew_corrective_destroy(a);
        sinew_corrective_destroy(b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(zero_descs_resolve_to_the_documented_defaults),
        cmocka_unit_test(given_fields_pass_through_and_dependent_defaults_follow),
        cmocka_unit_test(resolved_structs_follow_the_struct_rules),
        cmocka_unit_test(lattice_from_the_resolved_desc_is_the_same),
        cmocka_unit_test(placement_and_relax_from_resolved_descs_are_the_same),
        cmocka_unit_test(soffd_from_the_resolved_desc_is_the_same),
        cmocka_unit_test(bbw_from_resolved_descs_is_the_same),
        cmocka_unit_test(bbw_auto_from_the_resolved_desc_is_the_same),
        cmocka_unit_test(bbw_pose_from_resolved_descs_is_the_same),
        cmocka_unit_test(skin_from_the_resolved_desc_is_the_same),
        cmocka_unit_test(capsule_and_line_from_resolved_descs_are_the_same),
        cmocka_unit_test(smoothing_from_the_resolved_desc_is_the_same),
        cmocka_unit_test(example_weights_from_the_resolved_desc_are_the_same),
        cmocka_unit_test(bone_links_from_the_resolved_desc_are_the_same),
        cmocka_unit_test(corrective_from_the_resolved_desc_is_the_same),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
