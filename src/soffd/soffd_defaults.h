/* What a zero field of the soffd descs stands for, in one place (the public
 * header restates it for users). */
#ifndef SN_SOFFD_DEFAULTS_H
#define SN_SOFFD_DEFAULTS_H

/* sinew_soffd_desc.local: the weight falloff exponent; keeps the two rings of
 * elements around a point above a 1e-3 weight threshold. */
#define SN_SOFFD_DEFAULT_LOCAL 8.0f

#endif /* SN_SOFFD_DEFAULTS_H */
