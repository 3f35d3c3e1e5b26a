/* What a zero field of the soffd descs stands for, in one place (the public
 * header restates it for users). */
#ifndef SN_SOFFD_DEFAULTS_H
#define SN_SOFFD_DEFAULTS_H

/* sinew_soffd_desc.local: the weight falloff exponent; keeps the two rings of
 * elements around a point above a 1e-3 weight threshold. */
#define SN_SOFFD_DEFAULT_LOCAL 8.0f

/* sinew_soffd_register_desc.weight_threshold: the relative weight below
 * which an element is dropped; below a thousandth an element hardly moves a
 * point (the paper's "significant elements"). */
#define SN_SOFFD_DEFAULT_WEIGHT_THRESHOLD 1e-3f

/* sinew_soffd_register_desc.max_contributors has no default cap: a hard
 * cap makes steps in the deformed skin where a point's last kept element
 * and the first dropped one trade places (docs/soffd.md, Defaults). */

#endif /* SN_SOFFD_DEFAULTS_H */
