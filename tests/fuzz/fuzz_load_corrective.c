/*
 * Fuzz target: loading saved correctives. The input is saved data, resealed
 * (so mutations reach the loader's own checks instead of stopping at the
 * checksum). A load must fail with a known code and a message, leaving the
 * handle pointer alone, or succeed with a handle that re-saves to the same
 * bytes (library version and checksum aside) and whose pose-time calls keep
 * the contract. Seeds: the golden file and the io test's handles.
 */
#include <string.h>

#include "fuzz.h"
#include "support.h"

/* Offsets in the format's header (docs/serialization.md). */
enum { LIBRARY_VERSION_AT = 12, CHECKSUM_AT = 32 };

static void check_resave(const uint8_t *data, size_t size, const sinew_corrective *c)
{
    size_t need = 0;
    sinew_corrective_save(c, NULL, 0, &need);
    uint8_t *b = fz_alloc(need);
    fz_require(sinew_corrective_save(c, b, need, &need) == SINEW_OK, "sinew_corrective_save",
               "save of a loaded handle failed: %s", sinew_last_error());
    fz_require(need <= size, "sinew_corrective_save", "re-saved to %zu bytes from %zu", need, size);
    for (size_t i = 0; i < need; ++i) {
        if ((i >= LIBRARY_VERSION_AT && i < LIBRARY_VERSION_AT + 4) || (i >= CHECKSUM_AT && i < CHECKSUM_AT + 8))
            continue;
        fz_require(b[i] == data[i], "sinew_corrective_save", "re-saved byte %zu differs (%u, was %u)", i, b[i],
                   data[i]);
    }
}

/* Weights and a deform of a few points at a pose from the tail bytes. */
static void exercise(const sinew_corrective *c, fz_reader *r)
{
    sinew_corrective_info info;
    SINEW_INIT(&info);
    fz_require(sinew_corrective_get_info(c, &info) == SINEW_OK && info.point_count > 0 && info.key_count > 0,
               "sinew_corrective_load", "inconsistent info");
    if (info.pose_size > 64 || info.key_count > 64) return;
    float pose[64], weights[64];
    for (size_t i = 0; i < info.pose_size; ++i) pose[i] = fz_param(r, -4.0f, 4.0f);
    fz_call call;
    fz_call_begin(&call, "sinew_corrective_weights (loaded)");
    fz_call_out(&call, weights, info.key_count * sizeof(float), true);
    fz_call_end(&call, sinew_corrective_weights(c, pose, info.pose_size, weights, info.key_count), 0);
    size_t n = info.point_count < 8 ? info.point_count : 8, first, count;
    fz_subrange(r, n, &first, &count);
    sinew_points base = fz_points(r, n);
    float out[24];
    fz_call_begin(&call, "sinew_corrective_deform (loaded)");
    fz_call_out(&call, out, sizeof out, true);
    fz_call_end(&call, sinew_corrective_deform(c, pose, info.pose_size, &base, out, 0, first, count), 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *input, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *input, size_t size)
{
    fz_reader r;
    fz_begin(&r, input, size);
    uint8_t *data = fz_alloc(size ? size : 1);
    memcpy(data, input, size);
    support_reseal(data, size);
    fz_reader tail;
    fz_reader_init(&tail, input + size / 2, size - size / 2);
    sinew_corrective *c;
    fz_call call;
    fz_call_begin(&call, "sinew_corrective_load");
    fz_call_handle(&call, &c);
    sinew_result loaded = fz_call_end(&call, sinew_corrective_load(NULL, data, size, &c), 0);
    fz_check_saved_info(data, size, loaded);
    if (loaded == SINEW_OK) {
        check_resave(data, size, c);
        exercise(c, &tail);
        sinew_corrective_destroy(c);
    }
    fz_end();
    return 0;
}
