/*
 * Fuzz target: loading saved skins. The input is saved data (the seed corpus
 * holds real saved skins); its checksum is resealed first so that mutations
 * reach the loader's own checks instead of stopping at the checksum. A load
 * must fail with a specific code and message and leave the handle pointer
 * alone, or give a skin that deforms a moderate pose to finite values and
 * saves data that loads again and saves the same bytes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "support.h"

static unsigned char *save_skin(const sinew_skin *skin, size_t *size)
{
    fz_require(sinew_skin_save(skin, NULL, 0, size) == SINEW_OK, "sinew_skin_save", "size query failed");
    unsigned char *buf = fz_alloc(*size);
    size_t written = 0;
    fz_require(sinew_skin_save(skin, buf, *size, &written) == SINEW_OK && written == *size, "sinew_skin_save",
               "failed on a loaded skin: %s", sinew_last_error());
    return buf;
}

/* Saving a loaded skin gives data that loads and saves the same bytes again. */
static void check_resave(const sinew_skin *skin)
{
    size_t size, again_size;
    unsigned char *buf = save_skin(skin, &size);
    sinew_skin *again = NULL;
    fz_require(sinew_skin_load(NULL, buf, size, &again) == SINEW_OK, "sinew_skin_load",
               "refused what a loaded skin saved: %s", sinew_last_error());
    unsigned char *buf2 = save_skin(again, &again_size);
    fz_require(size == again_size && memcmp(buf, buf2, size) == 0, "sinew_skin_save",
               "a reloaded skin saved different bytes");
    sinew_skin_destroy(again);
}

/* The rest pose (identity joints) of a loaded skin: finite wherever its
 * inverse bind matrices are moderate (create accepts huge ones too, and
 * those may overflow any deform). */
static void check_deform(const sinew_skin *skin)
{
    sinew_skin_info info;
    SINEW_INIT(&info);
    fz_require(sinew_skin_get_info(skin, &info) == SINEW_OK, "sinew_skin_get_info", "failed on a loaded skin");
    float *world = fz_alloc(16 * info.joint_count * sizeof(float));
    for (size_t j = 0; j < info.joint_count; ++j) {
        memset(world + 16 * j, 0, 16 * sizeof(float));
        world[16 * j] = world[16 * j + 5] = world[16 * j + 10] = world[16 * j + 15] = 1.0f;
    }
    float *palette = fz_alloc(info.palette_floats * sizeof(float) + 64);
    palette = (float *)(((uintptr_t)palette + 63) & ~(uintptr_t)63);
    fz_require(sinew_skin_palette(skin, world, info.joint_count, palette, info.palette_floats) == SINEW_OK,
               "sinew_skin_palette", "failed on a loaded skin: %s", sinew_last_error());
    bool moderate = true;
    for (size_t i = 0; i < info.palette_floats; ++i) moderate = moderate && fabsf(palette[i]) <= 1e6f;
    float *p = fz_alloc(3 * info.vertex_count * sizeof(float));
    float *o = fz_alloc(3 * info.vertex_count * sizeof(float));
    for (size_t i = 0; i < 3 * info.vertex_count; ++i) p[i] = (float)(i % 5) - 2.0f;
    sinew_skin_input in = {p, 0, p, 0, NULL, 0};
    sinew_skin_output out = {o, 0, o, 0, NULL, 0};
    fz_call c;
    fz_call_begin(&c, "sinew_skin_deform (loaded)");
    fz_call_out(&c, o, 3 * info.vertex_count * sizeof(float), true);
    fz_call_end(&c, sinew_skin_deform(skin, palette, info.palette_floats, &in, &out, 0, info.vertex_count),
                moderate ? FZ_FINITE_INPUTS : 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_reader r;
    fz_begin(&r, data, size);
    unsigned char *copy = fz_alloc(size ? size : 1);
    if (size) memcpy(copy, data, size);
    support_reseal(copy, size);  /* false (left as is) when the header is unusable */
    sinew_skin *skin;
    fz_call c;
    fz_call_begin(&c, "sinew_skin_load");
    fz_call_handle(&c, &skin);
    sinew_result loaded = fz_call_end(&c, sinew_skin_load(NULL, copy, size, &skin), 0);
    fz_check_saved_info(copy, size, loaded);
    if (loaded == SINEW_OK) {
        check_deform(skin);
        check_resave(skin);
        sinew_skin_destroy(skin);
    }
    fz_end();
    return 0;
}
