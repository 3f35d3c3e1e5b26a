/*
 * Benchmarks of pose-time transform inference (bbw_pose.h), per frame of a
 * 30-frame animation warm-started from the frame before, one line per case:
 *   bbw-pose/hand-joints-<k>it  libigl's hand (7,234 vertices, 29,998 tets,
 *                               20 bones): every bone's two joints placed at
 *                               hand-pose.dmat's pose (blended in from rest)
 *   bbw-pose/hand-tips-<k>it    the same hand: the root bone's transform given,
 *                               only the five fingertips placed
 *   bbw-pose/bar2d-<k>it        a 6 x 1 bar (60 x 10 cells, 5 point handles):
 *                               left end held, right end dragged up and over
 * for k = 1, 5, 10 local/global iterations. Figures are CPU milliseconds of
 * the calling thread per frame (one core; the machine is shared), best of two
 * runs. Beside each: the energy of the translation-only pose (the handles'
 * targets as pure translations, identity linear parts: what skinning gives
 * without inference) and the energy reached, both at the last frame.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sinew.h"

#include "../../bbw/hand_pose.h"
#include "support.h"

enum { FRAMES = 30 };

typedef struct frame_case {
    const char *name;
    const sinew_bbw_pose *pose;
    size_t handles;
    /* Fills the constraints of frame f (0..FRAMES-1) and the translation-only pose. */
    void (*frame)(void *user, int f, sinew_bbw_pose_solve_desc *sd, float *transforms, float *baseline);
    void *user;
    size_t position_count;
} frame_case;

static void ident(float *t, size_t n)
{
    memset(t, 0, n * 16 * sizeof(float));
    for (size_t j = 0; j < n; ++j) t[16 * j] = t[16 * j + 5] = t[16 * j + 10] = t[16 * j + 15] = 1.0f;
}

static void run_case(const frame_case *c, uint32_t iterations)
{
    size_t bytes = sinew_bbw_pose_scratch_size(c->pose, c->position_count);
    void *scratch = malloc(bytes);
    float *t = malloc(c->handles * 16 * sizeof(float)), *base = malloc(c->handles * 16 * sizeof(float));
    double best = INFINITY, energy = 0.0, e0 = 0.0;
    for (int rep = 0; rep < 2; ++rep) {
        ident(t, c->handles);
        double spent = 0.0;
        for (int f = 0; f < FRAMES; ++f) {
            sinew_bbw_pose_solve_desc sd;
            SINEW_INIT(&sd);
            sd.iterations = iterations;
            c->frame(c->user, f, &sd, t, base);
            /* The report's energy costs one more local step: timed without it. */
            int last = f == FRAMES - 1;
            double t0 = support_cpu_now();
            sinew_result r = sinew_bbw_pose_solve(c->pose, &sd, t, c->handles * 16, scratch, bytes, NULL);
            spent += support_cpu_now() - t0;
            if (r != SINEW_OK) {
                printf("%s: solve failed: %s\n", c->name, sinew_last_error());
                goto out;
            }
            if (last) {
                sinew_bbw_pose_energy(c->pose, t, c->handles * 16, scratch, bytes, &energy);
                sinew_bbw_pose_energy(c->pose, base, c->handles * 16, scratch, bytes, &e0);
            }
        }
        best = fmin(best, spent / FRAMES);
    }
    printf("bbw-pose/%s-%uit: %.3f ms/frame (translation-only energy: %.4g, energy: %.4g)\n", c->name, iterations,
           1e3 * best, e0, energy);
out:
    free(scratch);
    free(t);
    free(base);
}

/* ---- the hand ---- */

typedef struct hand {
    float *joints;
    uint32_t *bones;
    size_t jc, bc;
    double *rel;               /* hand-pose.dmat: a quaternion per bone */
    sinew_bbw_pose_position *pos;
    uint8_t *fixed;
    size_t root;
    int tips_only;
} hand;

/* Bone transforms at fraction f of the pose: each relative rotation blended
 * from the identity (normalised linear blend of quaternions). */
static void hand_fk(const hand *h, double f, double *rot, double *trans)
{
    double *rel = malloc(h->bc * 4 * sizeof(double));
    for (size_t b = 0; b < h->bc; ++b) {
        double q[4], n = 0.0;
        for (int k = 0; k < 4; ++k) q[k] = f * h->rel[4 * b + k] + (1.0 - f) * (k == 3);
        for (int k = 0; k < 4; ++k) n += q[k] * q[k];
        for (int k = 0; k < 4; ++k) rel[4 * b + k] = q[k] / sqrt(n);
    }
    hp_forward_kinematics(h->joints, h->bones, h->bc, rel, rot, trans);
    free(rel);
}

static int is_tip(const hand *h, uint32_t joint)
{
    for (size_t b = 0; b < h->bc; ++b)
        if (h->bones[2 * b] == joint) return 0;
    return 1;
}

static void hand_frame(void *user, int f, sinew_bbw_pose_solve_desc *sd, float *t, float *base)
{
    hand *h = user;
    double *rot = malloc(h->bc * 4 * sizeof(double)), *trans = malloc(h->bc * 3 * sizeof(double));
    hand_fk(h, (f + 1.0) / FRAMES, rot, trans);
    size_t n = 0;
    ident(base, h->bc);
    for (size_t b = 0; b < h->bc; ++b) {
        if (h->tips_only && b == h->root) {
            hp_matrix(rot, trans, b, t + 16 * b);
            memcpy(base + 16 * b, t + 16 * b, 16 * sizeof(float));
            continue;
        }
        double shift[3] = {0, 0, 0};
        int count = 0;
        for (int end = 0; end < 2; ++end) {
            uint32_t jt = h->bones[2 * b + end];
            if (h->tips_only && !(end == 1 && is_tip(h, jt))) continue;
            const float *p = h->joints + 3 * jt;
            double v[3] = {p[0], p[1], p[2]}, q[3];
            hp_rotate(rot + 4 * b, v, q);
            sinew_bbw_pose_position *pc = &h->pos[n++];
            pc->handle = (uint32_t)b;
            for (int a = 0; a < 3; ++a) {
                pc->rest[a] = p[a];
                pc->target[a] = (float)(q[a] + trans[3 * b + a]);
                shift[a] += pc->target[a] - p[a];
            }
            ++count;
        }
        for (int a = 0; a < 3 && count; ++a) base[16 * b + 12 + a] = (float)(shift[a] / count);
    }
    memset(h->fixed, 0, h->bc);
    if (h->tips_only) h->fixed[h->root] = 1;
    sd->fixed = h->fixed;
    sd->positions = h->pos;
    sd->position_count = n;
    free(rot);
    free(trans);
}

static void bench_hand(void)
{
    char mp[1024], tp[1024], pp[1024];
    if (!support_data_path("libigl-tutorial-data/hand.mesh", mp, sizeof mp) ||
        !support_data_path("libigl-tutorial-data/hand.tgf", tp, sizeof tp) ||
        !support_data_path("libigl-tutorial-data/hand-pose.dmat", pp, sizeof pp)) {
        printf("bbw-pose/hand: skipped (data not found)\n");
        return;
    }
    support_mesh mesh = {0};
    hand h;
    memset(&h, 0, sizeof h);
    size_t rows = 0, cols = 0;
    if (!support_read_medit(mp, &mesh) || !support_read_tgf(tp, &h.joints, &h.jc, &h.bones, &h.bc) ||
        !support_read_dmat(pp, &h.rel, &rows, &cols) || rows * cols != 4 * h.bc) {
        printf("bbw-pose/hand: skipped (data unreadable)\n");
        return;
    }
    sinew_tetmesh tm = {support_mesh_points(&mesh), mesh.tets, mesh.tet_count, SINEW_INDEX_U32, 0};
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    d.tets = &tm;
    d.joint_positions = (sinew_points){h.joints, h.jc, 0};
    d.bones = h.bones;
    d.bone_count = h.bc;
    sinew_bbw *b = NULL;
    sinew_bbw_pose *pose = NULL;
    if (sinew_bbw_create(NULL, &d, &b) != SINEW_OK || sinew_bbw_solve(NULL, b, NULL) != SINEW_OK) {
        printf("bbw-pose/hand: bbw failed: %s\n", sinew_last_error());
        goto out;
    }
    double t0 = support_cpu_now();
    if (sinew_bbw_pose_create_from_bbw(NULL, b, NULL, &pose) != SINEW_OK) {
        printf("bbw-pose/hand: create failed: %s\n", sinew_last_error());
        goto out;
    }
    double t1 = support_cpu_now();
    sinew_bbw_pose_info info;
    SINEW_INIT(&info);
    sinew_bbw_pose_get_info(pose, &info);
    printf("  (bbw-pose/hand: create %.2f s, %zu rotation clusters, %zu bytes held, scratch %zu bytes)\n", t1 - t0,
           info.cluster_count, info.memory_bytes, sinew_bbw_pose_scratch_size(pose, 2 * h.bc));
    h.pos = malloc(2 * h.bc * sizeof *h.pos);
    h.fixed = malloc(h.bc);
    for (size_t k = 0; k < h.bc; ++k) {
        int has_parent = 0;
        for (size_t p = 0; p < h.bc; ++p) has_parent |= p != k && h.bones[2 * p + 1] == h.bones[2 * k];
        if (!has_parent) {
            h.root = k;
            break;
        }
    }
    const uint32_t its[3] = {1, 5, 10};
    for (int tips = 0; tips < 2; ++tips) {
        h.tips_only = tips;
        frame_case c = {tips ? "hand-tips" : "hand-joints", pose, h.bc, hand_frame, &h, 2 * h.bc};
        for (int i = 0; i < 3; ++i) run_case(&c, its[i]);
    }
out:
    sinew_bbw_pose_destroy(pose);
    sinew_bbw_destroy(b);
    free(h.pos);
    free(h.fixed);
    free(h.joints);
    free(h.bones);
    free(h.rel);
    support_mesh_free(&mesh);
}

/* ---- a 2D bar ---- */

enum { BAR_NX = 60, BAR_NY = 10, BAR_HANDLES = 5 };

typedef struct bar {
    float rest[3 * BAR_HANDLES];
    uint8_t fixed[BAR_HANDLES];
    sinew_bbw_pose_position drag;
} bar;

static void bar_frame(void *user, int f, sinew_bbw_pose_solve_desc *sd, float *t, float *base)
{
    bar *b = user;
    (void)t;
    /* The right end swings up and over, a quarter turn about the bar's
     * middle, ending at (3, 3.5). */
    double a = 0.5 * 3.14159265358979 * (f + 1.0) / FRAMES;
    b->drag.handle = BAR_HANDLES - 1;
    memcpy(b->drag.rest, b->rest + 3 * (BAR_HANDLES - 1), sizeof b->drag.rest);
    b->drag.target[0] = (float)(3.0 + 3.0 * cos(a));
    b->drag.target[1] = (float)(0.5 + 3.0 * sin(a));
    b->drag.target[2] = 0.0f;
    ident(base, BAR_HANDLES);
    base[16 * (BAR_HANDLES - 1) + 12] = b->drag.target[0] - b->drag.rest[0];
    base[16 * (BAR_HANDLES - 1) + 13] = b->drag.target[1] - b->drag.rest[1];
    memset(b->fixed, 0, sizeof b->fixed);
    b->fixed[0] = 1;   /* the left end held by its (identity) transform */
    sd->fixed = b->fixed;
    sd->positions = &b->drag;
    sd->position_count = 1;
}

static void bench_bar(void)
{
    float *v = malloc((BAR_NX + 1) * (BAR_NY + 1) * 3 * sizeof(float));
    uint32_t *tri = malloc(BAR_NX * BAR_NY * 6 * sizeof(uint32_t));
    size_t n = 0, nt = 0;
    for (int j = 0; j <= BAR_NY; ++j)
        for (int i = 0; i <= BAR_NX; ++i, ++n) {
            v[3 * n] = 6.0f * i / BAR_NX;
            v[3 * n + 1] = 1.0f * j / BAR_NY;
            v[3 * n + 2] = 0.0f;
        }
    for (int j = 0; j < BAR_NY; ++j)
        for (int i = 0; i < BAR_NX; ++i) {
            uint32_t a = (uint32_t)(j * (BAR_NX + 1) + i), b = a + 1, c = a + BAR_NX + 2, d = a + BAR_NX + 1;
            const uint32_t two[6] = {a, b, c, a, c, d};
            memcpy(tri + 3 * nt, two, sizeof two);
            nt += 2;
        }
    bar b;
    memset(&b, 0, sizeof b);
    for (int k = 0; k < BAR_HANDLES; ++k) b.rest[3 * k] = 1.5f * k, b.rest[3 * k + 1] = 0.5f;
    sinew_trimesh tm = {{v, n, 0}, tri, nt, SINEW_INDEX_U32, 0};
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    d.triangles = &tm;
    d.points = (sinew_points){b.rest, BAR_HANDLES, 0};
    sinew_bbw *bbw = NULL;
    sinew_bbw_pose *pose = NULL;
    if (sinew_bbw_create(NULL, &d, &bbw) != SINEW_OK || sinew_bbw_solve(NULL, bbw, NULL) != SINEW_OK ||
        sinew_bbw_pose_create_from_bbw(NULL, bbw, NULL, &pose) != SINEW_OK) {
        printf("bbw-pose/bar2d: setup failed: %s\n", sinew_last_error());
    } else {
        frame_case c = {"bar2d", pose, BAR_HANDLES, bar_frame, &b, 1};
        const uint32_t its[3] = {1, 5, 10};
        for (int i = 0; i < 3; ++i) run_case(&c, its[i]);
    }
    sinew_bbw_pose_destroy(pose);
    sinew_bbw_destroy(bbw);
    free(v);
    free(tri);
}

int main(void)
{
    bench_bar();
    bench_hand();
    return 0;
}
