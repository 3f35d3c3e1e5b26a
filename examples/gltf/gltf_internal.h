/* Shared pieces of the glTF loader (gltf_*.c): the loading state with its
 * error message, typed readers of JSON members that name what is wrong, and
 * the per-section loaders. Not part of the library. */
#ifndef SINEW_EXAMPLE_GLTF_INTERNAL_H
#define SINEW_EXAMPLE_GLTF_INTERNAL_H

#include "gltf.h"
#include "json.h"

typedef struct gltf_loader {
    gltf_model *model;
    const char *folder;     /* for external buffers; NULL = refuse them */
    const uint8_t *glb_bin; /* the .glb BIN chunk, or NULL */
    size_t glb_bin_size;
    char *err;
    size_t err_size;
} gltf_loader;

/* Writes the message (printf-style) into the loader's err; returns false so
 * callers can `return gltf_fail(...)`. */
bool gltf_fail(gltf_loader *ld, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Member readers. `where` names the object ("accessors[3]") for messages.
 * Optional readers leave *out as it was when the member is absent. */
/* An integer in [0, limit): an index into an array of `limit` elements. */
bool gltf_index(gltf_loader *ld, const json_value *obj, const char *where, const char *key, size_t limit,
                bool required, int *out);
/* An integer in [min, max]. */
bool gltf_integer(gltf_loader *ld, const json_value *obj, const char *where, const char *key, size_t min,
                  size_t max, bool required, size_t *out);
/* An array of exactly n finite numbers. */
bool gltf_floats(gltf_loader *ld, const json_value *obj, const char *where, const char *key, size_t n, float *out);
/* A string (a copy, or NULL when absent). */
bool gltf_string(gltf_loader *ld, const json_value *obj, const char *where, const char *key, char **out);
/* The top-level array `key` (NULL and count 0 when absent). */
bool gltf_array(gltf_loader *ld, const json_value *root, const char *key, const json_value **items, size_t *count);
/* Fails unless v is an object. */
bool gltf_expect_object(gltf_loader *ld, const json_value *v, const char *where);

/* Section loaders, in the order the document needs them. */
bool gltf_load_buffers(gltf_loader *ld, const json_value *root);
bool gltf_load_accessors(gltf_loader *ld, const json_value *root);
bool gltf_load_animations(gltf_loader *ld, const json_value *root);

/* Whole file into memory (malloc'd). */
bool gltf_read_file(const char *path, uint8_t **data, size_t *size, char *err, size_t err_size);

#endif
