/*
 * Fuzz target: loading saved surface-oriented FFD handles. The input is saved
 * data (the seed corpus holds real saved handles); its checksum is resealed
 * first so that mutations reach the loader's own checks. A load must fail
 * with a specific code and message and leave the handle pointer alone, or
 * give a handle whose queries work, whose deformations of a moderate pose
 * (both algorithms) are finite, and which saves data that loads again and
 * saves the same bytes.
 */
#include <string.h>

#include "fuzz.h"
#include "support.h"

static unsigned char *save_soffd(const sinew_soffd *h, size_t *size)
{
    fz_require(sinew_soffd_save(h, NULL, 0, size) == SINEW_OK, "sinew_soffd_save", "size query failed");
    unsigned char *buf = fz_alloc(*size);
    size_t written = 0;
    fz_require(sinew_soffd_save(h, buf, *size, &written) == SINEW_OK && written == *size, "sinew_soffd_save",
               "failed on a loaded handle: %s", sinew_last_error());
    return buf;
}

static void check_resave(const sinew_soffd *h)
{
    size_t size, again_size;
    unsigned char *buf = save_soffd(h, &size);
    sinew_soffd *again = NULL;
    fz_require(sinew_soffd_load(NULL, buf, size, &again) == SINEW_OK, "sinew_soffd_load",
               "refused what a loaded handle saved: %s", sinew_last_error());
    unsigned char *buf2 = save_soffd(again, &again_size);
    fz_require(size == again_size && memcmp(buf, buf2, size) == 0, "sinew_soffd_save",
               "a reloaded handle saved different bytes");
    sinew_soffd_destroy(again);
}

/* Both algorithms on a moderate pose (a small grid of driver positions):
 * frames from the pose calls keep the kernels finite for every loaded handle. */
static void check_deform(const sinew_soffd *h, const sinew_soffd_info *info)
{
    float *now = fz_alloc(3 * info->vertex_count * sizeof(float));
    for (size_t i = 0; i < 3 * info->vertex_count; ++i) now[i] = (float)((i * 7) % 5) - 2.0f;
    sinew_points driver = {now, info->vertex_count, 0};
    float *frames = fz_alloc(16 * info->element_count * sizeof(float));
    float *vertex_frames = fz_alloc(16 * info->vertex_count * sizeof(float));
    float *out = fz_alloc((3 * info->point_count + 1) * sizeof(float));
    fz_require(sinew_soffd_element_frames(h, &driver, frames, sinew_soffd_element_frames_size(h)) == SINEW_OK, "sinew_soffd_element_frames",
               "failed on a moderate pose: %s", sinew_last_error());
    fz_call c;
    fz_call_begin(&c, "sinew_soffd_deform (loaded)");
    fz_call_out(&c, out, 3 * info->point_count * sizeof(float), true);
    fz_call_end(&c, sinew_soffd_deform(h, frames, sinew_soffd_element_frames_size(h), NULL, out, 0, NULL, 0, 0, info->point_count), FZ_FINITE_INPUTS);
    if (sinew_soffd_vertex_frames(h, &driver, vertex_frames, sinew_soffd_vertex_frames_size(h)) != SINEW_OK) return;  /* a map may leave the domain */
    fz_call_begin(&c, "sinew_soffd_deform_extended (loaded)");
    fz_call_out(&c, out, 3 * info->point_count * sizeof(float), true);
    fz_call_end(&c, sinew_soffd_deform_extended(h, vertex_frames, sinew_soffd_vertex_frames_size(h), NULL, out, 0, NULL, 0, 0, info->point_count), FZ_FINITE_INPUTS);
}

/* The queries a caller makes first: every point's set and dropped mass. */
static void check_queries(const sinew_soffd *h, const sinew_soffd_info *info)
{
    uint32_t *elements = fz_alloc((info->max_set_size + 1) * sizeof(uint32_t));
    float *weights = fz_alloc((info->max_set_size + 1) * sizeof(float));
    for (size_t p = 0; p < info->point_count && p < 64; ++p) {
        float mass;
        fz_require(sinew_soffd_contributors(h, p, elements, weights, info->max_set_size, &(size_t){0}) == SINEW_OK &&
                       sinew_soffd_dropped_mass(h, p, &mass) == SINEW_OK && mass >= 0 && mass <= 1,
                   "sinew_soffd_contributors", "failed on loaded point %zu: %s", p, sinew_last_error());
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_reader r;
    fz_begin(&r, data, size);
    unsigned char *copy = fz_alloc(size ? size : 1);
    if (size) memcpy(copy, data, size);
    support_reseal(copy, size);  /* false (left as is) when the header is unusable */
    sinew_soffd *h;
    fz_call c;
    fz_call_begin(&c, "sinew_soffd_load");
    fz_call_handle(&c, &h);
    sinew_result loaded = fz_call_end(&c, sinew_soffd_load(NULL, copy, size, &h), 0);
    fz_check_saved_info(copy, size, loaded);
    if (loaded == SINEW_OK) {
        sinew_soffd_info info;
        SINEW_INIT(&info);
        fz_require(sinew_soffd_get_info(h, &info) == SINEW_OK, "sinew_soffd_get_info", "failed on a loaded handle");
        check_queries(h, &info);
        check_deform(h, &info);
        check_resave(h);
        sinew_soffd_destroy(h);
    }
    fz_end();
    return 0;
}
