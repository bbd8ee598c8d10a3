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
#include "util/file.h"

#include <stdbool.h>
#include <stdio.h>

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

/* Length of the multi-byte UTF-8 sequence at s (n bytes available): 2 to
 * 4, or 0 when it is not a valid one (an ASCII byte included): overlong
 * forms, surrogates and values above U+10FFFF are not valid. */
size_t pl__json_utf8_len(const unsigned char *s, size_t n);

/* ---- the writer ------------------------------------------------------------
 *
 * The one JSON writer of the project (json_write.c): the ledger's report
 * and trace, the service's replies and figures, and the CLI write their
 * JSON through it, so commas, quoting and escaping are written once.  A
 * writer appends to a text buffer (pl__strbuf) or to a stream.  Strings
 * are escaped as RFC 8259 asks (quote and backslash after a backslash,
 * control characters as \u00XX, the form the report always had), and
 * bytes that are not valid UTF-8 become U+FFFD, so whatever a message
 * quotes (a file name in another encoding) the output parses.
 * Integers are written in full, doubles with the precision asked, a
 * value that is not finite as null.  Two layouts: spaced (", " and ": ",
 * the service's replies) and compact ("," and ":", the trace).  Misuse
 * (a value where a key is due, containers closed that were not opened,
 * nesting deeper than PL__JSON_MAX_DEPTH) and a full buffer set `failed`
 * and stop the writing; the caller checks it once at the end. */
typedef struct pl__jw {
    pl__strbuf *sb;     /* one of the two */
    FILE *f;
    bool compact;
    unsigned depth;
    bool in_object[PL__JSON_MAX_DEPTH + 1];
    bool has_items[PL__JSON_MAX_DEPTH + 1];
    bool keyed;         /* in an object: a key was written, its value due */
    bool break_next;    /* a line break before the next item */
    bool failed;
} pl__jw;

void pl__jw_to_buffer(pl__jw *w, pl__strbuf *sb, bool compact);
void pl__jw_to_stream(pl__jw *w, FILE *f, bool compact);
void pl__jw_object(pl__jw *w);
void pl__jw_end_object(pl__jw *w);
void pl__jw_array(pl__jw *w);
void pl__jw_end_array(pl__jw *w);
/* A member's name in an object; its value is the next value written. */
void pl__jw_key(pl__jw *w, const char *key);
void pl__jw_str(pl__jw *w, const char *s); /* NULL: "" */
void pl__jw_strn(pl__jw *w, const char *s, size_t len);
void pl__jw_u64(pl__jw *w, uint64_t v);
void pl__jw_i64(pl__jw *w, int64_t v);
/* decimals < 0: the shortest text that reads back the same double */
void pl__jw_f64(pl__jw *w, double v, int decimals);
void pl__jw_bool(pl__jw *w, bool v);
void pl__jw_null(pl__jw *w);
/* A value already in JSON (a proof file's text, a stored object): written
 * as it is, the caller vouching for it. */
void pl__jw_raw(pl__jw *w, const char *json, size_t len);
/* A line break before the next item, or before the container's end
 * (layouts meant for people to read). */
void pl__jw_newline(pl__jw *w);

/* Members in one call: the key, then the value. */
void pl__jw_key_str(pl__jw *w, const char *key, const char *s);
void pl__jw_key_u64(pl__jw *w, const char *key, uint64_t v);
void pl__jw_key_i64(pl__jw *w, const char *key, int64_t v);
void pl__jw_key_f64(pl__jw *w, const char *key, double v, int decimals);
void pl__jw_key_bool(pl__jw *w, const char *key, bool v);

/* One string value, quoted and escaped, on a stream or in a buffer (for
 * writers that lay out the rest themselves). */
void pl__json_fputs(FILE *f, const char *s);
void pl__json_put_string(pl__strbuf *sb, const char *s);

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
