/*
 * The unbound-vertex report shared by the automatic binders (capsules,
 * point-to-line): their public report structs have one layout after
 * struct_size (list, capacity, count), and both check the caller's list and
 * fill it the same way.
 */
#ifndef SINEW_SKIN_TOOLS_UNBOUND_REPORT_H
#define SINEW_SKIN_TOOLS_UNBOUND_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "core/internal.h"

/* Refuses a capacity without a list (INVALID_ARGUMENT) and one whose bytes
 * overflow (SIZE_OVERFLOW); `what` names the binder in the message. */
sinew_result sn_skin_unbound_list_check(const uint32_t *list, size_t capacity, const char *what);

/* Writes the first `capacity` flagged vertices of is_unbound[0..n), ascending,
 * into list (which may be NULL when capacity is 0). */
void sn_skin_unbound_list_fill(uint32_t *list, size_t capacity, const unsigned char *is_unbound, size_t n);

#endif /* SINEW_SKIN_TOOLS_UNBOUND_REPORT_H */
