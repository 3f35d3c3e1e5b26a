/* Contract of the bone-link calls in include/sinew/skin_tools.h
 * (sinew_skin_bone_links, sinew_skin_link_rotations): every bad argument gets
 * its documented code and a message naming it, and nothing is written. */
#include <math.h>
#include <string.h>

#include "contract.h"

#define JOINTS 3
#define VERTICES 2
#define SLOTS 2
#define NOP SINEW_SKIN_NO_PARENT

/* Shoulder, elbow, wrist along x. */
static const uint32_t parents[JOINTS] = {NOP, 0, 1};
static const float inverse_bind[16 * JOINTS] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0,  0, 0, 1,
                                                1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -1, 0, 0, 1,
                                                1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -2, 0, 0, 1};
static const uint32_t in_joints[VERTICES * SLOTS] = {0, 1, 1, 2};
static const float in_weights[VERTICES * SLOTS] = {0.5f, 0.5f, 0.25f, 0.75f};

/* Outputs in the scratch buffer. */
#define OUT_PARENTS SCRATCH(uint32_t, 256)
#define OUT_IB SCRATCH(float, 1024)
#define OUT_COUNT SCRATCH(size_t, 4096)
#define OUT_JOINTS SCRATCH(uint32_t, 32768)
#define OUT_WEIGHTS SCRATCH(float, 40960)
#define CAPACITY 8

static sinew_skin_links_desc three_links(void)
{
    sinew_skin_links_desc d;
    SINEW_INIT(&d);
    d.link_count = 3;
    return d;
}

/* The whole call with each argument replaceable. */
typedef struct links_call {
    size_t joint_count;
    const uint32_t *parents;
    const float *inverse_bind;
    uint32_t joint;
    sinew_skin_links_desc desc;
    const sinew_skin_links_desc *desc_ptr;   /* NULL = &desc */
    size_t vertex_count, slots;
    const uint32_t *in_joints;
    const float *in_weights;
    uint32_t *out_parents;
    float *out_ib;
    size_t capacity;
    size_t *count;
    uint32_t *out_joints;
    float *out_weights;
    sinew_skin_links_report *report;
} links_call;

static links_call good(void)
{
    links_call c = {JOINTS, parents, inverse_bind, 1, three_links(), NULL, VERTICES, SLOTS, in_joints, in_weights,
                    OUT_PARENTS, OUT_IB, CAPACITY, OUT_COUNT, OUT_JOINTS, OUT_WEIGHTS, NULL};
    return c;
}

static sinew_result run(links_call c)
{
    return sinew_skin_bone_links(NULL, c.joint_count, c.parents, c.inverse_bind, c.joint, c.desc_ptr ? c.desc_ptr : &c.desc,
                                 c.vertex_count, c.slots, c.in_joints, c.in_weights, c.out_parents, c.out_ib,
                                 c.capacity, c.count, c.out_joints, c.out_weights, c.report);
}

static sinew_result with_parents(uint32_t j0, uint32_t j1, uint32_t j2)
{
    static uint32_t p[JOINTS];
    p[0] = j0, p[1] = j1, p[2] = j2;
    links_call c = good();
    c.parents = p;
    return run(c);
}

static sinew_result with_ib_element(size_t index, float value)
{
    static float m[16 * JOINTS];
    memcpy(m, inverse_bind, sizeof m);
    m[index] = value;
    links_call c = good();
    c.inverse_bind = m;
    return run(c);
}

static sinew_result with_weight(size_t slot, float value, uint32_t joint)
{
    static uint32_t j[VERTICES * SLOTS];
    static float w[VERTICES * SLOTS];
    memcpy(j, in_joints, sizeof j);
    memcpy(w, in_weights, sizeof w);
    w[slot] = value, j[slot] = joint;
    links_call c = good();
    c.in_joints = j, c.in_weights = w;
    return run(c);
}

static sinew_result with_desc(uint32_t links, float angle, float range)
{
    links_call c = good();
    c.desc.link_count = links, c.desc.max_link_angle = angle, c.desc.range_of_motion = range;
    return run(c);
}

static sinew_result with_desc_size(size_t size)
{
    links_call c = good();
    c.desc.struct_size = size;
    return run(c);
}

/* A desc from a newer header whose unknown field is set. */
static sinew_result with_larger_desc(void)
{
    static struct {
        sinew_skin_links_desc d;
        uint64_t newer;
    } big;
    memset(&big, 0, sizeof big);
    big.d = three_links();
    big.d.struct_size = sizeof big;
    big.newer = 1;
    links_call c = good();
    c.desc_ptr = &big.d;
    return run(c);
}

static sinew_result without_desc(void)
{
    return sinew_skin_bone_links(NULL, JOINTS, parents, inverse_bind, 1, NULL, VERTICES, SLOTS, in_joints, in_weights,
                                 OUT_PARENTS, OUT_IB, CAPACITY, OUT_COUNT, OUT_JOINTS, OUT_WEIGHTS, NULL);
}

static sinew_result with_report_size(size_t size)
{
    links_call c = good();
    c.report = OUT_STRUCT(sinew_skin_links_report, 8192);
    c.report->struct_size = size;
    contract_resnapshot();
    return run(c);
}

static sinew_result with_outputs(uint32_t *out_parents, float *out_ib, uint32_t *out_joints, float *out_weights)
{
    links_call c = good();
    c.out_parents = out_parents, c.out_ib = out_ib, c.out_joints = out_joints, c.out_weights = out_weights;
    return run(c);
}

static sinew_result with_counts(size_t joint_count, uint32_t joint, size_t vertex_count, size_t slots)
{
    links_call c = good();
    c.joint_count = joint_count, c.joint = joint, c.vertex_count = vertex_count, c.slots = slots;
    return run(c);
}

/* BUFFER_TOO_SMALL sets the count (kept outside the scratch buffer here,
 * checked) and writes nothing else. */
static sinew_result short_capacity(void)
{
    static size_t count;
    count = 0;
    links_call c = good();
    c.capacity = JOINTS + 1, c.count = &count;
    sinew_result r = run(c);
    return count == JOINTS + 2 ? r : SINEW_ERROR_PLAIN;
}

static sinew_result query(void)
{
    links_call c = good();
    c.out_parents = NULL, c.out_ib = NULL, c.out_joints = NULL, c.out_weights = NULL;
    c.report = OUT_STRUCT(sinew_skin_links_report, 8192);
    sinew_result r = run(c);
    return *OUT_COUNT == JOINTS + 2 && c.report->link_count == 3 ? r : SINEW_ERROR_PLAIN;
}

/* ---- pose time -------------------------------------------------------------------- */

static const float rest[4] = {0, 0, 0, 1};
static const float x_axis[3] = {1, 0, 0};

static sinew_result rotations(const float *q, const float *axis, size_t n, float *out)
{
    return sinew_skin_link_rotations(q, axis, n, out);
}
static sinew_result rotation_component(int i, float value)
{
    static float q[4];
    memcpy(q, rest, sizeof q);
    q[i] = value;
    return rotations(q, x_axis, 3, OUT_F);
}
static sinew_result axis_component(int i, float value)
{
    static float a[3];
    memcpy(a, x_axis, sizeof a);
    a[i] = value;
    return rotations(rest, a, 3, OUT_F);
}

#define CASES(X) \
    X(links_null_parents, INVALID_ARGUMENT, "parents", \
      { links_call c = good(); c.parents = NULL; return run(c); }) \
    X(links_null_inverse_bind, INVALID_ARGUMENT, "inverse_bind", \
      { links_call c = good(); c.inverse_bind = NULL; return run(c); }) \
    X(links_null_count, INVALID_ARGUMENT, "out_joint_count", \
      { links_call c = good(); c.count = NULL; return run(c); }) \
    X(links_null_out_parents_only, INVALID_ARGUMENT, "out_parents is NULL", \
      { return with_outputs(NULL, OUT_IB, OUT_JOINTS, OUT_WEIGHTS); }) \
    X(links_null_out_inverse_bind_only, INVALID_ARGUMENT, "out_inverse_bind is NULL", \
      { return with_outputs(OUT_PARENTS, NULL, OUT_JOINTS, OUT_WEIGHTS); }) \
    X(links_null_out_joints, INVALID_ARGUMENT, "out_joints", \
      { return with_outputs(OUT_PARENTS, OUT_IB, NULL, OUT_WEIGHTS); }) \
    X(links_null_out_weights, INVALID_ARGUMENT, "out_weights", \
      { return with_outputs(OUT_PARENTS, OUT_IB, OUT_JOINTS, NULL); }) \
    X(links_misaligned_out_inverse_bind, INVALID_ARGUMENT, "out_inverse_bind is not aligned", \
      { return with_outputs(OUT_PARENTS, MISALIGNED(float, OUT_IB), OUT_JOINTS, OUT_WEIGHTS); }) \
    X(links_misaligned_out_weights, INVALID_ARGUMENT, "out_weights is not aligned", \
      { return with_outputs(OUT_PARENTS, OUT_IB, OUT_JOINTS, MISALIGNED(float, OUT_WEIGHTS)); }) \
    X(links_misaligned_parents, INVALID_ARGUMENT, "parents is not aligned", \
      { links_call c = good(); c.parents = MISALIGNED(const uint32_t, parents); return run(c); }) \
    X(links_no_joints, INVALID_ARGUMENT, "no joints", { return with_counts(0, 0, VERTICES, SLOTS); }) \
    X(links_joint_count_above_skin_limit, UNSUPPORTED, "70000 joints", { return with_counts(70000, 1, VERTICES, SLOTS); }) \
    X(links_joint_count_size_max, UNSUPPORTED, "joints", { return with_counts(SIZE_MAX, 1, VERTICES, SLOTS); }) \
    X(links_chain_above_skin_limit, UNSUPPORTED, "65537 joints", { return with_counts(65535, 1, VERTICES, SLOTS); }) \
    X(links_joint_out_of_range, INDEX_OUT_OF_RANGE, "joint 3", { return with_counts(JOINTS, 3, VERTICES, SLOTS); }) \
    X(links_joint_is_root, INVALID_ARGUMENT, "joint 0 is a root", { return with_counts(JOINTS, 0, VERTICES, SLOTS); }) \
    X(links_no_vertices, INVALID_ARGUMENT, "no vertices", { return with_counts(JOINTS, 1, 0, SLOTS); }) \
    X(links_zero_slots, INVALID_ARGUMENT, "0 slots", { return with_counts(JOINTS, 1, VERTICES, 0); }) \
    X(links_slots_size_max_4, SIZE_OVERFLOW, "slots", { return with_counts(JOINTS, 1, VERTICES, SIZE_MAX / 4); }) \
    X(links_slots_past_ptrdiff_max, SIZE_OVERFLOW, "slots", { return with_counts(JOINTS, 1, VERTICES, SIZE_MAX / 8); }) \
    X(links_vertices_size_max, SIZE_OVERFLOW, "vertices", { return with_counts(JOINTS, 1, SIZE_MAX, SLOTS); }) \
    X(links_parent_out_of_range, INDEX_OUT_OF_RANGE, "joint 2 has parent 7", { return with_parents(NOP, 0, 7); }) \
    X(links_own_parent, INVALID_ARGUMENT, "joint 2 is its own parent", { return with_parents(NOP, 0, 2); }) \
    X(links_cyclic_parents, INVALID_ARGUMENT, "form a cycle", { return with_parents(1, 2, 0); }) \
    X(links_inverse_bind_nan, NON_FINITE, "joint 2 has a non-finite element", { return with_ib_element(32 + 5, NAN); }) \
    X(links_inverse_bind_infinite, NON_FINITE, "joint 0", { return with_ib_element(12, INFINITY); }) \
    X(links_inverse_bind_not_affine, INVALID_ARGUMENT, "joint 1 is not affine", { return with_ib_element(16 + 15, 2); }) \
    X(links_inverse_bind_singular, DEGENERATE, "joint 1 is singular", { return with_ib_element(16 + 10, 0); }) \
    X(links_child_inverse_bind_singular, DEGENERATE, "joint 2 is singular", { return with_ib_element(32 + 5, 0); }) \
    X(links_link_count_above_max, INVALID_ARGUMENT, "link_count 65", { return with_desc(65, 0, 0); }) \
    X(links_no_link_count_no_range, INVALID_ARGUMENT, "range_of_motion", { return with_desc(0, 0, 0); }) \
    X(links_range_negative, INVALID_ARGUMENT, "range_of_motion -1", { return with_desc(0, 0, -1); }) \
    X(links_range_nan, NON_FINITE, "range_of_motion", { return with_desc(0, 0, NAN); }) \
    X(links_angle_above_half_turn, INVALID_ARGUMENT, "max_link_angle 4", { return with_desc(0, 4, 3); }) \
    X(links_angle_infinite, NON_FINITE, "max_link_angle", { return with_desc(3, INFINITY, 0); }) \
    X(links_too_many_links_for_range, INVALID_ARGUMENT, "links, above", { return with_desc(0, 0.001f, 6); }) \
    X(links_desc_struct_size_zero, INVALID_ARGUMENT, "SINEW_INIT", { return with_desc_size(0); }) \
    X(links_desc_larger_with_garbage, UNSUPPORTED, "desc", { return with_larger_desc(); }) \
    X(links_report_struct_size_zero, INVALID_ARGUMENT, "SINEW_INIT", { return with_report_size(0); }) \
    X(links_null_in_joints, INVALID_ARGUMENT, "joint array", \
      { links_call c = good(); c.in_joints = NULL; return run(c); }) \
    X(links_null_in_weights, INVALID_ARGUMENT, "weight array", \
      { links_call c = good(); c.in_weights = NULL; return run(c); }) \
    X(links_weight_nan, NON_FINITE, "vertex 1 slot 0", { return with_weight(2, NAN, 1); }) \
    X(links_weight_negative, INVALID_WEIGHTS, "vertex 1 slot 1", { return with_weight(3, -0.5f, 2); }) \
    X(links_weighted_joint_out_of_range, INDEX_OUT_OF_RANGE, "vertex 1 slot 1 names joint 3", \
      { return with_weight(3, 0.5f, 3); }) \
    X(links_short_capacity, BUFFER_TOO_SMALL, "capacity 4", { return short_capacity(); }) \
    X(links_ok, OK, NULL, { return run(good()); }) \
    X(links_zero_weight_slot_naming_any_joint_ok, OK, NULL, { return with_weight(3, 0.0f, 99); }) \
    X(links_null_desc_needs_a_range, INVALID_ARGUMENT, "range_of_motion", { return without_desc(); }) \
    X(links_query_ok, OK, NULL, { return query(); }) \
    /* pose time */ \
    X(rotations_null_rotation, INVALID_ARGUMENT, "rotation", { return rotations(NULL, x_axis, 3, OUT_F); }) \
    X(rotations_null_axis, INVALID_ARGUMENT, "bone_axis", { return rotations(rest, NULL, 3, OUT_F); }) \
    X(rotations_null_output, INVALID_ARGUMENT, "link_rotations", { return rotations(rest, x_axis, 3, NULL); }) \
    X(rotations_misaligned_output, INVALID_ARGUMENT, "link_rotations is not aligned", \
      { return rotations(rest, x_axis, 3, MISALIGNED(float, OUT_F)); }) \
    X(rotations_zero_links, INVALID_ARGUMENT, "link_count 0", { return rotations(rest, x_axis, 0, OUT_F); }) \
    X(rotations_too_many_links, INVALID_ARGUMENT, "link_count 65", { return rotations(rest, x_axis, 65, OUT_F); }) \
    X(rotations_links_size_max, INVALID_ARGUMENT, "link_count", { return rotations(rest, x_axis, SIZE_MAX, OUT_F); }) \
    X(rotations_rotation_nan, NON_FINITE, "rotation y", { return rotation_component(1, NAN); }) \
    X(rotations_zero_quaternion, INVALID_ARGUMENT, "zero quaternion", { return rotation_component(3, 0); }) \
    X(rotations_axis_infinite, NON_FINITE, "bone_axis z", { return axis_component(2, -INFINITY); }) \
    X(rotations_zero_axis, INVALID_ARGUMENT, "bone_axis is (0, 0, 0)", { return axis_component(0, 0); }) \
    X(rotations_ok, OK, NULL, { return rotations(rest, x_axis, 3, OUT_F); }) \
    X(rotations_huge_quaternion_ok, OK, NULL, { return rotation_component(3, 3e38f); })

CASES(CONTRACT_DEFINE)
static const contract_case cases[] = {CASES(CONTRACT_ENTRY)};

int main(void)
{
    static const contract_hooks hooks = {NULL, NULL, NULL, NULL};
    return contract_run("contract-skin-links", cases, sizeof cases / sizeof cases[0], &hooks);
}
