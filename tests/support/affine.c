/* Folders and column-major affine matrices for the examples and tests: the
 * few lines every program that writes files or poses joints needs. */
#define _POSIX_C_SOURCE 200809L
#include "support.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>

bool support_make_folder(const char *path)
{
    char buf[1024];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof buf) return false;
    memcpy(buf, path, n + 1);
    for (size_t i = 1; i <= n; ++i) {
        if (buf[i] != '/' && buf[i] != '\0') continue;
        char c = buf[i];
        buf[i] = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST) return false;
        buf[i] = c;
    }
    return true;
}

void support_affine_rotation(const double axis[3], double angle, const double translation[3], float m[16])
{
    double len = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
    double ax = len > 0 ? axis[0] / len : 1, ay = len > 0 ? axis[1] / len : 0, az = len > 0 ? axis[2] / len : 0;
    double c = cos(angle), s = sin(angle), C = 1 - c;
    const float r[16] = {(float)(ax * ax * C + c), (float)(ay * ax * C + az * s), (float)(az * ax * C - ay * s), 0,
                         (float)(ax * ay * C - az * s), (float)(ay * ay * C + c), (float)(az * ay * C + ax * s), 0,
                         (float)(ax * az * C + ay * s), (float)(ay * az * C - ax * s), (float)(az * az * C + c), 0,
                         (float)translation[0], (float)translation[1], (float)translation[2], 1};
    memcpy(m, r, sizeof r);
}

void support_mat4_multiply(const float a[16], const float b[16], float out[16])
{
    float r[16];
    for (int c = 0; c < 4; ++c)
        for (int row = 0; row < 4; ++row) {
            float s = 0;
            for (int k = 0; k < 4; ++k) s += a[4 * k + row] * b[4 * c + k];
            r[4 * c + row] = s;
        }
    memcpy(out, r, sizeof r);
}
