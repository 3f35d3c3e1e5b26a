/* sinew glTF player: loads a skinned glTF character, skins it with sinew,
 * bakes the skins to files and loads them back (as an engine's asset build and
 * run time would), checks that the loaded skins deform exactly like the
 * created ones, and plays one of the animations, writing every frame as an
 * OBJ (and the middle one beside the rest pose as frame.png) and printing
 * per-frame timing and throughput. Exit 1 on any failure,
 * including a loaded skin whose output differs by one bit.
 *
 * usage: gltf_play [--data] <file.gltf|file.glb> <output folder> [animation index] [frames]
 *   --data      the file is named inside sinew's shared test data folder
 *               ($SINEW_DATA_DIR, else the one meson configured); when it is
 *               absent the program says so and exits 77 (meson's "skipped").
 *   animation   index into the file's animations (default 0)
 *   frames      frames sampled evenly over the animation, ends included (default 30)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "animation.h"
#include "bake.h"
#include "character.h"
#include "gltf.h"
#include "gltf_pictures.h"
#include "obj_frames.h"
#include "support.h"

enum { EXIT_SKIP = 77 };

static bool check(sinew_result r, const char *what)
{
    if (r == SINEW_OK) return true;
    fprintf(stderr, "%s failed: %s: %s\n", what, sinew_result_string(r), sinew_last_error());
    return false;
}

/* Parses a non-negative integer argument; false when it is not one. */
static bool parse_count(const char *s, size_t max, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-' || v > max) return false;
    *out = (size_t)v;
    return true;
}

typedef struct player {
    gltf_model model;
    character ch;
    sinew_skin **skins;       /* one per part, made by sinew_skin_create */
    sinew_skin **loaded;      /* the same, baked to files and loaded back */
    float *joint_world, *palette;
    size_t palette_floats;
    float **positions, **normals; /* deformed, packed, one array per part */
    float **expected_positions, **expected_normals; /* the created skins' output, for the round-trip check */
    pose pose;
} player;

static void player_free(player *p)
{
    for (size_t i = 0; p->skins && i < p->ch.part_count; ++i) sinew_skin_destroy(p->skins[i]);
    for (size_t i = 0; p->loaded && i < p->ch.part_count; ++i) sinew_skin_destroy(p->loaded[i]);
    for (size_t i = 0; p->positions && i < p->ch.part_count; ++i)
        free(p->positions[i]), free(p->normals[i]), free(p->expected_positions[i]), free(p->expected_normals[i]);
    free(p->skins), free(p->loaded), free(p->positions), free(p->normals), free(p->expected_positions);
    free(p->expected_normals), free(p->joint_world), free(p->palette);
    pose_free(&p->pose);
    character_free(&p->ch);
    gltf_free(&p->model);
}

/* Creates one sinew skin per part and the buffers the frames need. */
static bool player_bind(player *p)
{
    size_t parts = p->ch.part_count;
    p->skins = calloc(parts, sizeof *p->skins);
    p->loaded = calloc(parts, sizeof *p->loaded);
    p->positions = calloc(parts, sizeof *p->positions);
    p->normals = calloc(parts, sizeof *p->normals);
    p->expected_positions = calloc(parts, sizeof *p->expected_positions);
    p->expected_normals = calloc(parts, sizeof *p->expected_normals);
    p->joint_world = malloc(16 * p->ch.skin->joint_count * sizeof(float));
    if (!p->skins || !p->loaded || !p->positions || !p->normals || !p->expected_positions || !p->expected_normals ||
        !p->joint_world || !pose_init(&p->pose, &p->model)) {
        fprintf(stderr, "out of memory\n");
        return false;
    }
    double t0 = support_now();
    for (size_t i = 0; i < parts; ++i) {
        sinew_skin_desc desc = character_skin_desc(&p->ch, &p->ch.parts[i]);
        if (!check(sinew_skin_create(NULL, &desc, &p->skins[i]), "sinew_skin_create")) return false;
        size_t n = p->ch.parts[i].vertex_count;
        bool normals = p->ch.parts[i].rest.normals != NULL;
        p->positions[i] = malloc(3 * n * sizeof(float));
        p->expected_positions[i] = malloc(3 * n * sizeof(float));
        p->normals[i] = normals ? malloc(3 * n * sizeof(float)) : NULL;
        p->expected_normals[i] = normals ? malloc(3 * n * sizeof(float)) : NULL;
        if (!p->positions[i] || !p->expected_positions[i] || (normals && (!p->normals[i] || !p->expected_normals[i]))) {
            fprintf(stderr, "out of memory\n");
            return false;
        }
    }
    double bind_ms = (support_now() - t0) * 1e3;
    sinew_skin_info info;
    SINEW_INIT(&info);
    if (!check(sinew_skin_get_info(p->skins[0], &info), "sinew_skin_get_info")) return false;
    printf("bind: %zu part(s) in %.3f ms; part 0: %zu vertices, at most %zu influences, %zu renormalised, %zu bytes\n",
           parts, bind_ms, info.vertex_count, info.max_nonzero_influences, info.renormalised_vertices, info.memory_bytes);
    /* Every part shares the glTF skin (same joints, same inverse binds, same
     * blend), so one palette serves them all. */
    p->palette_floats = sinew_skin_palette_size(p->skins[0]);
    p->palette = malloc(p->palette_floats * sizeof(float));
    if (!p->palette) {
        fprintf(stderr, "out of memory\n");
        return false;
    }
    return true;
}

/* Bakes the created skins into folder and loads them back into p->loaded. */
static bool player_bake(player *p, const char *folder)
{
    bake_figures saved, loaded;
    if (!bake_save(p->skins, p->ch.part_count, folder, &saved) || !bake_load(p->ch.part_count, folder, p->loaded, &loaded))
        return false;
    printf("bake: %zu bytes in %zu file(s) %s/skin_*.sinew; save %.1f us (%.2f GB/s), load %.1f us (%.2f GB/s)\n", saved.bytes,
           p->ch.part_count, folder, saved.seconds * 1e6, saved.seconds > 0 ? (double)saved.bytes / saved.seconds * 1e-9 : 0.0,
           loaded.seconds * 1e6, loaded.seconds > 0 ? (double)loaded.bytes / loaded.seconds * 1e-9 : 0.0);
    return bake_check_tampered(folder);
}

/* True when the last frame deformed by the loaded skins equals the expected
 * (created skins') output bit for bit; names the first difference otherwise. */
static bool same_output(const player *p, size_t frame)
{
    for (size_t i = 0; i < p->ch.part_count; ++i) {
        size_t bytes = 3 * p->ch.parts[i].vertex_count * sizeof(float);
        if (memcmp(p->positions[i], p->expected_positions[i], bytes) != 0 ||
            (p->normals[i] && memcmp(p->normals[i], p->expected_normals[i], bytes) != 0)) {
            fprintf(stderr, "round trip: frame %zu part %zu: the loaded skin deforms differently from the created one\n",
                    frame, i);
            return false;
        }
    }
    return true;
}

/* Poses the character at `time` and deforms every part with `skins`;
 * *palette_s and *deform_s receive the seconds spent in each. */
static bool player_frame(player *p, sinew_skin *const *skins, const gltf_animation *anim, float time, double *palette_s,
                         double *deform_s)
{
    pose_sample(&p->pose, &p->model, anim, time);
    pose_joint_world(&p->pose, p->ch.skin, p->joint_world);
    double t0 = support_now();
    if (!check(sinew_skin_palette(skins[0], p->joint_world, p->ch.skin->joint_count, p->palette, p->palette_floats),
               "sinew_skin_palette"))
        return false;
    double t1 = support_now();
    for (size_t i = 0; i < p->ch.part_count; ++i) {
        sinew_skin_output out;
        memset(&out, 0, sizeof out);
        out.positions = p->positions[i];
        out.normals = p->normals[i];
        if (!check(sinew_skin_deform(skins[i], p->palette, p->palette_floats, &p->ch.parts[i].rest, &out, 0,
                                     p->ch.parts[i].vertex_count),
                   "sinew_skin_deform"))
            return false;
    }
    *palette_s = t1 - t0;
    *deform_s = support_now() - t1;
    return true;
}

/* Plays `frames` frames of anim (NULL = the rest pose) into folder with the
 * loaded skins, each frame also deformed by the created skins and compared. */
static bool player_play(player *p, const gltf_animation *anim, size_t frames, const char *folder)
{
    double total_deform = 0, total_palette = 0;
    for (size_t f = 0; f < frames; ++f) {
        float span = anim ? anim->end - anim->start : 0;
        float time = (anim ? anim->start : 0) + (frames > 1 ? span * (float)f / (float)(frames - 1) : 0);
        double palette_s, deform_s;
        if (!player_frame(p, p->skins, anim, time, &palette_s, &deform_s)) return false;
        for (size_t i = 0; i < p->ch.part_count; ++i) {
            size_t bytes = 3 * p->ch.parts[i].vertex_count * sizeof(float);
            memcpy(p->expected_positions[i], p->positions[i], bytes);
            if (p->normals[i]) memcpy(p->expected_normals[i], p->normals[i], bytes);
        }
        if (!player_frame(p, p->loaded, anim, time, &palette_s, &deform_s) || !same_output(p, f)) return false;
        total_palette += palette_s, total_deform += deform_s;
        char path[1200];
        snprintf(path, sizeof path, "%s/frame_%03zu.obj", folder, f);
        if (!obj_write_frame(path, &p->ch, p->positions, p->normals, time)) {
            fprintf(stderr, "cannot write %s\n", path);
            return false;
        }
        if (f == frames / 2 && !gltf_picture(folder, &p->ch, p->positions, time)) return false; /* frame.png */
        printf("frame %3zu  t = %7.4f s  palette %8.2f us  deform %8.2f us  (%.1f M vertices/s)\n", f, time,
               palette_s * 1e6, deform_s * 1e6, deform_s > 0 ? (double)p->ch.vertex_count / deform_s * 1e-6 : 0.0);
    }
    printf("played %zu frames: palette %.2f us/frame, deform %.2f us/frame, %.1f M vertices/s; OBJ frames in %s/\n",
           frames, total_palette / (double)frames * 1e6, total_deform / (double)frames * 1e6,
           total_deform > 0 ? (double)p->ch.vertex_count * (double)frames / total_deform * 1e-6 : 0.0, folder);
    printf("round trip: loaded-then-deformed equals created-then-deformed bit for bit in all %zu frames\n", frames);
    return true;
}

int main(int argc, char **argv)
{
    bool data = argc > 1 && strcmp(argv[1], "--data") == 0;
    char **args = argv + (data ? 2 : 1);
    int nargs = argc - (data ? 2 : 1);
    size_t anim_index = 0, frames = 30;
    if (nargs < 2 || nargs > 4 || (nargs > 2 && !parse_count(args[2], 1u << 30, &anim_index)) ||
        (nargs > 3 && (!parse_count(args[3], 100000, &frames) || frames == 0))) {
        fprintf(stderr, "usage: %s [--data] <file.gltf|file.glb> <output folder> [animation index] [frames >= 1]\n", argv[0]);
        return 2;
    }
    char path[4096];
    if (data && !support_data_path(args[0], path, sizeof path)) {
        printf("skipped: %s is not in the shared data folder (set SINEW_DATA_DIR)\n", args[0]);
        return EXIT_SKIP;
    }
    if (!data) snprintf(path, sizeof path, "%s", args[0]);
    const char *folder = args[1];
    if (!support_make_folder(folder)) {
        fprintf(stderr, "cannot create folder %s: %s\n", folder, strerror(errno));
        return 1;
    }

    player p;
    memset(&p, 0, sizeof p);
    char err[1024];
    double t0 = support_now();
    if (!gltf_load_file(path, &p.model, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", path, err);
        return 1;
    }
    double load_ms = (support_now() - t0) * 1e3;
    if (!character_init(&p.ch, &p.model, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", path, err);
        player_free(&p);
        return 1;
    }
    printf("%s: loaded in %.2f ms; nodes[%zu] skinned: %zu vertices, %zu triangles, %zu joints, %zu animation(s)\n",
           path, load_ms, p.ch.node, p.ch.vertex_count, p.ch.triangle_count, p.ch.skin->joint_count,
           p.model.animation_count);
    const gltf_animation *anim = NULL;
    if (p.model.animation_count == 0) {
        printf("no animations: writing the rest pose\n");
    } else if (anim_index >= p.model.animation_count) {
        fprintf(stderr, "animation %zu does not exist (the file has %zu)\n", anim_index, p.model.animation_count);
        player_free(&p);
        return 2;
    } else {
        anim = &p.model.animations[anim_index];
        printf("animation %zu \"%s\": %zu channels, %.3f s to %.3f s\n", anim_index, anim->name ? anim->name : "",
               anim->channel_count, anim->start, anim->end);
    }
    bool ok = player_bind(&p) && player_bake(&p, folder) && player_play(&p, anim, frames, folder);
    player_free(&p);
    return ok ? 0 : 1;
}
