/*
 * Test fixtures and the dense reference solver for bbw.
 */
#include "bbw_fixture.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void grid2d_make(grid2d *g, size_t nx, size_t ny, float sx, float sy)
{
    g->vertex_count = (nx + 1) * (ny + 1);
    g->positions = calloc(g->vertex_count, 3 * sizeof(float));
    for (size_t j = 0; j <= ny; ++j)
        for (size_t i = 0; i <= nx; ++i) {
            float *p = g->positions + 3 * grid2d_vertex(nx, i, j);
            p[0] = sx * (float)i / (float)nx;
            p[1] = sy * (float)j / (float)ny;
            p[2] = 0.0f;
        }
    g->triangle_count = 2 * nx * ny;
    g->triangles = calloc(g->triangle_count, 3 * sizeof(uint32_t));
    uint32_t *t = g->triangles;
    for (size_t j = 0; j < ny; ++j)
        for (size_t i = 0; i < nx; ++i) {
            uint32_t a = grid2d_vertex(nx, i, j), b = grid2d_vertex(nx, i + 1, j);
            uint32_t c = grid2d_vertex(nx, i + 1, j + 1), d = grid2d_vertex(nx, i, j + 1);
            /* Diagonals mirror across the centre lines so the mesh is symmetric. */
            int flip = (i < nx / 2) != (j < ny / 2);
            if (flip) {
                uint32_t tri[6] = {a, b, d, b, c, d};
                memcpy(t, tri, sizeof tri);
            } else {
                uint32_t tri[6] = {a, b, c, a, c, d};
                memcpy(t, tri, sizeof tri);
            }
            t += 6;
        }
}

void grid2d_free(grid2d *g)
{
    free(g->positions);
    free(g->triangles);
    memset(g, 0, sizeof *g);
}

void grid3d_make(grid3d *g, size_t n, float s)
{
    memset(g, 0, sizeof *g);
    if (n == 0 || n > 64) return; /* test grids are small */
    size_t nv = n + 1;
    g->vertex_count = nv * nv * nv;
    g->positions = calloc(g->vertex_count, 3 * sizeof(float));
    for (size_t k = 0; k < nv; ++k)
        for (size_t j = 0; j < nv; ++j)
            for (size_t i = 0; i < nv; ++i) {
                float *p = g->positions + 3 * ((k * nv + j) * nv + i);
                p[0] = s * (float)i / (float)n;
                p[1] = s * (float)j / (float)n;
                p[2] = s * (float)k / (float)n;
            }
    g->tet_count = 6 * n * n * n;
    g->tets = calloc(g->tet_count, 4 * sizeof(uint32_t));
    /* The cube's corners by bit (x = 1, y = 2, z = 4); six tets around the
     * 0-7 diagonal, odd orders with the last two corners swapped. */
    static const int order[6][4] = {{0, 1, 3, 7}, {0, 2, 7, 3}, {0, 2, 6, 7}, {0, 4, 7, 6}, {0, 4, 5, 7}, {0, 1, 7, 5}};
    uint32_t *t = g->tets;
    for (size_t k = 0; k < n; ++k)
        for (size_t j = 0; j < n; ++j)
            for (size_t i = 0; i < n; ++i) {
                for (int q = 0; q < 6; ++q) {
                    for (int c = 0; c < 4; ++c) {
                        int bit = order[q][c];
                        size_t x = i + (bit & 1), y = j + (bit >> 1 & 1), z = k + (bit >> 2 & 1);
                        *t++ = (uint32_t)((z * nv + y) * nv + x);
                    }
                }
            }
}

void grid3d_free(grid3d *g)
{
    free(g->positions);
    free(g->tets);
    memset(g, 0, sizeof *g);
}

static void sub3(const float *a, const float *b, double *out)
{
    for (int k = 0; k < 3; ++k) out[k] = (double)a[k] - (double)b[k];
}
static double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static void cross3(const double *a, const double *b, double *out)
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* Dense stiffness and lumped mass. 2D: K_ij -= cot(angle opposite ij) / 2.
 * 3D: K_ij -= |e_kl| cot(dihedral at kl) / 6, with kl the edge opposite ij. */
static void dense_operators(int dim, const float *pos, size_t n, const uint32_t *el, size_t ec, double *k, double *mass)
{
    memset(k, 0, n * n * sizeof(double));
    memset(mass, 0, n * sizeof(double));
    for (size_t e = 0; e < ec; ++e) {
        if (dim == 2) {
            const uint32_t *v = el + 3 * e;
            double u[3], w[3], c[3];
            sub3(pos + 3 * v[1], pos + 3 * v[0], u);
            sub3(pos + 3 * v[2], pos + 3 * v[0], w);
            cross3(u, w, c);
            double area = 0.5 * sqrt(dot3(c, c));
            for (int o = 0; o < 3; ++o) {
                uint32_t a = v[o], i = v[(o + 1) % 3], j = v[(o + 2) % 3];
                double x[3], y[3], cr[3];
                sub3(pos + 3 * i, pos + 3 * a, x);
                sub3(pos + 3 * j, pos + 3 * a, y);
                cross3(x, y, cr);
                double cot = dot3(x, y) / sqrt(dot3(cr, cr));
                k[i * n + j] -= 0.5 * cot;
                k[j * n + i] -= 0.5 * cot;
                k[i * n + i] += 0.5 * cot;
                k[j * n + j] += 0.5 * cot;
                mass[a] += area / 3.0;
            }
        } else {
            const uint32_t *v = el + 4 * e;
            double a[3], b[3], c[3], bc[3];
            sub3(pos + 3 * v[1], pos + 3 * v[0], a);
            sub3(pos + 3 * v[2], pos + 3 * v[0], b);
            sub3(pos + 3 * v[3], pos + 3 * v[0], c);
            cross3(b, c, bc);
            double vol = fabs(dot3(a, bc)) / 6.0;
            for (int q = 0; q < 4; ++q) mass[v[q]] += vol / 4.0;
            for (int i = 0; i < 4; ++i)
                for (int j = i + 1; j < 4; ++j) {
                    int o[2], c2 = 0;
                    for (int q = 0; q < 4; ++q)
                        if (q != i && q != j) o[c2++] = q;
                    /* Dihedral angle at edge (o0, o1) between faces (o0 o1 i)
                     * and (o0 o1 j). */
                    double e0[3], ei[3], ej[3], ni[3], nj[3];
                    sub3(pos + 3 * v[o[1]], pos + 3 * v[o[0]], e0);
                    sub3(pos + 3 * v[i], pos + 3 * v[o[0]], ei);
                    sub3(pos + 3 * v[j], pos + 3 * v[o[0]], ej);
                    /* Components of ei, ej orthogonal to the edge. */
                    double l2 = dot3(e0, e0);
                    for (int x = 0; x < 3; ++x) {
                        ni[x] = ei[x] - dot3(ei, e0) / l2 * e0[x];
                        nj[x] = ej[x] - dot3(ej, e0) / l2 * e0[x];
                    }
                    double cr[3];
                    cross3(ni, nj, cr);
                    double cot = dot3(ni, nj) / sqrt(dot3(cr, cr));
                    double wgt = sqrt(l2) * cot / 6.0;
                    uint32_t vi = v[i], vj = v[j];
                    k[vi * n + vj] -= wgt;
                    k[vj * n + vi] -= wgt;
                    k[vi * n + vi] += wgt;
                    k[vj * n + vj] += wgt;
                }
        }
    }
}

static int cmp_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* Euclidean projection onto the simplex by sorting (Held, Wolfe, Crowder). */
static void simplex_sorted(double *v, size_t m, double *tmp)
{
    memcpy(tmp, v, m * sizeof(double));
    qsort(tmp, m, sizeof(double), cmp_desc);
    double cum = 0.0, theta = 0.0;
    for (size_t k = 0; k < m; ++k) {
        cum += tmp[k];
        double t = (cum - 1.0) / (double)(k + 1);
        if (tmp[k] - t > 0) theta = t;
    }
    for (size_t j = 0; j < m; ++j) v[j] = v[j] > theta ? v[j] - theta : 0.0;
}

/* The dense biharmonic operator Q = K M^-1 K (n x n, row-major) of the
 * domain; the caller frees it. */
double *bbw_dense_biharmonic(int dim, const float *positions, size_t n, const uint32_t *elements,
                             size_t element_count)
{
    double *k = malloc(n * n * sizeof(double)), *mass = malloc(n * sizeof(double));
    double *q = calloc(n * n, sizeof(double));
    dense_operators(dim, positions, n, elements, element_count, k, mass);
    for (size_t i = 0; i < n; ++i)
        for (size_t l = 0; l < n; ++l) {
            double kil = k[i * n + l];
            if (kil == 0.0) continue;
            for (size_t j = 0; j < n; ++j) q[i * n + j] += kil / mass[l] * k[l * n + j];
        }
    free(k);
    free(mass);
    return q;
}

void reference_weights(int dim, const float *positions, size_t n, const uint32_t *elements, size_t element_count,
                       const uint8_t *fixed, const double *fixed_rows, size_t m, int exact, size_t iterations,
                       double *out)
{
    double *q = bbw_dense_biharmonic(dim, positions, n, elements, element_count);
    /* Step 1/L with L the largest eigenvalue of Q on the free rows (power
     * iteration, then a safety margin). */
    double *x = calloc(n, sizeof(double)), *y = calloc(n, sizeof(double));
    for (size_t i = 0; i < n; ++i) x[i] = fixed[i] ? 0.0 : 1.0 + 0.01 * (double)(i % 7);
    double lmax = 0.0;
    for (int it = 0; it < 200; ++it) {
        double nrm = 0.0;
        for (size_t i = 0; i < n; ++i) {
            y[i] = 0.0;
            if (fixed[i]) continue;
            for (size_t j = 0; j < n; ++j)
                if (!fixed[j]) y[i] += q[i * n + j] * x[j];
            nrm += y[i] * y[i];
        }
        nrm = sqrt(nrm);
        lmax = nrm;
        for (size_t i = 0; i < n; ++i) x[i] = y[i] / nrm;
    }
    double step = 1.0 / (1.05 * lmax);
    double *w = malloc(n * m * sizeof(double)), *prev = malloc(n * m * sizeof(double));
    double *ext = malloc(n * m * sizeof(double)), *grad = malloc(n * m * sizeof(double)), *tmp = malloc(m * sizeof(double));
    for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < m; ++j) w[i * m + j] = fixed[i] ? fixed_rows[i * m + j] : 1.0 / (double)m;
    memcpy(prev, w, n * m * sizeof(double));
    double t = 1.0;
    for (size_t it = 0; it < iterations; ++it) {
        double tn = 0.5 * (1.0 + sqrt(1.0 + 4.0 * t * t)), beta = (t - 1.0) / tn;
        t = tn;
        for (size_t c = 0; c < n * m; ++c) ext[c] = w[c] + beta * (w[c] - prev[c]);
        memcpy(prev, w, n * m * sizeof(double));
        memset(grad, 0, n * m * sizeof(double));
        for (size_t i = 0; i < n; ++i) {
            if (fixed[i]) continue;
            for (size_t l = 0; l < n; ++l) {
                double qil = q[i * n + l];
                if (qil == 0.0) continue;
                for (size_t j = 0; j < m; ++j) grad[i * m + j] += qil * ext[l * m + j];
            }
        }
        for (size_t i = 0; i < n; ++i) {
            if (fixed[i]) continue;
            double *row = w + i * m;
            for (size_t j = 0; j < m; ++j) row[j] = ext[i * m + j] - step * grad[i * m + j];
            if (exact) simplex_sorted(row, m, tmp);
            else
                for (size_t j = 0; j < m; ++j) row[j] = fmin(fmax(row[j], 0.0), 1.0);
        }
    }
    for (size_t i = 0; i < n; ++i) {
        double s = 0.0;
        for (size_t j = 0; j < m; ++j) s += w[i * m + j];
        for (size_t j = 0; j < m; ++j) out[i * m + j] = (exact || s <= 0.0) ? w[i * m + j] : w[i * m + j] / s;
    }
    free(q);
    free(x);
    free(y);
    free(w);
    free(prev);
    free(ext);
    free(grad);
    free(tmp);
}

void reference_unconstrained_weights(int dim, const float *positions, size_t n, const uint32_t *elements,
                                     size_t element_count, const uint8_t *fixed, const double *fixed_rows, size_t m,
                                     double *out)
{
    double *q = bbw_dense_biharmonic(dim, positions, n, elements, element_count);
    /* Q_FF w_F = -Q_FC w_C for every handle at once, by Gaussian elimination
     * with partial pivoting over the free rows (the fixed rows stay out). */
    size_t *free_of = malloc(n * sizeof(size_t)), nf = 0;
    for (size_t v = 0; v < n; ++v)
        if (!fixed[v]) free_of[nf++] = v;
    double *a = calloc(nf * (nf + m), sizeof(double));
    size_t w = nf + m;
    for (size_t r = 0; r < nf; ++r) {
        size_t vr = free_of[r];
        for (size_t c = 0; c < nf; ++c) a[r * w + c] = q[vr * n + free_of[c]];
        for (size_t v = 0; v < n; ++v)
            if (fixed[v])
                for (size_t j = 0; j < m; ++j) a[r * w + nf + j] -= q[vr * n + v] * fixed_rows[v * m + j];
    }
    for (size_t p = 0; p < nf; ++p) {
        size_t best = p;
        for (size_t r = p + 1; r < nf; ++r)
            if (fabs(a[r * w + p]) > fabs(a[best * w + p])) best = r;
        for (size_t c = 0; c < w && best != p; ++c) {
            double t = a[p * w + c];
            a[p * w + c] = a[best * w + c];
            a[best * w + c] = t;
        }
        for (size_t r = p + 1; r < nf; ++r) {
            double l = a[r * w + p] / a[p * w + p];
            for (size_t c = p; c < w; ++c) a[r * w + c] -= l * a[p * w + c];
        }
    }
    for (size_t j = 0; j < m; ++j)
        for (size_t p = nf; p-- > 0;) {
            double s = a[p * w + nf + j];
            for (size_t c = p + 1; c < nf; ++c) s -= a[p * w + c] * out[free_of[c] * m + j];
            out[free_of[p] * m + j] = s / a[p * w + p];
        }
    for (size_t v = 0; v < n; ++v)
        if (fixed[v])
            for (size_t j = 0; j < m; ++j) out[v * m + j] = fixed_rows[v * m + j];
    free(a);
    free(free_of);
    free(q);
}

/* Barycentric lumped mass (triangles: per = 3, tets: per = 4). */
double *bbw_lumped_mass(const float *pos, size_t n, const uint32_t *el, size_t count, int per)
{
    double *mass = calloc(n, sizeof(double));
    for (size_t e = 0; e < count; ++e) {
        const uint32_t *v = el + (size_t)per * e;
        double u[3], t[3], s[3] = {0, 0, 1};
        for (int a = 0; a < 3; ++a) {
            u[a] = (double)pos[3 * v[1] + a] - pos[3 * v[0] + a];
            t[a] = (double)pos[3 * v[2] + a] - pos[3 * v[0] + a];
            if (per == 4) s[a] = (double)pos[3 * v[3] + a] - pos[3 * v[0] + a];
        }
        double det = u[0] * (t[1] * s[2] - t[2] * s[1]) - u[1] * (t[0] * s[2] - t[2] * s[0]) +
                     u[2] * (t[0] * s[1] - t[1] * s[0]);
        double measure = fabs(det) / (per == 4 ? 6.0 : 2.0);
        for (int k = 0; k < per; ++k) mass[v[k]] += measure / per;
    }
    return mass;
}

/* Mass-weighted RMS over the free vertices of each vertex's error (the
 * quantity error_bound bounds). */
double bbw_rms_error(const float *w, const double *ref, const double *mass, const uint8_t *fixed, size_t n, size_t m)
{
    double sq = 0.0, free_mass = 0.0;
    for (size_t v = 0; v < n; ++v) {
        if (fixed[v]) continue;
        free_mass += mass[v];
        for (size_t j = 0; j < m; ++j) sq += mass[v] * (w[v * m + j] - ref[v * m + j]) * (w[v * m + j] - ref[v * m + j]);
    }
    return sqrt(sq / free_mass);
}
