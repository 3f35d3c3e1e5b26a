/*
 * Lays a procedural snake over a staircase and over a bumpy terrain along a
 * sketched path, without and with the mass-spring relaxation of the contact
 * layer (Schein & Elber §3), and writes what a person can look at:
 *
 *   placement_<scene>_scene.obj          the scene
 *   placement_<scene>_snake.obj          the snake laid on the raw ray hits
 *   placement_<scene>_snake_springs.obj  the snake after relaxation
 *   placement_<scene>_lattice.obj        the relaxed lattice as a wireframe
 *   placement_side.svg                   side views of both scenes
 *   placement_side.png                   the same as a picture
 *
 * Usage: placement_snake [output folder]   (default: the current folder)
 * Prints the figures of each placement (rays, contact length, relaxation
 * steps and lift, fold check, deformation speed).
 *
 * SPDX-License-Identifier: MIT
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sinew.h"
#include "side_view.h"
#include "support.h"

#define PI 3.14159265358979323846

/* ---- Scenes ------------------------------------------------------------------ */

typedef struct mesh {
    float *pos;
    size_t vertex_count, vertex_cap;
    uint32_t *tri;
    size_t triangle_count, triangle_cap;
} mesh;

static uint32_t vertex(mesh *m, double x, double y, double z)
{
    if (m->vertex_count == m->vertex_cap) {
        m->vertex_cap = m->vertex_cap ? 2 * m->vertex_cap : 256;
        float *grown = realloc(m->pos, m->vertex_cap * 3 * sizeof(float));
        if (!grown) abort();
        m->pos = grown;
    }
    float *p = &m->pos[3 * m->vertex_count];
    p[0] = (float)x, p[1] = (float)y, p[2] = (float)z;
    return (uint32_t)m->vertex_count++;
}

static void triangle(mesh *m, uint32_t a, uint32_t b, uint32_t c)
{
    if (m->triangle_count == m->triangle_cap) {
        m->triangle_cap = m->triangle_cap ? 2 * m->triangle_cap : 256;
        uint32_t *grown = realloc(m->tri, m->triangle_cap * 3 * sizeof(uint32_t));
        if (!grown) abort();
        m->tri = grown;
    }
    uint32_t *t = &m->tri[3 * m->triangle_count++];
    t[0] = a, t[1] = b, t[2] = c;
}

static void quad(mesh *m, const double q[4][3])
{
    uint32_t a = vertex(m, q[0][0], q[0][1], q[0][2]), b = vertex(m, q[1][0], q[1][1], q[1][2]);
    uint32_t c = vertex(m, q[2][0], q[2][1], q[2][2]), d = vertex(m, q[3][0], q[3][1], q[3][2]);
    triangle(m, a, b, c);
    triangle(m, a, c, d);
}

static void mesh_free(mesh *m)
{
    free(m->pos);
    free(m->tri);
    memset(m, 0, sizeof *m);
}

/* Eight steps climbing along x, each 1.2 deep and 0.35 high, 6 wide. */
static double stair_height(double x)
{
    double k = floor(x / 1.2);
    return k < 0 ? 0 : k > 7 ? 7 * 0.35 : k * 0.35;
}

static void make_staircase(mesh *m)
{
    for (int k = -2; k < 10; ++k) {
        double x0 = 1.2 * k, x1 = 1.2 * (k + 1), z = stair_height(x0 + 0.6);
        const double tread[4][3] = {{x0, -3, z}, {x1, -3, z}, {x1, 3, z}, {x0, 3, z}};
        quad(m, tread);
        double zn = stair_height(x1 + 0.6);
        if (zn != z) {
            const double riser[4][3] = {{x1, -3, z}, {x1, 3, z}, {x1, 3, zn}, {x1, -3, zn}};
            quad(m, riser);
        }
    }
}

static double bump_height(double x, double y)
{
    return 0.45 * sin(0.9 * x) * cos(0.7 * y) + 0.3 * sin(0.35 * x + 1.1 * y) + 0.6 * exp(-((x - 1) * (x - 1) + y * y));
}

static void make_bumpy(mesh *m)
{
    const int n = 96;
    const double lo = -9, hi = 9, h = (hi - lo) / n;
    for (int j = 0; j <= n; ++j)
        for (int i = 0; i <= n; ++i) vertex(m, lo + i * h, lo + j * h, bump_height(lo + i * h, lo + j * h));
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
            uint32_t a = (uint32_t)(i + (n + 1) * j);
            triangle(m, a, a + 1, a + (uint32_t)n + 2);
            triangle(m, a, a + (uint32_t)n + 2, a + (uint32_t)n + 1);
        }
}

/* ---- The snake ------------------------------------------------------------------ */

#define SNAKE_LENGTH 6.0
#define SNAKE_RADIUS 0.22
#define SNAKE_RINGS 96
#define SNAKE_SIDES 12

/* A tube along x in [0, SNAKE_LENGTH], resting on z = 0, tapered at both ends
 * and wiggling sideways. Ring r holds vertices r * SIDES .. + SIDES - 1. */
static void make_snake(mesh *m)
{
    for (int r = 0; r < SNAKE_RINGS; ++r) {
        double t = (double)r / (SNAKE_RINGS - 1), x = t * SNAKE_LENGTH;
        double radius = SNAKE_RADIUS * (0.35 + 0.65 * sin(PI * fmin(1.0, 1.15 * t + 0.08)));
        double wiggle = 0.25 * sin(2 * PI * 1.5 * t);
        for (int s = 0; s < SNAKE_SIDES; ++s) {
            double a = 2 * PI * s / SNAKE_SIDES;
            vertex(m, x, wiggle + radius * cos(a), SNAKE_RADIUS + radius * sin(a));
        }
    }
    for (int r = 0; r + 1 < SNAKE_RINGS; ++r)
        for (int s = 0; s < SNAKE_SIDES; ++s) {
            uint32_t a = (uint32_t)(r * SNAKE_SIDES + s), b = (uint32_t)(r * SNAKE_SIDES + (s + 1) % SNAKE_SIDES);
            triangle(m, a, b, b + SNAKE_SIDES);
            triangle(m, a, b + SNAKE_SIDES, a + SNAKE_SIDES);
        }
}

/* ---- Output ------------------------------------------------------------------------ */

static void join(char *buf, size_t size, const char *dir, const char *name)
{
    snprintf(buf, size, "%s/%s", dir, name);
}

/* The lattice's control net as OBJ line segments along u, v and w. */
static bool write_lattice(const char *path, const sinew_lattice *lat)
{
    sinew_lattice_info info;
    SINEW_INIT(&info);
    if (sinew_lattice_get_info(lat, &info)) return false;
    float *pts = malloc(info.point_count * 3 * sizeof(float));
    if (!pts) return false;
    sinew_lattice_points(lat, pts, 0, 0, info.point_count);
    FILE *f = fopen(path, "w");
    if (!f) {
        free(pts);
        return false;
    }
    for (size_t i = 0; i < info.point_count; ++i) fprintf(f, "v %g %g %g\n", pts[3 * i], pts[3 * i + 1], pts[3 * i + 2]);
    const uint32_t n0 = info.count[0], n1 = info.count[1], n2 = info.count[2];
    for (uint32_t k = 0; k < n2; ++k)
        for (uint32_t j = 0; j < n1; ++j)
            for (uint32_t i = 0; i < n0; ++i) {
                size_t idx = i + n0 * (j + (size_t)n1 * k) + 1;
                if (i + 1 < n0) fprintf(f, "l %zu %zu\n", idx, idx + 1);
                if (j + 1 < n1) fprintf(f, "l %zu %zu\n", idx, idx + n0);
                if (k + 1 < n2) fprintf(f, "l %zu %zu\n", idx, idx + (size_t)n0 * n1);
            }
    fclose(f);
    free(pts);
    return true;
}


static double stair_height_xy(double x, double y)
{
    (void)y;
    return stair_height(x);
}

/* A panel: terrain profile along the path, both snakes' silhouettes (ring by
 * ring: top and bottom of each ring), contact control points. */
static void svg_panel(FILE *f, const side_view *v, double top, double width, double height)
{
    double xmin = 1e9, xmax = -1e9, zmin = 1e9, zmax = -1e9;
    for (int k = 0; k < v->path_samples; ++k) {
        double x = v->path_xy[2 * k], z = v->height(x, v->path_xy[2 * k + 1]);
        xmin = fmin(xmin, x), xmax = fmax(xmax, x), zmin = fmin(zmin, z), zmax = fmax(zmax, z);
    }
    for (int s = 0; s < 2; ++s)
        for (int i = 0; i < SNAKE_RINGS * SNAKE_SIDES; ++i) zmax = fmax(zmax, v->snake[s][3 * i + 2]);
    double scale = fmin((width - 40) / (xmax - xmin), (height - 50) / (zmax - zmin + 1e-9));
#define SX(x) (20 + ((x) - xmin) * scale)
#define SY(z) (top + height - 20 - ((z) - zmin) * scale)
    fprintf(f, "<text x='20' y='%.1f' font-family='sans-serif' font-size='14'>%s</text>\n", top + 18, v->title);
    fprintf(f, "<polygon fill='#d8d2c4' stroke='#8a826f' stroke-width='1' points='");
    for (int k = 0; k < v->path_samples; ++k) {
        double x = v->path_xy[2 * k];
        fprintf(f, "%.1f,%.1f ", SX(x), SY(v->height(x, v->path_xy[2 * k + 1])));
    }
    fprintf(f, "%.1f,%.1f %.1f,%.1f'/>\n", SX(xmax), top + height, SX(xmin), top + height);
    static const char *const colour[2] = {"#c0392b", "#2471a3"};
    for (int s = 0; s < 2; ++s) {
        fprintf(f, "<polygon fill='%s' fill-opacity='0.45' stroke='%s' stroke-width='1' points='", colour[s], colour[s]);
        for (int pass = 0; pass < 2; ++pass)
            for (int r = 0; r < SNAKE_RINGS; ++r) {
                int ring = pass ? SNAKE_RINGS - 1 - r : r;
                double x = 0, zlo = 1e9, zhi = -1e9;
                for (int k = 0; k < SNAKE_SIDES; ++k) {
                    const float *p = &v->snake[s][3 * (ring * SNAKE_SIDES + k)];
                    x += p[0] / SNAKE_SIDES;
                    zlo = fmin(zlo, p[2]), zhi = fmax(zhi, p[2]);
                }
                fprintf(f, "%.1f,%.1f ", SX(x), SY(pass ? zlo : zhi));
            }
        fprintf(f, "'/>\n");
        for (int i = 0; i < v->contact_count; ++i)
            fprintf(f, "<circle cx='%.1f' cy='%.1f' r='2.5' fill='%s'/>\n", SX(v->contact[s][3 * i]),
                    SY(v->contact[s][3 * i + 2]), colour[s]);
    }
#undef SX
#undef SY
}

static bool write_svg(const char *path, const side_view *views, int count)
{
    FILE *f = fopen(path, "w");
    if (!f) return false;
    const double w = 960, h = 300;
    fprintf(f, "<svg xmlns='http://www.w3.org/2000/svg' width='%g' height='%g' viewBox='0 0 %g %g'>\n", w,
            h * count + 30, w, h * count + 30);
    fprintf(f, "<rect width='100%%' height='100%%' fill='white'/>\n");
    for (int i = 0; i < count; ++i) svg_panel(f, &views[i], i * h, w, h);
    fprintf(f, "<text x='20' y='%g' font-family='sans-serif' font-size='13'>"
               "<tspan fill='#c0392b'>red: raw ray hits</tspan>   "
               "<tspan fill='#2471a3'>blue: after mass-spring relaxation</tspan>   dots: contact control points "
               "along the middle (side view, x right, z up)</text>\n",
            h * count + 20);
    fprintf(f, "</svg>\n");
    fclose(f);
    return true;
}

/* ---- One scene -------------------------------------------------------------------------- */

static int run_scene(const char *dir, const char *name, const mesh *scene, const sinew_placement_desc *base,
                     const sinew_placement_relax_desc *springs, float offset, side_view *view)
{
    char path[1024];
    mesh snake = {0};
    make_snake(&snake);
    sinew_placement_desc d = *base;
    d.scene.positions.data = scene->pos;
    d.scene.positions.count = scene->vertex_count;
    d.scene.indices = scene->tri;
    d.scene.triangle_count = scene->triangle_count;
    sinew_placement *p = NULL;
    double t0 = support_now();
    sinew_result r = sinew_placement_create(NULL, &d, &p);
    double t_build = support_now() - t0;
    if (r) {
        fprintf(stderr, "%s: create failed: %s\n", name, sinew_last_error());
        mesh_free(&snake);
        return 1;
    }
    sinew_placement_info info;
    SINEW_INIT(&info);
    sinew_placement_get_info(p, &info);
    sinew_placement_map_desc md;
    SINEW_INIT(&md);
    md.box_min[0] = 0, md.box_min[1] = -SNAKE_RADIUS - 0.25f, md.box_min[2] = 0;
    md.box_max[0] = (float)SNAKE_LENGTH, md.box_max[1] = SNAKE_RADIUS + 0.25f, md.box_max[2] = 2 * SNAKE_RADIUS;
    md.offset = offset;
    sinew_placement_map map;
    if ((r = sinew_placement_map_model(p, &md, &map))) {
        fprintf(stderr, "%s: map failed: %s\n", name, sinew_last_error());
        sinew_placement_destroy(p);
        mesh_free(&snake);
        return 1;
    }
    sinew_points model = {snake.pos, snake.vertex_count, 0};
    const sinew_lattice *lat = sinew_placement_lattice(p);
    const uint32_t cu = info.count[0], mid = info.count[1] / 2;
    view->contact_count = (int)(cu < 64 ? cu : 64);
    for (int pass = 0; pass < 2; ++pass) {
        sinew_placement_relax_report rep;
        SINEW_INIT(&rep);
        double t_relax = 0;
        if (pass == 1) {
            t0 = support_now();
            r = sinew_placement_relax(NULL, p, springs, &rep);
            t_relax = support_now() - t0;
            if (r != SINEW_OK && r != SINEW_ERROR_NOT_CONVERGED) {
                fprintf(stderr, "%s: relax failed: %s\n", name, sinew_last_error());
                break;
            }
        }
        float *out = malloc(snake.vertex_count * 3 * sizeof(float));
        if (!out) abort();
        const int reps = 50;
        t0 = support_now();
        for (int k = 0; k < reps; ++k) sinew_placement_deform(p, &map, &model, out, 0, 0, snake.vertex_count);
        double t_deform = (support_now() - t0) / reps;
        sinew_lattice_fold_report fold;
        SINEW_INIT(&fold);
        sinew_lattice_check_folds(NULL, lat, 4, NULL, 0, &fold);
        /* Range reads write control point i at out + i * stride: read the
         * contact layer up to the middle row, then keep that row. */
        size_t row = (size_t)cu * mid;
        float *layer = malloc((row + (size_t)view->contact_count) * 3 * sizeof(float));
        if (layer && sinew_lattice_points(lat, layer, 0, row, (size_t)view->contact_count) == SINEW_OK)
            memcpy(view->contact[pass], layer + 3 * row, (size_t)view->contact_count * 3 * sizeof(float));
        free(layer);
        view->snake[pass] = out;
        snprintf(path, sizeof path, "%s/placement_%s_snake%s.obj", dir, name, pass ? "_springs" : "");
        support_write_obj(path, out, snake.vertex_count, 0, snake.tri, snake.triangle_count);
        if (pass == 0)
            printf("%s: %zu rays (%zu contact misses) in %.1f ms, path %.2f, contact length %.2f, lattice %ux%ux%u\n",
                   name, info.rays_cast, info.misses, 1e3 * t_build, (double)info.path_length,
                   (double)info.contact_length, info.count[0], info.count[1], info.count[2]);
        else
            printf("%s: springs: %s after %u steps (dt %.3f) in %.1f ms, largest lift %.3f\n", name,
                   r == SINEW_OK ? "converged" : "not converged", rep.steps, (double)rep.time_step, 1e3 * t_relax,
                   (double)rep.max_lift);
        printf("%s: %s: fold check: %zu of %zu cells may fold (smallest det J sampled %.3g); "
               "snake %zu vertices laid in %.3f ms (%.1f M vertices/s)\n",
               name, pass ? "springs" : "raw hits", fold.cells_may_fold, fold.cell_count, (double)fold.min_sampled_det,
               snake.vertex_count, 1e3 * t_deform, snake.vertex_count / t_deform / 1e6);
    }
    snprintf(path, sizeof path, "placement_%s_scene.obj", name);
    char full[1100];
    join(full, sizeof full, dir, path);
    support_write_obj(full, scene->pos, scene->vertex_count, 0, scene->tri, scene->triangle_count);
    snprintf(path, sizeof path, "placement_%s_lattice.obj", name);
    join(full, sizeof full, dir, path);
    write_lattice(full, lat);
    sinew_placement_destroy(p);
    mesh_free(&snake);
    return view->snake[1] ? 0 : 1;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : ".";
    side_view views[2];
    memset(views, 0, sizeof views);
    int failures = 0;

    /* Staircase: a straight path climbing the steps, seen from above. */
    mesh stairs = {0};
    make_staircase(&stairs);
    const float stair_path[6] = {-1.5f, 0, 6, 9.5f, 0, 6};
    sinew_placement_desc d;
    SINEW_INIT(&d);
    d.path.data = stair_path;
    d.path.count = 2;
    d.width = (float)SNAKE_RADIUS + 0.25f;
    d.height = 2 * (float)SNAKE_RADIUS;
    d.count[0] = 48;
    d.count[1] = 6;
    views[0].title = "staircase";
    views[0].height = stair_height_xy;
    views[0].path_samples = 256;
    for (int k = 0; k < 256; ++k) views[0].path_xy[2 * k] = -1.5f + 11.0f * k / 255, views[0].path_xy[2 * k + 1] = 0;
    sinew_placement_relax_desc springs;
    SINEW_INIT(&springs);
    springs.neighbourhood = 3;
    failures += run_scene(dir, "staircase", &stairs, &d, &springs, 0.35f, &views[0]);

    /* Bumpy terrain: a curved B-spline path. */
    mesh bumpy = {0};
    make_bumpy(&bumpy);
    const float curve[15] = {-7, -2, 5, -3, 2, 5, 1, -1.5f, 5, 4, 2, 5, 7, 0, 5};
    d.path.data = curve;
    d.path.count = 5;
    d.path_kind = SINEW_PLACEMENT_PATH_BSPLINE;
    d.count[0] = 64;
    views[1].title = "bumpy terrain (curved path, projected on x-z)";
    views[1].height = bump_height;
    views[1].path_samples = 256;
    {
        /* The path's middle as the example sees it: the contact row's xy. */
        sinew_placement *p = NULL;
        sinew_placement_desc dd = d;
        dd.scene.positions.data = bumpy.pos;
        dd.scene.positions.count = bumpy.vertex_count;
        dd.scene.indices = bumpy.tri;
        dd.scene.triangle_count = bumpy.triangle_count;
        if (sinew_placement_create(NULL, &dd, &p) == SINEW_OK) {
            float prm[3 * 256], out[3 * 256];
            for (int k = 0; k < 256; ++k) prm[3 * k] = k / 255.0f, prm[3 * k + 1] = 0.5f, prm[3 * k + 2] = 0;
            sinew_points pv = {prm, 256, 0};
            sinew_lattice_evaluate(sinew_placement_lattice(p), &pv, out, 0, NULL, 0, 0, 256);
            for (int k = 0; k < 256; ++k) views[1].path_xy[2 * k] = out[3 * k], views[1].path_xy[2 * k + 1] = out[3 * k + 1];
            sinew_placement_destroy(p);
        }
    }
    /* Smooth terrain: a finer angle criterion and a wider neighbourhood let
     * the springs span the valleys. */
    springs.angle_degrees = 3;
    springs.neighbourhood = 6;
    failures += run_scene(dir, "bumpy", &bumpy, &d, &springs, 0.3f, &views[1]);

    char svg[1024];
    join(svg, sizeof svg, dir, "placement_side.svg");
    if (!failures && write_svg(svg, views, 2)) printf("wrote %s and the OBJ files beside it\n", svg);
    join(svg, sizeof svg, dir, "placement_side.png"); /* the same as PNG: placement_pictures.c */
    if (!failures && !placement_side_png(svg, views, 2, SNAKE_RINGS, SNAKE_SIDES)) failures = 1;
    for (int i = 0; i < 2; ++i) free(views[i].snake[0]), free(views[i].snake[1]);
    mesh_free(&stairs);
    mesh_free(&bumpy);
    return failures ? 1 : 0;
}
