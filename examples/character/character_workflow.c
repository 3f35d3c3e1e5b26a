/* Example: the surface-oriented FFD character workflow of Singh & Kokkevis,
 * with pose-space correctives, on libigl's arm and its skeleton.
 *
 *   1. load the character (skin and skeleton);
 *   2. make a driver from its skin, with more vertices at the joints;
 *   3. bind the driver's points to the skeleton (each rigidly to its nearest
 *      bone segment);
 *   4. register the skin on the driver (SOFFD);
 *   5. key a corrective at the elbow (at 90 degrees) and a muscle bulge
 *      against the elbow angle (character_keys.h);
 *   6. bend the elbow from 0 to 120 degrees over 9 frames; each frame the
 *      driver is posed without and with the correctives and the skin follows.
 *      Bound rigidly, the driver creases at the elbow and the skin on the
 *      inside of the bend closes in on the joint (about half the arm's
 *      thickness there is lost at 120 degrees); the elbow corrective keeps it.
 *
 * Writes arm_plain_NN.obj and arm_corrected_NN.obj per frame, driver_rest.obj
 * and character_correctives.png (the last frame, both side by side) into the
 * folder given as the first argument (default: the current one), and checks
 * what it shows: the rest pose gives the skin back with and without the
 * correctives, the elbow key is reproduced at its pose, the elbow keeps its
 * thickness with the correctives, and the bulge grows with every frame.
 * Exits 1 when a check fails, 77 (skipped) without the shared data.
 *
 *   character_workflow [output-folder]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arm_rig.h"
#include "character_driver.h"
#include "character_keys.h"
#include "character_measure.h"
#include "character_pictures.h"
#include "sinew.h"
#include "support.h"

enum { EXIT_SKIP = 77, FRAMES = 9, KEY_FRAME = 6 };
/* Driver size: a few hundred triangles, as the paper's drivers. */
#define DRIVER_TRIANGLES 400
/* The bulge's height at the last frame, in upper-arm radii. */
#define BULGE_HEIGHT 0.5
/* Rounding allowed where a result should come back exactly, relative to the
 * skin's box diagonal: float skinning and frames, a few ulps per step. */
#define EXACT_TOLERANCE 1e-5
/* Share of its rest thickness the elbow keeps through the animation with the
 * correctives (without them the inside of the bend loses about half). */
#define ELBOW_KEEPS 0.9

static double frame_angle(int frame)
{
    return (2.0 * M_PI / 3.0) * frame / (FRAMES - 1);
}

typedef struct buffers {
    float *worlds, *elbow_corrected, *corrected, *posed_plain, *posed_corrected, *skin_plain, *skin_corrected;
} buffers;

static bool buffers_make(buffers *b, const arm_rig *rig, const character_driver *d)
{
    size_t dp = 3 * d->point_count * sizeof(float), sp = 3 * rig->skin.vertex_count * sizeof(float);
    b->worlds = malloc(16 * rig->bone_count * sizeof(float));
    b->elbow_corrected = malloc(dp), b->corrected = malloc(dp);
    b->posed_plain = malloc(dp), b->posed_corrected = malloc(dp);
    b->skin_plain = malloc(sp), b->skin_corrected = malloc(sp);
    return b->worlds && b->elbow_corrected && b->corrected && b->posed_plain && b->posed_corrected && b->skin_plain &&
           b->skin_corrected;
}

static void buffers_free(buffers *b)
{
    free(b->worlds), free(b->elbow_corrected), free(b->corrected), free(b->posed_plain), free(b->posed_corrected);
    free(b->skin_plain), free(b->skin_corrected);
}

static bool write_obj(const char *dir, const char *name, int frame, const float *p, size_t n, const uint32_t *t,
                      size_t tc)
{
    char path[4200];
    if (frame >= 0) snprintf(path, sizeof path, "%s/%s_%02d.obj", dir, name, frame);
    else snprintf(path, sizeof path, "%s/%s.obj", dir, name);
    if (support_write_obj(path, p, n, 0, t, tc)) return true;
    fprintf(stderr, "cannot write %s\n", path);
    return false;
}

static bool check(bool ok, const char *what)
{
    printf("  check: %s: %s\n", what, ok ? "yes" : "NO");
    return ok;
}

/* At its pose the elbow key comes back: weight exactly 1, the corrected rest
 * points the float sums rest + offset, and posed they land on the smooth
 * bend the key was made from. */
static bool check_key(const arm_rig *rig, const character_driver *d, const sinew_corrective *elbow,
                      const float *offsets, const buffers *b, double tolerance)
{
    float pose[ELBOW_POSE_SIZE], w = 0.0f;
    character_elbow_pose(rig, frame_angle(KEY_FRAME), pose);
    sinew_corrective_weights(elbow, pose, ELBOW_POSE_SIZE, &w, 1);
    bool sums = true;
    for (size_t i = 0; i < 3 * d->point_count; ++i) sums = sums && b->elbow_corrected[i] == d->rest[i] + offsets[i];
    float *posed = malloc(3 * d->point_count * sizeof(float)), *target = malloc(3 * d->point_count * sizeof(float));
    bool ok = posed && target && character_driver_pose(d, b->worlds, rig->bone_count, b->elbow_corrected, posed);
    double off = INFINITY;
    if (ok) {
        character_elbow_target(rig, d, frame_angle(KEY_FRAME), target);
        off = measure_largest_distance(posed, target, d->point_count);
    }
    free(posed), free(target);
    printf("  key weight %g; posed corrected driver within %.2g of the key's smooth bend\n", (double)w, off);
    /* Every check prints, whatever the ones before it gave. */
    bool weight_one = check(w == 1.0f, "elbow key weight exactly 1 at its pose");
    bool offsets_added = check(sums, "corrected rest driver = rest + key offsets, bit for bit");
    bool reproduced = check(off <= tolerance, "posed, it reproduces the key");
    return weight_one && offsets_added && reproduced;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : ".";
    arm_rig rig;
    const char *missing = NULL;
    if (!arm_rig_load(&rig, &missing)) {
        if (!missing) return fprintf(stderr, "cannot read the arm\n"), 1;
        printf("skipped: %s not found (set SINEW_DATA_DIR)\n", missing);
        return EXIT_SKIP;
    }
    if (!support_make_folder(dir)) {
        fprintf(stderr, "cannot make %s\n", dir);
        arm_rig_free(&rig);
        return 1;
    }
    printf("character: libigl arm, %zu vertices, %zu triangles, %zu bones; upper arm radius %.3f\n",
           rig.skin.vertex_count, rig.skin.triangle_count, rig.bone_count, rig.upper_radius);

    character_driver d;
    int fail = !character_driver_from_skin(&d, &rig, DRIVER_TRIANGLES);
    if (!fail) {
        printf("driver from skin: %zu points, %zu triangles in %.0f ms; largest distance skin to driver %.4f, "
               "driver to skin %.4f (diagonal %.3f)\n",
               d.point_count, d.triangle_count, 1e3 * d.report.seconds, (double)d.report.skin_to_driver_distance,
               (double)d.report.driver_to_skin_distance, (double)d.report.diagonal);
        fail = !character_driver_bind(&d, &rig);
    }
    if (!fail) {
        size_t per_bone[8] = {0};
        for (size_t i = 0; i < d.point_count; ++i) per_bone[d.bone_of[i] < 8 ? d.bone_of[i] : 7]++;
        printf("driver bound to the nearest bone: %zu, %zu, %zu, %zu points on bones 0..3\n", per_bone[0],
               per_bone[1], per_bone[2], per_bone[3]);
        fail = !character_driver_register(&d, &rig);
    }
    sinew_corrective *elbow = NULL, *bulge = NULL;
    float *offsets = NULL;
    buffers b = {0};
    if (!fail) {
        sinew_soffd_info info;
        SINEW_INIT(&info);
        sinew_soffd_get_info(d.soffd, &info);
        printf("skin registered: %zu points on %zu elements, %.1f elements per point\n", info.point_count,
               info.element_count, (double)info.contribution_count / (double)info.point_count);
        elbow = character_elbow_corrective(&rig, &d, frame_angle(KEY_FRAME), &offsets);
        bulge = character_bulge_corrective(&rig, &d, frame_angle(FRAMES - 1), BULGE_HEIGHT * rig.upper_radius);
        fail = !elbow || !bulge || !buffers_make(&b, &rig, &d);
    }
    if (!fail) {
        sinew_corrective_info ei, bi;
        SINEW_INIT(&ei), SINEW_INIT(&bi);
        sinew_corrective_get_info(elbow, &ei), sinew_corrective_get_info(bulge, &bi);
        printf("correctives: elbow keyed at %.0f degrees (%zu driver points move), bulge keyed against the angle "
               "(%zu points)\n", frame_angle(KEY_FRAME) * 180 / M_PI, ei.offset_count, bi.offset_count);
        fail = !write_obj(dir, "driver_rest", -1, d.rest, d.point_count, d.triangles, d.triangle_count);
    }
    double tolerance = EXACT_TOLERANCE * d.report.diagonal, rest_clearance = 0.0, last_bulge = 0.0;
    if (!fail) rest_clearance = measure_elbow_clearance(&rig, rig.skin.positions);
    size_t n = rig.skin.vertex_count;
    for (int f = 0; f < FRAMES && !fail; ++f) {
        double angle = frame_angle(f);
        float pose[ELBOW_POSE_SIZE], scalar = (float)angle;
        sinew_points rest = {d.rest, d.point_count, 0}, after_elbow = {b.elbow_corrected, d.point_count, 0};
        arm_rig_bone_worlds(&rig, angle, b.worlds);
        /* The correctives move the driver's rest points, one after the other; then the driver is skinned. */
        if (!character_elbow_pose(&rig, angle, pose) ||
            sinew_corrective_deform(elbow, pose, ELBOW_POSE_SIZE, &rest, b.elbow_corrected, 0, 0, d.point_count) !=
                SINEW_OK ||
            sinew_corrective_deform(bulge, &scalar, 1, &after_elbow, b.corrected, 0, 0, d.point_count) != SINEW_OK ||
            !character_driver_pose(&d, b.worlds, rig.bone_count, d.rest, b.posed_plain) ||
            !character_driver_pose(&d, b.worlds, rig.bone_count, b.corrected, b.posed_corrected) ||
            !character_driver_deform(&d, b.posed_plain, b.skin_plain) ||
            !character_driver_deform(&d, b.posed_corrected, b.skin_corrected)) {
            fprintf(stderr, "frame %d: %s\n", f, sinew_last_error());
            fail = 1;
            break;
        }
        double bulge_now = measure_bulge(&rig, b.skin_plain, b.skin_corrected);
        double plain_clearance = measure_elbow_clearance(&rig, b.skin_plain);
        double corrected_clearance = measure_elbow_clearance(&rig, b.skin_corrected);
        printf("frame %d, elbow %5.1f: skin within %.4f of the elbow joint without, %.4f with correctives "
               "(rest %.4f); bulge %.4f\n", f, angle * 180 / M_PI, plain_clearance, corrected_clearance,
               rest_clearance, bulge_now);
        fail |= !check(corrected_clearance >= ELBOW_KEEPS * rest_clearance,
                       "with the correctives the elbow keeps its thickness");
        if (f == 0) {
            double back = measure_largest_distance(b.skin_plain, rig.skin.positions, n);
            printf("  rest pose: skin back within %.2g\n", back);
            fail |= !check(back <= tolerance, "rest pose gives the skin back (identity at bind)");
            fail |= !check(memcmp(b.skin_plain, b.skin_corrected, 3 * n * sizeof(float)) == 0,
                           "with the correctives too, bit for bit");
        } else {
            fail |= !check(bulge_now > last_bulge, "the bulge grew since the last frame");
        }
        if (f == KEY_FRAME) fail |= !check_key(&rig, &d, elbow, offsets, &b, tolerance);
        last_bulge = bulge_now;
        fail |= !write_obj(dir, "arm_plain", f, b.skin_plain, n, rig.skin.triangles, rig.skin.triangle_count);
        fail |= !write_obj(dir, "arm_corrected", f, b.skin_corrected, n, rig.skin.triangles, rig.skin.triangle_count);
        if (f == FRAMES - 1 && !character_picture(dir, &rig, b.skin_plain, b.skin_corrected, angle * 180 / M_PI))
            fail = 1;
    }
    if (!fail) printf("wrote %d frames into %s (arm_plain_NN.obj, arm_corrected_NN.obj)\n", FRAMES, dir);
    buffers_free(&b);
    free(offsets);
    sinew_corrective_destroy(elbow);
    sinew_corrective_destroy(bulge);
    character_driver_free(&d);
    arm_rig_free(&rig);
    return fail ? 1 : 0;
}
