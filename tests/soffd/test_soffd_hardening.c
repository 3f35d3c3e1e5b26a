/* Regression tests of issue 10 (hardening) for surface-oriented FFD: size
 * products checked before anything is read, far points, precision away from
 * the origin, and the reported dropped mass. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "brute.h"
#include "fixtures.h"

/* One triangle in the z = 0 plane, unit legs. */
static const float tri_pos[] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
static const uint32_t tri_idx[] = {0, 1, 2};

static sinew_soffd *bind_triangle(const sinew_soffd_desc *desc)
{
    sinew_polymesh m = {{tri_pos, 3, 0}, tri_idx, NULL, 1};
    sinew_soffd *h = NULL;
    assert_int_equal(sinew_soffd_bind(NULL, &m, desc, &h), SINEW_OK);
    return h;
}

/* ---- Item 4: size products -------------------------------------------- */

static void huge_counts_fail_before_reading(void **state)
{
    (void)state;
    sinew_soffd *h = (sinew_soffd *)&h, *const sentinel = h;
    /* face_count * 3 fits in size_t, but not in bytes: the indices cannot exist. */
    sinew_polymesh m = {{tri_pos, 3, 0}, tri_idx, NULL, SIZE_MAX / 3};
    assert_int_equal(sinew_soffd_bind(NULL, &m, NULL, &h), SINEW_ERROR_SIZE_OVERFLOW);
    assert_non_null(strstr(sinew_last_error(), "driver triangles overflow"));
    m.face_count = SIZE_MAX / 12 + 1;
    assert_int_equal(sinew_soffd_bind(NULL, &m, NULL, &h), SINEW_ERROR_SIZE_OVERFLOW);
    /* face_sizes of SIZE_MAX / 2 entries cannot exist either. */
    const uint32_t sizes[] = {3};
    m.face_sizes = sizes;
    m.face_count = SIZE_MAX / 2;
    assert_int_equal(sinew_soffd_bind(NULL, &m, NULL, &h), SINEW_ERROR_SIZE_OVERFLOW);
    assert_non_null(strstr(sinew_last_error(), "face_sizes"));
    assert_ptr_equal(h, sentinel);

    h = bind_triangle(NULL);
    const float skin[] = {0.2f, 0.2f, 0.1f, 0.3f, 0.3f, 0.2f, 0.1f, 0.5f, -0.2f};
    sinew_points s = {skin, 3, 0};
    assert_int_equal(sinew_soffd_register(h, &s, NULL), SINEW_OK);
    /* A set longer than the element count is read no further than needed. */
    const uint32_t one = 0;
    assert_int_equal(sinew_soffd_set_contributors(h, 1, &one, SIZE_MAX), SINEW_ERROR_SIZE_OVERFLOW);
    assert_non_null(strstr(sinew_last_error(), "skin point 1"));
    assert_int_equal(sinew_soffd_set_contributors(h, 1, &one, 2), SINEW_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(sinew_last_error(), "skin point 1"));
    /* An output stride whose last point lies past the address space. */
    float frames[16], out[9];
    sinew_points d = {tri_pos, 3, 0};
    assert_int_equal(sinew_soffd_element_frames(h, &d, frames), SINEW_OK);
    size_t stride = (SIZE_MAX / 8) * 4;
    assert_int_equal(sinew_soffd_deform(h, frames, out, stride, 0, 3), SINEW_ERROR_SIZE_OVERFLOW);
    assert_non_null(strstr(sinew_last_error(), "point 2"));
    assert_int_equal(sinew_soffd_deform_extended(h, frames, out, stride, 1, 2), SINEW_ERROR_SIZE_OVERFLOW);
    assert_int_equal(sinew_soffd_deform(h, frames, out, stride, 0, 1), SINEW_OK); /* point 0 is at out */
    sinew_soffd_destroy(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(huge_counts_fail_before_reading),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
