/* Baking skins to files and loading them back, as an engine's asset build
 * and run time would: one file per skin, `<folder>/skin_<i>.sinew`.
 * Not part of the library. */
#ifndef SINEW_EXAMPLE_BAKE_H
#define SINEW_EXAMPLE_BAKE_H

#include <stdbool.h>
#include <stddef.h>

#include "sinew.h"

/* Figures of one bake or load: bytes of every file together, and the
 * seconds spent inside sinew_skin_save / sinew_skin_load (the fastest of a
 * few repeats per skin; file I/O not counted). */
typedef struct bake_figures {
    size_t bytes;
    double seconds;
} bake_figures;

/* Saves skins[0, count) into folder. Returns false with a message on stderr. */
bool bake_save(sinew_skin *const *skins, size_t count, const char *folder, bake_figures *figures);

/* Loads count skins saved by bake_save from folder into out (all or none:
 * on failure every skin loaded so far is destroyed and out is left NULL). */
bool bake_load(size_t count, const char *folder, sinew_skin **out, bake_figures *figures);

/* Reads the first baked file back, flips one bit in its middle and checks
 * that sinew_skin_load refuses it with SINEW_ERROR_INVALID_DATA (a load never
 * trusts its data). Prints the message; returns false when the load did not
 * refuse it (or the file cannot be read). */
bool bake_check_tampered(const char *folder);

#endif
