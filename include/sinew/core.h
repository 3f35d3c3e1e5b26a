/*
 * sinew: embeddable C11 library for mesh deformation.
 * Core API: version, export macro, result codes and messages, the context
 * (allocator, progress/cancel), and the strided geometry views every technique takes.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SINEW_CORE_H
#define SINEW_CORE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ---- Version ----------------------------------------------------------- */

#define SINEW_VERSION_MAJOR 0
#define SINEW_VERSION_MINOR 2
#define SINEW_VERSION_PATCH 0
/* One integer that orders versions: major * 10000 + minor * 100 + patch. */
#define SINEW_VERSION_NUMBER \
    (SINEW_VERSION_MAJOR * 10000 + SINEW_VERSION_MINOR * 100 + SINEW_VERSION_PATCH)
#define SINEW_VERSION_STRING "0.2.0"

/* ---- Export macro -------------------------------------------------------
 * Define SINEW_API yourself to override. On Windows, define SINEW_STATIC when
 * linking the static library. Everything not marked SINEW_API is hidden. */
#ifndef SINEW_API
#  if defined(_WIN32) || defined(__CYGWIN__)
#    if defined(SINEW_STATIC)
#      define SINEW_API
#    elif defined(SINEW_BUILD)
#      define SINEW_API __declspec(dllexport)
#    else
#      define SINEW_API __declspec(dllimport)
#    endif
#  elif defined(__GNUC__) || defined(__clang__)
#    define SINEW_API __attribute__((visibility("default")))
#  else
#    define SINEW_API
#  endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Version of the library actually linked, as "MAJOR.MINOR.PATCH". Thread-safe. */
SINEW_API const char *sinew_version(void);
/* SINEW_VERSION_NUMBER of the library actually linked. Thread-safe. */
SINEW_API uint32_t sinew_version_number(void);

/* ---- Results --------------------------------------------------------------
 * Every fallible call returns one of these. The enum is only ever appended to,
 * so values are stable across versions. On failure, outputs are left untouched,
 * handles are unchanged, and sinew_last_error() names the offending element. */
typedef enum sinew_result {
    SINEW_OK = 0,
    SINEW_ERROR_INVALID_ARGUMENT = 1,   /* NULL pointer, zero count, bad option value */
    SINEW_ERROR_OUT_OF_MEMORY = 2,      /* the allocator returned NULL */
    SINEW_ERROR_SIZE_OVERFLOW = 3,      /* a size computation would overflow size_t */
    SINEW_ERROR_NON_FINITE = 4,         /* NaN or infinity in an input */
    SINEW_ERROR_INDEX_OUT_OF_RANGE = 5, /* an index >= the count it refers to */
    SINEW_ERROR_DEGENERATE = 6,         /* zero-area triangle, zero-volume tet, zero extent */
    SINEW_ERROR_INVALID_WEIGHTS = 7,    /* negative, all-zero, or not summing to one */
    SINEW_ERROR_MISMATCH = 8,           /* counts differ from the ones bound */
    SINEW_ERROR_CANCELLED = 9,          /* the progress callback asked to stop */
    SINEW_ERROR_NOT_CONVERGED = 10,     /* iteration cap reached; best result still returned */
    SINEW_ERROR_BUDGET_EXCEEDED = 11,   /* a caller-set size budget would be exceeded */
    SINEW_ERROR_INVALID_TOPOLOGY = 12,  /* non-triangulable face, non-manifold edge, ... */
    SINEW_ERROR_OUTSIDE_DOMAIN = 13,    /* a point or handle lies outside the domain */
    SINEW_ERROR_INVALID_STATE = 14,     /* a call made before the phase it needs */
    SINEW_ERROR_UNSUPPORTED = 15,       /* an option combination this build does not support */
    SINEW_ERROR_NO_RESULT = 16,         /* the input produced nothing (e.g. no ray hit) */
    SINEW_ERROR_BUFFER_TOO_SMALL = 17,  /* a capacity below what the call must write (needed size reported) */
    SINEW_ERROR_INVALID_DATA = 18       /* saved data that is truncated, corrupted, or not sinew's */
} sinew_result;

/* Short English name of a result code ("out of memory"); never NULL, static
 * storage. Unknown codes give "unknown result". Thread-safe. */
SINEW_API const char *sinew_result_string(sinew_result result);

/* Message of the last failure on the calling thread, naming the offending
 * element ("triangle 17 has zero area"); "" when none. Every successful call
 * clears it except the *_get_info queries, which leave it as it was. The pointer stays valid
 * until the next sinew call on this thread. Thread-local, so thread-safe. */
SINEW_API const char *sinew_last_error(void);

/* Clears the calling thread's message. Thread-local, so thread-safe. */
SINEW_API void sinew_clear_error(void);

/* ---- Structs that grow ------------------------------------------------------
 * Every desc, info and report struct begins with `size_t struct_size`: the
 * size of the struct as the caller's header declared it. Set it, and zero the
 * rest, with SINEW_INIT before filling the fields:
 *
 *     sinew_skin_desc desc;
 *     SINEW_INIT(&desc);
 *     desc.vertex_count = ...;
 *
 * Structs only ever grow by appending fields whose zero is the old behaviour.
 * The library reads a desc's fields that lie within struct_size and takes
 * every field past it as zero, so a program built against an older header
 * keeps working with a newer library. It writes an info or report struct
 * only within struct_size. A desc larger than the library knows is accepted
 * when the bytes it does not know are all zero (the defaults of fields it
 * lacks), else SINEW_ERROR_UNSUPPORTED names the first nonzero one. A
 * struct_size below sizeof(size_t) (a struct zeroed without SINEW_INIT) or
 * above 65536 is SINEW_ERROR_INVALID_ARGUMENT. Views (sinew_points and the
 * mesh views) and records passed in arrays never change layout. */
static inline void sinew_struct_init(void *s, size_t size)
{
    memset(s, 0, size);
    memcpy(s, &size, sizeof size);
}
#define SINEW_INIT(ptr) sinew_struct_init((ptr), sizeof *(ptr))

/* ---- Context ----------------------------------------------------------------
 * A context carries the allocator and the progress callback. Long calls take
 * one first (NULL = defaults: malloc-backed allocator, no progress reports).
 * A handle keeps a copy of its creating context's allocator (all memory it
 * keeps comes from it), so the context may be destroyed while handles made
 * from it live on; it never keeps the progress callback: progress is per
 * call, reported only during the call that was given the context. There is
 * no global state. */

/* Allocator hooks: both or neither. alloc returns memory aligned to at least
 * `align` (a power of two, at most 64) or NULL; free accepts NULL. */
typedef struct sinew_allocator {
    void *(*alloc)(void *user, size_t size, size_t align);
    void (*free)(void *user, void *ptr);
    void *user;
} sinew_allocator;

/* Progress report from long operations (binds, solves). `stage` names the
 * phase ("bbw: factorise"), `fraction` rises from 0 to 1 within it. Return
 * nonzero to cancel: the operation stops with SINEW_ERROR_CANCELLED and leaves
 * its outputs untouched. Called on the thread that made the call. */
typedef int (*sinew_progress_fn)(void *user, const char *stage, float fraction);

/* One task of a parallel loop: the library's own work for task `index`. */
typedef void (*sinew_task_fn)(void *task_user, uint32_t index);

/* A host's job system: runs task(task_user, i) once for every i in
 * [0, count), on any threads, in any order, and returns only when all have
 * finished. The tasks of one call are independent (disjoint outputs; their
 * partial results are combined by the library in index order, so the result
 * does not depend on the order or the threads). A task never calls back into
 * the hook. */
typedef void (*sinew_parallel_for_fn)(void *user, sinew_task_fn task, void *task_user, uint32_t count);

typedef struct sinew_context_desc {
    size_t struct_size;  /* SINEW_INIT(&s) sets it */
    sinew_allocator allocator;   /* zero = malloc/free */
    sinew_progress_fn progress;  /* NULL = no reports, never cancelled */
    void *progress_user;
    /* The library's parallel loops (docs/api.md, Threads): NULL = serial on
     * the calling thread. parallel_tasks: how many tasks a loop is split into
     * (0 = 2; typically the host's worker count); results are identical for
     * any hook given the same parallel_tasks. */
    sinew_parallel_for_fn parallel_for;
    void *parallel_user;
    uint32_t parallel_tasks;
} sinew_context_desc;

typedef struct sinew_context sinew_context;

/* Creates a context. desc may be NULL (all defaults). Returns
 * SINEW_ERROR_INVALID_ARGUMENT when only one allocator hook is set or out is
 * NULL, SINEW_ERROR_OUT_OF_MEMORY when the allocator fails. The context itself
 * lives in memory from its own allocator. Thread-safe. */
SINEW_API sinew_result sinew_context_create(const sinew_context_desc *desc, sinew_context **out);

/* Destroys a context (NULL is fine). Handles made from it stay valid. */
SINEW_API void sinew_context_destroy(sinew_context *ctx);

/* ---- Saved data ---------------------------------------------------------------
 * Every handle that holds bind data saves into a caller buffer and loads from
 * one: sinew_<kind>_save(handle, buffer, capacity, &size) and
 * sinew_<kind>_load(ctx, data, size, &handle). The format (docs/serialization.md)
 * is little-endian whatever the machine, starts with a magic, the format and
 * library versions and the kind, holds a section table and a checksum, and is
 * the same bytes for the same handle (so files can be compared and cached).
 * Save: buffer NULL asks only for the size (SINEW_OK, *size = bytes needed);
 * a capacity below it is SINEW_ERROR_BUFFER_TOO_SMALL with *size = bytes
 * needed and nothing written; else the buffer is filled and *size = bytes
 * written. Load never trusts the data: every count, offset, index and float
 * is checked, with SINEW_ERROR_INVALID_DATA for a buffer that is not a whole,
 * intact sinew file, SINEW_ERROR_MISMATCH for another kind of handle,
 * SINEW_ERROR_UNSUPPORTED for a newer format version, and create's own codes
 * and messages for contents create would refuse. */

/* What a saved buffer holds. Values are stable. */
typedef enum sinew_kind {
    SINEW_KIND_SKIN = 1,
    SINEW_KIND_SOFFD = 2,
    SINEW_KIND_LATTICE = 3,
    SINEW_KIND_LATTICE_BINDING = 4,
    SINEW_KIND_LATTICE_REFINEMENT = 5,
    SINEW_KIND_BBW = 6,
    SINEW_KIND_PLACEMENT = 7,
    SINEW_KIND_CORRECTIVE = 8
} sinew_kind;

/* Newest format version this library writes; it reads every version up to
 * it. Data is written in the oldest version that holds it: version 2 adds
 * BBW data's volume figures and an automatic volume's kept surface, so only
 * such BBW data is version 2; version 3 adds SOFFD data's subdivision and
 * contributing-set edit records, so only SOFFD data with either is version 3;
 * version 4 adds SOFFD data's faded weight shares, so only SOFFD data
 * registered with fading is version 4 (docs/serialization.md). */
#define SINEW_FORMAT_VERSION 4

typedef struct sinew_saved_info {
    size_t struct_size;        /* SINEW_INIT */
    sinew_kind kind;
    uint32_t format_version;   /* of the data */
    uint32_t library_version;  /* SINEW_VERSION_NUMBER of the library that wrote it */
    size_t section_count;
    uint64_t size;             /* bytes of the saved data (may be less than the buffer given) */
} sinew_saved_info;

/* Reads the header of saved data and checks the whole buffer (size, section
 * table, checksum) without loading it. Returns SINEW_OK and *info,
 * INVALID_ARGUMENT (NULL), INVALID_DATA (not sinew data, truncated, corrupted,
 * a float that is not finite: the message says which), UNSUPPORTED (a format version newer than
 * SINEW_FORMAT_VERSION; info is still filled). Thread-safe. */
SINEW_API sinew_result sinew_saved_get_info(const void *data, size_t size, sinew_saved_info *info);

/* English name of a kind ("skin", "lattice binding"); "unknown kind" for
 * other values. Static storage; thread-safe. */
SINEW_API const char *sinew_kind_string(sinew_kind kind);

/* ---- Geometry views -------------------------------------------------------
 * Inputs are pointer + count + byte stride; a stride of 0 means tightly packed.
 * Views never own memory. */

/* A set of 3D points: point i is at (const char *)data + i * stride, 3 floats. */
typedef struct sinew_points {
    const float *data;
    size_t count;
    size_t stride;      /* bytes; 0 = 3 * sizeof(float) */
} sinew_points;

/* Integer type of an index array (mesh indices, skin joint indices). Each
 * index is read as an unsigned integer of that width; the array's pointer
 * must be aligned to the element size (2 bytes for U16) and its stride a
 * multiple of it. U8 and U16 are what glTF's JOINTS_0 and index buffers hold. */
typedef enum sinew_index_type {
    SINEW_INDEX_U32 = 0,  /* uint32_t (the default) */
    SINEW_INDEX_U16 = 1,  /* uint16_t */
    SINEW_INDEX_U8 = 2    /* uint8_t */
} sinew_index_type;

/* A triangle mesh: positions as a sinew_points view, 3 indices per triangle.
 * Triangle t's indices are the 3 consecutive integers of index_type at
 * (const char *)indices + t * index_stride. Zero type and stride (a
 * zero-initialised view) mean packed uint32_t. */
typedef struct sinew_trimesh {
    sinew_points positions;
    const void *indices;          /* 3 per triangle, of index_type */
    size_t triangle_count;
    sinew_index_type index_type;  /* 0 = SINEW_INDEX_U32 */
    size_t index_stride;          /* bytes from one triangle's indices to the next, 0 = packed */
} sinew_trimesh;

/* A polygon mesh: face f has face_sizes[f] (>= 3) vertices listed in order in
 * indices, faces one after another. face_sizes NULL = all triangles. The
 * indices are packed integers of index_type (no stride: faces have
 * different sizes, so there is no per-face record to step over). */
typedef struct sinew_polymesh {
    sinew_points positions;
    const void *indices;          /* sum of face_sizes indices, of index_type */
    const uint32_t *face_sizes;
    size_t face_count;
    sinew_index_type index_type;  /* 0 = SINEW_INDEX_U32 */
} sinew_polymesh;

/* A tetrahedral mesh: 4 indices (a, b, c, d) per tet, positively oriented:
 * det(b - a, c - a, d - a) > 0. Tet t's indices are at
 * (const char *)indices + t * index_stride, as in sinew_trimesh. */
typedef struct sinew_tetmesh {
    sinew_points positions;
    const void *indices;          /* 4 per tet, of index_type */
    size_t tet_count;
    sinew_index_type index_type;  /* 0 = SINEW_INDEX_U32 */
    size_t index_stride;          /* bytes from one tet's indices to the next, 0 = packed */
} sinew_tetmesh;

#ifdef __cplusplus
}
#endif

#endif /* SINEW_CORE_H */
