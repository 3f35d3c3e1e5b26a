/*
 * Influence rows shared by the weight tools: validating the caller's k-slot
 * layout, gathering a vertex's row into (joint, weight) entries with duplicate
 * joints merged, and writing the k largest back renormalised.
 */
#ifndef SINEW_SKIN_TOOLS_INFLUENCE_ROWS_H
#define SINEW_SKIN_TOOLS_INFLUENCE_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "core/internal.h"

/* A (joint, weight) influence. The weight is a double so that summing
 * duplicate joints of weights near FLT_MAX stays finite: every row written
 * from finite inputs is finite. */
typedef struct sn_skin_entry {
    uint32_t joint;
    double weight;
} sn_skin_entry;

/* Checks a vertex-major influence layout: arrays non-NULL, influence_count >= 1,
 * vertex_count * influence_count representable, every weight finite and >= 0, every
 * vertex with a positive weight. `what` names the arrays in messages. */
sinew_result sn_skin_check_influences(size_t vertex_count, size_t influence_count, const uint32_t *joints,
                                      const float *weights, const char *what);

/* Collects the positive-weight slots of row v into out (room for influence_count
 * entries), duplicate joints summed. Returns the entry count. */
size_t sn_skin_gather_row(const uint32_t *joints, const float *weights, size_t influence_count, size_t v,
                          sn_skin_entry *out);

/* Sums entries naming the same joint; returns the new count. Order is lost. */
size_t sn_skin_merge_joints(sn_skin_entry *e, size_t n);

/* Sorts by decreasing weight, ties by increasing joint, so results are
 * deterministic whatever order the entries came in. */
void sn_skin_sort_by_weight(sn_skin_entry *e, size_t n);

/* Writes the first min(n, k) entries (sorted by sn_skin_sort_by_weight)
 * renormalised to sum 1 into a k-slot row; unused slots, and slots whose
 * share rounds to 0 in float, get joint 0, weight 0. n must be >= 1 with a
 * positive first weight. */
void sn_skin_write_row(const sn_skin_entry *e, size_t n, size_t k, uint32_t *joints, float *weights);

/* Cancellation is checked every this many vertices in the long loops. */
#define SN_SKIN_TOOLS_PROGRESS_EVERY 4096u

#endif /* SINEW_SKIN_TOOLS_INFLUENCE_ROWS_H */
