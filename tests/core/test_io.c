/* White-box tests of the saved-data format layer (src/io): sections of every
 * type survive a round trip in order and alignment, the save contract (size
 * query, too-small buffers, identical bytes), the checksum against the
 * independent implementation in tests/support, and every structural defect
 * a hand-edited file can have. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "io/format.h"
#include "support.h"

#define TAG_PARM SN_TAG('P', 'A', 'R', 'M')
#define TAG_IDX8 SN_TAG('I', 'D', 'X', '8')
#define TAG_IDXW SN_TAG('I', 'D', 'X', 'W')
#define TAG_IDXL SN_TAG('I', 'D', 'X', 'L')
#define TAG_POSF SN_TAG('P', 'O', 'S', 'F')
#define TAG_POSD SN_TAG('P', 'O', 'S', 'D')
#define TAG_NONE SN_TAG('N', 'O', 'N', 'E')

/* A made-up handle with one section of every type (and an empty one). */
typedef struct sample {
    uint64_t parm[3];
    uint8_t idx8[5];
    uint16_t idxw[3];
    uint32_t idxl[17];
    float posf[6];
    double posd[2];
} sample;

static void sample_init(sample *s)
{
    memset(s, 0, sizeof *s);  /* the padding too: the test compares whole structs */
    s->parm[0] = 5;
    s->parm[1] = UINT64_MAX;
    s->parm[2] = 0x0102030405060708ull;
    for (int i = 0; i < 5; ++i) s->idx8[i] = (uint8_t)(250 + i);
    for (int i = 0; i < 3; ++i) s->idxw[i] = (uint16_t)(65000 + i);
    for (int i = 0; i < 17; ++i) s->idxl[i] = 0x80000000u + (uint32_t)i;
    for (int i = 0; i < 6; ++i) s->posf[i] = (float)i * -1.25f + 1e-30f;
    s->posd[0] = 1e300;
    s->posd[1] = -0.0;
}

static void write_sample(sn_writer *w, const void *handle)
{
    const sample *s = (const sample *)handle;
    sn_write_section(w, TAG_PARM, SN_IO_U64, s->parm, 3);
    sn_write_section(w, TAG_IDX8, SN_IO_U8, s->idx8, 5);
    sn_write_section(w, TAG_IDXW, SN_IO_U16, s->idxw, 3);
    sn_write_section(w, TAG_IDXL, SN_IO_U32, s->idxl, 17);
    sn_write_section(w, TAG_POSF, SN_IO_F32, s->posf, 6);
    sn_write_section(w, TAG_POSD, SN_IO_F64, s->posd, 2);
    sn_write_section(w, TAG_NONE, SN_IO_F32, NULL, 0);
}

static unsigned char *save_sample(const sample *s, size_t *size)
{
    assert_int_equal(sn_save(SINEW_KIND_LATTICE, write_sample, s, NULL, 0, size, "sample"), SINEW_OK);
    unsigned char *buf = (unsigned char *)malloc(*size);
    assert_non_null(buf);
    size_t written = 0;
    assert_int_equal(sn_save(SINEW_KIND_LATTICE, write_sample, s, buf, *size, &written, "sample"), SINEW_OK);
    assert_int_equal(written, *size);
    return buf;
}

static sinew_result load_sample(const void *data, size_t size, sample *out)
{
    sn_reader r;
    sinew_result res = sn_reader_open(&r, data, size, SINEW_KIND_LATTICE, "sample data");
    if (res != SINEW_OK) return res;
    sample s;
    memset(&s, 0, sizeof s);
    size_t n;
    if ((res = sn_reader_u64s(&r, TAG_PARM, 3, s.parm)) != SINEW_OK) return res;
    if ((res = sn_reader_copy(&r, TAG_IDX8, SN_IO_U8, 5, s.idx8)) != SINEW_OK) return res;
    if ((res = sn_reader_copy(&r, TAG_IDXW, SN_IO_U16, 3, s.idxw)) != SINEW_OK) return res;
    if ((res = sn_reader_count(&r, TAG_IDXL, SN_IO_U32, &n)) != SINEW_OK) return res;
    if (n != 17) return sn_fail(SINEW_ERROR_INVALID_DATA, "sample data: %zu indices", n);
    if ((res = sn_reader_copy(&r, TAG_IDXL, SN_IO_U32, 17, s.idxl)) != SINEW_OK) return res;
    if ((res = sn_reader_copy(&r, TAG_POSF, SN_IO_F32, 6, s.posf)) != SINEW_OK) return res;
    if ((res = sn_reader_copy(&r, TAG_POSD, SN_IO_F64, 2, s.posd)) != SINEW_OK) return res;
    if ((res = sn_reader_count(&r, TAG_NONE, SN_IO_F32, &n)) != SINEW_OK) return res;
    if (n != 0) return sn_fail(SINEW_ERROR_INVALID_DATA, "sample data: NONE has %zu", n);
    if (out) *out = s;
    return SINEW_OK;
}

static void sections_round_trip_aligned_and_little_endian(void **state)
{
    (void)state;
    sample s, back;
    sample_init(&s);
    size_t size;
    unsigned char *buf = save_sample(&s, &size);
    assert_int_equal(size % 64, 0);
    /* Header and 7 table entries (64 + 224 = 288, padded to 320), then the sections in 64-byte blocks:
     * one each, two for the 68 bytes of IDXL, none for the empty one. */
    assert_int_equal(size, 320 + 7 * 64);
    assert_int_equal(load_sample(buf, size, &back), SINEW_OK);
    assert_memory_equal(&s, &back, sizeof s);
    /* Little-endian whatever the host: the first u64 of PARM is 5 in byte 0 of its section. */
    assert_int_equal(buf[320], 5);
    assert_int_equal(buf[321], 0);
    /* Saving again gives the same bytes (padding zeroed). */
    size_t size2;
    unsigned char *buf2 = save_sample(&s, &size2);
    assert_int_equal(size2, size);
    assert_memory_equal(buf, buf2, size);
    /* The checksum is the documented one. */
    memcpy(buf2, buf, size);
    assert_true(support_reseal(buf2, size));
    assert_memory_equal(buf, buf2, size);
    /* The buffer may be larger than the data. */
    unsigned char *big = (unsigned char *)calloc(1, size + 100);
    memcpy(big, buf, size);
    assert_int_equal(load_sample(big, size + 100, NULL), SINEW_OK);
    free(big);
    free(buf);
    free(buf2);
}

static void save_contract(void **state)
{
    (void)state;
    sample s;
    sample_init(&s);
    size_t size = 0;
    assert_int_equal(sn_save(SINEW_KIND_LATTICE, write_sample, NULL, NULL, 0, &size, "sample"),
                     SINEW_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(sinew_last_error(), "sample is NULL"));
    assert_int_equal(sn_save(SINEW_KIND_LATTICE, write_sample, &s, NULL, 0, NULL, "sample"),
                     SINEW_ERROR_INVALID_ARGUMENT);
    assert_int_equal(sn_save(SINEW_KIND_LATTICE, write_sample, &s, NULL, 0, &size, "sample"), SINEW_OK);
    unsigned char *buf = (unsigned char *)malloc(size);
    memset(buf, 0xab, size);
    size_t needed = 0;
    assert_int_equal(sn_save(SINEW_KIND_LATTICE, write_sample, &s, buf, size - 1, &needed, "sample"),
                     SINEW_ERROR_BUFFER_TOO_SMALL);
    assert_int_equal(needed, size);
    assert_non_null(strstr(sinew_last_error(), "needs"));
    for (size_t i = 0; i < size; ++i) assert_int_equal(buf[i], 0xab);
    free(buf);
}

static sinew_result sweep_load(const void *data, size_t size, void *user)
{
    (void)user;
    return load_sample(data, size, NULL);
}

static void every_corruption_is_caught(void **state)
{
    (void)state;
    sample s;
    sample_init(&s);
    size_t size, accepted = 0;
    unsigned char *buf = save_sample(&s, &size);
    char report[400];
    bool ok = support_sweep_saved_corruption(buf, size, sweep_load, NULL, &accepted, report, sizeof report);
    if (!ok) print_error("%s\n", report);
    assert_true(ok);
    /* Changes inside index sections are data this layer cannot judge; structural ones are refused. */
    assert_true(accepted > 0);
    free(buf);
}

/* Sets a header or table field and reseals, so only the structural check can answer. */
static void put_le(unsigned char *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; ++i) p[i] = (unsigned char)(v >> (8 * i));
}

static sinew_result load_edited(const unsigned char *buf, size_t size, size_t at, uint64_t value, int bytes)
{
    unsigned char *copy = (unsigned char *)malloc(size);
    memcpy(copy, buf, size);
    put_le(copy + at, value, bytes);
    support_reseal(copy, size);
    sinew_result r = load_sample(copy, size, NULL);
    free(copy);
    return r;
}

/* Zero padding longer than the alignment asks for (a whole block more at
 * the end, or before the last section): the data would have two spellings,
 * so it is refused, with what the writer would give. */
static void longer_padding_is_refused(const unsigned char *buf, size_t size)
{
    unsigned char *longer = (unsigned char *)calloc(size + 64, 1);
    memcpy(longer, buf, size);
    put_le(longer + 24, size + 64, 8);
    support_reseal(longer, size + 64);
    assert_int_equal(load_sample(longer, size + 64, NULL), SINEW_ERROR_INVALID_DATA);
    assert_non_null(strstr(sinew_last_error(), "but the sections end at"));
    const uint32_t n = (uint32_t)longer[20] | (uint32_t)longer[21] << 8;
    unsigned char *last = longer + 64 + 32 * (size_t)(n - 1);
    uint64_t at = 0;
    for (int i = 0; i < 8; ++i) at |= (uint64_t)last[16 + i] << (8 * i);
    memmove(longer + at + 64, buf + at, size - (size_t)at);
    memset(longer + at, 0, 64);
    put_le(last + 16, at + 64, 8);
    support_reseal(longer, size + 64);
    assert_int_equal(load_sample(longer, size + 64, NULL), SINEW_ERROR_INVALID_DATA);
    assert_non_null(strstr(sinew_last_error(), "not at"));
    free(longer);
}

static void structural_defects_are_named(void **state)
{
    (void)state;
    sample s;
    sample_init(&s);
    size_t size;
    unsigned char *buf = save_sample(&s, &size);
    const size_t entry1 = 64 + 32; /* IDX8 */
    /* A newer format version: UNSUPPORTED, and the info still says what it is. */
    assert_int_equal(load_edited(buf, size, 8, SINEW_FORMAT_VERSION + 1, 4), SINEW_ERROR_UNSUPPORTED);
    assert_non_null(strstr(sinew_last_error(), "newer"));
    assert_int_equal(load_edited(buf, size, 8, 0, 4), SINEW_ERROR_INVALID_DATA);
    /* Another kind: MISMATCH naming both. */
    assert_int_equal(load_edited(buf, size, 16, SINEW_KIND_SKIN, 4), SINEW_ERROR_MISMATCH);
    assert_non_null(strstr(sinew_last_error(), "holds a skin, not a lattice"));
    assert_int_equal(load_edited(buf, size, 16, 99, 4), SINEW_ERROR_INVALID_DATA);
    assert_non_null(strstr(sinew_last_error(), "unknown kind 99"));
    /* Too many sections, a table past the end. */
    assert_int_equal(load_edited(buf, size, 20, 65, 4), SINEW_ERROR_INVALID_DATA);
    /* Reserved header bytes. */
    assert_int_equal(load_edited(buf, size, 50, 1, 1), SINEW_ERROR_INVALID_DATA);
    assert_non_null(strstr(sinew_last_error(), "reserved"));
    /* Table entries: unknown type, misaligned offset, offset past the end, a count past the end,
     * overlapping sections, duplicate tags, nonzero reserved bytes. */
    assert_int_equal(load_edited(buf, size, entry1 + 4, 9, 4), SINEW_ERROR_INVALID_DATA);
    assert_non_null(strstr(sinew_last_error(), "section IDX8 has unknown type 9"));
    assert_int_equal(load_edited(buf, size, entry1 + 16, 400, 8), SINEW_ERROR_INVALID_DATA);
    assert_non_null(strstr(sinew_last_error(), "misaligned"));
    assert_int_equal(load_edited(buf, size, entry1 + 16, size, 8), SINEW_ERROR_INVALID_DATA);
    assert_int_equal(load_edited(buf, size, entry1 + 8, UINT64_MAX / 2, 8), SINEW_ERROR_INVALID_DATA);
    assert_int_equal(load_edited(buf, size, entry1 + 16, 320, 8), SINEW_ERROR_INVALID_DATA);
    assert_non_null(strstr(sinew_last_error(), "overlaps"));
    assert_int_equal(load_edited(buf, size, entry1, TAG_PARM, 4), SINEW_ERROR_INVALID_DATA);
    assert_non_null(strstr(sinew_last_error(), "appears twice"));
    assert_int_equal(load_edited(buf, size, entry1 + 24, 1, 1), SINEW_ERROR_INVALID_DATA);
    /* Nonzero padding between sections and at the end. */
    assert_int_equal(load_edited(buf, size, 320 + 30, 1, 1), SINEW_ERROR_INVALID_DATA);
    assert_non_null(strstr(sinew_last_error(), "padding"));
    assert_int_equal(load_edited(buf, size, size - 1, 1, 1), SINEW_ERROR_INVALID_DATA);
    longer_padding_is_refused(buf, size);
    /* A NaN or infinity in a float section: NON_FINITE naming the section and element. */
    assert_int_equal(load_edited(buf, size, 640 + 8, 0x7fc00000u, 4), SINEW_ERROR_NON_FINITE);
    assert_non_null(strstr(sinew_last_error(), "section POSF element 2"));
    assert_int_equal(load_edited(buf, size, 704 + 8, 0x7ff0000000000000ull, 8), SINEW_ERROR_NON_FINITE);
    /* A section of the wrong type or size is named by the reader's calls. */
    assert_int_equal(load_edited(buf, size, entry1 + 4, SN_IO_U16, 4), SINEW_ERROR_INVALID_DATA);
    assert_non_null(strstr(sinew_last_error(), "IDX8 holds u16 elements, expected u8"));
    assert_int_equal(load_edited(buf, size, entry1 + 8, 6, 8), SINEW_ERROR_INVALID_DATA);
    assert_non_null(strstr(sinew_last_error(), "IDX8 holds 6 elements, expected 5"));
    /* A missing section. */
    assert_int_equal(load_edited(buf, size, entry1, SN_TAG('X', 'X', 'X', 'X'), 4), SINEW_ERROR_INVALID_DATA);
    assert_non_null(strstr(sinew_last_error(), "section IDX8 is missing"));
    /* A NULL pointer and data that is not sinew's. */
    assert_int_equal(load_sample(NULL, size, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    assert_int_equal(load_sample("hello, world, this is some text that is longer than sixty-four bytes.", 64, NULL),
                     SINEW_ERROR_INVALID_DATA);
    assert_non_null(strstr(sinew_last_error(), "magic"));
    free(buf);
}

static void saved_info_describes_the_data(void **state)
{
    (void)state;
    sample s;
    sample_init(&s);
    size_t size;
    unsigned char *buf = save_sample(&s, &size);
    sinew_saved_info info;
    SINEW_INIT(&info);
    assert_int_equal(sinew_saved_get_info(buf, size, &info), SINEW_OK);
    assert_int_equal(info.kind, SINEW_KIND_LATTICE);
    /* A lattice's layout is that of version 1, so its data says 1. */
    assert_int_equal(info.format_version, 1);
    assert_int_equal(info.library_version, SINEW_VERSION_NUMBER);
    assert_int_equal(info.section_count, 7);
    assert_int_equal(info.size, size);
    assert_string_equal(sinew_kind_string(info.kind), "lattice");
    assert_string_equal(sinew_kind_string((sinew_kind)42), "unknown kind");
    /* A newer version still reports its header. */
    put_le(buf + 8, SINEW_FORMAT_VERSION + 3, 4);
    support_reseal(buf, size);
    SINEW_INIT(&info);
    assert_int_equal(sinew_saved_get_info(buf, size, &info), SINEW_ERROR_UNSUPPORTED);
    assert_int_equal(info.format_version, SINEW_FORMAT_VERSION + 3);
    assert_int_equal(info.kind, SINEW_KIND_LATTICE);
    /* A truncated buffer writes nothing into info. */
    put_le(buf + 8, 1, 4);
    support_reseal(buf, size);
    sinew_saved_info untouched;
    SINEW_INIT(&untouched);
    untouched.section_count = 1234;
    assert_int_equal(sinew_saved_get_info(buf, size - 64, &untouched), SINEW_ERROR_INVALID_DATA);
    assert_int_equal(untouched.section_count, 1234);
    assert_non_null(strstr(sinew_last_error(), "truncated"));
    /* A NaN in a float section, resealed: INVALID_DATA (the documented code for
     * a buffer that is no valid spelling), naming the section and element. */
    unsigned char *nan_buf = (unsigned char *)malloc(size);
    memcpy(nan_buf, buf, size);
    put_le(nan_buf + 640 + 8, 0x7fc00000u, 4);
    support_reseal(nan_buf, size);
    assert_int_equal(sinew_saved_get_info(nan_buf, size, &untouched), SINEW_ERROR_INVALID_DATA);
    assert_int_equal(untouched.section_count, 1234);
    assert_non_null(strstr(sinew_last_error(), "section POSF element 2 is not finite"));
    free(nan_buf);
    /* An info struct not initialised is refused by name. */
    sinew_saved_info zeroed;
    memset(&zeroed, 0, sizeof zeroed);
    assert_int_equal(sinew_saved_get_info(buf, size, &zeroed), SINEW_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(sinew_last_error(), "SINEW_INIT"));
    free(buf);
}

static void write_too_many(sn_writer *w, const void *handle)
{
    (void)handle;
    for (uint32_t i = 0; i < SN_IO_MAX_SECTIONS + 1; ++i) sn_write_section(w, SN_TAG('S', 'E', 'C', 'A' + i), SN_IO_U8, NULL, 0);
}

static void too_many_sections_fail_the_save(void **state)
{
    (void)state;
    size_t size = 77;
    int dummy = 0;
    assert_int_equal(sn_save(SINEW_KIND_SKIN, write_too_many, &dummy, NULL, 0, &size, "many"),
                     SINEW_ERROR_SIZE_OVERFLOW);
    assert_non_null(strstr(sinew_last_error(), "more than 64 sections"));
    assert_int_equal(size, 77);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sections_round_trip_aligned_and_little_endian),
        cmocka_unit_test(save_contract),
        cmocka_unit_test(every_corruption_is_caught),
        cmocka_unit_test(structural_defects_are_named),
        cmocka_unit_test(saved_info_describes_the_data),
        cmocka_unit_test(too_many_sections_fail_the_save),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
