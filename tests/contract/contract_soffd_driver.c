/* Contract of include/sinew/soffd_driver.h: sinew_soffd_driver_from_skin and
 * its defaults query, on a tetrahedron's surface. */
#include <math.h>
#include <string.h>

#include "contract.h"

static const float positions[4 * 3] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
static const uint32_t triangles[4 * 3] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
static const uint16_t triangles16[4 * 3] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
static const float joints[3 * 3] = {0, 0, 0, 0.5f, 0, 0, 1, 0, 0};
static const uint32_t bones[2 * 2] = {0, 1, 1, 2};

#define REPORT OUT_STRUCT(sinew_soffd_driver_report, 16384)

typedef struct driver_case {
    float pos[12];
    uint32_t tris[12];
    uint32_t sizes[4];
    float joints[9];
    uint32_t bones[4];
    sinew_polymesh mesh;
    sinew_soffd_driver_desc desc;
} driver_case;

/* A case's inputs, valid until changed: the tetrahedron, target 4, the
 * three-joint skeleton. */
static driver_case *fresh(void)
{
    static driver_case c;
    memcpy(c.pos, positions, sizeof c.pos);
    memcpy(c.tris, triangles, sizeof c.tris);
    memcpy(c.joints, joints, sizeof c.joints);
    memcpy(c.bones, bones, sizeof c.bones);
    for (int i = 0; i < 4; ++i) c.sizes[i] = 3;
    c.mesh = (sinew_polymesh){{c.pos, 4, 0}, c.tris, NULL, 4, SINEW_INDEX_U32};
    SINEW_INIT(&c.desc);
    c.desc.target_triangle_count = 4;
    c.desc.joint_positions = (sinew_points){c.joints, 3, 0};
    c.desc.bones = c.bones;
    c.desc.bone_count = 2;
    return &c;
}

static sinew_result run(driver_case *c)
{
    return sinew_soffd_driver_from_skin(NULL, &c->mesh, &c->desc, OUT_F, 16, OUT2_U32, 16, REPORT);
}

static sinew_result sizes_only(driver_case *c)
{
    return sinew_soffd_driver_from_skin(NULL, &c->mesh, &c->desc, NULL, 0, NULL, 0, REPORT);
}

static sinew_result with_option(int which, float value)
{
    driver_case *c = fresh();
    float *fields[] = {&c->desc.max_error, &c->desc.weld_tolerance, &c->desc.joint_emphasis, &c->desc.joint_radius};
    *fields[which] = value;
    return run(c);
}

static sinew_result no_target(void)
{
    driver_case *c = fresh();
    c->desc.target_triangle_count = 0;
    return run(c);
}

static sinew_result vertex_nan(void)
{
    driver_case *c = fresh();
    c->pos[3 * 2 + 1] = NAN;
    return run(c);
}

static sinew_result face_index(uint32_t v)
{
    driver_case *c = fresh();
    c->tris[3 * 1 + 2] = v;
    return run(c);
}

static sinew_result face_size(uint32_t n)
{
    driver_case *c = fresh();
    c->sizes[0] = n;
    c->mesh.face_sizes = c->sizes;
    return run(c);
}

static sinew_result polygons_ok(void)
{
    driver_case *c = fresh();
    c->mesh.face_sizes = c->sizes;
    return run(c);
}

static sinew_result u16_ok(void)
{
    driver_case *c = fresh();
    c->mesh.indices = triangles16;
    c->mesh.index_type = SINEW_INDEX_U16;
    return run(c);
}

static sinew_result no_indices(void)
{
    driver_case *c = fresh();
    c->mesh.indices = NULL;
    return run(c);
}

static sinew_result no_faces(void)
{
    driver_case *c = fresh();
    c->mesh.face_count = 0;
    return run(c);
}

static sinew_result bone(int slot, uint32_t joint)
{
    driver_case *c = fresh();
    c->bones[slot] = joint;
    return run(c);
}

static sinew_result bones_null(void)
{
    driver_case *c = fresh();
    c->desc.bones = NULL;
    return run(c);
}

static sinew_result joint_nan(void)
{
    driver_case *c = fresh();
    c->joints[3 * 1 + 2] = NAN;
    return run(c);
}

static sinew_result flat(void)
{
    driver_case *c = fresh();
    for (int i = 0; i < 12; ++i) c->pos[i] = 1.0f;
    return run(c);
}

static sinew_result one_output(void)
{
    driver_case *c = fresh();
    return sinew_soffd_driver_from_skin(NULL, &c->mesh, &c->desc, OUT_F, 16, NULL, 0, REPORT);
}

static sinew_result misaligned(void)
{
    driver_case *c = fresh();
    return sinew_soffd_driver_from_skin(NULL, &c->mesh, &c->desc, MISALIGNED(float, OUT_F), 16, OUT2_U32, 16,
                                        REPORT);
}

static sinew_result too_small(void)
{
    driver_case *c = fresh();
    /* The report is written on BUFFER_TOO_SMALL, so it lives outside the scratch. */
    sinew_soffd_driver_report rep;
    SINEW_INIT(&rep);
    return sinew_soffd_driver_from_skin(NULL, &c->mesh, &c->desc, OUT_F, 3, OUT2_U32, 16, &rep);
}

static sinew_result null_report(void)
{
    driver_case *c = fresh();
    return sinew_soffd_driver_from_skin(NULL, &c->mesh, &c->desc, OUT_F, 16, OUT2_U32, 16, NULL);
}

static sinew_result report_uninitialised(void)
{
    driver_case *c = fresh();
    sinew_soffd_driver_report *rep = REPORT;
    rep->struct_size = 0;
    contract_resnapshot();
    return sinew_soffd_driver_from_skin(NULL, &c->mesh, &c->desc, OUT_F, 16, OUT2_U32, 16, rep);
}

static int cancel(void *user, const char *stage, float fraction)
{
    (void)user, (void)stage, (void)fraction;
    return 1;
}

static sinew_result cancelled(void)
{
    sinew_context_desc cd = {sizeof(sinew_context_desc), {NULL, NULL, NULL}, cancel, NULL, NULL, NULL, 0};
    sinew_context *ctx = NULL;
    if (sinew_context_create(&cd, &ctx) != SINEW_OK) return SINEW_ERROR_OUT_OF_MEMORY;
    driver_case *c = fresh();
    sinew_result r = sinew_soffd_driver_from_skin(ctx, &c->mesh, &c->desc, OUT_F, 16, OUT2_U32, 16, REPORT);
    sinew_context_destroy(ctx);
    return r;
}

static sinew_result defaults(const sinew_soffd_driver_desc *desc)
{
    return sinew_soffd_driver_desc_defaults(desc, OUT_STRUCT(sinew_soffd_driver_desc, 16384));
}

#define CASES(X) \
    X(null_mesh, INVALID_ARGUMENT, "mesh", { return sinew_soffd_driver_from_skin(NULL, NULL, &fresh()->desc, NULL, 0, NULL, 0, REPORT); }) \
    X(null_desc, INVALID_ARGUMENT, "desc", { return sinew_soffd_driver_from_skin(NULL, &fresh()->mesh, NULL, NULL, 0, NULL, 0, REPORT); }) \
    X(null_report, INVALID_ARGUMENT, "report", { return null_report(); }) \
    X(report_uninitialised, INVALID_ARGUMENT, "SINEW_INIT", { return report_uninitialised(); }) \
    X(no_target, INVALID_ARGUMENT, "neither", { return no_target(); }) \
    X(max_error_nan, INVALID_ARGUMENT, "max_error", { return with_option(0, NAN); }) \
    X(max_error_negative, INVALID_ARGUMENT, "max_error", { return with_option(0, -1.0f); }) \
    X(weld_tolerance_large, INVALID_ARGUMENT, "weld_tolerance", { return with_option(1, 0.5f); }) \
    X(joint_emphasis_negative, INVALID_ARGUMENT, "joint_emphasis", { return with_option(2, -1.0f); }) \
    X(joint_radius_infinite, INVALID_ARGUMENT, "joint_radius", { return with_option(3, INFINITY); }) \
    X(one_output, INVALID_ARGUMENT, "out_triangles", { return one_output(); }) \
    X(misaligned_output, INVALID_ARGUMENT, "out_positions", { return misaligned(); }) \
    X(vertex_nan, NON_FINITE, "skin vertex 2", { return vertex_nan(); }) \
    X(face_index, INDEX_OUT_OF_RANGE, "skin face 1 refers to vertex 4", { return face_index(4); }) \
    X(face_size_two, INVALID_ARGUMENT, "skin face 0 has 2", { return face_size(2); }) \
    X(no_indices, INVALID_ARGUMENT, "indices", { return no_indices(); }) \
    X(no_faces, INVALID_ARGUMENT, "no faces", { return no_faces(); }) \
    X(bone_joint, INDEX_OUT_OF_RANGE, "bone 1 refers to joint 3", { return bone(3, 3); }) \
    X(bone_self, INVALID_ARGUMENT, "bone 0 joins joint 1 to itself", { return bone(0, 1); }) \
    X(bones_null, INVALID_ARGUMENT, "bones", { return bones_null(); }) \
    X(joint_nan, NON_FINITE, "joint 1", { return joint_nan(); }) \
    X(no_extent, DEGENERATE, "extent", { return flat(); }) \
    X(buffer_too_small, BUFFER_TOO_SMALL, "4 vertices", { return too_small(); }) \
    X(cancelled, CANCELLED, "soffd: driver", { return cancelled(); }) \
    X(ok, OK, NULL, { return run(fresh()); }) \
    X(sizes_ok, OK, NULL, { return sizes_only(fresh()); }) \
    X(polygons_ok, OK, NULL, { return polygons_ok(); }) \
    X(u16_ok, OK, NULL, { return u16_ok(); }) \
    X(defaults_null_resolved, INVALID_ARGUMENT, "resolved", { return sinew_soffd_driver_desc_defaults(NULL, NULL); }) \
    X(defaults_ok, OK, NULL, { return defaults(&fresh()->desc); })

CASES(CONTRACT_DEFINE)
static const contract_case cases[] = {CASES(CONTRACT_ENTRY)};

int main(void)
{
    static const contract_hooks hooks = {NULL, NULL, NULL, NULL};
    return contract_run("contract-soffd-driver", cases, sizeof cases / sizeof cases[0], &hooks);
}
