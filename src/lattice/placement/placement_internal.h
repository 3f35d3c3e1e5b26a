/*
 * Placement of deformable objects (Schein & Elber §3, §4.1, §4.3): the handle
 * and the helpers its files share. Only the public lattice API is used, so the
 * lattice's internals stay its own.
 */
#ifndef SINEW_PLACEMENT_INTERNAL_H
#define SINEW_PLACEMENT_INTERNAL_H

#include "core/internal.h"
#include "sinew/lattice.h"
#include "sinew/placement.h"

/* Contact columns are indexed c = i + cu * j; lattice points
 * i + cu * (j + cv * k), as in the lattice. */
struct sinew_placement {
    sn_env env;
    size_t held_bytes;   /* every block the handle owns (env.held points here), the handle included */
    sinew_lattice *lattice;
    uint32_t count[3];
    sinew_placement_volume volume;
    double up[3];             /* -V, unit */
    double greville[3][4096]; /* Greville abscissae per axis (only count[a] used) */
    /* Per contact column. */
    float *hit;          /* 3: the ray hit (or the miss policy's position) */
    float *dof;          /* 3: unit direction the contact point moves along */
    float *ceiling;      /* largest lift before the scene above is reached (INFINITY = none) */
    float *lift;         /* signed distance of the contact point from hit along dof */
    float *layer_dir;    /* 3: unit direction of the layers above the contact point */
    /* Per lattice point: distance above the contact point along layer_dir. */
    float *height;
    /* Scratch owned by the handle, used by modifying calls only. */
    float *points;       /* 3 per lattice point: the positions last given to the lattice */
    float *params;       /* 3 per column */
    float *jacobians;    /* 9 per column */
    size_t rays_cast;
    size_t misses;
    float path_length;
    float contact_length;
    float max_width;
    float max_height;
};

/* ---- Clamped uniform B-splines (path, width and height functions) ------- */

/* Greville abscissa of control point i. */
double sn_place_greville(size_t n, uint32_t o, size_t i);
/* Value of an optional scalar function at (u, v) (1 when it is absent). */
double sn_place_scalar(const sinew_placement_scalar *f, double u, double v);
/* Checks a scalar function's view: counts, NULL, values finite and > 0. */
sinew_result sn_place_check_scalar(const sinew_placement_scalar *f, const char *what, bool two_d);

/* ---- The sketched path in the view plane ---------------------------------- */

/* A dense polyline in the view plane, parameterised by arc length fraction s,
 * with a unit in-plane normal N = T x V at every vertex. */
typedef struct sn_place_path {
    size_t n;
    double *pos;     /* 3n */
    double *normal;  /* 3n */
    double *arc;     /* n, cumulative length, arc[0] = 0 */
    double length;
} sn_place_path;

/* Projects and samples desc->path (already validated). */
sinew_result sn_place_path_build(sn_place_path *path, const sn_env *env, const sinew_placement_desc *desc,
                                 const double view[3]);
void sn_place_path_free(sn_place_path *path, const sn_env *env);
/* Position and unit normal at arc length fraction s in [0, 1]. */
void sn_place_path_eval(const sn_place_path *path, double s, double pos[3], double normal[3]);

/* Inverts a non-decreasing table y[0..n) sampled at x_k = k / (n - 1): the x
 * where y reaches target (linear between samples). */
double sn_place_invert(const double *y, size_t n, double target);

/* ---- The handle ---------------------------------------------------------- */

/* Allocates the per-column and per-point arrays of p (count and env set). */
sinew_result sn_place_alloc(sinew_placement *p);
/* Frees p, its arrays and its lattice (NULL is fine). */
void sn_place_free(sinew_placement *p);
/* Every lattice point from its column and height: hit + lift * dof +
 * height * layer_dir, into p->points (float arithmetic, the one the lattice
 * is given). */
void sn_place_layer_points(sinew_placement *p);

/* Recomputes every lattice point from the contact columns (hit + lift * dof)
 * and the heights above them, and hands them to the lattice. With
 * recompute_normals, F2's layer directions are first set to the contact
 * surface's normals. */
sinew_result sn_place_update_lattice(sinew_placement *p, bool recompute_normals);
/* After a failed update whose inputs were put back: hands the restored points
 * to the lattice again. That goes through public lattice calls, which clear
 * the thread's message on success, so the failure's message is kept. */
void sn_place_restore_lattice(sinew_placement *p);

/* Replaces the zero fields of a relax desc by their defaults (desc_defaults.c):
 * what relax uses and sinew_placement_relax_desc_defaults reports. */
void sn_place_relax_resolve(sinew_placement_relax_desc *d);

#endif /* SINEW_PLACEMENT_INTERNAL_H */
