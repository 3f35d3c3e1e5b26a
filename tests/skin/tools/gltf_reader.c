/* glTF reader for tests: a JSON DOM, base64 data URIs, then the model. */
#include "gltf_reader.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- JSON ------------------------------------------------------------------ */

typedef enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ } jtype;

typedef struct jval {
    jtype type;
    double num;
    char *str;
    size_t n;
    struct jval *items;   /* array elements or object values */
    char **keys;          /* object keys */
} jval;

typedef struct jparser {
    const char *p, *end;
    const char *error;
} jparser;

static void jfree(jval *v)
{
    if (!v) return;
    free(v->str);
    for (size_t i = 0; i < v->n; ++i) {
        jfree(&v->items[i]);
        if (v->keys) free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    memset(v, 0, sizeof *v);
}

static void skip_ws(jparser *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')) ++j->p;
}

static bool parse_value(jparser *j, jval *out, int depth);

static void put_utf8(char **buf, size_t *len, unsigned cp)
{
    char *b = *buf + *len;
    if (cp < 0x80) {
        b[0] = (char)cp;
        *len += 1;
    } else if (cp < 0x800) {
        b[0] = (char)(0xC0 | (cp >> 6));
        b[1] = (char)(0x80 | (cp & 0x3F));
        *len += 2;
    } else {
        b[0] = (char)(0xE0 | (cp >> 12));
        b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[2] = (char)(0x80 | (cp & 0x3F));
        *len += 3;
    }
}

static bool parse_string(jparser *j, char **out)
{
    if (j->p >= j->end || *j->p != '"') return j->error = "expected a string", false;
    ++j->p;
    const char *start = j->p;
    while (j->p < j->end && *j->p != '"') j->p += (*j->p == '\\' && j->p + 1 < j->end) ? 2 : 1;
    if (j->p >= j->end) return j->error = "unterminated string", false;
    /* Unescaped text is never longer than the escaped. */
    char *s = malloc((size_t)(j->p - start) + 1);
    size_t len = 0;
    for (const char *q = start; q < j->p; ++q) {
        if (*q != '\\') {
            s[len++] = *q;
            continue;
        }
        ++q;
        switch (*q) {
        case 'n': s[len++] = '\n'; break;
        case 't': s[len++] = '\t'; break;
        case 'r': s[len++] = '\r'; break;
        case 'b': s[len++] = '\b'; break;
        case 'f': s[len++] = '\f'; break;
        case 'u': {
            unsigned cp = 0;
            for (int i = 1; i <= 4 && q + i < j->p; ++i) {
                char c = q[i];
                cp = cp * 16 + (unsigned)(c >= '0' && c <= '9' ? c - '0' : (c | 32) - 'a' + 10);
            }
            q += 4;
            put_utf8(&s, &len, cp);
            break;
        }
        default: s[len++] = *q; break;   /* \" \\ \/ */
        }
    }
    s[len] = '\0';
    ++j->p;
    *out = s;
    return true;
}

static bool parse_container(jparser *j, jval *out, int depth, bool object)
{
    out->type = object ? J_OBJ : J_ARR;
    ++j->p;
    size_t cap = 0;
    skip_ws(j);
    if (j->p < j->end && *j->p == (object ? '}' : ']')) {
        ++j->p;
        return true;
    }
    for (;;) {
        if (out->n == cap) {
            cap = cap ? 2 * cap : 8;
            out->items = realloc(out->items, cap * sizeof *out->items);
            if (object) out->keys = realloc(out->keys, cap * sizeof *out->keys);
        }
        memset(&out->items[out->n], 0, sizeof out->items[0]);
        skip_ws(j);
        if (object) {
            out->keys[out->n] = NULL;
            if (!parse_string(j, &out->keys[out->n])) {
                out->n++;
                return false;
            }
            skip_ws(j);
            if (j->p >= j->end || *j->p != ':') {
                out->n++;
                return j->error = "expected ':'", false;
            }
            ++j->p;
        }
        out->n++;
        if (!parse_value(j, &out->items[out->n - 1], depth + 1)) return false;
        skip_ws(j);
        if (j->p < j->end && *j->p == ',') {
            ++j->p;
            continue;
        }
        if (j->p < j->end && *j->p == (object ? '}' : ']')) {
            ++j->p;
            return true;
        }
        return j->error = object ? "expected ',' or '}'" : "expected ',' or ']'", false;
    }
}

static bool parse_value(jparser *j, jval *out, int depth)
{
    memset(out, 0, sizeof *out);
    if (depth > 64) return j->error = "nesting too deep", false;
    skip_ws(j);
    if (j->p >= j->end) return j->error = "unexpected end", false;
    char c = *j->p;
    if (c == '{' || c == '[') return parse_container(j, out, depth, c == '{');
    if (c == '"') {
        out->type = J_STR;
        return parse_string(j, &out->str);
    }
    if (c == 't' && j->end - j->p >= 4 && !strncmp(j->p, "true", 4)) {
        out->type = J_BOOL, out->num = 1, j->p += 4;
        return true;
    }
    if (c == 'f' && j->end - j->p >= 5 && !strncmp(j->p, "false", 5)) {
        out->type = J_BOOL, j->p += 5;
        return true;
    }
    if (c == 'n' && j->end - j->p >= 4 && !strncmp(j->p, "null", 4)) {
        j->p += 4;
        return true;
    }
    char *after;
    out->num = strtod(j->p, &after);
    if (after == j->p) return j->error = "unexpected character", false;
    out->type = J_NUM;
    j->p = after;
    return true;
}

static const jval *jget(const jval *obj, const char *key)
{
    if (!obj || obj->type != J_OBJ) return NULL;
    for (size_t i = 0; i < obj->n; ++i)
        if (!strcmp(obj->keys[i], key)) return &obj->items[i];
    return NULL;
}

static const jval *jat(const jval *arr, size_t i)
{
    return arr && arr->type == J_ARR && i < arr->n ? &arr->items[i] : NULL;
}

static double jnum(const jval *v, double fallback)
{
    return v && v->type == J_NUM ? v->num : fallback;
}

static long jint(const jval *v, long fallback)
{
    return v && v->type == J_NUM ? (long)v->num : fallback;
}

static size_t jlen(const jval *v)
{
    return v && v->type == J_ARR ? v->n : 0;
}

/* ---- Buffers ------------------------------------------------------------------ */

static int b64_value(char c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+' || c == '-') return 62;
    if (c == '/' || c == '_') return 63;
    return -1;
}

static unsigned char *b64_decode(const char *s, size_t *size)
{
    size_t n = strlen(s);
    unsigned char *out = malloc(n / 4 * 3 + 3);
    size_t len = 0;
    unsigned acc = 0;
    int bits = 0;
    for (size_t i = 0; i < n; ++i) {
        if (s[i] == '=') break;
        int v = b64_value(s[i]);
        if (v < 0) {
            free(out);
            return NULL;
        }
        acc = (acc << 6) | (unsigned)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[len++] = (unsigned char)(acc >> bits);
            acc &= (1u << bits) - 1;
        }
    }
    *size = len;
    return out;
}

static unsigned char *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    unsigned char *data = NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        long n = ftell(f);
        if (n >= 0 && fseek(f, 0, SEEK_SET) == 0) {
            data = malloc((size_t)n + 1);
            if (fread(data, 1, (size_t)n, f) != (size_t)n) {
                free(data);
                data = NULL;
            } else {
                data[n] = 0;
                *size = (size_t)n;
            }
        }
    }
    fclose(f);
    return data;
}

/* ---- Model ---------------------------------------------------------------------- */

typedef struct loader {
    jval root;
    const char *dir;   /* folder of the .gltf, for external buffers */
    size_t buffer_count;
    unsigned char **buffers;
    size_t *buffer_sizes;
    char *err;
    size_t err_size;
} loader;

static bool fail(loader *L, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(L->err, L->err_size, fmt, ap);
    va_end(ap);
    return false;
}

static bool load_buffers(loader *L)
{
    const jval *bufs = jget(&L->root, "buffers");
    L->buffer_count = jlen(bufs);
    L->buffers = calloc(L->buffer_count + 1, sizeof *L->buffers);
    L->buffer_sizes = calloc(L->buffer_count + 1, sizeof *L->buffer_sizes);
    for (size_t b = 0; b < L->buffer_count; ++b) {
        const jval *uri = jget(jat(bufs, b), "uri");
        if (!uri || uri->type != J_STR) return fail(L, "buffer %zu has no uri (GLB is not supported)", b);
        const char *comma = strchr(uri->str, ',');
        if (!strncmp(uri->str, "data:", 5)) {
            if (!comma || !strstr(uri->str, ";base64")) return fail(L, "buffer %zu: data URI is not base64", b);
            L->buffers[b] = b64_decode(comma + 1, &L->buffer_sizes[b]);
        } else {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", L->dir, uri->str);
            L->buffers[b] = read_file(path, &L->buffer_sizes[b]);
        }
        if (!L->buffers[b]) return fail(L, "buffer %zu cannot be decoded or read", b);
        if (L->buffer_sizes[b] < (size_t)jnum(jget(jat(bufs, b), "byteLength"), 0))
            return fail(L, "buffer %zu is shorter than its byteLength", b);
    }
    return true;
}

static double component(const unsigned char *p, long type, bool normalized)
{
    switch (type) {
    case 5120: { int8_t v; memcpy(&v, p, 1); return normalized ? fmax(v / 127.0, -1.0) : v; }
    case 5121: { uint8_t v; memcpy(&v, p, 1); return normalized ? v / 255.0 : v; }
    case 5122: { int16_t v; memcpy(&v, p, 2); return normalized ? fmax(v / 32767.0, -1.0) : v; }
    case 5123: { uint16_t v; memcpy(&v, p, 2); return normalized ? v / 65535.0 : v; }
    case 5125: { uint32_t v; memcpy(&v, p, 4); return v; }
    default: { float v; memcpy(&v, p, 4); return v; }
    }
}

/* Reads accessor `index` into a new array of count * comps doubles, checking
 * the component count it must have. */
static bool read_accessor(loader *L, long index, int want_comps, double **out, size_t *count)
{
    const jval *acc = jat(jget(&L->root, "accessors"), (size_t)index);
    if (index < 0 || !acc) return fail(L, "accessor %ld does not exist", index);
    const char *type = jget(acc, "type") ? jget(acc, "type")->str : "";
    int comps = !strcmp(type, "SCALAR") ? 1 : !strcmp(type, "VEC2") ? 2 : !strcmp(type, "VEC3") ? 3
              : !strcmp(type, "VEC4") ? 4 : !strcmp(type, "MAT4") ? 16 : 0;
    if (comps != want_comps) return fail(L, "accessor %ld is %s, expected %d components", index, type, want_comps);
    if (jget(acc, "sparse")) return fail(L, "accessor %ld is sparse (not supported)", index);
    long ctype = jint(jget(acc, "componentType"), 0);
    size_t csize = ctype == 5120 || ctype == 5121 ? 1 : ctype == 5122 || ctype == 5123 ? 2
                 : ctype == 5125 || ctype == 5126 ? 4 : 0;
    if (!csize) return fail(L, "accessor %ld has component type %ld", index, ctype);
    bool normalized = jget(acc, "normalized") && jget(acc, "normalized")->num != 0;
    size_t n = (size_t)jint(jget(acc, "count"), 0);
    double *data = calloc(n * (size_t)comps + 1, sizeof *data);
    const jval *view_index = jget(acc, "bufferView");
    if (view_index) {
        const jval *view = jat(jget(&L->root, "bufferViews"), (size_t)jint(view_index, -1));
        if (!view) {
            free(data);
            return fail(L, "accessor %ld names a missing buffer view", index);
        }
        size_t b = (size_t)jint(jget(view, "buffer"), -1);
        size_t offset = (size_t)jint(jget(view, "byteOffset"), 0) + (size_t)jint(jget(acc, "byteOffset"), 0);
        size_t stride = (size_t)jint(jget(view, "byteStride"), 0);
        if (!stride) stride = csize * (size_t)comps;
        size_t view_end = (size_t)jint(jget(view, "byteOffset"), 0) + (size_t)jint(jget(view, "byteLength"), 0);
        if (b >= L->buffer_count || view_end > L->buffer_sizes[b] ||
            (n > 0 && offset + (n - 1) * stride + csize * (size_t)comps > view_end)) {
            free(data);
            return fail(L, "accessor %ld reaches past its buffer view", index);
        }
        for (size_t i = 0; i < n; ++i)
            for (int c = 0; c < comps; ++c)
                data[i * (size_t)comps + (size_t)c] =
                    component(L->buffers[b] + offset + i * stride + (size_t)c * csize, ctype, normalized);
    }
    *out = data;
    *count = n;
    return true;
}

static bool load_nodes(loader *L, gltf_model *m)
{
    const jval *nodes = jget(&L->root, "nodes");
    m->node_count = jlen(nodes);
    m->nodes = calloc(m->node_count + 1, sizeof *m->nodes);
    for (size_t i = 0; i < m->node_count; ++i) {
        gltf_node *nd = &m->nodes[i];
        nd->parent = -1;
        nd->r[3] = 1;
        nd->s[0] = nd->s[1] = nd->s[2] = 1;
    }
    for (size_t i = 0; i < m->node_count; ++i) {
        const jval *n = jat(nodes, i);
        gltf_node *nd = &m->nodes[i];
        const jval *mat = jget(n, "matrix");
        if (mat) {
            if (jlen(mat) != 16) return fail(L, "node %zu matrix has %zu entries", i, jlen(mat));
            nd->has_matrix = true;
            for (int k = 0; k < 16; ++k) nd->matrix[k] = jnum(jat(mat, (size_t)k), 0);
        }
        for (int k = 0; k < 3; ++k) {
            nd->t[k] = jnum(jat(jget(n, "translation"), (size_t)k), 0);
            nd->s[k] = jnum(jat(jget(n, "scale"), (size_t)k), 1);
        }
        for (int k = 0; k < 4; ++k) nd->r[k] = jnum(jat(jget(n, "rotation"), (size_t)k), k == 3 ? 1 : 0);
        const jval *children = jget(n, "children");
        for (size_t c = 0; c < jlen(children); ++c) {
            long child = jint(jat(children, c), -1);
            if (child < 0 || (size_t)child >= m->node_count || m->nodes[child].parent != -1 || (size_t)child == i)
                return fail(L, "node %zu has an invalid child %ld", i, child);
            m->nodes[child].parent = (int)i;
        }
    }
    /* A cycle would make gltf_pose loop: walk each chain at most node_count steps. */
    for (size_t i = 0; i < m->node_count; ++i) {
        int p = m->nodes[i].parent;
        for (size_t steps = 0; p >= 0; ++steps, p = m->nodes[p].parent)
            if (steps > m->node_count) return fail(L, "node %zu is in a cycle", i);
    }
    return true;
}

static bool load_skinned_mesh(loader *L, gltf_model *m)
{
    const jval *nodes = jget(&L->root, "nodes");
    const jval *node = NULL;
    for (size_t i = 0; i < jlen(nodes) && !node; ++i)
        if (jget(jat(nodes, i), "mesh") && jget(jat(nodes, i), "skin")) node = jat(nodes, i);
    if (!node) return fail(L, "no node has both a mesh and a skin");
    const jval *skin = jat(jget(&L->root, "skins"), (size_t)jint(jget(node, "skin"), -1));
    const jval *mesh = jat(jget(&L->root, "meshes"), (size_t)jint(jget(node, "mesh"), -1));
    if (!skin || !mesh) return fail(L, "the skinned node names a missing skin or mesh");
    const jval *prim = jat(jget(mesh, "primitives"), 0);
    if (!prim) return fail(L, "the skinned mesh has no primitive");
    if (jint(jget(prim, "mode"), 4) != 4) return fail(L, "the primitive is not a triangle list");
    const jval *attr = jget(prim, "attributes");
    size_t n_pos = 0, n_nrm = 0, n_j = 0, n_w = 0, n_idx = 0, n_ibm = 0;
    double *jd = NULL, *id = NULL;
    bool ok = read_accessor(L, jint(jget(attr, "POSITION"), -1), 3, &m->positions, &n_pos) &&
              /* Without NORMAL (Fox.gltf) the normals read as zero. */
              (!jget(attr, "NORMAL") || read_accessor(L, jint(jget(attr, "NORMAL"), -1), 3, &m->normals, &n_nrm)) &&
              read_accessor(L, jint(jget(attr, "JOINTS_0"), -1), 4, &jd, &n_j) &&
              read_accessor(L, jint(jget(attr, "WEIGHTS_0"), -1), 4, &m->weights, &n_w) &&
              /* A primitive without indices draws its vertices in order. */
              (!jget(prim, "indices") || read_accessor(L, jint(jget(prim, "indices"), -1), 1, &id, &n_idx)) &&
              read_accessor(L, jint(jget(skin, "inverseBindMatrices"), -1), 16, &m->inverse_bind, &n_ibm);
    if (ok && !m->normals) {
        m->normals = calloc(3 * n_pos + 1, sizeof *m->normals);
        n_nrm = n_pos;
        if (!m->normals) ok = fail(L, "out of memory");
    }
    if (ok && (n_nrm != n_pos || n_j != n_pos || n_w != n_pos))
        ok = fail(L, "vertex attributes have different counts");
    const jval *joints = jget(skin, "joints");
    m->joint_count = jlen(joints);
    if (ok && n_ibm != m->joint_count) ok = fail(L, "%zu inverse bind matrices for %zu joints", n_ibm, m->joint_count);
    if (ok) {
        m->vertex_count = n_pos;
        m->joints = malloc(4 * n_pos * sizeof *m->joints + 1);
        for (size_t i = 0; i < 4 * n_pos; ++i) m->joints[i] = (uint32_t)jd[i];
        if (!id) n_idx = n_pos - n_pos % 3;
        m->index_count = n_idx;
        m->indices = malloc(n_idx * sizeof *m->indices + 1);
        for (size_t i = 0; i < n_idx; ++i) {
            m->indices[i] = id ? (uint32_t)id[i] : (uint32_t)i;
            if (m->indices[i] >= n_pos) ok = fail(L, "index %zu is out of range", i);
        }
        m->joint_nodes = malloc(m->joint_count * sizeof *m->joint_nodes + 1);
        for (size_t j = 0; j < m->joint_count; ++j) {
            long nd = jint(jat(joints, j), -1);
            if (nd < 0 || (size_t)nd >= m->node_count) ok = fail(L, "joint %zu names a missing node", j);
            m->joint_nodes[j] = (int)nd;
        }
        for (size_t i = 0; i < 4 * n_pos && ok; ++i)
            if (m->joints[i] >= m->joint_count && m->weights[i] > 0)
                ok = fail(L, "vertex %zu names joint %u of %zu", i / 4, m->joints[i], m->joint_count);
    }
    free(jd);
    free(id);
    return ok;
}

static bool load_animation(loader *L, gltf_model *m)
{
    const jval *anim = jat(jget(&L->root, "animations"), 0);
    if (!anim) return true;
    const jval *channels = jget(anim, "channels"), *samplers = jget(anim, "samplers");
    m->channels = calloc(jlen(channels) + 1, sizeof *m->channels);
    for (size_t c = 0; c < jlen(channels); ++c) {
        const jval *ch = jat(channels, c), *target = jget(ch, "target");
        const char *path = jget(target, "path") ? jget(target, "path")->str : "";
        if (!strcmp(path, "weights")) continue;   /* morph targets: not skinning */
        gltf_channel *out = &m->channels[m->channel_count++];
        out->node = (int)jint(jget(target, "node"), -1);
        if (out->node < 0 || (size_t)out->node >= m->node_count) return fail(L, "channel %zu targets no node", c);
        if (!strcmp(path, "translation")) out->path = GLTF_TRANSLATION, out->comps = 3;
        else if (!strcmp(path, "rotation")) out->path = GLTF_ROTATION, out->comps = 4;
        else if (!strcmp(path, "scale")) out->path = GLTF_SCALE, out->comps = 3;
        else return fail(L, "channel %zu has path '%s'", c, path);
        const jval *s = jat(samplers, (size_t)jint(jget(ch, "sampler"), -1));
        if (!s) return fail(L, "channel %zu names a missing sampler", c);
        const jval *interp = jget(s, "interpolation");
        const char *name = interp && interp->type == J_STR ? interp->str : "LINEAR";
        if (!strcmp(name, "LINEAR")) out->interp = GLTF_LINEAR;
        else if (!strcmp(name, "STEP")) out->interp = GLTF_STEP;
        else if (!strcmp(name, "CUBICSPLINE")) out->interp = GLTF_CUBICSPLINE;
        else return fail(L, "sampler of channel %zu has interpolation '%s'", c, name);
        size_t nt = 0, nv = 0;
        if (!read_accessor(L, jint(jget(s, "input"), -1), 1, &out->times, &nt) ||
            !read_accessor(L, jint(jget(s, "output"), -1), out->comps, &out->values, &nv))
            return false;
        out->key_count = nt;
        if (nt == 0 || nv != nt * (out->interp == GLTF_CUBICSPLINE ? 3 : 1))
            return fail(L, "channel %zu has %zu times and %zu values", c, nt, nv);
        for (size_t k = 1; k < nt; ++k)
            if (!(out->times[k] > out->times[k - 1])) return fail(L, "channel %zu key times do not increase", c);
        if (out->times[nt - 1] > m->duration) m->duration = out->times[nt - 1];
    }
    return true;
}

bool gltf_load(const char *path, gltf_model *m, char *err, size_t err_size)
{
    memset(m, 0, sizeof *m);
    size_t size = 0;
    char *text = (char *)read_file(path, &size);
    if (!text) {
        snprintf(err, err_size, "cannot read %s", path);
        return false;
    }
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    else snprintf(dir, sizeof dir, ".");
    loader L = {0};
    L.dir = dir;
    L.err = err;
    L.err_size = err_size;
    jparser jp = {text, text + size, NULL};
    bool ok = parse_value(&jp, &L.root, 0);
    if (!ok) fail(&L, "JSON error at byte %ld: %s", (long)(jp.p - text), jp.error);
    free(text);
    ok = ok && L.root.type == J_OBJ && load_buffers(&L) && load_nodes(&L, m) && load_skinned_mesh(&L, m) &&
         load_animation(&L, m);
    for (size_t b = 0; b < L.buffer_count; ++b) free(L.buffers[b]);
    free(L.buffers);
    free(L.buffer_sizes);
    jfree(&L.root);
    if (!ok) gltf_free(m);
    return ok;
}

void gltf_free(gltf_model *m)
{
    for (size_t c = 0; c < m->channel_count; ++c) {
        free(m->channels[c].times);
        free(m->channels[c].values);
    }
    free(m->channels);
    free(m->nodes);
    free(m->positions);
    free(m->normals);
    free(m->joints);
    free(m->weights);
    free(m->indices);
    free(m->joint_nodes);
    free(m->inverse_bind);
    memset(m, 0, sizeof *m);
}

/* ---- Animation ------------------------------------------------------------------- */

static void slerp(const double *a, const double *b0, double u, double *out)
{
    double b[4] = {b0[0], b0[1], b0[2], b0[3]};
    double d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    if (d < 0) {   /* the shorter arc */
        d = -d;
        for (int i = 0; i < 4; ++i) b[i] = -b[i];
    }
    double wa, wb;
    if (d > 0.9995) {
        wa = 1 - u;
        wb = u;
    } else {
        double th = acos(d), s = sin(th);
        wa = sin((1 - u) * th) / s;
        wb = sin(u * th) / s;
    }
    for (int i = 0; i < 4; ++i) out[i] = wa * a[i] + wb * b[i];
}

void gltf_sample(const gltf_channel *c, double t, double *out)
{
    size_t n = c->key_count, k = (size_t)c->comps;
    size_t stride = c->interp == GLTF_CUBICSPLINE ? 3 * k : k;
    size_t value_at = c->interp == GLTF_CUBICSPLINE ? k : 0;   /* skip the in-tangent */
    if (t <= c->times[0] || n == 1) {
        memcpy(out, c->values + value_at, k * sizeof *out);
    } else if (t >= c->times[n - 1]) {
        memcpy(out, c->values + (n - 1) * stride + value_at, k * sizeof *out);
    } else {
        size_t i = 0;
        while (t >= c->times[i + 1]) ++i;
        double dt = c->times[i + 1] - c->times[i], u = (t - c->times[i]) / dt;
        const double *v0 = c->values + i * stride, *v1 = c->values + (i + 1) * stride;
        if (c->interp == GLTF_STEP) {
            memcpy(out, v0, k * sizeof *out);
        } else if (c->interp == GLTF_LINEAR) {
            if (c->path == GLTF_ROTATION)
                slerp(v0, v1, u, out);
            else
                for (size_t a = 0; a < k; ++a) out[a] = (1 - u) * v0[a] + u * v1[a];
        } else {
            double u2 = u * u, u3 = u2 * u;
            for (size_t a = 0; a < k; ++a)
                out[a] = (2 * u3 - 3 * u2 + 1) * v0[k + a] + (u3 - 2 * u2 + u) * dt * v0[2 * k + a] +
                         (-2 * u3 + 3 * u2) * v1[k + a] + (u3 - u2) * dt * v1[a];
        }
    }
    if (c->path == GLTF_ROTATION) {
        double len = sqrt(out[0] * out[0] + out[1] * out[1] + out[2] * out[2] + out[3] * out[3]);
        for (int a = 0; a < 4; ++a) out[a] /= len;
    }
}

static void trs_matrix(const double *t, const double *q, const double *s, double *m)
{
    double x = q[0], y = q[1], z = q[2], w = q[3];
    double r[9] = {1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w),
                   2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w),
                   2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y)};
    for (int c = 0; c < 3; ++c) {
        for (int rr = 0; rr < 3; ++rr) m[4 * c + rr] = r[3 * c + rr] * s[c];
        m[4 * c + 3] = 0;
    }
    m[12] = t[0], m[13] = t[1], m[14] = t[2], m[15] = 1;
}

static void mat_mul(const double *a, const double *b, double *out)
{
    double r[16];
    for (int c = 0; c < 4; ++c)
        for (int rr = 0; rr < 4; ++rr) {
            double s = 0;
            for (int k = 0; k < 4; ++k) s += a[4 * k + rr] * b[4 * c + k];
            r[4 * c + rr] = s;
        }
    memcpy(out, r, sizeof r);
}

void gltf_pose(const gltf_model *m, double t, double *world)
{
    size_t n = m->node_count;
    double *local = malloc(16 * n * sizeof *local + 1);
    double *trs = malloc(10 * n * sizeof *trs + 1);   /* t[3] r[4] s[3] */
    for (size_t i = 0; i < n; ++i) {
        memcpy(trs + 10 * i, m->nodes[i].t, 3 * sizeof(double));
        memcpy(trs + 10 * i + 3, m->nodes[i].r, 4 * sizeof(double));
        memcpy(trs + 10 * i + 7, m->nodes[i].s, 3 * sizeof(double));
    }
    for (size_t c = 0; c < m->channel_count; ++c) {
        const gltf_channel *ch = &m->channels[c];
        int at = ch->path == GLTF_TRANSLATION ? 0 : ch->path == GLTF_ROTATION ? 3 : 7;
        gltf_sample(ch, t, trs + 10 * (size_t)ch->node + at);
    }
    for (size_t i = 0; i < n; ++i) {
        if (m->nodes[i].has_matrix)
            memcpy(local + 16 * i, m->nodes[i].matrix, 16 * sizeof(double));
        else
            trs_matrix(trs + 10 * i, trs + 10 * i + 3, trs + 10 * i + 7, local + 16 * i);
    }
    /* Parents may come after children in the node list: resolve by walking up. */
    for (size_t i = 0; i < n; ++i) {
        memcpy(world + 16 * i, local + 16 * i, 16 * sizeof(double));
        for (int p = m->nodes[i].parent; p >= 0; p = m->nodes[p].parent)
            mat_mul(local + 16 * (size_t)p, world + 16 * i, world + 16 * i);
    }
    free(local);
    free(trs);
}
