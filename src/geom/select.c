#include "geom/select.h"

void sn_select_nth(uint32_t *slots, size_t lo, size_t hi, size_t nth, const double *key, size_t stride)
{
    while (hi - lo > 1) {
        /* Lower middle: Hoare partitioning then ends with j < hi - 1, so both sides shrink. */
        double pivot = key[slots[lo + (hi - lo - 1) / 2] * stride];
        size_t i = lo - 1, j = hi; /* lo - 1 may wrap; it is incremented before use */
        for (;;) {
            do ++i;
            while (key[slots[i] * stride] < pivot);
            do --j;
            while (key[slots[j] * stride] > pivot);
            if (i >= j) break;
            uint32_t t = slots[i];
            slots[i] = slots[j];
            slots[j] = t;
        }
        /* [lo, j] <= pivot <= [j + 1, hi) */
        if (nth <= j) hi = j + 1;
        else lo = j + 1;
    }
}
