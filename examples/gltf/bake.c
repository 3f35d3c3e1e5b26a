/* Skin bake and load through sinew_skin_save / sinew_skin_load. */
#include "bake.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

/* Timed calls are repeated and the fastest kept: one call on a few kilobytes
 * is mostly noise on a shared machine. */
enum { TIMED_REPEATS = 5 };

static void skin_path(char *path, size_t size, const char *folder, size_t i)
{
    snprintf(path, size, "%s/skin_%zu.sinew", folder, i);
}

bool bake_save(sinew_skin *const *skins, size_t count, const char *folder, bake_figures *figures)
{
    figures->bytes = 0, figures->seconds = 0;
    for (size_t i = 0; i < count; ++i) {
        size_t size = 0;
        sinew_result r = sinew_skin_save(skins[i], NULL, 0, &size); /* size query */
        void *buffer = r == SINEW_OK ? malloc(size) : NULL;
        if (r == SINEW_OK && !buffer) r = SINEW_ERROR_OUT_OF_MEMORY;
        double best = 0;
        for (int rep = 0; r == SINEW_OK && rep < TIMED_REPEATS; ++rep) {
            double t0 = support_now();
            r = sinew_skin_save(skins[i], buffer, size, &size);
            double t = support_now() - t0;
            if (rep == 0 || t < best) best = t;
        }
        figures->seconds += best;
        if (r != SINEW_OK) {
            fprintf(stderr, "sinew_skin_save of part %zu failed: %s: %s\n", i, sinew_result_string(r), sinew_last_error());
            free(buffer);
            return false;
        }
        char path[1200];
        skin_path(path, sizeof path, folder, i);
        FILE *f = fopen(path, "wb");
        bool written = f && fwrite(buffer, 1, size, f) == size;
        if (f && fclose(f) != 0) written = false;
        free(buffer);
        if (!written) {
            fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
            return false;
        }
        figures->bytes += size;
    }
    return true;
}

/* Whole file into memory. */
static void *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    void *data = NULL;
    long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (data = malloc(n ? (size_t)n : 1)) != NULL &&
        fread(data, 1, (size_t)n, f) != (size_t)n) {
        free(data);
        data = NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return data;
}

bool bake_load(size_t count, const char *folder, sinew_skin **out, bake_figures *figures)
{
    figures->bytes = 0, figures->seconds = 0;
    for (size_t i = 0; i < count; ++i) out[i] = NULL;
    for (size_t i = 0; i < count; ++i) {
        char path[1200];
        skin_path(path, sizeof path, folder, i);
        size_t size = 0;
        void *data = read_file(path, &size);
        sinew_result r = SINEW_OK;
        double best = 0;
        for (int rep = 0; data && r == SINEW_OK && rep < TIMED_REPEATS; ++rep) {
            sinew_skin *skin = NULL;
            double t0 = support_now();
            r = sinew_skin_load(NULL, data, size, &skin);
            double t = support_now() - t0;
            if (rep == 0 || t < best) best = t;
            if (rep == 0) out[i] = skin;
            else sinew_skin_destroy(skin);
        }
        bool read = data != NULL;
        free(data);
        figures->seconds += best;
        figures->bytes += size;
        if (!read || r != SINEW_OK) {
            if (!read) fprintf(stderr, "cannot read %s: %s\n", path, strerror(errno));
            else fprintf(stderr, "sinew_skin_load of %s failed: %s: %s\n", path, sinew_result_string(r), sinew_last_error());
            for (size_t k = 0; k <= i; ++k) sinew_skin_destroy(out[k]), out[k] = NULL;
            return false;
        }
    }
    return true;
}

bool bake_check_tampered(const char *folder)
{
    char path[1200];
    skin_path(path, sizeof path, folder, 0);
    size_t size = 0;
    unsigned char *data = read_file(path, &size);
    if (!data || size == 0) {
        fprintf(stderr, "cannot read %s\n", path);
        free(data);
        return false;
    }
    data[size / 2] ^= 0x10;
    sinew_skin *skin = NULL;
    sinew_result r = sinew_skin_load(NULL, data, size, &skin);
    free(data);
    if (r == SINEW_ERROR_INVALID_DATA && skin == NULL) {
        printf("bake: with one bit flipped at byte %zu the load refuses it: %s\n", size / 2, sinew_last_error());
        return true;
    }
    fprintf(stderr, "bake: a file with one bit flipped at byte %zu gave %s instead of invalid data\n", size / 2,
            sinew_result_string(r));
    sinew_skin_destroy(skin);
    return false;
}
