/*
 * One level's solve (level.c): the splitting iteration with its
 * certificates, the polish and interior-point finishes, and the penalty's
 * schedule, on one handle's domain. The driver (solve.c) runs it, pausing
 * it once for the coarse-to-fine start. Uses every other part of the
 * solver; used only by the driver.
 */
#ifndef SN_BBW_LEVEL_H
#define SN_BBW_LEVEL_H

#include "bbw/penalty.h"
#include "bbw/solve_state.h"
#include "bbw/split.h"

typedef struct sn_bbw_level {
    solve_state s;
    sn_bbw_penalty penalty;
    sn_bbw_anderson aa;
    double tolerance;
    uint32_t max_iterations;
    int exact;
    uint32_t it;                /* iterations made (interior-point steps count as iterations) */
    int converged;              /* certified within the tolerance */
    int paused;                 /* stopped at pause_at with the iteration's end still to run */
    /* The split's last residuals: largest entry of x - z, largest change of z. */
    double primal, change;
    /* The next iteration starts from s without extrapolation (z was
     * replaced), or without a new Anderson column (the penalty moved). */
    int restart, fresh;
    double best_norm;           /* smallest mass norm of x - z since the last reset */
    /* Certificates: the last bound, its ratio to the residual norm it was
     * taken at (predicts the next), and the iteration it was taken at. */
    double bound, bound_per_norm;
    double rounding;            /* the bound's weights' rounding to the float output */
    uint32_t last_certificate;
    /* The polish's schedule: the next stage's residual, the iteration the
     * final stage may polish again, and the next periodic try. */
    double stage_tol;
    uint32_t next_polish, next_periodic, polish_rounds;
    int interior_tried;
} sn_bbw_level;

/* Builds the level for the checked desc d on b (call: the handle's
 * allocator and this call's progress; start: weights to start from,
 * vertex-major over every vertex, or NULL for the unconstrained start).
 * On failure lv holds what was built: free it. */
sinew_result sn_bbw_level_begin(sn_bbw_level *lv, sinew_bbw *b, const sn_env *call, const sinew_bbw_solve_desc *d,
                                const float *start);
/* Iterates until certified, the cap, or (pause_at > 0) the iteration
 * pause_at reaches, where it stops with lv->paused set; the next run
 * resumes it. Errors (cancelled, out of memory) are returned. */
sinew_result sn_bbw_level_run(sn_bbw_level *lv, uint32_t pause_at);
/* Restarts a paused level from the given weights (as at begin); the best
 * certified weights so far are kept. */
void sn_bbw_level_restart(sn_bbw_level *lv, const float *start);
/* The weights after the run into out (vertex_count x handle_count): the
 * certified ones, or at the cap the last or the best certified iterate,
 * whichever has the smaller bound (then in lv->bound, its rounding in
 * lv->rounding). */
void sn_bbw_level_weights(sn_bbw_level *lv, float *out);
void sn_bbw_level_free(sn_bbw_level *lv);

#endif /* SN_BBW_LEVEL_H */
