/*
 * Fuzz target: loading saved lattices, lattice bindings, refinements and
 * placements. The input is saved data; its checksum is resealed (so mutations
 * reach the loaders' own checks instead of stopping at the checksum) and the
 * kind in its header picks the loader (another kind picks one by its value,
 * so the MISMATCH path is taken too). A load must fail with a known code and
 * a message, leaving the handle pointer alone, or succeed with a handle that
 * re-saves to the same bytes (header versions and checksum aside) and whose
 * pose-time calls keep the contract. Seeds: the golden files.
 */
#include <string.h>

#include "fuzz.h"
#include "support.h"

/* Offsets in the format's header (docs/serialization.md). */
enum { KIND_AT = 16, LIBRARY_VERSION_AT = 12, CHECKSUM_AT = 32 };

/* A successful load re-saves to the bytes it came from, except for the
 * library version that wrote them and so the checksum. */
static void check_resave(const char *call, const uint8_t *data, size_t size, const void *again, size_t again_size)
{
    fz_require(again_size <= size, call, "re-saved to %zu bytes from %zu", again_size, size);
    const uint8_t *b = again;
    for (size_t i = 0; i < again_size; ++i) {
        if ((i >= LIBRARY_VERSION_AT && i < LIBRARY_VERSION_AT + 4) || (i >= CHECKSUM_AT && i < CHECKSUM_AT + 8))
            continue;
        fz_require(b[i] == data[i], call, "re-saved byte %zu differs (%u, was %u)", i, b[i], data[i]);
    }
}

static void resave(const char *call, const uint8_t *data, size_t size, sinew_result res, size_t need,
                   void *buffer)
{
    fz_require(res == SINEW_OK, call, "save of a loaded handle failed: %s", sinew_last_error());
    check_resave(call, data, size, buffer, need);
}

static void exercise_lattice(const sinew_lattice *l, fz_reader *r)
{
    /* Parameters inside the box: the lattice's own checks decide whether the
     * outputs fit a float; the contract checks the rest. */
    float params[12];
    for (int i = 0; i < 12; ++i) params[i] = fz_param(r, 0.0f, 1.0f);
    float out[12], jac[36];
    sinew_points view = {params, 4, 0};
    fz_call c;
    fz_call_begin(&c, "sinew_lattice_evaluate (loaded)");
    fz_call_out(&c, out, sizeof out, true);
    fz_call_out(&c, jac, sizeof jac, true);
    fz_call_end(&c, sinew_lattice_evaluate(l, &view, out, 0, jac, 0, 0, 4), 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *input, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *input, size_t size)
{
    fz_reader r;
    fz_begin(&r, input, size);
    /* An aligned, writable copy, resealed. */
    uint8_t *data = fz_alloc(size ? size : 1);
    memcpy(data, input, size);
    support_reseal(data, size);
    uint32_t kind = 0;
    for (int i = 0; size >= KIND_AT + 4 && i < 4; ++i) kind |= (uint32_t)data[KIND_AT + i] << (8 * i);
    static const sinew_kind kinds[4] = {SINEW_KIND_LATTICE, SINEW_KIND_LATTICE_BINDING, SINEW_KIND_LATTICE_REFINEMENT,
                                        SINEW_KIND_PLACEMENT};
    sinew_kind pick = kinds[kind % 4];
    for (int k = 0; k < 4; ++k)
        if (kind == (uint32_t)kinds[k]) pick = kinds[k];
    /* Bytes past the data's own size drive the calls on a loaded handle. */
    fz_reader tail;
    fz_reader_init(&tail, input + size / 2, size - size / 2);

    fz_call c;
    sinew_result res;
    size_t need = 0;
    if (pick == SINEW_KIND_LATTICE) {
        sinew_lattice *l;
        fz_call_begin(&c, "sinew_lattice_load");
        fz_call_handle(&c, &l);
        sinew_result loaded = fz_call_end(&c, sinew_lattice_load(NULL, data, size, &l), 0);
        fz_check_saved_info(data, size, loaded);
        if (loaded == SINEW_OK) {
            sinew_lattice_save(l, NULL, 0, &need);
            void *buf = fz_alloc(need);
            resave("sinew_lattice_save", data, size, sinew_lattice_save(l, buf, need, &need), need, buf);
            exercise_lattice(l, &tail);
            sinew_lattice_destroy(l);
        }
    } else if (pick == SINEW_KIND_LATTICE_BINDING) {
        sinew_lattice_binding *b;
        fz_call_begin(&c, "sinew_lattice_binding_load");
        fz_call_handle(&c, &b);
        sinew_result loaded = fz_call_end(&c, sinew_lattice_binding_load(NULL, data, size, &b), 0);
        fz_check_saved_info(data, size, loaded);
        if (loaded == SINEW_OK) {
            fz_require(sinew_lattice_binding_count(b) > 0, "sinew_lattice_binding_load", "loaded an empty binding");
            sinew_lattice_binding_save(b, NULL, 0, &need);
            void *buf = fz_alloc(need);
            res = sinew_lattice_binding_save(b, buf, need, &need);
            resave("sinew_lattice_binding_save", data, size, res, need, buf);
            sinew_lattice_binding_destroy(b);
        }
    } else if (pick == SINEW_KIND_LATTICE_REFINEMENT) {
        sinew_lattice_refinement *x;
        fz_call_begin(&c, "sinew_lattice_refinement_load");
        fz_call_handle(&c, &x);
        sinew_result loaded = fz_call_end(&c, sinew_lattice_refinement_load(NULL, data, size, &x), 0);
        fz_check_saved_info(data, size, loaded);
        if (loaded == SINEW_OK) {
            sinew_lattice_refined_mesh m;
            SINEW_INIT(&m);
            fz_require(sinew_lattice_refinement_mesh(x, &m) == SINEW_OK && m.triangle_count > 0 &&
                           m.input_vertex_count <= m.vertex_count,
                       "sinew_lattice_refinement_load", "inconsistent mesh");
            sinew_lattice_refinement_save(x, NULL, 0, &need);
            void *buf = fz_alloc(need);
            res = sinew_lattice_refinement_save(x, buf, need, &need);
            resave("sinew_lattice_refinement_save", data, size, res, need, buf);
            sinew_lattice_refinement_destroy(x);
        }
    } else {
        sinew_placement *p;
        fz_call_begin(&c, "sinew_placement_load");
        fz_call_handle(&c, &p);
        sinew_result loaded = fz_call_end(&c, sinew_placement_load(NULL, data, size, &p), 0);
        fz_check_saved_info(data, size, loaded);
        if (loaded == SINEW_OK) {
            sinew_placement_save(p, NULL, 0, &need);
            void *buf = fz_alloc(need);
            resave("sinew_placement_save", data, size, sinew_placement_save(p, buf, need, &need), need, buf);
            exercise_lattice(sinew_placement_lattice(p), &tail);
            /* An edit on the loaded state keeps the contract. */
            fz_call_begin(&c, "sinew_placement_push (loaded)");
            fz_call_end(&c, sinew_placement_push(p, fz_u8(&tail) % 4, fz_u8(&tail) % 4, fz_float(&tail)), 0);
            sinew_placement_destroy(p);
        }
    }
    fz_end();
    return 0;
}
