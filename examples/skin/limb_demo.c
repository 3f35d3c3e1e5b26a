/* sinew skinning demo: a cylinder "limb" with three bones (upper arm,
 * forearm, hand) bends at the elbow and twists at the wrist over an
 * animation. Every frame is skinned twice, with linear blending and with dual
 * quaternions, and written as OBJ files into the output folder, so the
 * candy-wrapper collapse of linear blending at the twisting wrist can be
 * seen next to the dual-quaternion result. Prints the throughput of the
 * deform call and the wrist's cross-section area under both blends.
 *
 * usage: skin_limb_demo <output folder> */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "limb_pictures.h"
#include "support.h"

#define PI 3.14159265358979323846
enum { RINGS = 121, SEGS = 48, NV = RINGS * SEGS, JOINTS = 3, FRAMES = 24 };
static const float LENGTH = 3.0f, RADIUS = 0.25f;

/* Creates every missing folder of path (like mkdir -p). */
static int make_folder(const char *path)
{
    char buf[1024];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof buf) return -1;
    memcpy(buf, path, n + 1);
    for (size_t i = 1; i <= n; ++i) {
        if (buf[i] != '/' && buf[i] != '\0') continue;
        char c = buf[i];
        buf[i] = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
        buf[i] = c;
    }
    return 0;
}

/* Column-major affine: rotation about axis (unit) by angle, then translation. */
static void rotation(double ax, double ay, double az, double angle, double tx, double ty, double tz, float m[16])
{
    double c = cos(angle), s = sin(angle), C = 1 - c;
    float r[16] = {(float)(ax * ax * C + c), (float)(ay * ax * C + az * s), (float)(az * ax * C - ay * s), 0,
                   (float)(ax * ay * C - az * s), (float)(ay * ay * C + c), (float)(az * ay * C + ax * s), 0,
                   (float)(ax * az * C + ay * s), (float)(ay * az * C - ax * s), (float)(az * az * C + c), 0,
                   (float)tx, (float)ty, (float)tz, 1};
    memcpy(m, r, sizeof r);
}

static void multiply(const float a[16], const float b[16], float out[16])
{
    float r[16];
    for (int c = 0; c < 4; ++c)
        for (int row = 0; row < 4; ++row) {
            float s = 0;
            for (int k = 0; k < 4; ++k) s += a[4 * k + row] * b[4 * c + k];
            r[4 * c + row] = s;
        }
    memcpy(out, r, sizeof r);
}

/* Joint world matrices at time u in [0, 1]: the elbow (x = 1) bends about z
 * up to 100 degrees, the wrist (x = 2) twists about its bone up to 150. */
static void pose(double u, float world[16 * JOINTS])
{
    const double bend = 100.0 * PI / 180.0 * sin(PI * u), twist = 150.0 * PI / 180.0 * sin(PI * u);
    float local[16];
    rotation(0, 0, 1, 0.15 * sin(2 * PI * u), 0, 0, 0, world);        /* shoulder sways */
    rotation(0, 0, 1, bend, 1, 0, 0, local);                          /* elbow, 1 along the upper arm */
    multiply(world, local, world + 16);
    rotation(1, 0, 0, twist, 1, 0, 0, local);                         /* wrist, 1 along the forearm */
    multiply(world + 16, local, world + 32);
}

/* ---- Bone links ----------------------------------------------------------------
 * The elbow bent to 150 degrees collapses under linear blending: its ring,
 * weighted half and half, blends two frames 150 degrees apart. Split into
 * three bone links (sinew_skin_bone_links) driven by sinew_skin_link_rotations,
 * neighbouring frames are only 50 degrees apart. Skins the limb both ways,
 * writes limb_links1_150.obj and limb_links3_150.obj and prints the elbow
 * ring's area over its rest area. Returns 0, or 1 after printing a failure. */
static int bone_links_figure(const char *folder, const float *p, const uint32_t *joints, const float *weights,
                             const float *inverse_bind, const uint32_t *tris, size_t tri_count, float *out_p)
{
    const uint32_t parents[JOINTS] = {SINEW_SKIN_NO_PARENT, 0, 1};
    const double bend = 150.0 * PI / 180.0;
    const int ring = (RINGS - 1) / 3;   /* x = 1, the elbow */
    double ratio[2] = {0, 0};
    for (int c = 0; c < 2; ++c) {
        const uint32_t links = c ? 3 : 1;
        enum { MAX_JOINTS = JOINTS + 2 };
        uint32_t new_parents[MAX_JOINTS], *lj = malloc(2 * NV * sizeof(uint32_t));
        float new_ib[16 * MAX_JOINTS], *lw = malloc(2 * NV * sizeof(float));
        size_t count = 0;
        sinew_skin_links_desc d;
        SINEW_INIT(&d);
        d.link_count = links;
        sinew_skin_links_report rep;
        SINEW_INIT(&rep);
        sinew_skin *skin = NULL;
        sinew_result r = lj && lw ? SINEW_OK : SINEW_ERROR_OUT_OF_MEMORY;
        if (r == SINEW_OK)
            r = sinew_skin_bone_links(NULL, JOINTS, parents, inverse_bind, 1, &d, NV, 2, joints, weights, new_parents,
                                      new_ib, MAX_JOINTS, &count, lj, lw, &rep);
        /* Pose: shoulder at rest, elbow bent about z, its rotation spread over
         * the links: link 1 = T(1, 0, 0) R(q_1), link k = R(q_k), and the
         * wrist 1 further along the elbow. */
        float q[4] = {0, 0, (float)sin(bend / 2), (float)cos(bend / 2)}, lq[4 * 3];
        if (r == SINEW_OK) r = sinew_skin_link_rotations(q, rep.bone_axis, links, lq);
        float world[16 * MAX_JOINTS], local[16];
        rotation(1, 0, 0, 0, 0, 0, 0, world);
        const float *at = world;
        for (uint32_t k = 1; k <= links && r == SINEW_OK; ++k) {
            const float *u = lq + 4 * (k - 1);
            double sv = sqrt((double)u[0] * u[0] + (double)u[1] * u[1] + (double)u[2] * u[2]);
            double angle = 2 * atan2(sv, u[3]);
            if (sv == 0) sv = 1;
            rotation(u[0] / sv, u[1] / sv, u[2] / sv, angle, k == 1 ? 1 : 0, 0, 0, local);
            float *m = world + 16 * (k == links ? 1 : JOINTS + k - 1);
            multiply(at, local, m);
            at = m;
        }
        rotation(1, 0, 0, 0, 1, 0, 0, local);
        multiply(world + 16, local, world + 32);
        if (r == SINEW_OK) {
            sinew_skin_desc sd;
            SINEW_INIT(&sd);
            sd.vertex_count = NV, sd.joint_count = count, sd.influence_count = 2;
            sd.joints = lj, sd.weights = lw, sd.inverse_bind = new_ib;
            r = sinew_skin_create(NULL, &sd, &skin);
        }
        float palette[16 * MAX_JOINTS];
        if (r == SINEW_OK) r = sinew_skin_palette(skin, world, count, palette, 16 * count);
        sinew_skin_input in = {p, 0, NULL, 0, NULL, 0};
        sinew_skin_output out = {out_p, 0, NULL, 0, NULL, 0};
        if (r == SINEW_OK) r = sinew_skin_deform(skin, palette, 16 * count, &in, &out, 0, NV);
        sinew_skin_destroy(skin);
        free(lj), free(lw);
        if (r != SINEW_OK) {
            fprintf(stderr, "bone links (%u): %s: %s\n", links, sinew_result_string(r), sinew_last_error());
            return 1;
        }
        /* Every vertex of the ring has the same weights, so the blend maps the
         * ring by one affine map: it stays planar and its vector area is its area. */
        double area[3] = {0, 0, 0};
        for (int s = 0; s < SEGS; ++s) {
            const float *u = out_p + 3 * (ring * SEGS + s), *v = out_p + 3 * (ring * SEGS + (s + 1) % SEGS);
            area[0] += (double)u[1] * v[2] - (double)u[2] * v[1];
            area[1] += (double)u[2] * v[0] - (double)u[0] * v[2];
            area[2] += (double)u[0] * v[1] - (double)u[1] * v[0];
        }
        ratio[c] = 0.5 * sqrt(area[0] * area[0] + area[1] * area[1] + area[2] * area[2]) /
                   (0.5 * SEGS * RADIUS * RADIUS * sin(2 * PI / SEGS));
        char path[1200];
        snprintf(path, sizeof path, "%s/limb_links%u_150.obj", folder, links);
        if (!support_write_obj(path, out_p, NV, 0, tris, tri_count)) {
            fprintf(stderr, "cannot write %s\n", path);
            return 1;
        }
    }
    printf("  elbow cross-section at 150 degrees bend, area / rest: one link %.3f, three bone links %.3f "
           "(limb_links1_150.obj, limb_links3_150.obj)\n",
           ratio[0], ratio[1]);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s <output folder>\n", argv[0]);
        return 2;
    }
    if (make_folder(argv[1]) != 0) {
        fprintf(stderr, "cannot create folder %s: %s\n", argv[1], strerror(errno));
        return 1;
    }

    /* The limb: rings along x, two influences per vertex blended over 0.4
     * around each joint. */
    float *p = malloc(3 * NV * sizeof(float)), *n = malloc(3 * NV * sizeof(float));
    float *out_p = malloc(3 * NV * sizeof(float)), *out_n = malloc(3 * NV * sizeof(float));
    uint32_t *joints = malloc(2 * NV * sizeof(uint32_t));
    float *weights = malloc(2 * NV * sizeof(float));
    uint32_t *tris = malloc(6 * (RINGS - 1) * SEGS * sizeof(uint32_t));
    for (int i = 0; i < RINGS; ++i)
        for (int s = 0; s < SEGS; ++s) {
            int v = i * SEGS + s;
            double a = 2 * PI * s / SEGS, x = LENGTH * i / (RINGS - 1);
            p[3 * v] = (float)x, p[3 * v + 1] = (float)(RADIUS * cos(a)), p[3 * v + 2] = (float)(RADIUS * sin(a));
            n[3 * v] = 0, n[3 * v + 1] = (float)cos(a), n[3 * v + 2] = (float)sin(a);
            /* nearest joint boundary (x = 1 or 2) and a smoothstep across it */
            int b = x < 1.5 ? 1 : 2;
            double t = (x - (b - 0.2)) / 0.4;
            t = t < 0 ? 0 : t > 1 ? 1 : t;
            double w = t * t * (3 - 2 * t);
            joints[2 * v] = (uint32_t)(b - 1), joints[2 * v + 1] = (uint32_t)b;
            weights[2 * v] = (float)(1 - w), weights[2 * v + 1] = (float)w;
        }
    size_t tri_count = 0;
    for (int i = 0; i + 1 < RINGS; ++i)
        for (int s = 0; s < SEGS; ++s) {
            uint32_t a = (uint32_t)(i * SEGS + s), b = (uint32_t)(i * SEGS + (s + 1) % SEGS);
            uint32_t *q = tris + 3 * tri_count;
            q[0] = a, q[1] = b, q[2] = b + SEGS, q[3] = a, q[4] = b + SEGS, q[5] = a + SEGS;
            tri_count += 2;
        }
    /* Bind pose: joints at x = 0, 1, 2 along the straight limb. */
    float inverse_bind[16 * JOINTS];
    for (int j = 0; j < JOINTS; ++j) rotation(1, 0, 0, 0, -j, 0, 0, inverse_bind + 16 * j);

    sinew_skin *skins[2] = {NULL, NULL};
    const char *names[2] = {"lbs", "dqs"};
    for (int b = 0; b < 2; ++b) {
        sinew_skin_desc d;
        SINEW_INIT(&d);
        d.vertex_count = NV, d.joint_count = JOINTS, d.influence_count = 2;
        d.joints = joints, d.weights = weights, d.inverse_bind = inverse_bind;
        d.blend = b ? SINEW_SKIN_BLEND_DUAL_QUATERNION : SINEW_SKIN_BLEND_LINEAR;
        sinew_result r = sinew_skin_create(NULL, &d, &skins[b]);
        if (r != SINEW_OK) {
            fprintf(stderr, "bind failed: %s: %s\n", sinew_result_string(r), sinew_last_error());
            return 1;
        }
    }
    float *palette = malloc(sinew_skin_palette_size(skins[1]) * sizeof(float));
    float world[16 * JOINTS];
    sinew_skin_input in = {p, 0, n, 0, NULL, 0};
    sinew_skin_output out = {out_p, 0, out_n, 0, NULL, 0};
    double seconds[2] = {0, 0};
    double wrist_area[2] = {0, 0};
    int calls = 0;
    for (int f = 0; f < FRAMES; ++f) {
        pose((double)f / (FRAMES - 1), world);
        for (int b = 0; b < 2; ++b) {
            if (sinew_skin_palette(skins[b], world, JOINTS, palette, sinew_skin_palette_size(skins[b])) != SINEW_OK) return 1;
            /* Time several passes per frame so the figure is not all noise. */
            double t0 = support_now();
            for (int rep = 0; rep < 20; ++rep)
                if (sinew_skin_deform(skins[b], palette, sinew_skin_palette_size(skins[b]), &in, &out, 0, NV) != SINEW_OK) return 1;
            seconds[b] += support_now() - t0;
            if (b == 0) calls += 20;
            char path[1200];
            snprintf(path, sizeof path, "%s/limb_%s_%02d.obj", argv[1], names[b], f);
            if (!support_write_obj(path, out_p, NV, 0, tris, tri_count)) {
                fprintf(stderr, "cannot write %s\n", path);
                return 1;
            }
            if (f == FRAMES / 2) {
                /* The wrist ring (x = 2) lies in the plane through the wrist
                 * joint perpendicular to the forearm; measure its area there. */
                const float *wm = world + 32;
                double axis[3] = {wm[0], wm[1], wm[2]}, area[3] = {0, 0, 0};
                int ring = (RINGS - 1) * 2 / 3;
                for (int s = 0; s < SEGS; ++s) {
                    const float *u = out_p + 3 * (ring * SEGS + s), *v = out_p + 3 * (ring * SEGS + (s + 1) % SEGS);
                    area[0] += (double)u[1] * v[2] - (double)u[2] * v[1];
                    area[1] += (double)u[2] * v[0] - (double)u[0] * v[2];
                    area[2] += (double)u[0] * v[1] - (double)u[1] * v[0];
                }
                wrist_area[b] = 0.5 * fabs(area[0] * axis[0] + area[1] * axis[1] + area[2] * axis[2]);
            }
        }
    }
    const double rest_area = 0.5 * SEGS * RADIUS * RADIUS * sin(2 * PI / SEGS);
    printf("skin_limb_demo: %d vertices, %d joints, %d frames written to %s (limb_lbs_NN.obj, limb_dqs_NN.obj)\n", NV,
           JOINTS, FRAMES, argv[1]);
    printf("  throughput, positions + normals, one thread: linear %.1f M vertices/s, dual quaternion %.1f M vertices/s\n",
           calls * (double)NV / seconds[0] * 1e-6, calls * (double)NV / seconds[1] * 1e-6);
    printf("  wrist cross-section at 150 degrees twist, area / rest: linear %.3f, dual quaternion %.3f\n",
           wrist_area[0] / rest_area, wrist_area[1] / rest_area);
    bool links = bone_links_figure(argv[1], p, joints, weights, inverse_bind, tris, tri_count, out_p) == 0;
    pose(0.5, world); /* the widest pose: PNG images of it (limb_pictures.c) */
    bool pictures = limb_pictures(argv[1], skins, world, JOINTS, p, NV, tris, tri_count);
    sinew_skin_destroy(skins[0]);
    sinew_skin_destroy(skins[1]);
    free(palette), free(p), free(n), free(out_p), free(out_n), free(joints), free(weights), free(tris);
    return links && pictures ? 0 : 1;
}
