/*
 * Drivers made from the skin (docs/soffd.md, "Drivers made from the skin"):
 * welds a skin's patches and decimates it by quadric-error edge collapse into
 * a low-resolution triangle mesh to use as a SOFFD driver, keeping more
 * vertices near the skeleton's joints than along its rigid spans.
 */
#ifndef SINEW_SOFFD_DRIVER_H
#define SINEW_SOFFD_DRIVER_H

#include "sinew/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Options of sinew_soffd_driver_from_skin. At least one of
 * target_triangle_count and max_error must be set. */
typedef struct sinew_soffd_driver_desc {
    size_t struct_size;  /* SINEW_INIT(&s) sets it */
    /* Collapse until at most this many triangles remain (fewer when a
     * collapse removes two at once); 0 = no count target. Collapses that
     * would fold, flip or pinch the surface are never made, so a mesh may
     * stop above the target. */
    size_t target_triangle_count;
    /* No collapse is made whose new vertex would lie farther than this from
     * the planes of the skin triangles it stands for (root mean square, area
     * weighted), relative to the diagonal of the skin's box; 0 = no error
     * bound. With both targets the first reached ends the decimation. The
     * report gives the true largest distances. */
    float max_error;
    /* Skin vertices closer than this, relative to the box diagonal, are
     * welded into one (patches stitched). 0 = 1e-5. Must be finite and
     * in [0, 0.1). */
    float weld_tolerance;
    /* ---- skeleton (optional): more vertices near the joints ---- */
    sinew_points joint_positions;  /* bind-pose joints, mesh space */
    const uint32_t *bones;         /* 2 joint_positions indices per bone */
    size_t bone_count;             /* 0 = no skeleton, no emphasis */
    /* Driver edges at a joint where two or more bones meet come out about
     * 1 + joint_emphasis times shorter than along the spans: a collapse
     * there costs (1 + joint_emphasis)^4 times as much (the quadric error
     * grows as the fourth power of the edge length), a factor that falls
     * smoothly to 1 at joint_radius times the shortest bone at that joint.
     * 0 = 3 and 0.35. Must be finite and > 0 otherwise. */
    float joint_emphasis;
    float joint_radius;
} sinew_soffd_driver_desc;

/* The defaults sinew_soffd_driver_from_skin uses (docs/api.md, Defaults):
 * *resolved = desc (NULL = all zero) with weld_tolerance (1e-5),
 * joint_emphasis (3) and joint_radius (0.35) filled in where zero; the
 * targets, the skeleton and the counts are copied unchecked. resolved must
 * be SINEW_INIT'ed and is written up to its struct_size. INVALID_ARGUMENT
 * (NULL resolved), UNSUPPORTED (unknown nonzero desc bytes). Thread-safe. */
SINEW_API sinew_result sinew_soffd_driver_desc_defaults(const sinew_soffd_driver_desc *desc,
                                                        sinew_soffd_driver_desc *resolved);

/* What sinew_soffd_driver_from_skin made. */
typedef struct sinew_soffd_driver_report {
    size_t struct_size;            /* SINEW_INIT(&s) sets it */
    size_t vertex_count;           /* out: driver vertices */
    size_t triangle_count;         /* out: driver triangles */
    size_t welded_vertices;        /* out: skin vertices merged into another by the weld */
    /* out: largest distance (world units) from a skin vertex used by a face
     * to the driver surface, and from a driver vertex to the skin surface */
    float skin_to_driver_distance;
    float driver_to_skin_distance;
    float diagonal;                /* out: the skin's box diagonal, world units */
    double seconds;                /* out: wall-clock time of the call */
} sinew_soffd_driver_report;

/* Makes a driver from a skin: welds coincident vertices (weld_tolerance),
 * triangulates n-gons, then collapses edges in order of their quadric error
 * (Garland & Heckbert), multiplied up near joints, until the target count or
 * the error bound is reached. A collapse is refused when it would flip or
 * squash a triangle, join two boundaries, or make an edge shared by more
 * than two triangles, so a closed manifold skin gives a closed manifold
 * driver. Driver vertices are listed in the order of the skin vertices they
 * came from, triangles in the order of the skin's faces; the same input
 * gives the same driver on every machine.
 * out_positions: 3 floats per driver vertex, position_capacity vertices;
 * out_triangles: 3 uint32_t per triangle, triangle_capacity triangles.
 * Both NULL asks only for the counts (the work is done in full either way;
 * the report holds them); a capacity below a count is BUFFER_TOO_SMALL with
 * the report filled and nothing else written.
 * mesh: the skin, positions (any stride) and faces (face_sizes NULL =
 *   triangles); unreferenced vertices are allowed and left out.
 * Returns INVALID_ARGUMENT (NULL mesh or report, no faces, face size < 3,
 * bad option, no target, a bone joining a joint to itself, only one output
 * buffer), NON_FINITE (names the vertex or joint), INDEX_OUT_OF_RANGE
 * (names the face or bone), INVALID_TOPOLOGY (a face that cannot be
 * triangulated, named), DEGENERATE (the skin has no extent), OUTSIDE_DOMAIN
 * (a box diagonal beyond the float range), OUT_OF_MEMORY,
 * SIZE_OVERFLOW, CANCELLED (progress stage "soffd: driver"); outputs and
 * report untouched on any failure but BUFFER_TOO_SMALL.
 * ctx: allocator and progress; NULL = defaults. desc: required (a target).
 * Thread-safety: reentrant; no shared state. */
SINEW_API sinew_result sinew_soffd_driver_from_skin(sinew_context *ctx, const sinew_polymesh *mesh,
                                                    const sinew_soffd_driver_desc *desc, float *out_positions,
                                                    size_t position_capacity, uint32_t *out_triangles,
                                                    size_t triangle_capacity, sinew_soffd_driver_report *report);

#ifdef __cplusplus
}
#endif

#endif /* SINEW_SOFFD_DRIVER_H */
