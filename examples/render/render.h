/* A small software rasteriser for sinew's examples: z-buffered triangles with
 * flat or Lambert (smooth) shading or plain colours, per-vertex colours,
 * lines, side-by-side panels and upper-case labels, seen through a fixed
 * orthographic camera fitted to what the panel shows, written as PNG through
 * libpng when the examples were built with it. Not part of the library; no
 * call is thread-safe on the same canvas.
 *
 * A canvas holds a grid of equal panels (cols x rows). Each panel gets a
 * view: a camera direction, the points it must show, then a fit into the
 * panel. Drawing happens in samples: the canvas is `samples` times finer than
 * the image on each axis, and the PNG writer averages each block of samples
 * into one pixel (supersampled antialiasing). */
#ifndef SINEW_EXAMPLE_RENDER_H
#define SINEW_EXAMPLE_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct render_canvas {
    int panel_width, panel_height; /* one panel, in image pixels */
    int cols, rows;
    int samples;                   /* per pixel along each axis */
    int width, height;             /* the whole canvas, in samples */
    float *rgb;                    /* 3 * width * height, row 0 at the top, 0..1 */
    float *depth;                  /* width * height, smaller = nearer */
} render_canvas;

/* Allocates a white canvas of cols x rows panels of panel_width x
 * panel_height pixels, each pixel samples x samples. Returns false (canvas
 * left empty) when out of memory or a size is not positive. */
bool render_canvas_create(render_canvas *c, int panel_width, int panel_height, int cols, int rows, int samples);
void render_canvas_destroy(render_canvas *c);

/* An orthographic camera: world points map to the panel by
 * x = origin_x + scale * dot(p, right), y = origin_y - scale * dot(p, up),
 * depth = dot(p, forward), in canvas samples. */
typedef struct render_view {
    float right[3], up[3], forward[3];
    float lo[3], hi[3];       /* bounds of the included points along right, up, forward */
    int x0, y0, x1, y1;       /* the panel's rectangle in samples (x1, y1 excluded) */
    float scale, origin_x, origin_y;
    float depth_span;         /* hi[2] - lo[2], or 1 when flat: scales the line depth bias */
} render_view;

/* Starts a view looking from yaw degrees about the vertical axis (y up; 0 =
 * looking down -z, from +z) and pitch degrees above the horizon; nothing
 * included yet. */
void render_view_init(render_view *v, float yaw_degrees, float pitch_degrees);
/* Same with the camera's axes given (right and up unit and orthogonal;
 * forward points away from the viewer). */
void render_view_axes(render_view *v, const float right[3], const float up[3]);
/* Widens the view's bounds by count points (3 floats each, packed). */
void render_view_include(render_view *v, const float *positions, size_t count);
/* Places the included bounds in panel `panel` (row-major) of the canvas,
 * centred, as large as fits inside margin pixels on each side and a label
 * strip of top_pixels at the top. */
void render_view_fit(render_view *v, const render_canvas *c, int panel, int margin, int top_pixels);

typedef enum render_shading {
    RENDER_FLAT,    /* Lambert per triangle (faceted) */
    RENDER_SMOOTH,  /* Lambert with area-weighted vertex normals, interpolated */
    RENDER_UNLIT    /* the colours as they are */
} render_shading;

typedef struct render_mesh {
    const float *positions;   /* 3 floats per vertex, packed */
    size_t vertex_count;
    const uint32_t *triangles; /* 3 per triangle */
    size_t triangle_count;
    const float *colours;     /* 3 per vertex (0..1), or NULL for colour */
    float colour[3];
    render_shading shading;
} render_mesh;

/* Draws the mesh's triangles with the depth test (nearer wins; both sides
 * lit, so winding does not matter), clipped to the view's panel. A sample is
 * covered when its centre lies inside the triangle or on its edge. Returns
 * false when out of memory (smooth shading allocates the vertex normals). */
bool render_draw_mesh(render_canvas *c, const render_view *v, const render_mesh *m);

/* Draws line_count segments between positions[pairs[2i]] and
 * positions[pairs[2i + 1]] (pairs NULL: consecutive points 2i, 2i + 1) as
 * width_pixels wide strokes. Depth-tested with a small bias toward the viewer
 * (so edges on a surface show) unless on_top; lines never write depth. */
void render_draw_lines(render_canvas *c, const render_view *v, const float *positions, const uint32_t *pairs,
                       size_t line_count, const float colour[3], float width_pixels, bool on_top);

/* Draws a dot of diameter_pixels at each point, on top of everything. */
void render_draw_dots(render_canvas *c, const render_view *v, const float *positions, size_t count,
                      const float colour[3], float diameter_pixels);

/* Writes text at the top-left of a panel (and below the previous label when
 * line > 0) in a 5 x 7 pixel font scaled by 2: letters (lower case drawn as
 * upper case), digits, space and . , : ; - + / ( ) % = < > ' * # _ ! ?. */
void render_label(render_canvas *c, int panel, int line, const char *text, const float colour[3]);

/* The undirected edges of a triangle mesh, each once (lowest index first,
 * sorted). Returns a malloc'ed array of 2 * *edge_count indices, or NULL
 * (out of memory or no triangles). */
uint32_t *render_mesh_edges(const uint32_t *triangles, size_t triangle_count, size_t *edge_count);

/* A perceptual colour map from dark violet (0) through blue, teal and green
 * to yellow (1): lightness rises linearly in OKLab while the hue turns, so
 * equal steps of t look like equal steps of colour. t is clamped to [0, 1]. */
void render_colormap(float t, float rgb[3]);

/* True when the examples were built with libpng. */
bool render_png_available(void);
/* Averages the samples into pixels and writes an 8-bit RGB PNG without
 * timestamps (the same canvas always gives the same bytes). Returns false
 * with a message on stderr when the file cannot be written or libpng is
 * absent. */
bool render_write_png(const render_canvas *c, const char *path);

/* The 8-bit RGB pixels render_write_png encodes (3 * width * height, row 0
 * at the top; width = cols * panel_width, height = rows * panel_height), or
 * NULL when out of memory. The caller frees it. */
unsigned char *render_pixels(const render_canvas *c);

#endif
