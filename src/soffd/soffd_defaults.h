/* What a zero field of the soffd descs stands for, in one place (the public
 * header restates it for users). */
#ifndef SN_SOFFD_DEFAULTS_H
#define SN_SOFFD_DEFAULTS_H

/* sinew_soffd_desc.local: the weight falloff exponent; keeps the two rings of
 * elements around a point above a 1e-3 weight threshold. */
#define SN_SOFFD_DEFAULT_LOCAL 8.0f

/* sinew_soffd_register_desc.weight_threshold: the relative weight below
 * which an element is dropped (its weight faded to 0 there); below a
 * thousandth an element hardly moves a point (the paper's "significant
 * elements"). */
#define SN_SOFFD_DEFAULT_WEIGHT_THRESHOLD 1e-3f

/* sinew_soffd_register_desc.max_contributors: each point keeps its 4
 * nearest elements, faded (register.c) so the skin has no step where they
 * trade places; tuned to keep a registration under 200 bytes per point
 * (docs/soffd.md, Defaults). */
#define SN_SOFFD_DEFAULT_MAX_CONTRIBUTORS 4u

/* Width, in L, of the ramp that fades a capped point's farthest kept
 * elements out before the next one takes their place (register.c): tuned so
 * the deformed skin turns no faster than the exact formula's on the shared
 * data's meshes while most of the kept elements' weight stays. */
#define SN_SOFFD_FADE_WIDTH 0.5

#endif /* SN_SOFFD_DEFAULTS_H */
