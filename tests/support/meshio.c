/* Readers and writers for the mesh formats in ../shared/data. Kept simple and
 * forgiving; they exist for tests, benchmarks and examples only. */
#define _POSIX_C_SOURCE 200809L
#include "support.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Growable arrays of floats and uint32s. */
typedef struct { float *v; size_t n, cap; } fvec;
typedef struct { uint32_t *v; size_t n, cap; } uvec;

static bool fvec_push(fvec *a, float x)
{
    if (a->n == a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 1024;
        float *p = (float *)realloc(a->v, cap * sizeof *p);
        if (!p) return false;
        a->v = p;
        a->cap = cap;
    }
    a->v[a->n++] = x;
    return true;
}

static bool uvec_push(uvec *a, uint32_t x)
{
    if (a->n == a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 1024;
        uint32_t *p = (uint32_t *)realloc(a->v, cap * sizeof *p);
        if (!p) return false;
        a->v = p;
        a->cap = cap;
    }
    a->v[a->n++] = x;
    return true;
}

void support_mesh_free(support_mesh *m)
{
    free(m->positions);
    free(m->triangles);
    free(m->face_sizes);
    free(m->face_indices);
    free(m->tets);
    memset(m, 0, sizeof *m);
}

/* Fan-triangulates the polygons into m->triangles. */
static bool triangulate_faces(support_mesh *m)
{
    size_t tris = 0;
    for (size_t f = 0; f < m->face_count; ++f) tris += m->face_sizes[f] - 2;
    m->triangles = (uint32_t *)malloc((tris ? tris : 1) * 3 * sizeof(uint32_t));
    if (!m->triangles) return false;
    size_t at = 0, t = 0;
    for (size_t f = 0; f < m->face_count; ++f) {
        const uint32_t *face = m->face_indices + at;
        for (uint32_t k = 1; k + 1 < m->face_sizes[f]; ++k) {
            m->triangles[3 * t + 0] = face[0];
            m->triangles[3 * t + 1] = face[k];
            m->triangles[3 * t + 2] = face[k + 1];
            ++t;
        }
        at += m->face_sizes[f];
    }
    m->triangle_count = tris;
    return true;
}

static bool finish(support_mesh *m, fvec *pos, uvec *sizes, uvec *idx, bool ok)
{
    if (ok) {
        for (size_t i = 0; i < idx->n; ++i)
            if (idx->v[i] >= pos->n / 3) ok = false;
    }
    if (!ok) {
        free(pos->v);
        free(sizes->v);
        free(idx->v);
        memset(m, 0, sizeof *m);
        return false;
    }
    m->positions = pos->v;
    m->vertex_count = pos->n / 3;
    m->face_sizes = sizes->v;
    m->face_indices = idx->v;
    m->face_count = sizes->n;
    if (!triangulate_faces(m)) {
        support_mesh_free(m);
        return false;
    }
    return true;
}

bool support_read_obj(const char *path, support_mesh *m)
{
    memset(m, 0, sizeof *m);
    FILE *f = fopen(path, "r");
    if (!f) return false;
    fvec pos = {0};
    uvec sizes = {0}, idx = {0};
    char line[4096];
    bool ok = true;
    while (ok && fgets(line, sizeof line, f)) {
        if (line[0] == 'v' && line[1] == ' ') {
            float x, y, z;
            if (sscanf(line + 2, "%f %f %f", &x, &y, &z) != 3) { ok = false; break; }
            ok = fvec_push(&pos, x) && fvec_push(&pos, y) && fvec_push(&pos, z);
        } else if (line[0] == 'f' && line[1] == ' ') {
            char *s = line + 2;
            uint32_t count = 0;
            while (*s) {
                while (*s && isspace((unsigned char)*s)) ++s;
                if (!*s) break;
                char *end;
                long v = strtol(s, &end, 10);
                if (end == s) { ok = false; break; }
                if (v < 0) v = (long)(pos.n / 3) + v + 1;
                if (v < 1) { ok = false; break; }
                ok = uvec_push(&idx, (uint32_t)(v - 1));
                ++count;
                s = end;
                while (*s && !isspace((unsigned char)*s)) ++s;  /* skip /t/n */
            }
            if (ok && count < 3) ok = false;
            if (ok) ok = uvec_push(&sizes, count);
        }
    }
    fclose(f);
    return finish(m, &pos, &sizes, &idx, ok);
}

/* Next non-comment token of an OFF/MEDIT file. */
static bool next_token(FILE *f, char *tok, size_t size)
{
    int c;
    for (;;) {
        c = fgetc(f);
        if (c == EOF) return false;
        if (c == '#') {
            while (c != '\n' && c != EOF) c = fgetc(f);
            continue;
        }
        if (!isspace(c)) break;
    }
    size_t n = 0;
    while (c != EOF && !isspace(c)) {
        if (n + 1 < size) tok[n++] = (char)c;
        c = fgetc(f);
    }
    /* Leave the separator in the stream so callers can still see line ends. */
    if (c != EOF) ungetc(c, f);
    tok[n] = '\0';
    return true;
}

static bool next_double(FILE *f, double *out)
{
    char tok[128];
    if (!next_token(f, tok, sizeof tok)) return false;
    char *end;
    *out = strtod(tok, &end);
    return end != tok;
}

static bool next_uint(FILE *f, uint32_t *out)
{
    double d;
    if (!next_double(f, &d) || d < 0 || d > 4294967295.0) return false;
    *out = (uint32_t)d;
    return true;
}

bool support_read_off(const char *path, support_mesh *m)
{
    memset(m, 0, sizeof *m);
    FILE *f = fopen(path, "r");
    if (!f) return false;
    fvec pos = {0};
    uvec sizes = {0}, idx = {0};
    char tok[64];
    uint32_t nv = 0, nf = 0, ne = 0;
    bool ok = next_token(f, tok, sizeof tok) && strcmp(tok, "OFF") == 0 && next_uint(f, &nv) &&
              next_uint(f, &nf) && next_uint(f, &ne);
    for (uint32_t i = 0; ok && i < 3 * nv; ++i) {
        double x;
        ok = next_double(f, &x) && fvec_push(&pos, (float)x);
    }
    for (uint32_t i = 0; ok && i < nf; ++i) {
        uint32_t k = 0;
        ok = next_uint(f, &k) && k >= 3 && uvec_push(&sizes, k);
        for (uint32_t j = 0; ok && j < k; ++j) {
            uint32_t v;
            ok = next_uint(f, &v) && uvec_push(&idx, v);
        }
        /* Skip an optional colour to the end of the line. */
        if (ok) {
            int c;
            while ((c = fgetc(f)) != '\n' && c != EOF) {}
        }
    }
    fclose(f);
    return finish(m, &pos, &sizes, &idx, ok);
}

bool support_read_medit(const char *path, support_mesh *m)
{
    memset(m, 0, sizeof *m);
    FILE *f = fopen(path, "r");
    if (!f) return false;
    fvec pos = {0};
    uvec sizes = {0}, idx = {0}, tets = {0};
    char tok[64];
    bool ok = true;
    while (ok && next_token(f, tok, sizeof tok)) {
        uint32_t n = 0, v = 0;
        double x;
        if (strcmp(tok, "Vertices") == 0) {
            ok = next_uint(f, &n);
            for (uint32_t i = 0; ok && i < n; ++i) {
                for (int k = 0; ok && k < 3; ++k) ok = next_double(f, &x) && fvec_push(&pos, (float)x);
                ok = ok && next_double(f, &x); /* reference label */
            }
        } else if (strcmp(tok, "Triangles") == 0) {
            ok = next_uint(f, &n);
            for (uint32_t i = 0; ok && i < n; ++i) {
                for (int k = 0; ok && k < 3; ++k) ok = next_uint(f, &v) && v >= 1 && uvec_push(&idx, v - 1);
                ok = ok && uvec_push(&sizes, 3) && next_uint(f, &v);
            }
        } else if (strcmp(tok, "Tetrahedra") == 0) {
            ok = next_uint(f, &n);
            for (uint32_t i = 0; ok && i < n; ++i) {
                for (int k = 0; ok && k < 4; ++k) ok = next_uint(f, &v) && v >= 1 && uvec_push(&tets, v - 1);
                ok = ok && next_uint(f, &v);
            }
        } else if (strcmp(tok, "End") == 0) {
            break;
        }
        /* MeshVersionFormatted, Dimension and their values fall through as tokens. */
    }
    fclose(f);
    for (size_t i = 0; ok && i < tets.n; ++i)
        if (tets.v[i] >= pos.n / 3) ok = false;
    if (!ok) {
        free(tets.v);
        return finish(m, &pos, &sizes, &idx, false);
    }
    if (!finish(m, &pos, &sizes, &idx, true)) {
        free(tets.v);
        return false;
    }
    m->tets = tets.v;
    m->tet_count = tets.n / 4;
    return true;
}

bool support_write_obj(const char *path, const float *positions, size_t vertex_count, size_t stride,
                       const uint32_t *triangles, size_t triangle_count)
{
    FILE *f = fopen(path, "w");
    if (!f) return false;
    if (!stride) stride = 3 * sizeof(float);
    for (size_t i = 0; i < vertex_count; ++i) {
        const float *p = (const float *)((const char *)positions + i * stride);
        fprintf(f, "v %.7g %.7g %.7g\n", (double)p[0], (double)p[1], (double)p[2]);
    }
    for (size_t t = 0; t < triangle_count; ++t)
        fprintf(f, "f %u %u %u\n", triangles[3 * t] + 1, triangles[3 * t + 1] + 1, triangles[3 * t + 2] + 1);
    return fclose(f) == 0;
}

bool support_read_tgf(const char *path, float **joints, size_t *joint_count, uint32_t **bones, size_t *bone_count)
{
    *joints = NULL;
    *bones = NULL;
    *joint_count = *bone_count = 0;
    FILE *f = fopen(path, "r");
    if (!f) return false;
    fvec pos = {0};
    uvec edges = {0};
    char line[1024];
    int section = 0;
    bool ok = true;
    while (ok && fgets(line, sizeof line, f)) {
        if (line[0] == '#') {
            if (++section > 1) break;
            continue;
        }
        if (section == 0) {
            int id;
            float x, y, z;
            if (sscanf(line, "%d %f %f %f", &id, &x, &y, &z) == 4)
                ok = fvec_push(&pos, x) && fvec_push(&pos, y) && fvec_push(&pos, z);
        } else {
            unsigned a, b;
            if (sscanf(line, "%u %u", &a, &b) == 2) {
                ok = a >= 1 && b >= 1 && uvec_push(&edges, a - 1) && uvec_push(&edges, b - 1);
            }
        }
    }
    fclose(f);
    for (size_t i = 0; ok && i < edges.n; ++i)
        if (edges.v[i] >= pos.n / 3) ok = false;
    if (!ok) {
        free(pos.v);
        free(edges.v);
        return false;
    }
    *joints = pos.v;
    *joint_count = pos.n / 3;
    *bones = edges.v;
    *bone_count = edges.n / 2;
    return true;
}

bool support_read_dmat(const char *path, double **data, size_t *rows, size_t *cols)
{
    *data = NULL;
    *rows = *cols = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    unsigned long c = 0, r = 0;
    bool ok = fscanf(f, "%lu %lu", &c, &r) == 2;
    bool binary = ok && c == 0 && r == 0;
    if (binary) {
        ok = fscanf(f, "%lu %lu", &c, &r) == 2 && fgetc(f) == '\n';
    }
    size_t n = (size_t)c * (size_t)r;
    double *d = ok ? (double *)malloc((n ? n : 1) * sizeof *d) : NULL;
    ok = ok && d;
    if (ok && binary) {
        ok = fread(d, sizeof *d, n, f) == n;
    } else {
        for (size_t i = 0; ok && i < n; ++i) ok = fscanf(f, "%lf", &d[i]) == 1;
    }
    fclose(f);
    if (!ok) {
        free(d);
        return false;
    }
    *data = d;
    *rows = r;
    *cols = c;
    return true;
}

sinew_points support_mesh_points(const support_mesh *m)
{
    sinew_points p = {m->positions, m->vertex_count, 0};
    return p;
}

sinew_trimesh support_mesh_trimesh(const support_mesh *m)
{
    sinew_trimesh t = {support_mesh_points(m), m->triangles, m->triangle_count, SINEW_INDEX_U32, 0};
    return t;
}
