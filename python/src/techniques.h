/*
 * The technique files of sinew._sinew, one line each (no include guard: an
 * X-macro list). SN_PY_TECHNIQUE(name) declares int sn_py_register_<name>(PyObject *module),
 * defined in src/<name>.c, and module.c calls them in this order. Add a
 * technique here and its file to python/meson.build's sinew_py_sources.
 */

/* Version, results, saved data, save/load of any handle (src/core.c). */
SN_PY_TECHNIQUE(core)

/* Skinning, the skin weight tools and SOFFD (src/skin.c, src/skin_tools.c,
 * src/skin_binders.c, src/skin_links.c, src/soffd.c). */
SN_PY_TECHNIQUE(skin)
SN_PY_TECHNIQUE(skin_tools)
SN_PY_TECHNIQUE(skin_binders)
SN_PY_TECHNIQUE(skin_links)
SN_PY_TECHNIQUE(soffd)
SN_PY_TECHNIQUE(soffd_driver)

/* Lattice, placement, BBW and its pose-time solver (src/lattice.c,
 * src/placement.c, src/bbw.c, src/bbw_auto.c, src/bbw_pose.c). */
SN_PY_TECHNIQUE(lattice)
SN_PY_TECHNIQUE(placement)
SN_PY_TECHNIQUE(bbw)
SN_PY_TECHNIQUE(bbw_auto)
SN_PY_TECHNIQUE(bbw_pose)

/* Pose-space correctives and morph targets (src/corrective.c). */
SN_PY_TECHNIQUE(corrective)
