/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The strict JSON parser behind the snarkjs text formats (see json.h for
 * the rules it enforces and the layout it builds).  Recursive descent with
 * an explicit depth limit, so hostile nesting cannot exhaust the stack.
 * The value array grows by doubling; each value starts at a distinct input
 * byte, so it never holds more than len + 1 entries.  Strings are decoded
 * into a separate buffer, never in place, so line and column numbers in
 * messages refer to the text as the user sees it.
 *
 * It does not interpret numbers (readers parse the text they need) and it
 * does not reject duplicate keys at parse time: pl__json_member does, for
 * the keys a reader asks for, in time linear in the object's size.
 */
#include "formats/json.h"
#include "util/error.h"
#include "util/file.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct pl__json_parser {
    pl__json_doc *doc;
    const char *s;
    size_t len;
    size_t pos;
    size_t cap;         /* allocated entries of doc->values */
    size_t str_used;    /* bytes used in doc->strings */
    pl_error *err;
} pl__json_parser;

static void pl__json_position(const char *src, size_t len, size_t offset,
                              size_t *line, size_t *column)
{
    size_t l = 1, c = 1;
    for (size_t i = 0; i < offset && i < len; i++) {
        if (src[i] == '\n') {
            l++;
            c = 1;
        } else {
            c++;
        }
    }
    *line = l;
    *column = c;
}

static pl_status pl__json_syntax(pl__json_parser *p, size_t offset,
                                 const char *what)
{
    size_t line, column;
    pl__json_position(p->s, p->len, offset, &line, &column);
    return pl__error_set(p->err, PL_EFORMAT,
                         "%s: JSON syntax: %s (line %zu, column %zu, byte "
                         "offset %zu)",
                         p->doc->name, what, line, column, offset);
}

static void pl__json_skip_ws(pl__json_parser *p)
{
    while (p->pos < p->len) {
        char c = p->s[p->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            break;
        p->pos++;
    }
}

/* Appends a value and returns its index, or SIZE_MAX out of memory. */
static size_t pl__json_push(pl__json_parser *p, pl__json_type type)
{
    pl__json_doc *doc = p->doc;
    if (doc->count == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 64;
        pl__json_value *grown = realloc(doc->values, cap * sizeof(*grown));
        if (!grown)
            return SIZE_MAX;
        doc->values = grown;
        p->cap = cap;
    }
    pl__json_value *v = &doc->values[doc->count];
    memset(v, 0, sizeof(*v));
    v->type = type;
    v->offset = p->pos;
    v->span = 1;
    return doc->count++;
}

static int pl__json_hex(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Reads the 4 hex digits of a \u escape at p->pos; -1 if malformed. */
static long pl__json_u4(pl__json_parser *p)
{
    long v = 0;
    if (p->len - p->pos < 4)
        return -1;
    for (int i = 0; i < 4; i++) {
        int h = pl__json_hex(p->s[p->pos + i]);
        if (h < 0)
            return -1;
        v = v * 16 + h;
    }
    p->pos += 4;
    return v;
}

/* Length of the valid UTF-8 sequence starting at s (n bytes available),
 * or 0 (overlong forms, surrogates and values above U+10FFFF rejected);
 * the writer checks its strings with it too (json_write.c). */
size_t pl__json_utf8_len(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    size_t need;
    unsigned lo = 0x80, hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) {
        need = 1;
    } else if (c >= 0xe0 && c <= 0xef) {
        need = 2;
        if (c == 0xe0)
            lo = 0xa0;
        else if (c == 0xed)
            hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        need = 3;
        if (c == 0xf0)
            lo = 0x90;
        else if (c == 0xf4)
            hi = 0x8f;
    } else {
        return 0;
    }
    if (n < need + 1)
        return 0;
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i <= need; i++)
        if (s[i] < 0x80 || s[i] > 0xbf)
            return 0;
    return need + 1;
}

/* Parses a string at p->pos (the opening quote) into doc->strings. */
static pl_status pl__json_string(pl__json_parser *p, const char **out,
                                 size_t *out_len)
{
    pl_status st = PL_OK;
    char *dst = p->doc->strings + p->str_used;
    size_t n = 0;
    size_t start = p->pos;

    p->pos++; /* the opening quote */
    for (;;) {
        if (p->pos >= p->len) {
            st = pl__json_syntax(p, start, "unterminated string");
            goto fail;
        }
        unsigned char c = (unsigned char)p->s[p->pos];
        if (c == '"') {
            p->pos++;
            break;
        }
        if (c < 0x20) {
            st = pl__json_syntax(p, p->pos, "control character in a string");
            goto fail;
        }
        if (c >= 0x80) {
            size_t k = pl__json_utf8_len((const unsigned char *)p->s + p->pos,
                                         p->len - p->pos);
            if (k == 0) {
                st = pl__json_syntax(p, p->pos, "invalid UTF-8 in a string");
                goto fail;
            }
            memcpy(dst + n, p->s + p->pos, k);
            n += k;
            p->pos += k;
            continue;
        }
        if (c != '\\') {
            dst[n++] = (char)c;
            p->pos++;
            continue;
        }
        size_t esc = p->pos;
        if (p->pos + 1 >= p->len) {
            st = pl__json_syntax(p, start, "unterminated string");
            goto fail;
        }
        char e = p->s[p->pos + 1];
        p->pos += 2;
        switch (e) {
        case '"': dst[n++] = '"'; break;
        case '\\': dst[n++] = '\\'; break;
        case '/': dst[n++] = '/'; break;
        case 'b': dst[n++] = '\b'; break;
        case 'f': dst[n++] = '\f'; break;
        case 'n': dst[n++] = '\n'; break;
        case 'r': dst[n++] = '\r'; break;
        case 't': dst[n++] = '\t'; break;
        case 'u': {
            long cp = pl__json_u4(p);
            if (cp < 0) {
                st = pl__json_syntax(p, esc, "bad \\u escape");
                goto fail;
            }
            if (cp >= 0xdc00 && cp <= 0xdfff) {
                st = pl__json_syntax(p, esc, "lone low surrogate");
                goto fail;
            }
            if (cp >= 0xd800 && cp <= 0xdbff) {
                long lo = -1;
                if (p->len - p->pos >= 2 && p->s[p->pos] == '\\' &&
                    p->s[p->pos + 1] == 'u') {
                    p->pos += 2;
                    lo = pl__json_u4(p);
                }
                if (lo < 0xdc00 || lo > 0xdfff) {
                    st = pl__json_syntax(p, esc, "lone high surrogate");
                    goto fail;
                }
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            }
            if (cp == 0) {
                st = pl__json_syntax(p, esc, "\\u0000 in a string");
                goto fail;
            }
            /* the encoding is never longer than the escape it replaces */
            if (cp < 0x80) {
                dst[n++] = (char)cp;
            } else if (cp < 0x800) {
                dst[n++] = (char)(0xc0 | (cp >> 6));
                dst[n++] = (char)(0x80 | (cp & 0x3f));
            } else if (cp < 0x10000) {
                dst[n++] = (char)(0xe0 | (cp >> 12));
                dst[n++] = (char)(0x80 | ((cp >> 6) & 0x3f));
                dst[n++] = (char)(0x80 | (cp & 0x3f));
            } else {
                dst[n++] = (char)(0xf0 | (cp >> 18));
                dst[n++] = (char)(0x80 | ((cp >> 12) & 0x3f));
                dst[n++] = (char)(0x80 | ((cp >> 6) & 0x3f));
                dst[n++] = (char)(0x80 | (cp & 0x3f));
            }
            break;
        }
        default:
            st = pl__json_syntax(p, esc, "bad escape in a string");
            goto fail;
        }
    }
    /* decoded bytes + NUL <= the quoted text's length, so the strings
     * buffer (input length + 1) always has room */
    dst[n] = '\0';
    p->str_used += n + 1;
    *out = dst;
    *out_len = n;
fail:
    return st;
}

static pl_status pl__json_number(pl__json_parser *p, pl__json_value *v)
{
    pl_status st = PL_OK;
    size_t start = p->pos, i = p->pos;
    const char *s = p->s;

    if (i < p->len && s[i] == '-')
        i++;
    if (i >= p->len || s[i] < '0' || s[i] > '9') {
        st = pl__json_syntax(p, i, "bad number");
        goto fail;
    }
    if (s[i] == '0') {
        i++;
        if (i < p->len && s[i] >= '0' && s[i] <= '9') {
            st = pl__json_syntax(p, start, "leading zero in a number");
            goto fail;
        }
    } else {
        while (i < p->len && s[i] >= '0' && s[i] <= '9')
            i++;
    }
    if (i < p->len && s[i] == '.') {
        i++;
        if (i >= p->len || s[i] < '0' || s[i] > '9') {
            st = pl__json_syntax(p, i, "bad number: no digit after '.'");
            goto fail;
        }
        while (i < p->len && s[i] >= '0' && s[i] <= '9')
            i++;
    }
    if (i < p->len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < p->len && (s[i] == '+' || s[i] == '-'))
            i++;
        if (i >= p->len || s[i] < '0' || s[i] > '9') {
            st = pl__json_syntax(p, i, "bad number: no digit in exponent");
            goto fail;
        }
        while (i < p->len && s[i] >= '0' && s[i] <= '9')
            i++;
    }
    v->text = s + start;
    v->len = i - start;
    p->pos = i;
fail:
    return st;
}

static pl_status pl__json_value_at(pl__json_parser *p, unsigned depth)
{
    pl_status st = PL_OK;
    size_t idx = SIZE_MAX;

    pl__json_skip_ws(p);
    if (p->pos >= p->len) {
        st = pl__json_syntax(p, p->pos, "unexpected end of input");
        goto fail;
    }
    char c = p->s[p->pos];
    pl__json_type type;
    switch (c) {
    case '{': type = PL__JSON_OBJECT; break;
    case '[': type = PL__JSON_ARRAY; break;
    case '"': type = PL__JSON_STRING; break;
    case 't': type = PL__JSON_TRUE; break;
    case 'f': type = PL__JSON_FALSE; break;
    case 'n': type = PL__JSON_NULL; break;
    default:
        if (c == '-' || (c >= '0' && c <= '9')) {
            type = PL__JSON_NUMBER;
            break;
        }
        st = pl__json_syntax(p, p->pos, "unexpected character");
        goto fail;
    }
    if ((type == PL__JSON_OBJECT || type == PL__JSON_ARRAY) &&
        depth >= PL__JSON_MAX_DEPTH) {
        st = pl__json_syntax(p, p->pos, "nested too deeply");
        goto fail;
    }
    idx = pl__json_push(p, type);
    if (idx == SIZE_MAX) {
        st = pl__error_set(p->err, PL_ENOMEM, "%s: out of memory parsing "
                           "JSON", p->doc->name);
        goto fail;
    }

    switch (type) {
    case PL__JSON_TRUE:
    case PL__JSON_FALSE:
    case PL__JSON_NULL: {
        const char *word = type == PL__JSON_TRUE    ? "true"
                           : type == PL__JSON_FALSE ? "false"
                                                    : "null";
        size_t wl = strlen(word);
        if (p->len - p->pos < wl || memcmp(p->s + p->pos, word, wl) != 0) {
            st = pl__json_syntax(p, p->pos, "unexpected word");
            goto fail;
        }
        p->pos += wl;
        break;
    }
    case PL__JSON_NUMBER:
        st = pl__json_number(p, &p->doc->values[idx]);
        break;
    case PL__JSON_STRING: {
        const char *t;
        size_t tl;
        st = pl__json_string(p, &t, &tl);
        if (st == PL_OK) {
            p->doc->values[idx].text = t;
            p->doc->values[idx].len = tl;
        }
        break;
    }
    case PL__JSON_ARRAY:
    case PL__JSON_OBJECT: {
        bool obj = type == PL__JSON_OBJECT;
        char close = obj ? '}' : ']';
        size_t n = 0;
        p->pos++;
        pl__json_skip_ws(p);
        if (p->pos < p->len && p->s[p->pos] == close) {
            p->pos++;
            break;
        }
        for (;;) {
            const char *key = NULL;
            size_t key_len = 0;
            if (obj) {
                pl__json_skip_ws(p);
                if (p->pos >= p->len || p->s[p->pos] != '"') {
                    st = pl__json_syntax(p, p->pos, p->pos >= p->len
                                         ? "unexpected end of input"
                                         : "expected a member name");
                    goto fail;
                }
                st = pl__json_string(p, &key, &key_len);
                if (st != PL_OK)
                    goto fail;
                pl__json_skip_ws(p);
                if (p->pos >= p->len || p->s[p->pos] != ':') {
                    st = pl__json_syntax(p, p->pos, "expected ':'");
                    goto fail;
                }
                p->pos++;
            }
            size_t child = p->doc->count;
            st = pl__json_value_at(p, depth + 1);
            if (st != PL_OK)
                goto fail;
            p->doc->values[child].key = key;
            p->doc->values[child].key_len = key_len;
            n++;
            pl__json_skip_ws(p);
            if (p->pos >= p->len) {
                st = pl__json_syntax(p, p->pos, "unexpected end of input");
                goto fail;
            }
            if (p->s[p->pos] == ',') {
                p->pos++;
                continue;
            }
            if (p->s[p->pos] == close) {
                p->pos++;
                break;
            }
            st = pl__json_syntax(p, p->pos, obj ? "expected ',' or '}'"
                                                : "expected ',' or ']'");
            goto fail;
        }
        p->doc->values[idx].len = n;
        p->doc->values[idx].span = p->doc->count - idx;
        break;
    }
    }
fail:
    return st;
}

pl_status pl__json_parse(pl__json_doc *doc, const char *text, size_t len,
                         const char *name, pl_error *err)
{
    pl_status st = PL_OK;
    pl__json_parser p;

    memset(doc, 0, sizeof(*doc));
    doc->name = name ? name : "JSON";
    doc->src = text;
    doc->src_len = len;
    memset(&p, 0, sizeof(p));
    p.doc = doc;
    p.s = text;
    p.len = len;
    p.err = err;

    doc->strings = malloc(len + 1);
    if (!doc->strings) {
        st = pl__error_set(err, PL_ENOMEM, "%s: out of memory parsing JSON",
                           doc->name);
        goto fail;
    }
    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) {
        st = pl__json_syntax(&p, 0, "byte order mark");
        goto fail;
    }
    st = pl__json_value_at(&p, 0);
    if (st != PL_OK)
        goto fail;
    pl__json_skip_ws(&p);
    if (p.pos != len) {
        st = pl__json_syntax(&p, p.pos, "trailing characters after the value");
        goto fail;
    }
fail:
    if (st != PL_OK)
        pl__json_free(doc);
    return st;
}

pl_status pl__json_read_file(pl__json_doc *doc, const char *path,
                             size_t max_bytes, pl_error *err)
{
    char *text = NULL;
    size_t len = 0;
    pl_status st;

    memset(doc, 0, sizeof(*doc));
    st = pl__file_read_small(&text, &len, path, max_bytes, err);
    if (st != PL_OK)
        goto fail;
    st = pl__json_parse(doc, text, len, path, err);
    if (st != PL_OK)
        goto fail;
    doc->owned_src = text;
    text = NULL;
fail:
    free(text);
    return st;
}

void pl__json_free(pl__json_doc *doc)
{
    if (!doc)
        return;
    free(doc->values);
    free(doc->strings);
    free(doc->owned_src);
    memset(doc, 0, sizeof(*doc));
}

static pl_status pl__json_failv(const pl__json_doc *doc, pl_error *err,
                                pl_status code, const pl__json_value *at,
                                const char *path, const char *fmt, va_list ap)
{
    char what[160];
    size_t line = 0, column = 0, offset = at ? at->offset : 0;

    vsnprintf(what, sizeof(what), fmt, ap);
    pl__json_position(doc->src, doc->src_len, offset, &line, &column);
    return pl__error_set(err, code,
                         "%s: %s: %s (line %zu, column %zu, byte offset %zu)",
                         doc->name, path && *path ? path : "(root)", what,
                         line, column, offset);
}

pl_status pl__json_fail(const pl__json_doc *doc, pl_error *err,
                        const pl__json_value *at, const char *path,
                        const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pl_status st = pl__json_failv(doc, err, PL_EFORMAT, at, path, fmt, ap);
    va_end(ap);
    return st;
}

pl_status pl__json_fail_status(const pl__json_doc *doc, pl_error *err,
                               pl_status code, const pl__json_value *at,
                               const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pl_status st = pl__json_failv(doc, err, code, at, path, fmt, ap);
    va_end(ap);
    return st;
}

pl_status pl__json_member(const pl__json_value **out, const pl__json_doc *doc,
                          const pl__json_value *obj, const char *key,
                          bool required, const char *path, pl_error *err)
{
    pl_status st = PL_OK;
    const pl__json_value *found = NULL;
    size_t key_len = strlen(key);

    *out = NULL;
    if (obj->type != PL__JSON_OBJECT) {
        st = pl__json_fail(doc, err, obj, path, "expected an object, found %s",
                           pl__json_type_name(obj->type));
        goto fail;
    }
    for (const pl__json_value *m = pl__json_first(obj);
         m != pl__json_end(obj); m = pl__json_next(m)) {
        if (m->key_len != key_len || memcmp(m->key, key, key_len) != 0)
            continue;
        if (found) {
            st = pl__json_fail(doc, err, m, path, "duplicate key \"%s\"", key);
            goto fail;
        }
        found = m;
    }
    if (!found && required) {
        st = pl__json_fail(doc, err, obj, path, "missing key \"%s\"", key);
        goto fail;
    }
    *out = found;
fail:
    return st;
}

const char *pl__json_type_name(pl__json_type type)
{
    switch (type) {
    case PL__JSON_NULL: return "null";
    case PL__JSON_FALSE: return "false";
    case PL__JSON_TRUE: return "true";
    case PL__JSON_NUMBER: return "a number";
    case PL__JSON_STRING: return "a string";
    case PL__JSON_ARRAY: return "an array";
    case PL__JSON_OBJECT: return "an object";
    }
    return "?";
}
