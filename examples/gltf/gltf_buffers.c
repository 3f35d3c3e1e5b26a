/* glTF buffers: the bytes behind every accessor, from a base64 data: URI, an
 * external file beside the .gltf, or the BIN chunk of a .glb. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gltf_internal.h"

bool gltf_read_file(const char *path, uint8_t **data, size_t *size, char *err, size_t err_size)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, err_size, "cannot open %s: %s", path, strerror(errno));
        return false;
    }
    uint8_t *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n == cap) {
            size_t grown = cap ? cap * 2 : 65536;
            uint8_t *b = realloc(buf, grown);
            if (!b) {
                snprintf(err, err_size, "out of memory reading %s", path);
                free(buf), fclose(f);
                return false;
            }
            buf = b, cap = grown;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    bool failed = ferror(f) != 0;
    fclose(f);
    if (failed) {
        snprintf(err, err_size, "cannot read %s", path);
        free(buf);
        return false;
    }
    *data = buf, *size = n;
    return true;
}

static int base64_value(char c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

/* Decodes standard base64 (padding optional, no whitespace) into a new buffer. */
static bool decode_base64(gltf_loader *ld, const char *where, const char *text, size_t length, uint8_t **out,
                          size_t *out_size)
{
    while (length > 0 && text[length - 1] == '=') --length;
    if (length % 4 == 1) return gltf_fail(ld, "%s: base64 data has a stray last character", where);
    uint8_t *bytes = malloc(length / 4 * 3 + 3);
    if (!bytes) return gltf_fail(ld, "out of memory");
    size_t n = 0;
    uint32_t acc = 0;
    for (size_t i = 0; i < length; ++i) {
        int v = base64_value(text[i]);
        if (v < 0) {
            free(bytes);
            return gltf_fail(ld, "%s: character %zu of the base64 data is not base64", where, i);
        }
        acc = acc << 6 | (uint32_t)v;
        if (i % 4 == 3) {
            bytes[n++] = (uint8_t)(acc >> 16), bytes[n++] = (uint8_t)(acc >> 8), bytes[n++] = (uint8_t)acc;
            acc = 0;
        }
    }
    if (length % 4 == 2) bytes[n++] = (uint8_t)(acc >> 4);
    if (length % 4 == 3) bytes[n++] = (uint8_t)(acc >> 10), bytes[n++] = (uint8_t)(acc >> 2);
    *out = bytes, *out_size = n;
    return true;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* A relative URI reference with %XX escapes decoded; schemes, absolute paths
 * and ".." segments are refused (a model's buffers live beside it). */
static bool external_path(gltf_loader *ld, const char *where, const char *uri, char *path, size_t path_size)
{
    if (!ld->folder) return gltf_fail(ld, "%s: external buffer \"%s\" but the model was not loaded from a file", where, uri);
    if (uri[0] == '/' || strstr(uri, "..") || strchr(uri, ':'))
        return gltf_fail(ld, "%s: uri \"%s\" is not a plain relative path", where, uri);
    int n = snprintf(path, path_size, "%s/", ld->folder);
    if (n < 0 || (size_t)n >= path_size) return gltf_fail(ld, "%s: path too long", where);
    size_t k = (size_t)n;
    for (const char *s = uri; *s; ++s) {
        char c = *s;
        if (c == '%') {
            int hi = hex_digit(s[1]), lo = hi < 0 ? -1 : hex_digit(s[2]);
            if (lo < 0 || (hi == 0 && lo == 0)) return gltf_fail(ld, "%s: uri \"%s\" has a bad %%-escape", where, uri);
            c = (char)(hi * 16 + lo), s += 2;
        }
        if (k + 1 >= path_size) return gltf_fail(ld, "%s: path too long", where);
        path[k++] = c;
    }
    path[k] = '\0';
    if (strstr(path + n, "..")) return gltf_fail(ld, "%s: uri \"%s\" is not a plain relative path", where, uri);
    return true;
}

/* Loads buffer i (object b) into model->buffers[i]. */
static bool load_buffer(gltf_loader *ld, const json_value *b, size_t i)
{
    char where[48];
    snprintf(where, sizeof where, "buffers[%zu]", i);
    if (!gltf_expect_object(ld, b, where)) return false;
    size_t length;
    if (!gltf_integer(ld, b, where, "byteLength", 1, SIZE_MAX / 2, true, &length)) return false;
    char *uri = NULL;
    if (!gltf_string(ld, b, where, "uri", &uri)) return false;
    gltf_buffer *out = &ld->model->buffers[i];
    uint8_t *bytes = NULL;
    size_t size = 0;
    bool ok;
    if (!uri) {
        if (i != 0 || !ld->glb_bin)
            return gltf_fail(ld, "%s has no uri (only buffer 0 of a .glb with a BIN chunk may)", where);
        if (length > ld->glb_bin_size || ld->glb_bin_size - length > 3)
            return gltf_fail(ld, "%s.byteLength %zu does not match the BIN chunk (%zu bytes, up to 3 of padding)",
                             where, length, ld->glb_bin_size);
        bytes = malloc(length);
        if (!bytes) return gltf_fail(ld, "out of memory");
        memcpy(bytes, ld->glb_bin, length);
        size = length;
        ok = true;
    } else if (strncmp(uri, "data:", 5) == 0) {
        const char *comma = strchr(uri, ',');
        const char *marker = strstr(uri, ";base64,");
        ok = comma && marker && marker + 7 == comma;
        if (!ok) gltf_fail(ld, "%s: data uri is not base64 (expected \"data:<type>;base64,\")", where);
        else ok = decode_base64(ld, where, comma + 1, strlen(comma + 1), &bytes, &size);
    } else {
        char path[4096];
        char msg[512];
        ok = external_path(ld, where, uri, path, sizeof path);
        if (ok && !gltf_read_file(path, &bytes, &size, msg, sizeof msg)) ok = gltf_fail(ld, "%s: %s", where, msg);
    }
    free(uri);
    if (!ok) return false;
    if (size < length) {
        free(bytes);
        return gltf_fail(ld, "%s holds %zu bytes, less than its byteLength %zu", where, size, length);
    }
    out->data = bytes, out->size = length;
    return true;
}

bool gltf_load_buffers(gltf_loader *ld, const json_value *root)
{
    const json_value *items;
    size_t count;
    if (!gltf_array(ld, root, "buffers", &items, &count)) return false;
    ld->model->buffers = calloc(count ? count : 1, sizeof *ld->model->buffers);
    if (!ld->model->buffers) return gltf_fail(ld, "out of memory");
    ld->model->buffer_count = count;
    for (size_t i = 0; i < count; ++i)
        if (!load_buffer(ld, &items[i], i)) return false;
    return true;
}
