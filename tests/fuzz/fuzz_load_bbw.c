/*
 * Fuzz target: loading saved bbw data. The input is saved data (the seed
 * corpus is real saved files, written by tests/bbw/test_bbw_io.c in its
 * SINEW_WRITE_GOLDEN mode) whose checksum is resealed before the load, so
 * the fuzzer reaches the loader's own checks instead of stopping at the
 * checksum. A handle that loads is queried (domain, vertex weights, point
 * weights at its own vertices, top-k), saved again (it must give back the
 * bytes it was loaded from: one spelling per handle) and solved with a small
 * iteration cap, which builds its operators from the loaded domain.
 */
#include <string.h>

#include "fuzz.h"
#include "support.h"

/* Outputs larger than this are not queried (a loaded domain is at most
 * quadratic in the input's size, but the fuzzer need not spend on it). */
#define FZ_BBW_MAX_CELLS (1u << 20)

static void query(sinew_bbw *b, const sinew_bbw_info *info)
{
    size_t n = info->vertex_count, m = info->handle_count;
    if (n * 3 > FZ_BBW_MAX_CELLS || n * m > FZ_BBW_MAX_CELLS) return;
    float *pos = fz_alloc(n * 3 * sizeof(float));
    float *w = fz_alloc(n * m * sizeof(float));
    fz_call c;
    fz_call_begin(&c, "sinew_bbw_domain_vertices");
    fz_call_out(&c, pos, n * 3 * sizeof(float), true);
    fz_require(fz_call_end(&c, sinew_bbw_domain_vertices(b, pos, 0, 0, n), FZ_FINITE_INPUTS) == SINEW_OK,
               "sinew_bbw_domain_vertices", "failed on a loaded handle");
    fz_call_begin(&c, "sinew_bbw_vertex_weights");
    fz_call_out(&c, w, n * m * sizeof(float), true);
    fz_call_end(&c, sinew_bbw_vertex_weights(b, w, 0, n), FZ_FINITE_INPUTS);
    sinew_points pts = {pos, n, 0};
    fz_call_begin(&c, "sinew_bbw_point_weights");
    fz_call_out(&c, w, n * m * sizeof(float), true);
    fz_call_end(&c, sinew_bbw_point_weights(b, &pts, w, 0, n), FZ_FINITE_INPUTS);
    uint32_t k = m < 4 ? (uint32_t)m : 4;
    uint32_t *joints = fz_alloc(n * k * sizeof(uint32_t));
    fz_call_begin(&c, "sinew_bbw_top_k");
    fz_call_out(&c, joints, n * k * sizeof(uint32_t), false);
    fz_call_out(&c, w, n * k * sizeof(float), true);
    fz_call_end(&c, sinew_bbw_top_k(b, NULL, k, joints, w, 0, n), FZ_FINITE_INPUTS);
}

/* Saving a loaded handle gives back the bytes it came from, apart from the
 * library version that wrote them and the checksum. */
static void save_again(const sinew_bbw *b, const unsigned char *data, size_t size)
{
    size_t needed = 0;
    fz_require(sinew_bbw_save(b, NULL, 0, &needed) == SINEW_OK, "sinew_bbw_save", "size query failed");
    unsigned char *again = fz_alloc(needed);
    size_t written = 0;
    fz_require(sinew_bbw_save(b, again, needed, &written) == SINEW_OK && written == needed, "sinew_bbw_save",
               "failed on a loaded handle: %s", sinew_last_error());
    fz_require(written <= size && memcmp(again, data, 12) == 0 && memcmp(again + 16, data + 16, 16) == 0 &&
                   memcmp(again + 40, data + 40, written - 40) == 0,
               "sinew_bbw_save", "a loaded handle saves other bytes than it was loaded from");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_reader r;
    fz_begin(&r, data, size);
    /* A private, aligned copy whose checksum matches its contents. */
    unsigned char *bytes = fz_alloc(size ? size : 1);
    if (size) memcpy(bytes, data, size);
    support_reseal(bytes, size);

    sinew_bbw *b;
    fz_call c;
    fz_call_begin(&c, "sinew_bbw_load");
    fz_call_handle(&c, &b);
    sinew_result loaded = fz_call_end(&c, sinew_bbw_load(NULL, bytes, size, &b), 0);
    fz_check_saved_info(bytes, size, loaded);
    if (loaded == SINEW_OK) {
        sinew_bbw_info info;
        SINEW_INIT(&info);
        fz_require(sinew_bbw_get_info(b, &info) == SINEW_OK, "sinew_bbw_get_info", "failed on a loaded handle");
        query(b, &info);
        save_again(b, bytes, size);
        sinew_bbw_solve_desc solve;
        SINEW_INIT(&solve);
        solve.max_iterations = 3;
        fz_call_begin(&c, "sinew_bbw_solve");
        sinew_result res = fz_call_end(&c, sinew_bbw_solve(NULL, b, &solve), 0);
        if (res == SINEW_OK || res == SINEW_ERROR_NOT_CONVERGED) query(b, &info);
        sinew_bbw_destroy(b);
    }
    fz_end();
    return 0;
}
