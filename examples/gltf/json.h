/* A small strict JSON parser (RFC 8259) for the glTF example: the whole text
 * becomes a tree of json_value. Strict means: no comments, no trailing commas,
 * no duplicate keys, no control characters or invalid UTF-8 in strings, no
 * leading zeros, nothing after the top-level value, nesting at most
 * JSON_MAX_DEPTH deep. A failure gives a message with the line and column of
 * the offending character. Not part of the library. */
#ifndef SINEW_EXAMPLE_JSON_H
#define SINEW_EXAMPLE_JSON_H

#include <stdbool.h>
#include <stddef.h>

#define JSON_MAX_DEPTH 64

typedef enum json_type { JSON_NULL, JSON_FALSE, JSON_TRUE, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT } json_type;

typedef struct json_value json_value;
typedef struct json_member json_member;

struct json_value {
    json_type type;
    double number;          /* JSON_NUMBER */
    char *string;           /* JSON_STRING: UTF-8, NUL-terminated (may hold \u0000 inside: see length) */
    size_t length;          /* string bytes (JSON_STRING), items or members (arrays, objects) */
    json_value *items;      /* JSON_ARRAY */
    json_member *members;   /* JSON_OBJECT, in file order */
};

struct json_member {
    char *key;
    size_t key_length;
    json_value value;
};

/* Parses text[0, size) into *root. Returns true on success; on failure writes
 * "line L, column C: <what is wrong>" into err and leaves *root empty (JSON_NULL).
 * Free a parsed tree with json_free. */
bool json_parse(const char *text, size_t size, json_value *root, char *err, size_t err_size);

/* Frees everything a tree holds and resets it to JSON_NULL. */
void json_free(json_value *v);

/* Member of an object by key, or NULL (also when v is not an object). */
const json_value *json_get(const json_value *v, const char *key);

/* Name of a type ("object", "number", ...) for messages. */
const char *json_type_name(json_type type);

#endif
