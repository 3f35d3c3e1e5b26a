/* Typed readers of glTF JSON members: each checks the member's type and range
 * and names the member when it is wrong. */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gltf_internal.h"

bool gltf_fail(gltf_loader *ld, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ld->err, ld->err_size, fmt, ap);
    va_end(ap);
    return false;
}

bool gltf_expect_object(gltf_loader *ld, const json_value *v, const char *where)
{
    if (v->type == JSON_OBJECT) return true;
    return gltf_fail(ld, "%s is a %s, expected an object", where, json_type_name(v->type));
}

bool gltf_integer(gltf_loader *ld, const json_value *obj, const char *where, const char *key, size_t min,
                  size_t max, bool required, size_t *out)
{
    const json_value *v = json_get(obj, key);
    if (!v) return required ? gltf_fail(ld, "%s has no \"%s\"", where, key) : true;
    if (v->type != JSON_NUMBER) return gltf_fail(ld, "%s.%s is a %s, expected an integer", where, key, json_type_name(v->type));
    double d = v->number;
    /* 2^53 keeps every integer exact in a double; no glTF count comes near it. */
    if (d != floor(d) || d < (double)min || d > (double)max || d > 9007199254740992.0)
        return gltf_fail(ld, "%s.%s is %g, expected an integer in [%zu, %zu]", where, key, d, min, max);
    *out = (size_t)d;
    return true;
}

bool gltf_index(gltf_loader *ld, const json_value *obj, const char *where, const char *key, size_t limit,
                bool required, int *out)
{
    const json_value *v = json_get(obj, key);
    if (!v) return required ? gltf_fail(ld, "%s has no \"%s\"", where, key) : true;
    if (limit == 0) return gltf_fail(ld, "%s.%s refers to an element of an empty list", where, key);
    size_t i = 0;
    if (!gltf_integer(ld, obj, where, key, 0, (size_t)1 << 30, true, &i)) return false;
    if (i >= limit) return gltf_fail(ld, "%s.%s is %zu, past the %zu element(s) it indexes", where, key, i, limit);
    *out = (int)i;
    return true;
}

bool gltf_floats(gltf_loader *ld, const json_value *obj, const char *where, const char *key, size_t n, float *out)
{
    const json_value *v = json_get(obj, key);
    if (!v) return true;
    if (v->type != JSON_ARRAY || v->length != n)
        return gltf_fail(ld, "%s.%s must be an array of %zu numbers", where, key, n);
    float tmp[16];
    for (size_t i = 0; i < n; ++i) {
        const json_value *x = &v->items[i];
        if (x->type != JSON_NUMBER || !(fabs(x->number) <= FLT_MAX))
            return gltf_fail(ld, "%s.%s[%zu] is not a finite float", where, key, i);
        tmp[i] = (float)x->number;
    }
    memcpy(out, tmp, n * sizeof *out);
    return true;
}

bool gltf_string(gltf_loader *ld, const json_value *obj, const char *where, const char *key, char **out)
{
    const json_value *v = json_get(obj, key);
    if (!v) return true;
    if (v->type != JSON_STRING) return gltf_fail(ld, "%s.%s is a %s, expected a string", where, key, json_type_name(v->type));
    *out = malloc(v->length + 1);
    if (!*out) return gltf_fail(ld, "out of memory");
    memcpy(*out, v->string, v->length + 1);
    return true;
}

bool gltf_array(gltf_loader *ld, const json_value *root, const char *key, const json_value **items, size_t *count)
{
    const json_value *v = json_get(root, key);
    *items = NULL, *count = 0;
    if (!v) return true;
    if (v->type != JSON_ARRAY) return gltf_fail(ld, "\"%s\" is a %s, expected an array", key, json_type_name(v->type));
    *items = v->items, *count = v->length;
    return true;
}
