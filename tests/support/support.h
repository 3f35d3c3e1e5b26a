/*
 * Test, benchmark and example support: shared data paths, a counting allocator
 * that can fail on demand, a clock, benchmark lines, and readers/writers for
 * the mesh formats in ../shared/data. Not part of the library.
 */
#ifndef SINEW_TEST_SUPPORT_H
#define SINEW_TEST_SUPPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sinew.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Shared data ------------------------------------------------------- */

/* Writes the full path of `relative` (e.g. "gltf/Fox.gltf") inside the shared
 * data folder into buf. Returns false when the file does not exist, so a test
 * can skip. The folder is $SINEW_DATA_DIR, else the one meson configured. */
bool support_data_path(const char *relative, char *buf, size_t size);

/* ---- Counting allocator --------------------------------------------------- */

typedef struct support_allocator {
    size_t calls;        /* allocations attempted so far */
    size_t fail_at;      /* fail the fail_at-th attempt (1-based); 0 = never */
    size_t failures;     /* allocations refused */
    size_t live;         /* blocks not yet freed */
    size_t live_bytes;
    size_t peak_bytes;
} support_allocator;

/* Hooks for sinew_context_desc.allocator that count into `a`. */
sinew_allocator support_allocator_hooks(support_allocator *a);

/* Allocation-failure sweep: calls attempt(ctx, user) with a context whose
 * allocator fails the n-th allocation, for n = 1, 2, ... until an attempt makes
 * no failing allocation. attempt must release everything it created before it
 * returns. After each run the sweep checks that nothing leaked and that a
 * failed run returned SINEW_ERROR_OUT_OF_MEMORY. Returns true when every run
 * passed; on false, *report describes the first problem. *runs counts runs. */
typedef sinew_result (*support_attempt_fn)(sinew_context *ctx, void *user);
bool support_sweep_allocation_failures(support_attempt_fn attempt, void *user, size_t *runs,
                                       char *report, size_t report_size);

/* ---- Saved data -------------------------------------------------------------- */

/* Rewrites the checksum of saved data (in place) with an independent
 * implementation of the documented algorithm, so tests and fuzzers can hand a
 * loader changed data that passes the checksum. false when the header's size
 * field is unusable. */
bool support_reseal(void *data, size_t size);

/* Loads `size` bytes, runs any checks on the loaded handle, destroys it and
 * returns the load's result. */
typedef sinew_result (*support_load_fn)(const void *data, size_t size, void *user);

/* Corruption sweeps over valid saved data (keep it small: a few KB):
 *   every truncation must fail with SINEW_ERROR_INVALID_DATA;
 *   every single-bit flip must fail with INVALID_DATA (UNSUPPORTED in the
 *   format version field);
 *   every byte changed by +1, +0x80 and +0xff with the checksum resealed must
 *   load or fail with a known code and a message (never crash: run it under
 *   AddressSanitizer).
 * Each load gets a private copy of exactly the bytes given. *accepted counts
 * the resealed changes that loaded. Returns true when every case passed;
 * otherwise report describes the first failure. */
bool support_sweep_saved_corruption(const void *data, size_t size, support_load_fn load, void *user,
                                    size_t *accepted, char *report, size_t report_size);

/* Little-endian fields of saved data, for tests that edit it. */
uint64_t support_le_get(const unsigned char *p, int bytes);
void support_le_put(unsigned char *p, uint64_t v, int bytes);
/* Start of the data of section `tag` (four characters) in saved data, from
 * its table entry; NULL when there is no such section. */
unsigned char *support_saved_section(unsigned char *data, const char tag[4]);

/* ---- Folders and affine matrices (affine.c) --------------------------------- */

/* Creates every missing folder of path (like mkdir -p); false on failure. */
bool support_make_folder(const char *path);
/* Column-major affine m: a rotation by angle (radians) about axis (any length
 * > 0), then translation. */
void support_affine_rotation(const double axis[3], double angle, const double translation[3], float m[16]);
/* out = a b for column-major 4x4 matrices; out may be a or b. */
void support_mat4_multiply(const float a[16], const float b[16], float out[16]);

/* ---- Time and benchmark output ---------------------------------------------- */

/* Monotonic seconds. */
double support_now(void);
/* CPU seconds of the calling thread (monotonic wall time where the platform has
 * no thread clock). Benchmarks report per-core figures on shared machines, where
 * time spent descheduled must not count. */
double support_cpu_now(void);
/* Prints the project's benchmark line:
 * "<name>: <figure> <unit> (<baseline>: <base_figure> <unit>)". */
void support_bench_line(const char *name, double figure, const char *unit, const char *baseline,
                        double base_figure);

/* A small deterministic PRNG (xorshift64*), so tests repeat exactly. */
typedef struct support_rng { uint64_t state; } support_rng;
void support_rng_seed(support_rng *r, uint64_t seed);
uint64_t support_rng_next(support_rng *r);
/* Uniform double in [lo, hi). */
double support_rng_uniform(support_rng *r, double lo, double hi);

/* ---- Meshes ----------------------------------------------------------------- */

typedef struct support_mesh {
    float *positions;        /* 3 * vertex_count */
    size_t vertex_count;
    uint32_t *triangles;     /* 3 * triangle_count (polygons fan-triangulated) */
    size_t triangle_count;
    uint32_t *face_sizes;    /* polygons as read: face_count sizes ... */
    uint32_t *face_indices;  /* ... and their indices, faces one after another */
    size_t face_count;
    uint32_t *tets;          /* 4 * tet_count (MEDIT files only) */
    size_t tet_count;
} support_mesh;

/* Readers return false (and leave *m empty) on I/O or format errors. OBJ reads
 * v and f (v, v/t, v/t/n, v//n, negative indices); OFF reads ASCII OFF; MEDIT
 * reads Vertices, Triangles and Tetrahedra of an ASCII .mesh. */
bool support_read_obj(const char *path, support_mesh *m);
bool support_read_off(const char *path, support_mesh *m);
bool support_read_medit(const char *path, support_mesh *m);
void support_mesh_free(support_mesh *m);

/* Writes positions (stride in bytes, 0 = packed) and triangles as an OBJ. */
bool support_write_obj(const char *path, const float *positions, size_t vertex_count, size_t stride,
                       const uint32_t *triangles, size_t triangle_count);

/* libigl .tgf skeleton: joint positions (3 per joint) and bone edges (2 per
 * bone, 0-based joint indices). */
bool support_read_tgf(const char *path, float **joints, size_t *joint_count, uint32_t **bones,
                      size_t *bone_count);
/* libigl .dmat matrix (ASCII or binary), column-major doubles. */
bool support_read_dmat(const char *path, double **data, size_t *rows, size_t *cols);

/* sinew_points / sinew_trimesh views of a support_mesh. */
sinew_points support_mesh_points(const support_mesh *m);
sinew_trimesh support_mesh_trimesh(const support_mesh *m);

#ifdef __cplusplus
}
#endif

#endif /* SINEW_TEST_SUPPORT_H */
