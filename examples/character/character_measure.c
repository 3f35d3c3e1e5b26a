/* Measures of the workflow example (character_measure.h). */
#include "character_measure.h"

#include <math.h>

/* The stretch of the upper arm whose swelling counts as the bulge, as
 * fractions of its length from the shoulder: the middle, away from the
 * elbow corrective's reach. */
#define BULGE_MEASURE_START 0.3
#define BULGE_MEASURE_END 0.65

double measure_elbow_clearance(const arm_rig *rig, const float *skin)
{
    double nearest = INFINITY;
    for (size_t i = 0; i < rig->skin.vertex_count; ++i) {
        double s = 0.0;
        for (int k = 0; k < 3; ++k) {
            double e = (double)skin[3 * i + k] - rig->elbow[k];
            s += e * e;
        }
        nearest = fmin(nearest, s);
    }
    return sqrt(nearest);
}

double measure_largest_distance(const float *a, const float *b, size_t count)
{
    double largest = 0.0;
    for (size_t i = 0; i < count; ++i) {
        double s = 0.0;
        for (int k = 0; k < 3; ++k) {
            double e = (double)a[3 * i + k] - b[3 * i + k];
            s += e * e;
        }
        largest = fmax(largest, sqrt(s));
    }
    return largest;
}

double measure_bulge(const arm_rig *rig, const float *plain, const float *corrected)
{
    double axis[3], len2 = 0.0, bulge = 0.0;
    for (int k = 0; k < 3; ++k) axis[k] = rig->elbow[k] - rig->shoulder[k], len2 += axis[k] * axis[k];
    for (size_t i = 0; i < rig->skin.vertex_count; ++i) {
        const float *p = &rig->skin.positions[3 * i];
        double t = 0.0, out = 0.0;
        for (int k = 0; k < 3; ++k) t += (p[k] - rig->shoulder[k]) * axis[k];
        t /= len2;
        if (t < BULGE_MEASURE_START || t > BULGE_MEASURE_END) continue;
        for (int k = 0; k < 3; ++k) out += ((double)corrected[3 * i + k] - plain[3 * i + k]) * rig->inside[k];
        bulge = fmax(bulge, out);
    }
    return bulge;
}
