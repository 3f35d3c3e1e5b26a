/* What a zero field of the lattice and placement descs stands for, and the
 * limits the descs and saved data are checked against: one place for the
 * module (the public headers restate the defaults for users). */
#ifndef SINEW_LATTICE_DEFAULTS_H
#define SINEW_LATTICE_DEFAULTS_H

/* ---- Lattice ---------------------------------------------------------------- */

/* Order of an axis whose desc order is 0 (cubic). */
#define SN_LAT_DEFAULT_ORDER 4u
/* Most control points along one axis. */
#define SN_LAT_MAX_AXIS_COUNT (1u << 20)
/* Smallest |det| of the unit box axes: below it they are linearly dependent. */
#define SN_LAT_MIN_UNIT_VOLUME 1e-6
/* Relative margin a float-range bound keeps below FLT_MAX, for the rounding
 * of the float arithmetic the bound covers. */
#define SN_LAT_FLOAT_MARGIN 1e-6
/* Fold-over check: samples per cell and axis when 0 is passed, and the most. */
#define SN_LAT_DEFAULT_FOLD_SAMPLES 4u
#define SN_LAT_MAX_FOLD_SAMPLES 64u
/* Refinement budget when max_triangles is 0: this many per input triangle
 * plus SN_LAT_REFINE_EXTRA_TRIANGLES. */
#define SN_LAT_REFINE_TRIANGLES_PER_INPUT 64u
#define SN_LAT_REFINE_EXTRA_TRIANGLES 1000000u

/* ---- Placement -------------------------------------------------------------- */

/* Order of a B-spline path whose desc order is 0. */
#define SN_PLACE_DEFAULT_PATH_ORDER 4u
/* Control points along u and v when the desc's counts are 0 (w: its order). */
#define SN_PLACE_DEFAULT_COUNT_U 24u
#define SN_PLACE_DEFAULT_COUNT_V 6u
/* Most control points along one placement axis. */
#define SN_PLACE_MAX_COUNT 4096
/* Contact samples per control point spacing when oversample is 0, and the most. */
#define SN_PLACE_DEFAULT_OVERSAMPLE 8u
#define SN_PLACE_MAX_OVERSAMPLE 64u
/* Relaxation: spring stiffness and mass when 0, the angle criterion
 * (degrees), rings of neighbours simulated with each candidate (default and
 * most), and the step budget. */
#define SN_PLACE_DEFAULT_STIFFNESS 1.0
#define SN_PLACE_DEFAULT_MASS 1.0
#define SN_PLACE_DEFAULT_ANGLE_DEGREES 10.0
#define SN_PLACE_DEFAULT_NEIGHBOURHOOD 1u
#define SN_PLACE_MAX_NEIGHBOURHOOD 64u
#define SN_PLACE_DEFAULT_MAX_STEPS 20000u

#endif /* SINEW_LATTICE_DEFAULTS_H */
