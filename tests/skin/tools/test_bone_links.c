/* Bone links on a straight limb (shoulder, elbow, wrist along x): the links
 * split the elbow's angle evenly, swing and twist each in equal shares, the
 * weights move monotonically along the chain and keep summing to one, the
 * elbow keeps its cross-section at 150 degrees; bad input is named and
 * leaves the outputs alone; allocation failures are clean. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "fixtures.h"
#include "support.h"

#define PI 3.14159265358979323846
#define NOP SINEW_SKIN_NO_PARENT

/* ---- quaternions (x, y, z, w) in double ---------------------------------------- */

static void qmul(const double a[4], const double b[4], double out[4])
{
    double r[4] = {a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
                   a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
                   a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
                   a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]};
    memcpy(out, r, sizeof r);
}

static void axis_angle(double x, double y, double z, double angle, double q[4])
{
    double s = sin(angle / 2);
    q[0] = x * s, q[1] = y * s, q[2] = z * s, q[3] = cos(angle / 2);
}

/* Same rotation (q or -q) within tol. */
static void assert_same_rotation(const double a[4], const double b[4], double tol)
{
    double plus = 0, minus = 0;
    for (int i = 0; i < 4; ++i) plus = fmax(plus, fabs(a[i] - b[i])), minus = fmax(minus, fabs(a[i] + b[i]));
    if (fmin(plus, minus) > tol)
        fail_msg("rotations differ: (%g %g %g %g) vs (%g %g %g %g)", a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3]);
}

/* Swing and twist angles of q about the unit axis a (twist signed). */
static void swing_twist_angles(const double q[4], const double a[3], double *swing, double *twist)
{
    double w = q[3] < 0 ? -1 : 1;
    double along = w * (q[0] * a[0] + q[1] * a[1] + q[2] * a[2]), qw = w * q[3];
    *twist = 2 * atan2(along, qw);
    *swing = 2 * acos(fmin(1.0, sqrt(along * along + qw * qw)));
}

/* Rotations of link_count links, as doubles; product of them into total. */
static void links_of(const double rotation[4], const float axis[3], size_t n, double links[][4], double total[4])
{
    float r[4] = {(float)rotation[0], (float)rotation[1], (float)rotation[2], (float)rotation[3]};
    float out[4 * 8];
    assert_true(n <= 8);
    assert_int_equal(sinew_skin_link_rotations(r, axis, n, out), SINEW_OK);
    double acc[4] = {0, 0, 0, 1};
    for (size_t k = 0; k < n; ++k) {
        for (int i = 0; i < 4; ++i) links[k][i] = out[4 * k + i];
        assert_float_equal(links[k][0] * links[k][0] + links[k][1] * links[k][1] + links[k][2] * links[k][2] +
                               links[k][3] * links[k][3], 1.0, 1e-6);
        qmul(acc, links[k], acc);
    }
    memcpy(total, acc, sizeof acc);
}

static void a_hinge_angle_is_split_evenly(void **state)
{
    (void)state;
    const float axis[3] = {1, 0, 0};
    for (size_t n = 1; n <= 4; ++n) {
        double bend[4], links[8][4], total[4], each[4];
        axis_angle(0, 0, 1, 150 * PI / 180, bend);
        links_of(bend, axis, n, links, total);
        axis_angle(0, 0, 1, 150 * PI / 180 / (double)n, each);
        for (size_t k = 0; k < n; ++k) assert_same_rotation(links[k], each, 1e-6);   /* angle / n about z each */
        assert_same_rotation(total, bend, 1e-6);                                    /* they compose to the bend */
    }
}

static void swing_and_twist_are_split_separately(void **state)
{
    (void)state;
    /* Twist 90 degrees about the bone (x), then swing 120 about z. */
    const float axis[3] = {2, 0, 0};   /* any length */
    const double a[3] = {1, 0, 0};
    double swing[4], twist[4], q[4], links[8][4], total[4];
    axis_angle(0, 0, 1, 120 * PI / 180, swing);
    axis_angle(1, 0, 0, 90 * PI / 180, twist);
    qmul(swing, twist, q);
    links_of(q, axis, 3, links, total);
    assert_same_rotation(total, q, 1e-6);
    for (int k = 0; k < 3; ++k) {
        double s, t;
        swing_twist_angles(links[k], a, &s, &t);
        assert_float_equal(s, 40 * PI / 180, 1e-5);   /* no link turns more than its share */
        assert_float_equal(t, 30 * PI / 180, 1e-5);
    }
    /* Link 1 is the first share of each: R_z(40) R_x(30). */
    double s1[4], t1[4], first[4];
    axis_angle(0, 0, 1, 40 * PI / 180, s1);
    axis_angle(1, 0, 0, 30 * PI / 180, t1);
    qmul(s1, t1, first);
    assert_same_rotation(links[0], first, 1e-6);
    /* Negative twist, about an oblique axis: shares keep their sign. */
    const double b[3] = {0, 0.6, 0.8};
    const float baxis[3] = {0, 0.6f, 0.8f};
    axis_angle(b[0], b[1], b[2], -100 * PI / 180, twist);
    axis_angle(1, 0, 0, 70 * PI / 180, swing);
    qmul(swing, twist, q);
    links_of(q, baxis, 4, links, total);
    assert_same_rotation(total, q, 1e-6);
    for (int k = 0; k < 4; ++k) {
        double s, t;
        swing_twist_angles(links[k], b, &s, &t);
        assert_float_equal(s, 17.5 * PI / 180, 1e-5);
        assert_float_equal(t, -25 * PI / 180, 1e-5);
    }
}

static void rotations_go_the_short_way(void **state)
{
    (void)state;
    const float axis[3] = {1, 0, 0};
    double q[4], neg[4], l1[8][4], l2[8][4], t1[4], t2[4], each[4];
    axis_angle(0, 0, 1, 150 * PI / 180, q);
    for (int i = 0; i < 4; ++i) neg[i] = -q[i];
    links_of(q, axis, 3, l1, t1);
    links_of(neg, axis, 3, l2, t2);
    for (int k = 0; k < 3; ++k) assert_same_rotation(l1[k], l2[k], 1e-7);
    /* A half turn about an axis across the bone: all swing, no twist. */
    axis_angle(0, 1, 0, PI, q);
    links_of(q, axis, 2, l1, t1);
    axis_angle(0, 1, 0, PI / 2, each);
    assert_same_rotation(l1[0], each, 1e-6);
    assert_same_rotation(t1, q, 1e-6);
    /* A quaternion that is not unit length is normalised first. */
    axis_angle(0, 0, 1, 90 * PI / 180, q);
    for (int i = 0; i < 4; ++i) neg[i] = 3 * q[i];
    links_of(neg, axis, 2, l1, t1);
    axis_angle(0, 0, 1, 45 * PI / 180, each);
    assert_same_rotation(l1[1], each, 1e-6);
}

/* ---- the limb -------------------------------------------------------------------- */

/* Shoulder (0) at x = 0, elbow (1) at x = 1, wrist (2) at x = 2; rest frames
 * along the world axes: inverse bind = translation by -x. */
static const uint32_t limb_parents[3] = {NOP, 0, 1};

static void limb_inverse_binds(float ib[48])
{
    memset(ib, 0, 48 * sizeof(float));
    for (int j = 0; j < 3; ++j) {
        ib[16 * j] = ib[16 * j + 5] = ib[16 * j + 10] = ib[16 * j + 15] = 1;
        ib[16 * j + 12] = -(float)j;
    }
}

static sinew_skin_links_desc links(uint32_t count)
{
    sinew_skin_links_desc d;
    SINEW_INIT(&d);
    d.link_count = count;
    return d;
}

static void the_joint_becomes_a_chain(void **state)
{
    (void)state;
    float ib[48], out_ib[16 * 5];
    limb_inverse_binds(ib);
    const uint32_t j[2] = {0, 1};
    const float w[2] = {0.5f, 0.5f};
    uint32_t out_parents[5], oj[2];
    float ow[2];
    size_t count = 0;
    sinew_skin_links_desc d = links(3);
    sinew_skin_links_report rep;
    SINEW_INIT(&rep);
    assert_int_equal(sinew_skin_bone_links(NULL, 3, limb_parents, ib, 1, &d, 1, 2, j, w, out_parents, out_ib, 5,
                                           &count, oj, ow, &rep),
                     SINEW_OK);
    assert_int_equal(count, 5);
    /* shoulder -> link 1 (joint 3) -> link 2 (joint 4) -> elbow -> wrist */
    const uint32_t expect[5] = {NOP, 4, 1, 0, 3};
    for (int i = 0; i < 5; ++i) assert_int_equal(out_parents[i], expect[i]);
    assert_memory_equal(out_ib, ib, sizeof ib);
    assert_memory_equal(out_ib + 48, ib + 16, 16 * sizeof(float));
    assert_memory_equal(out_ib + 64, ib + 16, 16 * sizeof(float));
    assert_int_equal(rep.link_count, 3);
    assert_true(rep.bone_axis[0] == 1.0f && rep.bone_axis[1] == 0.0f && rep.bone_axis[2] == 0.0f);
    assert_int_equal(rep.vertices_redistributed, 1);
    /* s = 3 * 0.5 = 1.5: half on link 1, half on link 2. */
    assert_true((oj[0] == 3 && oj[1] == 4) || (oj[0] == 4 && oj[1] == 3));
    assert_true(ow[0] == 0.5f && ow[1] == 0.5f);

    /* One link changes nothing but the row order. */
    d = links(1);
    assert_int_equal(sinew_skin_bone_links(NULL, 3, limb_parents, ib, 1, &d, 1, 2, j, w, out_parents, out_ib, 5,
                                           &count, oj, ow, &rep),
                     SINEW_OK);
    assert_int_equal(count, 3);
    for (int i = 0; i < 3; ++i) assert_int_equal(out_parents[i], limb_parents[i]);
    assert_int_equal(rep.vertices_redistributed, 0);
}

/* The bone axis is reported in the joint's own rest frame: an elbow frame
 * turned 90 degrees about z sees the forearm (+x in the world) along -y. A
 * joint without a child uses the direction from its parent. */
static void the_bone_axis_is_in_the_joint_frame(void **state)
{
    (void)state;
    float ib[48];
    limb_inverse_binds(ib);
    /* Elbow frame: x_j = world y, y_j = -world x; B^-1 = R^T T(-1, 0, 0). */
    float *e = ib + 16;
    memset(e, 0, 16 * sizeof(float));
    e[1] = -1, e[4] = 1, e[10] = 1, e[15] = 1;   /* R^T: world x -> -y_j, world y -> x_j */
    e[12] = 0, e[13] = 1;                         /* R^T (-1, 0, 0) */
    const uint32_t j[1] = {1};
    const float w[1] = {1};
    size_t count = 0;
    sinew_skin_links_desc d = links(2);
    sinew_skin_links_report rep;
    SINEW_INIT(&rep);
    assert_int_equal(sinew_skin_bone_links(NULL, 3, limb_parents, ib, 1, &d, 1, 1, j, w, NULL, NULL, 0, &count, NULL,
                                           NULL, &rep),
                     SINEW_OK);
    assert_int_equal(count, 4);
    assert_float_equal(rep.bone_axis[0], 0, 1e-7);
    assert_float_equal(rep.bone_axis[1], -1, 1e-7);
    assert_float_equal(rep.bone_axis[2], 0, 1e-7);
    /* Splitting the wrist (no child): away from the elbow, +x. */
    limb_inverse_binds(ib);
    assert_int_equal(sinew_skin_bone_links(NULL, 3, limb_parents, ib, 2, &d, 1, 1, j, w, NULL, NULL, 0, &count, NULL,
                                           NULL, &rep),
                     SINEW_OK);
    assert_float_equal(rep.bone_axis[0], 1, 1e-7);
}

/* A tube along x, weights smoothstepped from the shoulder to the elbow over
 * x in [0.6, 1.4] and from the elbow to the wrist over [1.8, 2.2]. */
static void limb_weights(const tube *t, uint32_t *j, float *w)
{
    for (size_t v = 0; v < t->vertex_count; ++v) {
        double x = t->positions[3 * v];
        int b = x < 1.6 ? 1 : 2;
        double lo = b == 1 ? 0.6 : 1.8, hi = b == 1 ? 1.4 : 2.2;
        double u = (x - lo) / (hi - lo);
        u = u < 0 ? 0 : u > 1 ? 1 : u;
        double s = u * u * (3 - 2 * u);
        j[2 * v] = (uint32_t)b - 1, j[2 * v + 1] = (uint32_t)b;
        w[2 * v] = (float)(1 - s), w[2 * v + 1] = (float)s;
    }
}

/* Chain coordinate of joint index j for the elbow split in n links (5 joints
 * for n = 3): shoulder 0, link k at k, elbow n; -1 for others. */
static int chain_place(uint32_t j, uint32_t n)
{
    if (j == 0) return 0;
    if (j == 1) return (int)n;
    if (j >= 3 && j < 3 + n - 1) return (int)(j - 2);
    return -1;
}

static void weights_move_monotonically_along_the_links(void **state)
{
    (void)state;
    tube t = tube_make(81, 6, 3.0f, 0.25f);
    size_t nv = t.vertex_count;
    uint32_t *j = malloc(2 * nv * sizeof *j), *oj = malloc(2 * nv * sizeof *oj);
    float *w = malloc(2 * nv * sizeof *w), *ow = malloc(2 * nv * sizeof *ow);
    limb_weights(&t, j, w);
    float ib[48], out_ib[16 * 8];
    limb_inverse_binds(ib);
    uint32_t out_parents[8];
    for (uint32_t n = 2; n <= 5; ++n) {
        size_t count = 0;
        sinew_skin_links_desc d = links(n);
        assert_int_equal(sinew_skin_bone_links(NULL, 3, limb_parents, ib, 1, &d, nv, 2, j, w, out_parents, out_ib, 8,
                                               &count, oj, ow, NULL),
                         SINEW_OK);
        assert_int_equal(count, 3 + n - 1);
        assert_int_equal(first_bad_row(oj, ow, nv, 2), SIZE_MAX);   /* sums to one, sorted, padded */
        double last = -1;
        for (size_t v = 0; v < nv; ++v) {
            double x = t.positions[3 * v];
            double a = row_weight(j, w, 2, v, 0), b = row_weight(j, w, 2, v, 1);
            if (x >= 1.6) {
                /* The wrist's blend is not touched. */
                assert_float_equal(row_weight(oj, ow, 2, v, 1), b, 1e-7);
                assert_float_equal(row_weight(oj, ow, 2, v, 2), row_weight(j, w, 2, v, 2), 1e-7);
                continue;
            }
            /* Two adjacent chain members; the weighted place is n b / (a + b). */
            double place = 0, total = 0;
            int lo = 1 << 20, hi = -1;
            for (int s = 0; s < 2; ++s) {
                if (ow[2 * v + s] == 0.0f) continue;
                int c = chain_place(oj[2 * v + s], n);
                assert_true(c >= 0);
                place += c * (double)ow[2 * v + s], total += ow[2 * v + s];
                lo = c < lo ? c : lo, hi = c > hi ? c : hi;
            }
            assert_true(hi - lo <= 1);
            assert_float_equal(total, 1.0, 1e-6);
            assert_float_equal(place, n * b / (a + b), 2e-6 * n);
            if (v % t.sides == 0) {   /* along the limb: never back towards the shoulder */
                assert_true(place >= last - 1e-6);
                last = place;
            }
        }
        assert_true(last > n - 1e-6);   /* reaches the elbow itself */
    }
    tube_free(&t);
    free(j), free(oj), free(w), free(ow);
}

/* Closed form of the cross-section: a ring at the elbow weighted half and
 * half, the elbow bent by theta, blends two rotations about the elbow that
 * differ by theta / n; linear blending scales the ring across the bend by
 * cos(theta / 2n), so its area ratio is cos(75) with one link and cos(25)
 * with three at 150 degrees. */
static double elbow_ring_area(uint32_t n, double theta)
{
    enum { SIDES = 64 };
    float p[3 * SIDES], out[3 * SIDES];
    uint32_t j[2 * SIDES], oj[2 * SIDES];
    float w[2 * SIDES], ow[2 * SIDES];
    for (int s = 0; s < SIDES; ++s) {
        double a = 2 * PI * s / SIDES;
        p[3 * s] = 1, p[3 * s + 1] = (float)(0.25 * cos(a)), p[3 * s + 2] = (float)(0.25 * sin(a));
        j[2 * s] = 0, j[2 * s + 1] = 1, w[2 * s] = w[2 * s + 1] = 0.5f;
    }
    float ib[48], out_ib[16 * 8];
    limb_inverse_binds(ib);
    uint32_t parents[8];
    size_t count = 0;
    sinew_skin_links_desc d = links(n);
    sinew_skin_links_report rep;
    SINEW_INIT(&rep);
    assert_int_equal(sinew_skin_bone_links(NULL, 3, limb_parents, ib, 1, &d, SIDES, 2, j, w, parents, out_ib, 8,
                                           &count, oj, ow, &rep),
                     SINEW_OK);
    /* Pose: the shoulder at rest, the elbow bent about z; links driven by
     * sinew_skin_link_rotations: world(link k) = T(1, 0, 0) R(q_1 ... q_k). */
    double bend[4];
    axis_angle(0, 0, 1, theta, bend);
    float q[4] = {(float)bend[0], (float)bend[1], (float)bend[2], (float)bend[3]}, lq[4 * 8];
    assert_int_equal(sinew_skin_link_rotations(q, rep.bone_axis, n, lq), SINEW_OK);
    float world[16 * 8];
    memset(world, 0, sizeof world);
    for (size_t i = 0; i < count; ++i) world[16 * i] = world[16 * i + 5] = world[16 * i + 10] = world[16 * i + 15] = 1;
    double acc[4] = {0, 0, 0, 1};
    for (uint32_t k = 1; k <= n; ++k) {
        double l[4] = {lq[4 * (k - 1)], lq[4 * (k - 1) + 1], lq[4 * (k - 1) + 2], lq[4 * (k - 1) + 3]};
        qmul(acc, l, acc);
        size_t joint = k == n ? 1 : 3 + k - 1;
        float *m = world + 16 * joint;
        double x = acc[0], y = acc[1], z = acc[2], ww = acc[3];
        m[0] = (float)(1 - 2 * (y * y + z * z)), m[1] = (float)(2 * (x * y + z * ww)), m[2] = (float)(2 * (x * z - y * ww));
        m[4] = (float)(2 * (x * y - z * ww)), m[5] = (float)(1 - 2 * (x * x + z * z)), m[6] = (float)(2 * (y * z + x * ww));
        m[8] = (float)(2 * (x * z + y * ww)), m[9] = (float)(2 * (y * z - x * ww)), m[10] = (float)(1 - 2 * (x * x + y * y));
        m[12] = 1;
    }
    sinew_skin_desc sd;
    SINEW_INIT(&sd);
    sd.vertex_count = SIDES, sd.joint_count = count, sd.influence_count = 2;
    sd.joints = oj, sd.weights = ow, sd.inverse_bind = out_ib;
    sinew_skin *skin = NULL;
    assert_int_equal(sinew_skin_create(NULL, &sd, &skin), SINEW_OK);
    float palette[16 * 8];
    assert_int_equal(sinew_skin_palette_size(skin), 16 * count);
    assert_int_equal(sinew_skin_palette(skin, world, count, palette, 16 * count), SINEW_OK);
    sinew_skin_input in = {p, 0, NULL, 0, NULL, 0};
    sinew_skin_output o = {out, 0, NULL, 0, NULL, 0};
    assert_int_equal(sinew_skin_deform(skin, palette, 16 * count, &in, &o, 0, SIDES), SINEW_OK);
    sinew_skin_destroy(skin);
    double area[3] = {0, 0, 0};
    for (int s = 0; s < SIDES; ++s) {
        const float *u = out + 3 * s, *v = out + 3 * ((s + 1) % SIDES);
        area[0] += (double)u[1] * v[2] - (double)u[2] * v[1];
        area[1] += (double)u[2] * v[0] - (double)u[0] * v[2];
        area[2] += (double)u[0] * v[1] - (double)u[1] * v[0];
    }
    double rest = 0.5 * SIDES * 0.25 * 0.25 * sin(2 * PI / SIDES);
    return 0.5 * sqrt(area[0] * area[0] + area[1] * area[1] + area[2] * area[2]) / rest;
}

static void links_keep_the_elbow_cross_section(void **state)
{
    (void)state;
    const double theta = 150 * PI / 180;
    double one = elbow_ring_area(1, theta), three = elbow_ring_area(3, theta);
    assert_float_equal(one, cos(theta / 2), 1e-5);
    assert_float_equal(three, cos(theta / 6), 1e-5);
    assert_true(three > 3 * one);
}

static void link_count_from_the_range_of_motion(void **state)
{
    (void)state;
    float ib[48];
    limb_inverse_binds(ib);
    const uint32_t j[1] = {1};
    const float w[1] = {1};
    struct { float range, step; size_t joints; } cases[] = {
        {(float)(150 * PI / 180), 0, 5},          /* 60 degrees by default: 3 links */
        {(float)PI, 0, 5},                        /* exactly 3 steps stays 3 */
        {(float)(181 * PI / 180), 0, 6},          /* a degree more needs a fourth */
        {(float)(PI / 2), (float)(PI / 4), 4},    /* 2 links of 45 */
        {(float)(10 * PI / 180), 0, 3},           /* a small range: one link, nothing added */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        sinew_skin_links_desc d = links(0);
        d.range_of_motion = cases[c].range, d.max_link_angle = cases[c].step;
        size_t count = 0;
        assert_int_equal(sinew_skin_bone_links(NULL, 3, limb_parents, ib, 1, &d, 1, 1, j, w, NULL, NULL, 0, &count,
                                               NULL, NULL, NULL),
                         SINEW_OK);
        assert_int_equal(count, cases[c].joints);
    }
}

/* The capacity rule: a query writes only the count, a capacity one short is
 * BUFFER_TOO_SMALL with the count and nothing else written; in-place use. */
static void capacity_and_in_place(void **state)
{
    (void)state;
    float ib[48], out_ib[16 * 5];
    limb_inverse_binds(ib);
    uint32_t j[4] = {0, 1, 1, 2};
    float w[4] = {0.25f, 0.75f, 0.5f, 0.5f};
    uint32_t out_parents[5] = {7, 7, 7, 7, 7}, oj[4] = {7, 7, 7, 7};
    float ow[4] = {7, 7, 7, 7};
    memset(out_ib, 0x5a, sizeof out_ib);
    unsigned char before[sizeof out_ib];
    memcpy(before, out_ib, sizeof out_ib);
    size_t count = 99;
    sinew_skin_links_desc d = links(3);
    assert_int_equal(sinew_skin_bone_links(NULL, 3, limb_parents, ib, 1, &d, 2, 2, j, w, out_parents, out_ib, 4,
                                           &count, oj, ow, NULL),
                     SINEW_ERROR_BUFFER_TOO_SMALL);
    assert_int_equal(count, 5);
    assert_non_null(strstr(sinew_last_error(), "capacity 4"));
    assert_memory_equal(out_ib, before, sizeof out_ib);
    for (int i = 0; i < 4; ++i) assert_true(oj[i] == 7 && ow[i] == 7.0f && out_parents[i] == 7);
    /* In place: the weight outputs are the inputs. */
    assert_int_equal(sinew_skin_bone_links(NULL, 3, limb_parents, ib, 1, &d, 2, 2, j, w, out_parents, out_ib, 5,
                                           &count, j, w, NULL),
                     SINEW_OK);
    /* Vertex 0: s = 3 * 0.75 = 2.25: link 2 (joint 4) 0.75, the elbow 0.25.
     * Vertex 1 (elbow and wrist only) keeps its weights. */
    assert_true(j[0] == 4 && w[0] == 0.75f && j[1] == 1 && w[1] == 0.25f);
    assert_true(w[2] == 0.5f && w[3] == 0.5f && j[2] == 1 && j[3] == 2);
}

static void bad_input_is_named_and_changes_nothing(void **state)
{
    (void)state;
    float ib[48], out_ib[16 * 5];
    limb_inverse_binds(ib);
    uint32_t parents[3] = {NOP, 0, 1};
    uint32_t j[2] = {0, 1};
    float w[2] = {0.5f, 0.5f};
    uint32_t out_parents[5], oj[2];
    float ow[2];
    size_t count;
    sinew_skin_links_desc d = links(3);
#define CALL(joint_index) \
    sinew_skin_bone_links(NULL, 3, parents, ib, (joint_index), &d, 1, 2, j, w, out_parents, out_ib, 5, &count, oj, ow, NULL)
#define EXPECT(call, code, text)                                                                        \
    do {                                                                                                \
        memset(out_parents, 0x77, sizeof out_parents), memset(out_ib, 0x77, sizeof out_ib);            \
        memset(oj, 0x77, sizeof oj), memset(ow, 0x77, sizeof ow), count = 12345;                      \
        assert_int_equal((call), (code));                                                               \
        if (!strstr(sinew_last_error(), (text)))                                                        \
            fail_msg("message \"%s\" does not name \"%s\"", sinew_last_error(), (text));                \
        assert_int_equal(count, 12345);                                                                 \
        for (size_t i_ = 0; i_ < sizeof out_ib; ++i_) assert_int_equal(((unsigned char *)out_ib)[i_], 0x77); \
        for (size_t i_ = 0; i_ < sizeof oj; ++i_) assert_int_equal(((unsigned char *)oj)[i_], 0x77);   \
        for (size_t i_ = 0; i_ < sizeof ow; ++i_) assert_int_equal(((unsigned char *)ow)[i_], 0x77);   \
        for (size_t i_ = 0; i_ < sizeof out_parents; ++i_)                                             \
            assert_int_equal(((unsigned char *)out_parents)[i_], 0x77);                                \
    } while (0)
    EXPECT(CALL(3), SINEW_ERROR_INDEX_OUT_OF_RANGE, "joint 3 to split");
    EXPECT(CALL(0), SINEW_ERROR_INVALID_ARGUMENT, "joint 0 is a root");
    parents[0] = 2;
    EXPECT(CALL(1), SINEW_ERROR_INVALID_ARGUMENT, "parents of joint 0 form a cycle");
    parents[0] = 9;
    EXPECT(CALL(1), SINEW_ERROR_INDEX_OUT_OF_RANGE, "joint 0 has parent 9");
    parents[0] = 0;
    EXPECT(CALL(1), SINEW_ERROR_INVALID_ARGUMENT, "joint 0 is its own parent");
    parents[0] = NOP;
    ib[16 + 13] = NAN;
    EXPECT(CALL(1), SINEW_ERROR_NON_FINITE, "joint 1 has a non-finite element (row 1, column 3)");
    ib[16 + 13] = 0;
    ib[32 + 3] = 0.5f;
    EXPECT(CALL(1), SINEW_ERROR_INVALID_ARGUMENT, "joint 2 is not affine");
    ib[32 + 3] = 0;
    ib[16 + 0] = 0;   /* the elbow's frame loses its x axis */
    EXPECT(CALL(1), SINEW_ERROR_DEGENERATE, "joint 1 is singular");
    limb_inverse_binds(ib);
    d = links(0);
    EXPECT(CALL(1), SINEW_ERROR_INVALID_ARGUMENT, "link_count is 0 and no range_of_motion");
    d = links(SINEW_SKIN_MAX_LINKS + 1);
    EXPECT(CALL(1), SINEW_ERROR_INVALID_ARGUMENT, "link_count 65");
    d = links(0), d.range_of_motion = 1000;
    EXPECT(CALL(1), SINEW_ERROR_INVALID_ARGUMENT, "range_of_motion 1000");
    d.range_of_motion = NAN;
    EXPECT(CALL(1), SINEW_ERROR_NON_FINITE, "range_of_motion");
    d = links(0), d.range_of_motion = 6, d.max_link_angle = 0.01f;
    EXPECT(CALL(1), SINEW_ERROR_INVALID_ARGUMENT, "600 links");
    d = links(3), d.max_link_angle = -1;
    EXPECT(CALL(1), SINEW_ERROR_INVALID_ARGUMENT, "max_link_angle");
    d = links(3);
    j[1] = 5;
    EXPECT(CALL(1), SINEW_ERROR_INDEX_OUT_OF_RANGE, "vertex 0 slot 1 names joint 5");
    j[1] = 1;
    w[1] = NAN;
    EXPECT(CALL(1), SINEW_ERROR_NON_FINITE, "vertex 0 slot 1");
    w[1] = -0.5f;
    EXPECT(CALL(1), SINEW_ERROR_INVALID_WEIGHTS, "vertex 0 slot 1 has a negative weight");
    w[0] = w[1] = 0;
    EXPECT(CALL(1), SINEW_ERROR_INVALID_WEIGHTS, "vertex 0 has no positive weight");
    w[0] = w[1] = 0.5f;
    EXPECT(sinew_skin_bone_links(NULL, 3, parents, ib, 1, &d, 1, 2, j, w, out_parents, NULL, 5, &count, oj, ow, NULL),
           SINEW_ERROR_INVALID_ARGUMENT, "out_inverse_bind is NULL");
    EXPECT(sinew_skin_bone_links(NULL, 70000, parents, ib, 1, &d, 1, 2, j, w, out_parents, out_ib, 5, &count, oj, ow, NULL),
           SINEW_ERROR_UNSUPPORTED, "70000 joints");
    /* A chain too long for sinew_skin_create: 65535 joints and 3 links. */
    EXPECT(sinew_skin_bone_links(NULL, 65535, parents, ib, 1, &d, 1, 2, j, w, out_parents, out_ib, 5, &count, oj, ow, NULL),
           SINEW_ERROR_UNSUPPORTED, "65537 joints");

    /* The pose-time helper. */
    float q[4] = {0, 0, 0, 1}, axis[3] = {1, 0, 0}, out[8];
    memset(out, 0x77, sizeof out);
#define EXPECT_ROT(call, code, text)                                                     \
    do {                                                                                 \
        assert_int_equal((call), (code));                                                \
        if (!strstr(sinew_last_error(), (text)))                                         \
            fail_msg("message \"%s\" does not name \"%s\"", sinew_last_error(), (text)); \
        for (size_t i_ = 0; i_ < sizeof out; ++i_) assert_int_equal(((unsigned char *)out)[i_], 0x77); \
    } while (0)
    EXPECT_ROT(sinew_skin_link_rotations(q, axis, 0, out), SINEW_ERROR_INVALID_ARGUMENT, "link_count 0");
    EXPECT_ROT(sinew_skin_link_rotations(q, axis, 1000, out), SINEW_ERROR_INVALID_ARGUMENT, "link_count 1000");
    EXPECT_ROT(sinew_skin_link_rotations(NULL, axis, 2, out), SINEW_ERROR_INVALID_ARGUMENT, "rotation is NULL");
    q[3] = 0;
    EXPECT_ROT(sinew_skin_link_rotations(q, axis, 2, out), SINEW_ERROR_INVALID_ARGUMENT, "zero quaternion");
    q[3] = NAN;
    EXPECT_ROT(sinew_skin_link_rotations(q, axis, 2, out), SINEW_ERROR_NON_FINITE, "rotation w");
    q[3] = 1, axis[0] = 0;
    EXPECT_ROT(sinew_skin_link_rotations(q, axis, 2, out), SINEW_ERROR_INVALID_ARGUMENT, "bone_axis is (0, 0, 0)");
    axis[1] = INFINITY;
    EXPECT_ROT(sinew_skin_link_rotations(q, axis, 2, out), SINEW_ERROR_NON_FINITE, "bone_axis y");
#undef EXPECT_ROT
#undef EXPECT
#undef CALL
}

/* api.md: a report from an older, smaller header is written only up to its
 * struct_size. */
static void an_older_report_is_written_up_to_its_size(void **state)
{
    (void)state;
    float ib[48];
    limb_inverse_binds(ib);
    const uint32_t j[2] = {0, 1};
    const float w[2] = {0.5f, 0.5f};
    struct {
        sinew_skin_links_report r;
        unsigned char after[16];
    } older;
    memset(&older, 0x5a, sizeof older);
    older.r.struct_size = offsetof(sinew_skin_links_report, bone_axis);
    size_t count = 0;
    sinew_skin_links_desc d = links(2);
    assert_int_equal(sinew_skin_bone_links(NULL, 3, limb_parents, ib, 1, &d, 1, 2, j, w, NULL, NULL, 0, &count, NULL,
                                           NULL, &older.r),
                     SINEW_OK);
    assert_int_equal(older.r.link_count, 2);
    const unsigned char *bytes = (const unsigned char *)&older;
    for (size_t i = offsetof(sinew_skin_links_report, bone_axis); i < sizeof older; ++i) assert_int_equal(bytes[i], 0x5a);
}

typedef struct links_case {
    float ib[48];
    uint32_t j[8];
    float w[8];
    uint32_t out_parents[5];
    float out_ib[80];
    uint32_t oj[8];
    float ow[8];
} links_case;

/* A failure must say what failed: an out-of-memory result without the
 * allocation named becomes INVALID_STATE, which the sweep reports. */
static sinew_result links_attempt(sinew_context *ctx, void *user)
{
    links_case *c = (links_case *)user;
    sinew_skin_links_desc d = links(3);
    size_t count = 0;
    sinew_result r = sinew_skin_bone_links(ctx, 3, limb_parents, c->ib, 1, &d, 4, 2, c->j, c->w, c->out_parents,
                                           c->out_ib, 5, &count, c->oj, c->ow, NULL);
    if (r == SINEW_ERROR_OUT_OF_MEMORY && !strstr(sinew_last_error(), "out of memory allocating "))
        return SINEW_ERROR_INVALID_STATE;
    return r;
}

static void allocation_failures_are_clean(void **state)
{
    (void)state;
    links_case c = {{0}, {0, 1, 0, 1, 1, 2, 0, 1}, {0.9f, 0.1f, 0.4f, 0.6f, 0.5f, 0.5f, 0.0f, 1.0f}, {0}, {0}, {0}, {0}};
    limb_inverse_binds(c.ib);
    size_t runs = 0;
    char report[256];
    if (!support_sweep_allocation_failures(links_attempt, &c, &runs, report, sizeof report)) fail_msg("%s", report);
    assert_true(runs >= 4);
    assert_int_equal(first_bad_row(c.oj, c.ow, 4, 2), SIZE_MAX);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_hinge_angle_is_split_evenly),
        cmocka_unit_test(swing_and_twist_are_split_separately),
        cmocka_unit_test(rotations_go_the_short_way),
        cmocka_unit_test(the_joint_becomes_a_chain),
        cmocka_unit_test(the_bone_axis_is_in_the_joint_frame),
        cmocka_unit_test(weights_move_monotonically_along_the_links),
        cmocka_unit_test(links_keep_the_elbow_cross_section),
        cmocka_unit_test(link_count_from_the_range_of_motion),
        cmocka_unit_test(capacity_and_in_place),
        cmocka_unit_test(bad_input_is_named_and_changes_nothing),
        cmocka_unit_test(an_older_report_is_written_up_to_its_size),
        cmocka_unit_test(allocation_failures_are_clean),
    };
    return cmocka_run_group_tests_name("skin tools: bone links", tests, NULL, NULL);
}
