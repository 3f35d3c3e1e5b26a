/*
 * The growing-struct rules of core.h, seen from a program built against a
 * newer header than the library: a desc larger than the library knows is
 * accepted when its unknown tail is zero and refused (UNSUPPORTED, naming the
 * byte) otherwise; an info larger than the library's gets its tail zeroed; a
 * struct_size left at 0 (no SINEW_INIT) is INVALID_ARGUMENT naming SINEW_INIT.
 *
 * SPDX-License-Identifier: MIT
 */
#include <setjmp.h>
#include <stdio.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sinew.h"

static const uint32_t joints[2] = {0, 0};
static const float weights[2] = {1.0f, 1.0f};

/* A desc as a newer header would declare it: the current one plus fields. */
typedef struct newer_skin_desc {
    sinew_skin_desc known;
    uint64_t added[4];
} newer_skin_desc;

static void fill(sinew_skin_desc *d)
{
    d->vertex_count = 2;
    d->joint_count = 1;
    d->influence_count = 1;
    d->joints = joints;
    d->weights = weights;
}

static void larger_desc_with_zero_tail_is_accepted(void **state)
{
    (void)state;
    newer_skin_desc d;
    SINEW_INIT(&d);   /* struct_size = sizeof(newer_skin_desc), everything else 0 */
    fill(&d.known);
    d.known.struct_size = sizeof d;
    sinew_skin *skin = NULL;
    assert_int_equal(sinew_skin_create(NULL, &d.known, &skin), SINEW_OK);
    sinew_skin_destroy(skin);
}

static void larger_desc_with_nonzero_tail_is_unsupported(void **state)
{
    (void)state;
    newer_skin_desc d;
    SINEW_INIT(&d);
    fill(&d.known);
    d.known.struct_size = sizeof d;
    d.added[1] = 1;
    sinew_skin *skin = (sinew_skin *)(uintptr_t)0x1;
    assert_int_equal(sinew_skin_create(NULL, &d.known, &skin), SINEW_ERROR_UNSUPPORTED);
    assert_true(skin == (sinew_skin *)(uintptr_t)0x1);
    char byte[64];
    snprintf(byte, sizeof byte, "byte %zu", offsetof(newer_skin_desc, added) + sizeof(uint64_t));
    assert_non_null(strstr(sinew_last_error(), byte));
}

static void zero_struct_size_names_sinew_init(void **state)
{
    (void)state;
    sinew_skin_desc d;
    memset(&d, 0, sizeof d);   /* zeroed, but not SINEW_INIT */
    fill(&d);
    sinew_skin *skin = NULL;
    assert_int_equal(sinew_skin_create(NULL, &d, &skin), SINEW_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(sinew_last_error(), "SINEW_INIT"));
    sinew_lattice_desc ld;
    memset(&ld, 0, sizeof ld);
    sinew_lattice *lattice = NULL;
    assert_int_equal(sinew_lattice_create(NULL, &ld, &lattice), SINEW_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(sinew_last_error(), "SINEW_INIT"));
    /* Garbage sizes are refused before anything past the struct is read. */
    d.struct_size = (size_t)1 << 40;
    assert_int_equal(sinew_skin_create(NULL, &d, &skin), SINEW_ERROR_INVALID_ARGUMENT);
    assert_null(skin);
}

static void info_without_init_is_refused_untouched(void **state)
{
    (void)state;
    sinew_skin_desc d;
    SINEW_INIT(&d);
    fill(&d);
    sinew_skin *skin = NULL;
    assert_int_equal(sinew_skin_create(NULL, &d, &skin), SINEW_OK);
    sinew_skin_info info;
    memset(&info, 0x5A, sizeof info);
    info.struct_size = 0;
    assert_int_equal(sinew_skin_get_info(skin, &info), SINEW_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(sinew_last_error(), "SINEW_INIT"));
    assert_int_equal(info.vertex_count, (size_t)0x5A5A5A5A5A5A5A5Aull);
    sinew_skin_destroy(skin);
}

static void larger_info_gets_a_zero_tail(void **state)
{
    (void)state;
    sinew_skin_desc d;
    SINEW_INIT(&d);
    fill(&d);
    sinew_skin *skin = NULL;
    assert_int_equal(sinew_skin_create(NULL, &d, &skin), SINEW_OK);
    struct {
        sinew_skin_info known;
        uint64_t added[2];
    } info;
    memset(&info, 0x5A, sizeof info);
    info.known.struct_size = sizeof info;
    assert_int_equal(sinew_skin_get_info(skin, &info.known), SINEW_OK);
    assert_int_equal(info.known.struct_size, sizeof info);
    assert_int_equal(info.known.vertex_count, 2);
    assert_int_equal(info.added[0], 0);   /* fields this library does not know read as zero */
    assert_int_equal(info.added[1], 0);
    sinew_skin_destroy(skin);
}

/* Every desc reader and info writer goes through the struct_size rule: a
 * struct zeroed without SINEW_INIT is refused, naming SINEW_INIT, by each. */
#define EXPECT_NEEDS_INIT(call) \
    do { \
        assert_int_equal((call), SINEW_ERROR_INVALID_ARGUMENT); \
        if (!strstr(sinew_last_error(), "SINEW_INIT")) fail_msg("%s: \"%s\"", #call, sinew_last_error()); \
    } while (0)

static void every_struct_reader_needs_init(void **state)
{
    (void)state;
    /* Zeroed structs of every kind, struct_size 0. */
    sinew_context_desc cd;
    memset(&cd, 0, sizeof cd);
    sinew_lattice_desc ld;
    memset(&ld, 0, sizeof ld);
    sinew_soffd_desc sd;
    memset(&sd, 0, sizeof sd);
    sinew_soffd_register_desc rd;
    memset(&rd, 0, sizeof rd);
    sinew_bbw_desc bd;
    memset(&bd, 0, sizeof bd);
    sinew_placement_desc pd;
    memset(&pd, 0, sizeof pd);
    sinew_skin_capsule_desc capd;
    memset(&capd, 0, sizeof capd);
    sinew_skin_smooth_desc smd;
    memset(&smd, 0, sizeof smd);
    sinew_lattice_refinement_desc refd;
    memset(&refd, 0, sizeof refd);
    sinew_lattice_binding_desc bind;
    memset(&bind, 0, sizeof bind);
    sinew_lattice_info li;
    memset(&li, 0, sizeof li);
    sinew_lattice_fold_report fold;
    memset(&fold, 0, sizeof fold);
    sinew_soffd_info si;
    memset(&si, 0, sizeof si);
    sinew_context *ctx = NULL;
    EXPECT_NEEDS_INIT(sinew_context_create(&cd, &ctx));
    sinew_lattice *lat = NULL;
    EXPECT_NEEDS_INIT(sinew_lattice_create(NULL, &ld, &lat));
    sinew_bbw *bbw = NULL;
    EXPECT_NEEDS_INIT(sinew_bbw_create(NULL, &bd, &bbw));
    sinew_placement *placement = NULL;
    EXPECT_NEEDS_INIT(sinew_placement_create(NULL, &pd, &placement));

    static const float tri_pts[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    static const uint32_t tri[3] = {0, 1, 2};
    sinew_polymesh driver = {{tri_pts, 3, 0}, tri, NULL, 1, SINEW_INDEX_U32};
    sinew_soffd *soffd = NULL;
    EXPECT_NEEDS_INIT(sinew_soffd_create(NULL, &driver, &sd, &soffd));
    assert_int_equal(sinew_soffd_create(NULL, &driver, NULL, &soffd), SINEW_OK);
    sinew_points skin = {tri_pts, 3, 0};
    EXPECT_NEEDS_INIT(sinew_soffd_register(NULL, soffd, &skin, &rd));
    EXPECT_NEEDS_INIT(sinew_soffd_get_info(soffd, &si));
    sinew_soffd_destroy(soffd);

    sinew_skin_capsule capsule = {{0, 0, 0}, {1, 0, 0}, 1.0f, 0};
    uint32_t j[3];
    float w[3];
    EXPECT_NEEDS_INIT(sinew_skin_capsule_weights(NULL, &skin, &capsule, 1, &capd, j, w, NULL));
    sinew_trimesh mesh = {{tri_pts, 3, 0}, tri, 1, SINEW_INDEX_U32, 0};
    EXPECT_NEEDS_INIT(sinew_skin_smooth_weights(NULL, &mesh, 1, j, w, &smd));

    SINEW_INIT(&ld);
    assert_int_equal(sinew_lattice_create(NULL, &ld, &lat), SINEW_OK);
    EXPECT_NEEDS_INIT(sinew_lattice_get_info(lat, &li));
    EXPECT_NEEDS_INIT(sinew_lattice_check_folds(NULL, lat, 0, NULL, 0, &fold));
    sinew_lattice_refinement *ref = NULL;
    EXPECT_NEEDS_INIT(sinew_lattice_refinement_create(NULL, lat, &mesh, &refd, &ref));
    sinew_lattice_binding *binding = NULL;
    EXPECT_NEEDS_INIT(sinew_lattice_binding_create(NULL, lat, &bind, &binding));
    sinew_lattice_destroy(lat);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(larger_desc_with_zero_tail_is_accepted),
        cmocka_unit_test(larger_desc_with_nonzero_tail_is_unsupported),
        cmocka_unit_test(zero_struct_size_names_sinew_init),
        cmocka_unit_test(info_without_init_is_refused_untouched),
        cmocka_unit_test(larger_info_gets_a_zero_tail),
        cmocka_unit_test(every_struct_reader_needs_init),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
