/* Real data: Khronos' RiggedFigure (glTF, embedded buffers) posed by its own
 * animation at several times and skinned by sinew, against a plain
 * double-precision linear blend skinning written here. Skips when the shared
 * data folder is absent. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gltf_reader.h"
#include "support.h"

typedef struct fixture {
    gltf_model model;
    double size;   /* bounding-box diagonal of the rest mesh */
} fixture;

static int setup(void **state)
{
    static fixture f;
    char path[1024], err[512];
    memset(&f, 0, sizeof f);
    *state = NULL;
    if (!support_data_path("gltf/RiggedFigure.gltf", path, sizeof path)) return 0;
    if (!gltf_load(path, &f.model, err, sizeof err)) {
        fprintf(stderr, "RiggedFigure.gltf: %s\n", err);
        return -1;
    }
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t v = 0; v < f.model.vertex_count; ++v)
        for (int a = 0; a < 3; ++a) {
            lo[a] = fmin(lo[a], f.model.positions[3 * v + a]);
            hi[a] = fmax(hi[a], f.model.positions[3 * v + a]);
        }
    f.size = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                  (hi[2] - lo[2]) * (hi[2] - lo[2]));
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    if (*state) gltf_free(&((fixture *)*state)->model);
    return 0;
}

static void reader_sees_the_figure(void **state)
{
    fixture *f = (fixture *)*state;
    if (!f) skip();
    const gltf_model *m = &f->model;
    /* Counts from the file's JSON. */
    assert_int_equal(m->vertex_count, 370);
    assert_int_equal(m->index_count, 768);
    assert_int_equal(m->joint_count, 19);
    assert_int_equal(m->node_count, 22);
    assert_int_equal(m->channel_count, 57);
    assert_float_equal(m->duration, 1.25, 1e-6);
    assert_float_equal(f->size, sqrt(1.1789219379425048 * 1.1789219379425048 + 0.3258949 * 0.3258949 +
                                     1.4499199390411377 * 1.4499199390411377), 1e-5);
    for (size_t v = 0; v < m->vertex_count; ++v) {
        double sum = 0, len = 0;
        for (int s = 0; s < 4; ++s) sum += m->weights[4 * v + s];
        for (int a = 0; a < 3; ++a) len += m->normals[3 * v + a] * m->normals[3 * v + a];
        assert_float_equal(sum, 1.0, 1e-3);
        assert_float_equal(sqrt(len), 1.0, 1e-3);
    }
    /* The hierarchy: the root carries the Z-up matrix, node 1 is the mesh. */
    assert_int_equal(m->nodes[0].parent, -1);
    assert_true(m->nodes[0].has_matrix);
    assert_int_equal(m->nodes[2].parent, 21);
    assert_int_equal(m->joint_nodes[0], 2);
    /* At t = 0 the animation reproduces the rest TRS of node 2 (first keys). */
    for (size_t c = 0; c < m->channel_count; ++c)
        if (m->channels[c].node == 2 && m->channels[c].path == GLTF_TRANSLATION) {
            double t[3];
            gltf_sample(&m->channels[c], 0.0, t);
            assert_float_equal(t[2], 0.6860000491142273, 1e-7);
        }
}

static void sampler_interpolates_linear_and_step(void **state)
{
    (void)state;
    double times[] = {0.0, 1.0, 3.0};
    double values[] = {0, 0, 0, 2, 4, 6, 2, 4, 10};
    gltf_channel c = {0, GLTF_TRANSLATION, GLTF_LINEAR, 3, times, values, 3};
    double out[4];
    gltf_sample(&c, 0.25, out);
    assert_float_equal(out[1], 1.0, 1e-12);
    gltf_sample(&c, 2.0, out);
    assert_float_equal(out[2], 8.0, 1e-12);
    gltf_sample(&c, 9.0, out);   /* clamped */
    assert_float_equal(out[2], 10.0, 1e-12);
    c.interp = GLTF_STEP;
    gltf_sample(&c, 0.99, out);
    assert_float_equal(out[0], 0.0, 0);
    gltf_sample(&c, 1.0, out);
    assert_float_equal(out[0], 2.0, 0);
    /* Rotation: halfway between identity and 90 degrees about z is 45 degrees. */
    double q[] = {0, 0, 0, 1, 0, 0, sqrt(0.5), sqrt(0.5)};
    gltf_channel r = {0, GLTF_ROTATION, GLTF_LINEAR, 2, times, q, 4};
    gltf_sample(&r, 0.5, out);
    assert_float_equal(out[2], sin(3.14159265358979 / 8), 1e-9);
    assert_float_equal(out[3], cos(3.14159265358979 / 8), 1e-9);
}

/* Inverse of the 3x3 linear part of a column-major 4x4, transposed. */
static void inverse_transpose3(const double *m, double *it)
{
    double a = m[0], b = m[4], c = m[8], d = m[1], e = m[5], f = m[9], g = m[2], h = m[6], i = m[10];
    double det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g);
    /* Cofactors, divided by det: (M^-1)^T = cof(M) / det. */
    double cof[9] = {e * i - f * h, -(d * i - f * g), d * h - e * g,
                     -(b * i - c * h), a * i - c * g, -(a * h - b * g),
                     b * f - c * e, -(a * f - c * d), a * e - b * d};
    for (int k = 0; k < 9; ++k) it[k] = cof[k] / det;   /* row-major rows of M^-T */
}

static void mul4(const double *a, const double *b, double *out)
{
    for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 4; ++r) {
            double s = 0;
            for (int k = 0; k < 4; ++k) s += a[4 * k + r] * b[4 * c + k];
            out[4 * c + r] = s;
        }
}

/* Plain linear blend skinning in double: M_j = W_j B_j^-1, blended with the
 * normalised weights; normals by the blended matrix's inverse transpose (the
 * glTF viewers' convention, sinew's default), unit length. */
static void reference_skin(const gltf_model *m, const double *world, double *pos, double *nrm)
{
    size_t J = m->joint_count;
    double *skin = malloc(16 * J * sizeof *skin);
    for (size_t j = 0; j < J; ++j) mul4(world + 16 * (size_t)m->joint_nodes[j], m->inverse_bind + 16 * j, skin + 16 * j);
    for (size_t v = 0; v < m->vertex_count; ++v) {
        double a[16] = {0}, sum = 0;
        for (int s = 0; s < 4; ++s) sum += m->weights[4 * v + s];
        for (int s = 0; s < 4; ++s) {
            double w = m->weights[4 * v + s] / sum;
            if (w <= 0) continue;
            uint32_t j = m->joints[4 * v + s];
            for (int k = 0; k < 16; ++k) a[k] += w * skin[16 * j + k];
        }
        const double *p = m->positions + 3 * v, *n = m->normals + 3 * v;
        for (int r = 0; r < 3; ++r) pos[3 * v + r] = a[r] * p[0] + a[4 + r] * p[1] + a[8 + r] * p[2] + a[12 + r];
        double out[3], len = 0, it[9];
        inverse_transpose3(a, it);
        for (int r = 0; r < 3; ++r) out[r] = it[3 * r] * n[0] + it[3 * r + 1] * n[1] + it[3 * r + 2] * n[2];
        for (int r = 0; r < 3; ++r) len += out[r] * out[r];
        len = sqrt(len);
        for (int r = 0; r < 3; ++r) nrm[3 * v + r] = out[r] / len;
    }
    free(skin);
}

/* Skins the figure at time t with sinew (interleaved output, two ranges) and
 * returns the largest position and normal differences to the reference. */
static void compare_at(const fixture *f, const sinew_skin *skin, double t, double *pos_err, double *nrm_err)
{
    const gltf_model *m = &f->model;
    size_t V = m->vertex_count, J = m->joint_count;
    double *world = malloc(16 * m->node_count * sizeof *world);
    gltf_pose(m, t, world);
    float *joint_world = malloc(16 * J * sizeof *joint_world);
    for (size_t j = 0; j < J; ++j)
        for (int k = 0; k < 16; ++k) joint_world[16 * j + k] = (float)world[16 * (size_t)m->joint_nodes[j] + k];
    float *palette = malloc(sinew_skin_palette_size(skin) * sizeof *palette);
    assert_int_equal(sinew_skin_palette(skin, joint_world, J, palette, sinew_skin_palette_size(skin)), SINEW_OK);

    float *rest = malloc(6 * V * sizeof *rest);   /* interleaved input: position, normal */
    for (size_t v = 0; v < V; ++v)
        for (int a = 0; a < 3; ++a) {
            rest[6 * v + a] = (float)m->positions[3 * v + a];
            rest[6 * v + 3 + a] = (float)m->normals[3 * v + a];
        }
    float *out = malloc(8 * V * sizeof *out);   /* interleaved output with padding */
    for (size_t i = 0; i < 8 * V; ++i) out[i] = NAN;
    sinew_skin_input in = {rest, 6 * sizeof(float), rest + 3, 6 * sizeof(float), NULL, 0};
    sinew_skin_output o = {out, 8 * sizeof(float), out + 4, 8 * sizeof(float), NULL, 0};
    size_t half = V / 2 + 1;
    assert_int_equal(sinew_skin_deform(skin, palette, sinew_skin_palette_size(skin), &in, &o, half, V - half), SINEW_OK);
    assert_int_equal(sinew_skin_deform(skin, palette, sinew_skin_palette_size(skin), &in, &o, 0, half), SINEW_OK);

    double *pos = malloc(3 * V * sizeof *pos), *nrm = malloc(3 * V * sizeof *nrm);
    reference_skin(m, world, pos, nrm);
    *pos_err = *nrm_err = 0;
    for (size_t v = 0; v < V; ++v) {
        for (int a = 0; a < 3; ++a) {
            *pos_err = fmax(*pos_err, fabs(out[8 * v + a] - pos[3 * v + a]));
            *nrm_err = fmax(*nrm_err, fabs(out[8 * v + 4 + a] - nrm[3 * v + a]));
        }
        assert_true(isnan(out[8 * v + 3]) && isnan(out[8 * v + 7]));   /* padding untouched */
    }
    free(world);
    free(joint_world);
    free(palette);
    free(rest);
    free(out);
    free(pos);
    free(nrm);
}

static sinew_skin *make_skin(const gltf_model *m)
{
    size_t V = m->vertex_count, J = m->joint_count;
    float *w = malloc(4 * V * sizeof *w), *ibm = malloc(16 * J * sizeof *ibm);
    for (size_t i = 0; i < 4 * V; ++i) w[i] = (float)m->weights[i];
    for (size_t i = 0; i < 16 * J; ++i) ibm[i] = (float)m->inverse_bind[i];
    sinew_skin_desc d;
    SINEW_INIT(&d);
    d.vertex_count = V;
    d.joint_count = J;
    d.influence_count = 4;
    d.joints = m->joints;
    d.weights = w;
    d.inverse_bind = ibm;
    d.renormalise = 1;   /* the file's float weights sum to 1 only within ~1e-7 */
    sinew_skin *skin = NULL;
    sinew_result r = sinew_skin_create(NULL, &d, &skin);
    if (r != SINEW_OK) fprintf(stderr, "sinew_skin_create: %s\n", sinew_last_error());
    assert_int_equal(r, SINEW_OK);
    free(w);
    free(ibm);
    return skin;
}

static void animation_matches_double_reference(void **state)
{
    fixture *f = (fixture *)*state;
    if (!f) skip();
    sinew_skin *skin = make_skin(&f->model);
    const double times[] = {0.0, 0.2, 0.5, 0.625, 0.9, 1.25, 2.0};
    double worst_pos = 0, worst_nrm = 0;
    for (size_t i = 0; i < sizeof times / sizeof times[0]; ++i) {
        double pe, ne;
        compare_at(f, skin, times[i], &pe, &ne);
        worst_pos = fmax(worst_pos, pe);
        worst_nrm = fmax(worst_nrm, ne);
    }
    printf("RiggedFigure (linear keys): max position error %.3g (model size %.3g), max normal error %.3g\n",
           worst_pos, f->size, worst_nrm);
    assert_true(worst_pos <= 1e-5 * f->size);
    assert_true(worst_nrm <= 1e-5);
    sinew_skin_destroy(skin);
}

static void step_interpolation_matches_too(void **state)
{
    fixture *f = (fixture *)*state;
    if (!f) skip();
    gltf_model *m = &f->model;
    for (size_t c = 0; c < m->channel_count; ++c) m->channels[c].interp = GLTF_STEP;
    /* Between the first two keys a step channel holds the first key. */
    double *a = malloc(16 * m->node_count * sizeof *a), *b = malloc(16 * m->node_count * sizeof *b);
    gltf_pose(m, 0.0, a);
    gltf_pose(m, 0.9, b);
    for (size_t i = 0; i < 16 * m->node_count; ++i) assert_true(a[i] == b[i]);
    gltf_pose(m, 1.25, b);
    double moved = 0;
    for (size_t i = 0; i < 16 * m->node_count; ++i) moved = fmax(moved, fabs(a[i] - b[i]));
    assert_true(moved > 1e-3);   /* the last key is a different pose */
    sinew_skin *skin = make_skin(m);
    double worst_pos = 0, worst_nrm = 0;
    const double times[] = {0.6, 1.3};
    for (size_t i = 0; i < 2; ++i) {
        double pe, ne;
        compare_at(f, skin, times[i], &pe, &ne);
        worst_pos = fmax(worst_pos, pe);
        worst_nrm = fmax(worst_nrm, ne);
    }
    assert_true(worst_pos <= 1e-5 * f->size);
    assert_true(worst_nrm <= 1e-5);
    for (size_t c = 0; c < m->channel_count; ++c) m->channels[c].interp = GLTF_LINEAR;
    sinew_skin_destroy(skin);
    free(a);
    free(b);
}

/* The blended per-vertex matrices of the figure reproduce its deformed
 * positions (M_v p against sinew_skin_deform) at several animation times. */
static void vertex_matrices_match_deform(void **state)
{
    fixture *f = (fixture *)*state;
    if (!f) skip();
    const gltf_model *m = &f->model;
    size_t V = m->vertex_count, J = m->joint_count;
    sinew_skin *skin = make_skin(m);
    size_t n = sinew_skin_palette_size(skin);
    double *world = malloc(16 * m->node_count * sizeof *world);
    float *joint_world = malloc(16 * J * sizeof *joint_world), *palette = malloc(n * sizeof *palette);
    float *rest = malloc(3 * V * sizeof *rest), *out = malloc(3 * V * sizeof *out), *mats = malloc(16 * V * sizeof *mats);
    for (size_t i = 0; i < 3 * V; ++i) rest[i] = (float)m->positions[i];
    double worst = 0;
    const double times[] = {0.0, 0.5, 0.9};
    for (size_t t = 0; t < 3; ++t) {
        gltf_pose(m, times[t], world);
        for (size_t j = 0; j < J; ++j)
            for (int k = 0; k < 16; ++k) joint_world[16 * j + k] = (float)world[16 * (size_t)m->joint_nodes[j] + k];
        assert_int_equal(sinew_skin_palette(skin, joint_world, J, palette, n), SINEW_OK);
        sinew_skin_input in = {rest, 0, NULL, 0, NULL, 0};
        sinew_skin_output o = {out, 0, NULL, 0, NULL, 0};
        assert_int_equal(sinew_skin_deform(skin, palette, n, &in, &o, 0, V), SINEW_OK);
        assert_int_equal(sinew_skin_vertex_matrices(skin, palette, n, mats, 0, 0, V), SINEW_OK);
        for (size_t v = 0; v < V; ++v)
            for (int r = 0; r < 3; ++r) {
                const float *a = mats + 16 * v, *p = rest + 3 * v;
                double x = (double)a[r] * p[0] + (double)a[4 + r] * p[1] + (double)a[8 + r] * p[2] + a[12 + r];
                worst = fmax(worst, fabs(x - out[3 * v + r]));
            }
    }
    printf("RiggedFigure: largest |M_v p - deform| %.3g (model size %.3g)\n", worst, f->size);
    assert_true(worst <= 1e-6 * f->size);
    free(world);
    free(joint_world);
    free(palette);
    free(rest);
    free(out);
    free(mats);
    sinew_skin_destroy(skin);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sampler_interpolates_linear_and_step),
        cmocka_unit_test(reader_sees_the_figure),
        cmocka_unit_test(vertex_matrices_match_deform),
        cmocka_unit_test(animation_matches_double_reference),
        cmocka_unit_test(step_interpolation_matches_too),
    };
    return cmocka_run_group_tests_name("skin: glTF RiggedFigure", tests, setup, teardown);
}
