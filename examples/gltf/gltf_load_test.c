/* Tests of the glTF example's loader: the JSON parser, buffers (data: URIs,
 * external .bin, .glb), accessors with strides and normalised types, the
 * node hierarchy and animation sampling, each on a small document built
 * here, and the malformed documents the loader must refuse with a message
 * naming what is wrong. Needs no shared data. Exit 0 = every check passed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "animation.h"
#include "character.h"
#include "gltf.h"
#include "json.h"

static int failures = 0;

#define CHECK(cond)                                                              \
    do {                                                                         \
        if (!(cond)) {                                                           \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            ++failures;                                                          \
        }                                                                        \
    } while (0)

/* base64 of 3 floats (1, 2, 3) then 3 floats (4, 5, 6): 24 bytes. */
static const char TWO_VEC3[] = "AACAPwAAAEAAAEBAAACAQAAAoEAAAMBA";

/* A document with one buffer (uri), one view and one accessor of the given
 * fields, for the accessor checks. */
static bool load_accessor_doc(const char *uri, size_t byte_length, const char *view_extra, const char *accessor,
                              gltf_model *m, char *err, size_t err_size)
{
    char doc[2048];
    snprintf(doc, sizeof doc,
             "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":%zu,\"uri\":\"%s\"}],"
             "\"bufferViews\":[{\"buffer\":0,\"byteLength\":%zu%s}],\"accessors\":[%s]}",
             byte_length, uri, byte_length, view_extra, accessor);
    return gltf_load_memory(doc, strlen(doc), NULL, m, err, err_size);
}

/* Loads a document that must fail, and checks the message holds `needle`. */
static void expect_failure(const char *doc, const char *needle)
{
    gltf_model m;
    char err[512] = "";
    bool ok = gltf_load_memory(doc, strlen(doc), NULL, &m, err, sizeof err);
    CHECK(!ok);
    if (ok) gltf_free(&m);
    if (!strstr(err, needle)) {
        fprintf(stderr, "expected a message with \"%s\", got \"%s\"\n", needle, err);
        ++failures;
    }
    CHECK(m.buffers == NULL && m.accessors == NULL); /* nothing left behind */
}

static void test_json(void)
{
    json_value v;
    char err[256];
    const char *good = " {\"a\": [1, -2.5e3, true, false, null], \"s\": \"\\u00e9\\ud83d\\ude00\\n\"} ";
    CHECK(json_parse(good, strlen(good), &v, err, sizeof err));
    const json_value *a = json_get(&v, "a"), *s = json_get(&v, "s");
    CHECK(a && a->type == JSON_ARRAY && a->length == 5 && a->items[1].number == -2500.0 && a->items[4].type == JSON_NULL);
    CHECK(s && s->length == 7 && memcmp(s->string, "\xc3\xa9\xf0\x9f\x98\x80\n", 7) == 0);
    json_free(&v);
    struct { const char *text, *needle; } bad[] = {
        {"{\"a\": [1, 2", "line 1, column 12: expected ',' or ']'"},
        {"{\"a\": 1,}", "expected a member name"},
        {"{\"a\": 1, \"a\": 2}", "duplicate member \"a\""},
        {"[01]", "leading zero"},
        {"[1.]", "a fraction needs a digit"},
        {"[\"tab\there\"]", "control character 0x09"},
        {"[\"\\x\"]", "invalid escape"},
        {"[\"\\ud800\"]", "high surrogate"},
        {"[\"\xff\"]", "invalid UTF-8"},
        {"[tru]", "expected true"},
        {"{} {}", "after the top-level value"},
        {"{\"a\":\n  nope}", "line 2, column 3"},
        {"", "found end of input"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        bool ok = json_parse(bad[i].text, strlen(bad[i].text), &v, err, sizeof err);
        CHECK(!ok && v.type == JSON_NULL);
        if (!ok && !strstr(err, bad[i].needle)) {
            fprintf(stderr, "json \"%s\": expected \"%s\", got \"%s\"\n", bad[i].text, bad[i].needle, err);
            ++failures;
        }
    }
    char deep[200];
    memset(deep, '[', sizeof deep);
    CHECK(!json_parse(deep, sizeof deep, &v, err, sizeof err) && strstr(err, "nested more than 64"));
}

static void test_accessors(void)
{
    gltf_model m;
    char err[512] = "";
    char uri[128];
    snprintf(uri, sizeof uri, "data:application/octet-stream;base64,%s", TWO_VEC3);
    /* Packed floats read back exactly. */
    CHECK(load_accessor_doc(uri, 24, "", "{\"bufferView\":0,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"}", &m, err,
                            sizeof err));
    if (m.accessor_count == 1) {
        CHECK(gltf_read_float(&m.accessors[0], 1, 2) == 6.0f && m.accessors[0].stride == 12);
        gltf_free(&m);
    }
    /* byteStride 12 with a 4-byte element: every third float, from byteOffset 4. */
    CHECK(load_accessor_doc(uri, 24, ",\"byteStride\":12",
                            "{\"bufferView\":0,\"byteOffset\":4,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\"}", &m, err,
                            sizeof err));
    if (m.accessor_count == 1) {
        CHECK(gltf_read_float(&m.accessors[0], 0, 0) == 2.0f && gltf_read_float(&m.accessors[0], 1, 0) == 5.0f);
        gltf_free(&m);
    }
    /* Normalised unsigned bytes and shorts map to [0, 1]: bytes 00 80 ff ff ... */
    CHECK(load_accessor_doc("data:application/gltf-buffer;base64,AID//w==", 4, "",
                            "{\"bufferView\":0,\"componentType\":5121,\"normalized\":true,\"count\":4,\"type\":\"SCALAR\"}", &m,
                            err, sizeof err));
    if (m.accessor_count == 1) {
        CHECK(gltf_read_float(&m.accessors[0], 0, 0) == 0.0f && gltf_read_float(&m.accessors[0], 3, 0) == 1.0f);
        CHECK(fabsf(gltf_read_float(&m.accessors[0], 1, 0) - 128.0f / 255.0f) < 1e-7f);
        gltf_free(&m);
    }
    CHECK(load_accessor_doc("data:application/gltf-buffer;base64,AID//w==", 4, "",
                            "{\"bufferView\":0,\"componentType\":5123,\"normalized\":true,\"count\":2,\"type\":\"SCALAR\"}", &m,
                            err, sizeof err));
    if (m.accessor_count == 1) {
        CHECK(gltf_read_float(&m.accessors[0], 1, 0) == 1.0f && gltf_read_uint(&m.accessors[0], 0, 0) == 0x8000u);
        gltf_free(&m);
    }

    /* The refusals, each naming the element. */
    CHECK(!load_accessor_doc(uri, 24, "", "{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"}", &m, err,
                             sizeof err));
    CHECK(strstr(err, "accessors[0]: 3 elements from byte 0 (stride 12) run past the end of bufferViews[0] (24 bytes)") != NULL);
    CHECK(!load_accessor_doc(uri, 24, "", "{\"bufferView\":0,\"componentType\":5124,\"count\":1,\"type\":\"VEC3\"}", &m, err,
                             sizeof err));
    CHECK(strstr(err, "accessors[0].componentType 5124 is not a glTF component type") != NULL);
    CHECK(!load_accessor_doc(uri, 24, "", "{\"bufferView\":0,\"componentType\":5126,\"count\":1,\"type\":\"VEC5\"}", &m, err,
                             sizeof err));
    CHECK(strstr(err, "accessors[0].type is not SCALAR") != NULL);
    CHECK(!load_accessor_doc(uri, 24, "", "{\"bufferView\":0,\"byteOffset\":2,\"componentType\":5126,\"count\":1,\"type\":\"SCALAR\"}",
                             &m, err, sizeof err));
    CHECK(strstr(err, "not a multiple of its component size 4") != NULL);
    CHECK(!load_accessor_doc(uri, 24, ",\"byteStride\":6", "{\"bufferView\":0,\"componentType\":5126,\"count\":1,\"type\":\"SCALAR\"}",
                             &m, err, sizeof err));
    CHECK(strstr(err, "bufferViews[0].byteStride 6 is not a multiple of 4") != NULL);
    CHECK(!load_accessor_doc(uri, 24, "",
                             "{\"bufferView\":0,\"componentType\":5126,\"count\":1,\"type\":\"SCALAR\",\"sparse\":{}}", &m,
                             err, sizeof err));
    CHECK(strstr(err, "accessors[0] is sparse: sparse accessors are not supported") != NULL);
    CHECK(!load_accessor_doc(uri, 24, "", "{\"bufferView\":1,\"componentType\":5126,\"count\":1,\"type\":\"SCALAR\"}", &m, err,
                             sizeof err));
    CHECK(strstr(err, "accessors[0].bufferView is 1, past the 1 element(s) it indexes") != NULL);
    CHECK(!load_accessor_doc(uri, 25, "", "{\"bufferView\":0,\"componentType\":5126,\"count\":1,\"type\":\"SCALAR\"}", &m, err,
                             sizeof err));
    CHECK(strstr(err, "buffers[0] holds 24 bytes, less than its byteLength 25") != NULL);
    CHECK(!load_accessor_doc("data:application/octet-stream;base64,AA*A", 3, "",
                             "{\"bufferView\":0,\"componentType\":5121,\"count\":1,\"type\":\"SCALAR\"}", &m, err, sizeof err));
    CHECK(strstr(err, "buffers[0]: character 2 of the base64 data is not base64") != NULL);
    CHECK(!load_accessor_doc("data:text/plain,abc", 3, "", "{\"bufferView\":0,\"componentType\":5121,\"count\":1,\"type\":\"SCALAR\"}",
                             &m, err, sizeof err));
    CHECK(strstr(err, "data uri is not base64") != NULL);
    CHECK(!load_accessor_doc("model.bin", 3, "", "{\"bufferView\":0,\"componentType\":5121,\"count\":1,\"type\":\"SCALAR\"}", &m,
                             err, sizeof err));
    CHECK(strstr(err, "external buffer \"model.bin\" but the model was not loaded from a file") != NULL);

    expect_failure("{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":3,\"uri\":\"data:;base64,AAAA\"}],"
                   "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":2,\"byteLength\":2}]}",
                   "bufferViews[0] (bytes 2..4) runs past the end of buffers[0] (3 bytes)");
    expect_failure("{\"asset\":{\"version\":\"1.0\"}}", "asset.version is not \"2.x\"");
    expect_failure("{\"asset\":{\"version\":\"2.0\"},\"extensionsRequired\":[\"KHR_draco_mesh_compression\"]}",
                   "requires extension KHR_draco_mesh_compression");
    expect_failure("{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"children\":[2]},{\"children\":[2]},{}]}",
                   "nodes[2] is a child of both nodes[0] and nodes[1]");
    expect_failure("{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"children\":[0]}]}", "nodes[0] is its own ancestor");
    expect_failure("{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"matrix\":[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1],\"scale\":[1,1,1]}]}",
                   "nodes[0] has both a matrix and translation/rotation/scale");
    expect_failure("{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"rotation\":[0,0,0,0]}]}", "nodes[0].rotation has length 0");
    expect_failure("{\"asset\":{\"version\":\"2.0\"},\"skins\":[{\"joints\":[3]}],\"nodes\":[{}]}",
                   "skins[0].joints[0] is not a node index below 1");
    expect_failure("{\"asset\":{\"version\":\"2.0\"",
                   "JSON: line 1, column 26: expected ',' or '}' after member \"version\", found end of input");
}

/* A .gltf with an external .bin beside it, and the same data as a .glb. */
static void test_files(void)
{
    const char *folder = "gltf_load_test_files";
    mkdir(folder, 0777);
    float data[6] = {1, 2, 3, 4, 5, 6};
    FILE *f = fopen("gltf_load_test_files/my data.bin", "wb");
    CHECK(f && fwrite(data, sizeof data, 1, f) == 1);
    if (f) fclose(f);
    const char *doc = "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":24,\"uri\":\"my%20data.bin\"}],"
                      "\"bufferViews\":[{\"buffer\":0,\"byteLength\":24}],"
                      "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"}]}";
    f = fopen("gltf_load_test_files/model.gltf", "wb");
    CHECK(f && fwrite(doc, strlen(doc), 1, f) == 1);
    if (f) fclose(f);
    gltf_model m;
    char err[512] = "";
    CHECK(gltf_load_file("gltf_load_test_files/model.gltf", &m, err, sizeof err));
    if (m.accessor_count == 1) {
        CHECK(gltf_read_float(&m.accessors[0], 1, 0) == 4.0f);
        gltf_free(&m);
    } else {
        fprintf(stderr, "external buffer: %s\n", err);
    }

    /* .glb: header, JSON chunk (padded with spaces), BIN chunk. */
    const char *json = "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":24}],"
                       "\"bufferViews\":[{\"buffer\":0,\"byteLength\":24}],"
                       "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"}]}";
    size_t json_len = (strlen(json) + 3) / 4 * 4, total = 12 + 8 + json_len + 8 + sizeof data;
    unsigned char *glb = calloc(1, total);
    if (!glb) { ++failures; return; }
    uint32_t header[3] = {0x46546C67u, 2, (uint32_t)total}, chunk_json[2] = {(uint32_t)json_len, 0x4E4F534Au},
             chunk_bin[2] = {(uint32_t)sizeof data, 0x004E4942u};
    memcpy(glb, header, 12);
    memcpy(glb + 12, chunk_json, 8);
    memset(glb + 20, ' ', json_len);
    memcpy(glb + 20, json, strlen(json));
    memcpy(glb + 20 + json_len, chunk_bin, 8);
    memcpy(glb + 28 + json_len, data, sizeof data);
    CHECK(gltf_load_memory(glb, total, NULL, &m, err, sizeof err));
    if (m.accessor_count == 1) {
        CHECK(gltf_read_float(&m.accessors[0], 1, 2) == 6.0f);
        gltf_free(&m);
    } else {
        fprintf(stderr, "glb: %s\n", err);
    }
    CHECK(!gltf_load_memory(glb, total - 4, NULL, &m, err, sizeof err) && strstr(err, "glb: header says"));
    free(glb);
}

/* A whole skinned model: a triangle on two joints (u8 joints, normalised u8
 * weights, u16 indices), a LINEAR rotation and a CUBICSPLINE translation. */
static const char SKINNED_DOC[] =
    "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],\"nodes\":[{\"children\":[1,2]},{\"mesh"
    "\":0,\"skin\":0},{\"children\":[3]},{\"translation\":[0,1,0]}],\"meshes\":[{\"primitives\":[{\"attributes\":{"
    "\"POSITION\":0,\"NORMAL\":1,\"JOINTS_0\":2,\"WEIGHTS_0\":3},\"indices\":4}]}],\"skins\":[{\"joints\":[2,3],\"in"
    "verseBindMatrices\":5,\"skeleton\":2}],\"animations\":[{\"samplers\":[{\"input\":6,\"output\":7},{\"input\":6"
    ",\"output\":8,\"interpolation\":\"CUBICSPLINE\"}],\"channels\":[{\"sampler\":0,\"target\":{\"node\":3,\"path\":\""
    "rotation\"}},{\"sampler\":1,\"target\":{\"node\":2,\"path\":\"translation\"}}]}],\"buffers\":[{\"byteLength\":3"
    "44,\"uri\":\"data:application/octet-stream;base64,AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAAEAAAAAAA"
    "AAAAAAAAAAAAIA/AAAAAAAAAAAAAIA/AAAAAAAAAAAAAIA/AAEAAAABAAABAAAA/wAAAIB/AAD/AAAAAAABAAIAAAAAAIA/A"
    "AAAAAAAAAAAAAAAAAAAAAAAgD8AAAAAAAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAAAAAAIA/AACAPwAAAAAAAAAAA"
    "AAAAAAAAAAAAIA/AAAAAAAAAAAAAAAAAAAAAAAAgD8AAAAAAAAAAAAAgL8AAAAAAACAPwAAAAAAAIA/AAAAAAAAAAAAAAAAA"
    "ACAPwAAAAAAAAAA8wQ1P/MENT8AAAAAAAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
    "ACAPwAAAAAAAAAAAAAAAAAAAAA=\"}],\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":36},{\"buff"
    "er\":0,\"byteOffset\":36,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":72,\"byteLength\":12},{\"buffer\":0,"
    "\"byteOffset\":84,\"byteLength\":12},{\"buffer\":0,\"byteOffset\":96,\"byteLength\":8},{\"buffer\":0,\"byteOf"
    "fset\":104,\"byteLength\":128},{\"buffer\":0,\"byteOffset\":232,\"byteLength\":8},{\"buffer\":0,\"byteOffset"
    "\":240,\"byteLength\":32},{\"buffer\":0,\"byteOffset\":272,\"byteLength\":72}],\"accessors\":[{\"bufferView\""
    ":0,\"componentType\":5126,\"type\":\"VEC3\",\"count\":3},{\"bufferView\":1,\"componentType\":5126,\"type\":\"VE"
    "C3\",\"count\":3},{\"bufferView\":2,\"componentType\":5121,\"type\":\"VEC4\",\"count\":3},{\"bufferView\":3,\"co"
    "mponentType\":5121,\"type\":\"VEC4\",\"count\":3,\"normalized\":true},{\"bufferView\":4,\"componentType\":512"
    "3,\"type\":\"SCALAR\",\"count\":3},{\"bufferView\":5,\"componentType\":5126,\"type\":\"MAT4\",\"count\":2},{\"buf"
    "ferView\":6,\"componentType\":5126,\"type\":\"SCALAR\",\"count\":2},{\"bufferView\":7,\"componentType\":5126,"
    "\"type\":\"VEC4\",\"count\":2},{\"bufferView\":8,\"componentType\":5126,\"type\":\"VEC3\",\"count\":6}]}";

/* Loads doc and, when it loads, poses it at a few times: must never crash or
 * leak (the ASan build runs this), whatever the bytes. */
static bool load_and_pose(const char *doc, size_t size)
{
    gltf_model m;
    char err[512];
    if (!gltf_load_memory(doc, size, NULL, &m, err, sizeof err)) {
        if (err[0] == '\0') {
            fprintf(stderr, "a failure without a message\n");
            ++failures;
        }
        return false;
    }
    pose p;
    if (pose_init(&p, &m)) {
        for (size_t a = 0; a < m.animation_count; ++a)
            for (int k = -1; k <= 3; ++k) pose_sample(&p, &m, &m.animations[a], 0.5f * (float)k);
        pose_free(&p);
    }
    gltf_free(&m);
    return true;
}

static void test_skinned_model(void)
{
    size_t size = strlen(SKINNED_DOC);
    gltf_model m;
    char err[512] = "";
    CHECK(gltf_load_memory(SKINNED_DOC, size, NULL, &m, err, sizeof err));
    if (m.node_count != 4) {
        fprintf(stderr, "skinned model: %s\n", err);
        ++failures;
        return;
    }
    CHECK(m.skin_count == 1 && m.skins[0].joint_count == 2 && m.skins[0].inverse_bind[16 + 13] == -1.0f);
    CHECK(m.nodes[3].parent == 2 && m.nodes[1].parent == 0);
    const gltf_primitive *prim = &m.meshes[0].primitives[0];
    CHECK(gltf_read_uint(&m.accessors[prim->joints], 2, 0) == 1 && gltf_read_float(&m.accessors[prim->weights], 0, 0) == 1.0f);
    CHECK(gltf_read_uint(&m.accessors[prim->indices], 2, 0) == 2);
    pose p;
    CHECK(pose_init(&p, &m));
    if (p.world) {
        /* At t = 1: node 2 at (0, 1, 0) (the spline's value), node 3 one more up and turned 90 degrees about z. */
        pose_sample(&p, &m, &m.animations[0], 1.0f);
        const float *w = p.world + 16 * 3;
        CHECK(fabsf(w[13] - 2.0f) < 1e-6f && fabsf(w[0]) < 1e-6f && fabsf(w[1] - 1.0f) < 1e-6f);
        pose_free(&p);
    }
    gltf_free(&m);

    /* Every prefix is refused (truncated), and every byte replaced by a few
     * troublesome characters either loads or fails with a message. */
    size_t loaded = 0;
    for (size_t n = 0; n < size; ++n) CHECK(!load_and_pose(SKINNED_DOC, n));
    char *copy = malloc(size);
    if (!copy) { ++failures; return; }
    const char replacements[] = "0 9-\"[}e.,";
    for (size_t i = 0; i < size; ++i)
        for (size_t r = 0; r < sizeof replacements - 1; ++r) {
            memcpy(copy, SKINNED_DOC, size);
            copy[i] = replacements[r];
            loaded += load_and_pose(copy, size);
        }
    free(copy);
    printf("corruption sweep: %zu of %zu altered documents still load\n", loaded, size * (sizeof replacements - 1));
}

/* The skinned model through sinew, its u8 joints and normalised u8 weights
 * passed as they are: posed at t = 1, each vertex lands where the joints put it. */
static void test_skinning(void)
{
    gltf_model m;
    character c;
    char err[512] = "";
    if (!gltf_load_memory(SKINNED_DOC, strlen(SKINNED_DOC), NULL, &m, err, sizeof err)) {
        fprintf(stderr, "skinning: %s\n", err);
        ++failures;
        return;
    }
    CHECK(character_init(&c, &m, err, sizeof err));
    pose p;
    sinew_skin *skin = NULL;
    if (c.part_count == 1 && pose_init(&p, &m)) {
        CHECK(c.triangle_count == 1 && c.parts[0].triangles[2] == 2);
        sinew_skin_desc desc = character_skin_desc(&c, &c.parts[0]);
        CHECK(desc.joint_type == SINEW_INDEX_U8 && desc.weight_type == SINEW_SKIN_WEIGHT_UNORM8 && desc.joint_stride == 4);
        CHECK(sinew_skin_create(NULL, &desc, &skin) == SINEW_OK);
        float world[32], palette[32], out[9];
        pose_sample(&p, &m, &m.animations[0], 1.0f);
        pose_joint_world(&p, c.skin, world);
        sinew_skin_output o;
        memset(&o, 0, sizeof o);
        o.positions = out;
        if (skin && sinew_skin_palette_size(skin) == 32) {
            CHECK(sinew_skin_palette(skin, world, 2, palette, 32) == SINEW_OK);
            CHECK(sinew_skin_deform(skin, palette, 32, &c.parts[0].rest, &o, 0, 3) == SINEW_OK);
            /* Vertex 0 on joint 0: (0, 1, 0). Vertex 2 on joint 1: (0, 2, 0)
             * turned 90 degrees about joint 1 at (0, 2, 0): (-1, 2, 0). Vertex 1
             * blends (1, 1, 0) and (1, 3, 0) with weights 128/255 and 127/255. */
            const float expected[9] = {0, 1, 0, 1, 1 + 2 * 127.0f / 255.0f, 0, -1, 2, 0};
            for (int k = 0; k < 9; ++k) CHECK(fabsf(out[k] - expected[k]) < 1e-5f);
        }
        sinew_skin_destroy(skin);
        pose_free(&p);
    }
    character_free(&c);
    gltf_free(&m);
}

static void test_sampling(void)
{
    /* Rotation from identity to 90 degrees about z over one second: slerp at
     * 0.5 is exactly 45 degrees (a normalised lerp would be too, but not at 0.25). */
    float times[2] = {0, 1}, h = (float)sqrt(0.5);
    float quats[8] = {0, 0, 0, 1, 0, 0, h, h};
    gltf_sampler s = {GLTF_LINEAR, times, 2, quats, 4};
    float q[4];
    sampler_evaluate(&s, 0.25f, true, q);
    double angle = 2 * atan2(q[2], q[3]) * 180 / 3.14159265358979323846;
    CHECK(fabs(angle - 22.5) < 1e-4);
    /* Clamped outside the keys. */
    sampler_evaluate(&s, -1, true, q);
    CHECK(q[3] == 1.0f);
    sampler_evaluate(&s, 5, true, q);
    CHECK(q[2] == h);
    /* Rotation keys that are not unit length (rounded, quantised) come out unit length. */
    float long_quats[8] = {0, 0, 0, 2, 0, 0, 3, 0};
    gltf_sampler held = {GLTF_STEP, times, 2, long_quats, 4};
    sampler_evaluate(&held, 0.5f, true, q);
    CHECK(q[3] == 1.0f && q[2] == 0.0f);
    sampler_evaluate(&held, 1.5f, true, q);
    CHECK(q[2] == 1.0f && q[3] == 0.0f);
    /* STEP holds the earlier key. */
    float values[2] = {10, 20};
    gltf_sampler step = {GLTF_STEP, times, 2, values, 1};
    float x;
    sampler_evaluate(&step, 0.99f, false, &x);
    CHECK(x == 10.0f);
    /* CUBICSPLINE (in-tangent, value, out-tangent per key) with tangents equal
     * to the slope reproduces a line: p(t) = 10 + 10 t. */
    float cubic[6] = {0, 10, 10, 10, 20, 0};
    gltf_sampler spline = {GLTF_CUBICSPLINE, times, 2, cubic, 1};
    sampler_evaluate(&spline, 0.3f, false, &x);
    CHECK(fabsf(x - 13.0f) < 1e-5f);
}

int main(void)
{
    test_json();
    test_accessors();
    test_files();
    test_sampling();
    test_skinned_model();
    test_skinning();
    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("all glTF loader checks passed\n");
    return 0;
}
