/* The demo's procedural limb: a cylinder along x with three joints (shoulder
 * at x = 0, elbow at 1, wrist at 2), two influences per vertex blended across
 * each joint, and its animation. Not part of the library. */
#ifndef SINEW_EXAMPLE_LIMB_H
#define SINEW_EXAMPLE_LIMB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { LIMB_RINGS = 121, LIMB_SEGMENTS = 48, LIMB_VERTICES = LIMB_RINGS * LIMB_SEGMENTS, LIMB_JOINTS = 3 };
#define LIMB_LENGTH 3.0
#define LIMB_RADIUS 0.25
#define LIMB_PI 3.14159265358979323846

typedef struct limb {
    float *positions, *normals;    /* LIMB_VERTICES rows of 3 */
    uint32_t *joints;              /* LIMB_VERTICES rows of 2 */
    float *weights;                /* LIMB_VERTICES rows of 2, each summing to 1 */
    uint32_t *triangles;           /* triangle_count rows of 3 */
    size_t triangle_count;
    float inverse_bind[16 * LIMB_JOINTS];
} limb;

/* Builds the limb at rest; false when memory runs out (nothing to free). */
bool limb_make(limb *l);
void limb_free(limb *l);

/* Joint world matrices at time u in [0, 1]: the shoulder sways, the elbow
 * bends about z up to 100 degrees, the wrist twists about its bone up to 150. */
void limb_pose(double u, float world[16 * LIMB_JOINTS]);

/* Area of the deformed ring `ring` (vertex rows ring * LIMB_SEGMENTS onward),
 * projected on the unit normal `axis` (NULL: the length of its vector area,
 * for a ring that stays planar), over the ring's rest area. */
double limb_ring_area_ratio(const float *positions, int ring, const double *axis);

/* The bone-links figure: the elbow bent to 150 degrees, skinned with one link
 * and with three (sinew_skin_bone_links, sinew_skin_link_rotations); writes
 * limb_links1_150.obj and limb_links3_150.obj into folder and prints the
 * elbow ring's area over its rest area. scratch: LIMB_VERTICES * 3 floats.
 * false after printing a failure. */
bool limb_links_figure(const char *folder, const limb *l, float *scratch);

#endif
