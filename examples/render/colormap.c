/* A perceptual colour map computed in OKLab (Ottosson 2020): lightness rises
 * linearly from 0.27 to 0.95 while the hue turns from violet through blue,
 * teal and green to yellow, like viridis; the chroma is the most the sRGB gamut
 * allows up to a target, found by bisection. */
#include <math.h>
#include <stdbool.h>

#include "render.h"

/* OKLab to linear sRGB, by the published matrices. */
static void oklab_to_linear(double L, double a, double b, double rgb[3])
{
    double l = L + 0.3963377774 * a + 0.2158037573 * b;
    double m = L - 0.1055613458 * a - 0.0638541728 * b;
    double s = L - 0.0894841775 * a - 1.2914855480 * b;
    l = l * l * l, m = m * m * m, s = s * s * s;
    rgb[0] = +4.0767416621 * l - 3.3077115913 * m + 0.2309699292 * s;
    rgb[1] = -1.2684380046 * l + 2.6097574011 * m - 0.3413193965 * s;
    rgb[2] = -0.0041960863 * l - 0.7034186147 * m + 1.7076147010 * s;
}

static bool in_gamut(const double rgb[3])
{
    return rgb[0] >= 0 && rgb[0] <= 1 && rgb[1] >= 0 && rgb[1] <= 1 && rgb[2] >= 0 && rgb[2] <= 1;
}

static float srgb_encode(double x)
{
    x = x < 0 ? 0 : x > 1 ? 1 : x;
    return (float)(x <= 0.0031308 ? 12.92 * x : 1.055 * pow(x, 1 / 2.4) - 0.055);
}

void render_colormap(float t, float out[3])
{
    double u = t < 0 ? 0 : t > 1 ? 1 : (double)t;
    if (!(u == u)) u = 0;
    const double pi = 3.14159265358979323846;
    double L = 0.27 + 0.68 * u, hue = (300.0 - 195.0 * u) * pi / 180.0;
    double target = 0.13 + 0.05 * u * u; /* a little more colour toward the bright end */
    double lo = 0, hi = target, rgb[3];
    oklab_to_linear(L, hi * cos(hue), hi * sin(hue), rgb);
    if (!in_gamut(rgb))
        for (int k = 0; k < 30; ++k) {
            double c = 0.5 * (lo + hi);
            oklab_to_linear(L, c * cos(hue), c * sin(hue), rgb);
            if (in_gamut(rgb)) lo = c;
            else hi = c;
        }
    else lo = hi;
    oklab_to_linear(L, lo * cos(hue), lo * sin(hue), rgb);
    for (int k = 0; k < 3; ++k) out[k] = srgb_encode(rgb[k]);
}
