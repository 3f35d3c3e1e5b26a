/* Strict JSON parser: recursive descent over the text, one function per
 * grammar rule. See json.h for what "strict" refuses. */
#include "json.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct parser {
    const char *text;
    size_t size, pos;
    char *err;
    size_t err_size;
    bool failed;
} parser;

/* Records the first failure with the line and column of position `at`. */
static bool fail_at(parser *p, size_t at, const char *fmt, ...)
{
    if (p->failed) return false;
    p->failed = true;
    size_t line = 1, column = 1;
    for (size_t i = 0; i < at && i < p->size; ++i) {
        if (p->text[i] == '\n') ++line, column = 1;
        else ++column;
    }
    int n = snprintf(p->err, p->err_size, "line %zu, column %zu: ", line, column);
    if (n < 0 || (size_t)n >= p->err_size) return false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err + n, p->err_size - (size_t)n, fmt, ap);
    va_end(ap);
    return false;
}

/* The character at the cursor as text for messages ("end of input" past it). */
static const char *describe_here(parser *p, char buf[16])
{
    if (p->pos >= p->size) return "end of input";
    unsigned char c = (unsigned char)p->text[p->pos];
    if (c >= 0x20 && c < 0x7f) snprintf(buf, 16, "'%c'", c);
    else snprintf(buf, 16, "byte 0x%02x", c);
    return buf;
}

static void skip_space(parser *p)
{
    while (p->pos < p->size) {
        char c = p->text[p->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
        ++p->pos;
    }
}

static bool parse_value(parser *p, json_value *out, int depth);

static bool literal(parser *p, const char *word, json_type type, json_value *out)
{
    size_t n = strlen(word);
    if (p->size - p->pos < n || memcmp(p->text + p->pos, word, n) != 0)
        return fail_at(p, p->pos, "invalid literal (expected %s)", word);
    p->pos += n;
    out->type = type;
    return true;
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* number = [-] int [frac] [exp], int without leading zeros. */
static bool parse_number(parser *p, json_value *out)
{
    size_t start = p->pos, i = p->pos;
    const char *t = p->text;
    if (i < p->size && t[i] == '-') ++i;
    if (i >= p->size || !is_digit(t[i])) return fail_at(p, i, "a number needs a digit here");
    if (t[i] == '0' && i + 1 < p->size && is_digit(t[i + 1])) return fail_at(p, i, "number with a leading zero");
    while (i < p->size && is_digit(t[i])) ++i;
    if (i < p->size && t[i] == '.') {
        ++i;
        if (i >= p->size || !is_digit(t[i])) return fail_at(p, i, "a fraction needs a digit after '.'");
        while (i < p->size && is_digit(t[i])) ++i;
    }
    if (i < p->size && (t[i] == 'e' || t[i] == 'E')) {
        ++i;
        if (i < p->size && (t[i] == '+' || t[i] == '-')) ++i;
        if (i >= p->size || !is_digit(t[i])) return fail_at(p, i, "an exponent needs a digit");
        while (i < p->size && is_digit(t[i])) ++i;
    }
    /* strtod needs a terminated copy; the grammar above already fixed the span. */
    size_t n = i - start;
    char small[64], *copy = n < sizeof small ? small : malloc(n + 1);
    if (!copy) return fail_at(p, start, "out of memory");
    memcpy(copy, t + start, n);
    copy[n] = '\0';
    out->type = JSON_NUMBER;
    out->number = strtod(copy, NULL);
    if (copy != small) free(copy);
    p->pos = i;
    return true;
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Reads the 4 hex digits of a \u escape at p->pos. */
static bool read_hex4(parser *p, uint32_t *out)
{
    if (p->size - p->pos < 4) return fail_at(p, p->pos, "\\u escape needs 4 hex digits");
    uint32_t v = 0;
    for (int k = 0; k < 4; ++k) {
        int h = hex_value(p->text[p->pos + (size_t)k]);
        if (h < 0) return fail_at(p, p->pos + (size_t)k, "\\u escape needs 4 hex digits");
        v = v * 16 + (uint32_t)h;
    }
    p->pos += 4;
    *out = v;
    return true;
}

/* Length of the well-formed UTF-8 sequence at s (at most `left` bytes), 0 if
 * it is not one (overlong forms, surrogates and code points past U+10FFFF are refused). */
static size_t utf8_length(const unsigned char *s, size_t left)
{
    if (s[0] < 0x80) return 1;
    size_t n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
    if (n == 0 || s[0] > 0xf4 || left < n) return 0;
    for (size_t k = 1; k < n; ++k)
        if ((s[k] & 0xc0) != 0x80) return 0;
    if (n == 3 && s[0] == 0xe0 && s[1] < 0xa0) return 0;   /* overlong */
    if (n == 3 && s[0] == 0xed && s[1] >= 0xa0) return 0;  /* surrogate */
    if (n == 4 && s[0] == 0xf0 && s[1] < 0x90) return 0;   /* overlong */
    if (n == 4 && s[0] == 0xf4 && s[1] >= 0x90) return 0;  /* past U+10FFFF */
    return n;
}

static size_t put_utf8(uint32_t cp, char *out)
{
    if (cp < 0x80) { out[0] = (char)cp; return 1; }
    if (cp < 0x800) { out[0] = (char)(0xc0 | cp >> 6); out[1] = (char)(0x80 | (cp & 0x3f)); return 2; }
    if (cp < 0x10000) {
        out[0] = (char)(0xe0 | cp >> 12), out[1] = (char)(0x80 | ((cp >> 6) & 0x3f)), out[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    out[0] = (char)(0xf0 | cp >> 18), out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3f)), out[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* One escape after the backslash (p->pos at the letter); appends its UTF-8 to out. */
static bool parse_escape(parser *p, char *out, size_t *n)
{
    size_t at = p->pos - 1;
    char c = p->text[p->pos++];
    const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
    const char *hit = c ? strchr(from, c) : NULL;
    if (hit) {
        out[(*n)++] = to[hit - from];
        return true;
    }
    if (c != 'u') return fail_at(p, at, "invalid escape '\\%c'", c);
    uint32_t cp;
    if (!read_hex4(p, &cp)) return false;
    if (cp >= 0xdc00 && cp <= 0xdfff) return fail_at(p, at, "\\u escape is a lone low surrogate");
    if (cp >= 0xd800 && cp <= 0xdbff) {
        uint32_t low;
        if (p->size - p->pos < 2 || p->text[p->pos] != '\\' || p->text[p->pos + 1] != 'u')
            return fail_at(p, at, "\\u escape is a high surrogate without its low half");
        p->pos += 2;
        if (!read_hex4(p, &low)) return false;
        if (low < 0xdc00 || low > 0xdfff) return fail_at(p, at, "\\u escape is a high surrogate without its low half");
        cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
    }
    *n += put_utf8(cp, out + *n);
    return true;
}

/* string = '"' chars '"'; p->pos at the opening quote. The decoded text is
 * never longer than the source span, so one allocation of that size holds it. */
static bool parse_string(parser *p, char **out, size_t *length)
{
    size_t open = p->pos++;
    size_t end = p->pos;
    while (end < p->size && p->text[end] != '"') end += p->text[end] == '\\' ? 2 : 1;
    if (end >= p->size) return fail_at(p, open, "string is not closed");
    char *s = malloc(end - p->pos + 1);
    if (!s) return fail_at(p, open, "out of memory");
    size_t n = 0;
    while (p->text[p->pos] != '"') {
        unsigned char c = (unsigned char)p->text[p->pos];
        if (c < 0x20) {
            free(s);
            return fail_at(p, p->pos, "control character 0x%02x inside a string (escape it)", c);
        }
        if (c == '\\') {
            ++p->pos;
            if (!parse_escape(p, s, &n)) { free(s); return false; }
            continue;
        }
        size_t k = utf8_length((const unsigned char *)p->text + p->pos, p->size - p->pos);
        if (k == 0) {
            free(s);
            return fail_at(p, p->pos, "invalid UTF-8 byte 0x%02x inside a string", c);
        }
        memcpy(s + n, p->text + p->pos, k);
        n += k, p->pos += k;
    }
    ++p->pos;
    s[n] = '\0';
    *out = s, *length = n;
    return true;
}

/* Grows a container's array to hold one more element of `size` bytes. */
static bool grow(parser *p, void **array, size_t count, size_t *capacity, size_t size)
{
    if (count < *capacity) return true;
    size_t cap = *capacity ? *capacity * 2 : 4;
    void *a = realloc(*array, cap * size);
    if (!a) return fail_at(p, p->pos, "out of memory");
    *array = a, *capacity = cap;
    return true;
}

static bool parse_array(parser *p, json_value *out, int depth)
{
    size_t capacity = 0;
    out->type = JSON_ARRAY;
    ++p->pos;
    skip_space(p);
    if (p->pos < p->size && p->text[p->pos] == ']') { ++p->pos; return true; }
    for (;;) {
        if (!grow(p, (void **)&out->items, out->length, &capacity, sizeof *out->items)) return false;
        json_value *item = &out->items[out->length];
        memset(item, 0, sizeof *item);
        ++out->length;
        if (!parse_value(p, item, depth + 1)) return false;
        skip_space(p);
        char buf[16];
        if (p->pos < p->size && p->text[p->pos] == ',') { ++p->pos; continue; }
        if (p->pos < p->size && p->text[p->pos] == ']') { ++p->pos; return true; }
        return fail_at(p, p->pos, "expected ',' or ']' after an array item, found %s", describe_here(p, buf));
    }
}

static bool parse_object(parser *p, json_value *out, int depth)
{
    size_t capacity = 0;
    out->type = JSON_OBJECT;
    ++p->pos;
    skip_space(p);
    if (p->pos < p->size && p->text[p->pos] == '}') { ++p->pos; return true; }
    for (;;) {
        char buf[16];
        skip_space(p);
        if (p->pos >= p->size || p->text[p->pos] != '"')
            return fail_at(p, p->pos, "expected a member name in quotes, found %s", describe_here(p, buf));
        if (!grow(p, (void **)&out->members, out->length, &capacity, sizeof *out->members)) return false;
        json_member *m = &out->members[out->length];
        memset(m, 0, sizeof *m);
        size_t key_at = p->pos;
        if (!parse_string(p, &m->key, &m->key_length)) return false;
        ++out->length;
        for (size_t k = 0; k + 1 < out->length; ++k)
            if (out->members[k].key_length == m->key_length && memcmp(out->members[k].key, m->key, m->key_length) == 0)
                return fail_at(p, key_at, "duplicate member \"%s\"", m->key);
        skip_space(p);
        if (p->pos >= p->size || p->text[p->pos] != ':')
            return fail_at(p, p->pos, "expected ':' after member name \"%s\", found %s", m->key, describe_here(p, buf));
        ++p->pos;
        if (!parse_value(p, &m->value, depth + 1)) return false;
        skip_space(p);
        if (p->pos < p->size && p->text[p->pos] == ',') { ++p->pos; continue; }
        if (p->pos < p->size && p->text[p->pos] == '}') { ++p->pos; return true; }
        return fail_at(p, p->pos, "expected ',' or '}' after member \"%s\", found %s", m->key, describe_here(p, buf));
    }
}

static bool parse_value(parser *p, json_value *out, int depth)
{
    char buf[16];
    if (depth > JSON_MAX_DEPTH) return fail_at(p, p->pos, "nested more than %d deep", JSON_MAX_DEPTH);
    skip_space(p);
    if (p->pos >= p->size) return fail_at(p, p->pos, "expected a value, found end of input");
    switch (p->text[p->pos]) {
    case '{': return parse_object(p, out, depth);
    case '[': return parse_array(p, out, depth);
    case '"': out->type = JSON_STRING; return parse_string(p, &out->string, &out->length);
    case 't': return literal(p, "true", JSON_TRUE, out);
    case 'f': return literal(p, "false", JSON_FALSE, out);
    case 'n': return literal(p, "null", JSON_NULL, out);
    default:
        if (p->text[p->pos] == '-' || is_digit(p->text[p->pos])) return parse_number(p, out);
        return fail_at(p, p->pos, "expected a value, found %s", describe_here(p, buf));
    }
}

bool json_parse(const char *text, size_t size, json_value *root, char *err, size_t err_size)
{
    parser p = {text, size, 0, err, err_size, false};
    memset(root, 0, sizeof *root);
    bool ok = parse_value(&p, root, 0);
    if (ok) {
        skip_space(&p);
        char buf[16];
        if (p.pos < p.size) ok = fail_at(&p, p.pos, "unexpected %s after the top-level value", describe_here(&p, buf));
    }
    if (!ok) json_free(root);
    return ok;
}

void json_free(json_value *v)
{
    if (!v) return;
    for (size_t i = 0; v->type == JSON_ARRAY && i < v->length; ++i) json_free(&v->items[i]);
    for (size_t i = 0; v->type == JSON_OBJECT && i < v->length; ++i) {
        free(v->members[i].key);
        json_free(&v->members[i].value);
    }
    free(v->string);
    free(v->items);
    free(v->members);
    memset(v, 0, sizeof *v);
}

const json_value *json_get(const json_value *v, const char *key)
{
    if (!v || v->type != JSON_OBJECT) return NULL;
    size_t n = strlen(key);
    for (size_t i = 0; i < v->length; ++i)
        if (v->members[i].key_length == n && memcmp(v->members[i].key, key, n) == 0) return &v->members[i].value;
    return NULL;
}

const char *json_type_name(json_type type)
{
    static const char *names[] = {"null", "false", "true", "number", "string", "array", "object"};
    return (unsigned)type < 7 ? names[type] : "?";
}
