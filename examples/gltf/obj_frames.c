/* Writes one deformed frame of the character as an OBJ file. */
#include "obj_frames.h"

#include <stdio.h>

bool obj_write_frame(const char *path, const character *c, float *const *positions, float *const *normals, double time)
{
    FILE *f = fopen(path, "w");
    if (!f) return false;
    fprintf(f, "# sinew gltf_play: %zu vertices, %zu triangles, t = %.9g s\n", c->vertex_count, c->triangle_count, time);
    for (size_t p = 0; p < c->part_count; ++p)
        for (size_t v = 0; v < c->parts[p].vertex_count; ++v) {
            const float *x = positions[p] + 3 * v;
            fprintf(f, "v %.6g %.6g %.6g\n", x[0], x[1], x[2]);
        }
    bool all_normals = true;
    for (size_t p = 0; p < c->part_count; ++p) all_normals = all_normals && normals[p];
    for (size_t p = 0; all_normals && p < c->part_count; ++p)
        for (size_t v = 0; v < c->parts[p].vertex_count; ++v) {
            const float *n = normals[p] + 3 * v;
            fprintf(f, "vn %.6g %.6g %.6g\n", n[0], n[1], n[2]);
        }
    size_t base = 1; /* OBJ indices are 1-based and shared by the parts */
    for (size_t p = 0; p < c->part_count; ++p) {
        const character_part *part = &c->parts[p];
        for (size_t t = 0; t < part->triangle_count; ++t) {
            size_t a = base + part->triangles[3 * t], b = base + part->triangles[3 * t + 1], d = base + part->triangles[3 * t + 2];
            if (all_normals) fprintf(f, "f %zu//%zu %zu//%zu %zu//%zu\n", a, a, b, b, d, d);
            else fprintf(f, "f %zu %zu %zu\n", a, b, d);
        }
        base += part->vertex_count;
    }
    bool ok = ferror(f) == 0;
    return fclose(f) == 0 && ok;
}
