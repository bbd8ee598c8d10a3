/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A small strict JSON parser for the snarkjs text files (proof.json,
 * public.json, verification_key.json).  It builds a flat, pre-order array
 * of values: a container's elements follow it, each sibling `span` values
 * after the previous one, so walking needs no pointers and no per-node
 * allocation.  Numbers are kept as their text (the files hold 381-bit
 * integers as strings, but nPublic is a number); strings are decoded into
 * one buffer the size of the input.  Memory is proportional to the input
 * size only; nesting is limited to PL__JSON_MAX_DEPTH.
 *
 * Strict means RFC 8259 with no extensions: no comments, no trailing
 * commas, no leading zeros, no BOM, valid UTF-8, no lone surrogates, and
 * (our own rule) no "\u0000" inside strings, so decoded text is a C string.
 * Every error is PL_EFORMAT with the line, column and byte offset.
 */
#ifndef PL_FORMATS_JSON_H
#define PL_FORMATS_JSON_H

#include "proofline.h"

#define PL__JSON_MAX_DEPTH 64

typedef enum pl__json_type {
    PL__JSON_NULL,
    PL__JSON_FALSE,
    PL__JSON_TRUE,
    PL__JSON_NUMBER,
    PL__JSON_STRING,
    PL__JSON_ARRAY,
    PL__JSON_OBJECT
} pl__json_type;

typedef struct pl__json_value {
    pl__json_type type;
    size_t offset;     /* byte offset of the value's first character */
    /* number: its text (in the input, not NUL-terminated); string: the
     * decoded bytes, NUL-terminated; else NULL */
    const char *text;
    size_t len;        /* text length; array/object: element/member count */
    size_t span;       /* values in this subtree, this one included */
    const char *key;   /* object member: its decoded name; else NULL */
    size_t key_len;
} pl__json_value;

typedef struct pl__json_doc {
    const char *name;   /* for messages: usually the file path (borrowed) */
    const char *src;    /* the input text (borrowed, or owned_src) */
    size_t src_len;
    char *owned_src;    /* set by pl__json_read_file */
    char *strings;      /* decoded strings, at most src_len + 1 bytes */
    pl__json_value *values;
    size_t count;       /* values[0] is the root */
} pl__json_doc;

/* Parses len bytes of text; the doc borrows text and name, which must
 * outlive it.  On failure the doc is left empty (pl__json_free is safe). */
pl_status pl__json_parse(pl__json_doc *doc, const char *text, size_t len,
                         const char *name, pl_error *err);
/* Reads a file of at most max_bytes and parses it; the doc owns the text
 * and borrows path. */
pl_status pl__json_read_file(pl__json_doc *doc, const char *path,
                             size_t max_bytes, pl_error *err);
void pl__json_free(pl__json_doc *doc);

static inline const pl__json_value *pl__json_root(const pl__json_doc *doc)
{
    return doc->values;
}
/* Iterate a container: for (c = first(v); c != end(v); c = next(c)). */
static inline const pl__json_value *pl__json_first(const pl__json_value *v)
{
    return v + 1;
}
static inline const pl__json_value *pl__json_end(const pl__json_value *v)
{
    return v + v->span;
}
static inline const pl__json_value *pl__json_next(const pl__json_value *v)
{
    return v + v->span;
}

/* The member `key` of an object: PL_OK with *out NULL if absent (allowed
 * when !required), PL_EFORMAT if required and absent or if the key occurs
 * twice.  `path` names the object in messages ("" for the root). */
pl_status pl__json_member(const pl__json_value **out, const pl__json_doc *doc,
                          const pl__json_value *obj, const char *key,
                          bool required, const char *path, pl_error *err);

/* PL_EFORMAT with "<name>: <path>: <what> (line L, column C, byte offset
 * N)", where the position is that of `at`. */
pl_status pl__json_fail(const pl__json_doc *doc, pl_error *err,
                        const pl__json_value *at, const char *path,
                        const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/* The same with another status (PL_EUNSUPPORTED for a real file of a kind
 * we do not handle). */
pl_status pl__json_fail_status(const pl__json_doc *doc, pl_error *err,
                               pl_status code, const pl__json_value *at,
                               const char *path, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

const char *pl__json_type_name(pl__json_type type);

/* pl_proof_read_json and pl_public_read_json on len bytes of text in
 * memory (for the fuzzers and tests), `name` standing for the path in
 * messages (implemented in proof_json.c); publics are released with
 * pl_public_free. */
pl_status pl__proof_parse_json(pl_proof *out, const char *text, size_t len,
                               const char *name, pl_error *err);
pl_status pl__public_parse_json(pl_scalar **out, size_t *count,
                                const char *text, size_t len,
                                const char *name, pl_error *err);

#endif /* PL_FORMATS_JSON_H */
