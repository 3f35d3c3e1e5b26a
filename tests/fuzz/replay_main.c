/*
 * Replays fuzz inputs through a target's LLVMFuzzerTestOneInput without
 * libFuzzer, so any compiler runs the fuzz targets as ordinary tests.
 * Arguments: files or folders (every regular file in a folder, in name order),
 * and optionally --random=N to add N pseudo-random inputs from a fixed seed.
 * A folder that does not exist is skipped (a target may have no regressions
 * yet); the seed corpus must give at least one input. Contract violations
 * abort, so the test fails with the message and the file being replayed.
 * With SINEW_FUZZ_DUMP=<file> set, each random input is written to that file
 * before it runs, so the one that aborted can be replayed and minimised.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t replayed;

static void replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        exit(1);
    }
    size_t capacity = 4096, size = 0;
    uint8_t *data = malloc(capacity);
    size_t got;
    while (data && (got = fread(data + size, 1, capacity - size, f)) > 0) {
        size += got;
        if (size == capacity) data = realloc(data, capacity *= 2);
    }
    fclose(f);
    if (!data) {
        fprintf(stderr, "replay: out of memory reading %s\n", path);
        exit(1);
    }
    /* Named before the run, so an abort's output says which file it was. */
    fprintf(stderr, "replay: %s (%zu bytes)\n", path, size);
    LLVMFuzzerTestOneInput(data, size);
    free(data);
    replayed++;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void replay_folder(const char *folder)
{
    DIR *dir = opendir(folder);
    if (!dir) return;
    char **names = NULL;
    size_t count = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, "README.md") == 0) continue;
        names = realloc(names, (count + 1) * sizeof *names);
        names[count++] = strdup(e->d_name);
    }
    closedir(dir);
    qsort(names, count, sizeof *names, by_name);
    for (size_t i = 0; i < count; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", folder, names[i]);
        struct stat st;
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) replay_file(path);
        free(names[i]);
    }
    free(names);
}

/* Inputs from a fixed xorshift sequence: sizes up to 2 KiB, biased bytes so
 * that small values (valid counts, in-range indices) are common. */
static void replay_random(size_t n)
{
    uint64_t s = 0x9e3779b97f4a7c15u;
    uint8_t *data = malloc(2048);
    if (!data) exit(1);
    const char *dump = getenv("SINEW_FUZZ_DUMP");
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        size_t size = (size_t)(s % 2048);
        for (size_t b = 0; b < size; b++) {
            s ^= s << 13, s ^= s >> 7, s ^= s << 17;
            data[b] = (uint8_t)((s >> 32) & ((s & 3u) ? 0x3fu : 0xffu));
        }
        fprintf(stderr, "replay: random input %zu (%zu bytes)\n", i, size);
        if (dump) {   /* the input about to run, kept as a file should it abort */
            FILE *f = fopen(dump, "wb");
            if (f) fwrite(data, 1, size, f), fclose(f);
        }
        LLVMFuzzerTestOneInput(data, size);
        replayed++;
    }
    free(data);
}

int main(int argc, char **argv)
{
    size_t random_inputs = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (strncmp(argv[i], "--random=", 9) == 0) random_inputs = strtoul(argv[i] + 9, NULL, 10);
        else if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) replay_folder(argv[i]);
        else if (stat(argv[i], &st) == 0) replay_file(argv[i]);
        else fprintf(stderr, "replay: %s does not exist, skipped\n", argv[i]);
    }
    size_t files = replayed;
    replay_random(random_inputs);
    printf("replayed %zu files and %zu random inputs\n", files, random_inputs);
    if (files == 0) {
        fprintf(stderr, "replay: no input files found (is the corpus folder right?)\n");
        return 1;
    }
    return 0;
}
