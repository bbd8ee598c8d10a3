/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The one JSON writer (see json.h): separators, quoting and escaping for
 * every JSON the project writes (the ledger's report and trace, the
 * service's replies and figures, the CLI's).  It keeps only the nesting
 * (which container is open, whether it has an item yet, whether a key
 * waits for its value), so a value is never written without its comma and
 * a key never outside an object.  What it does not do: check that keys are
 * unique, or indent (a caller asks for line breaks where people read it).
 */
#include "formats/json.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static void out(pl__jw *w, const char *s, size_t len)
{
    if (w->failed || !len)
        return;
    if (w->f) {
        if (fwrite(s, 1, len, w->f) != len)
            w->failed = true;
    } else {
        pl__strbuf_printf(w->sb, "%.*s", (int)len, s);
        w->failed = w->sb->failed;
    }
}

static void outs(pl__jw *w, const char *s)
{
    out(w, s, strlen(s));
}

void pl__jw_to_buffer(pl__jw *w, pl__strbuf *sb, bool compact)
{
    memset(w, 0, sizeof(*w));
    w->sb = sb;
    w->compact = compact;
    w->failed = sb->failed;
}

void pl__jw_to_stream(pl__jw *w, FILE *f, bool compact)
{
    memset(w, 0, sizeof(*w));
    w->f = f;
    w->compact = compact;
}

/* The separator before an item (a value of an array or of the top level,
 * or a key), with the line break asked for. */
static void separate(pl__jw *w)
{
    if (w->has_items[w->depth])
        outs(w, w->break_next ? ",\n" : w->compact ? "," : ", ");
    else if (w->break_next)
        outs(w, "\n");
    w->break_next = false;
    w->has_items[w->depth] = true;
}

/* Before any value: its separator, or nothing after its key; a value
 * where a key is due is a misuse. */
static bool value_starts(pl__jw *w)
{
    if (w->failed)
        return false;
    if (w->in_object[w->depth] && !w->keyed) {
        w->failed = true;
        return false;
    }
    if (w->keyed)
        w->keyed = false;
    else
        separate(w);
    return !w->failed;
}

void pl__jw_newline(pl__jw *w)
{
    w->break_next = true;
}

static void open_container(pl__jw *w, bool object)
{
    if (!value_starts(w))
        return;
    if (w->depth == PL__JSON_MAX_DEPTH) {
        w->failed = true;
        return;
    }
    outs(w, object ? "{" : "[");
    w->depth++;
    w->in_object[w->depth] = object;
    w->has_items[w->depth] = false;
}

static void close_container(pl__jw *w, bool object)
{
    if (w->failed)
        return;
    if (w->depth == 0 || w->in_object[w->depth] != object || w->keyed) {
        w->failed = true;
        return;
    }
    w->depth--;
    outs(w, w->break_next ? "\n" : "");
    w->break_next = false;
    outs(w, object ? "}" : "]");
}

void pl__jw_object(pl__jw *w) { open_container(w, true); }
void pl__jw_end_object(pl__jw *w) { close_container(w, true); }
void pl__jw_array(pl__jw *w) { open_container(w, false); }
void pl__jw_end_array(pl__jw *w) { close_container(w, false); }

/* The escaped text of s (len bytes), quotes included. */
static void quoted(pl__jw *w, const char *s, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)s;
    size_t run = 0; /* bytes copied as they are, pending */
    outs(w, "\"");
    for (size_t i = 0; i < len;) {
        unsigned char c = p[i];
        size_t k = 1;
        const char *esc = NULL;
        char u[8];
        if (c == '"')
            esc = "\\\"";
        else if (c == '\\')
            esc = "\\\\";
        else if (c < 0x20) {
            snprintf(u, sizeof(u), "\\u00%c%c", hex[c >> 4], hex[c & 15]);
            esc = u;
        } else if (c >= 0x80) {
            k = pl__json_utf8_len(p + i, len - i);
            if (k == 0) {
                k = 1;
                esc = "\\ufffd";
            }
        }
        if (esc) {
            out(w, s + i - run, run);
            run = 0;
            outs(w, esc);
        } else {
            run += k;
        }
        i += k;
    }
    out(w, s + len - run, run);
    outs(w, "\"");
}

void pl__jw_key(pl__jw *w, const char *key)
{
    if (w->failed)
        return;
    if (!w->in_object[w->depth] || w->keyed) {
        w->failed = true;
        return;
    }
    separate(w);
    quoted(w, key, strlen(key));
    outs(w, w->compact ? ":" : ": ");
    w->keyed = true;
}

void pl__jw_strn(pl__jw *w, const char *s, size_t len)
{
    if (value_starts(w))
        quoted(w, s ? s : "", s ? len : 0);
}

void pl__jw_str(pl__jw *w, const char *s)
{
    pl__jw_strn(w, s, s ? strlen(s) : 0);
}

void pl__jw_u64(pl__jw *w, uint64_t v)
{
    char t[24];
    if (value_starts(w))
        out(w, t, (size_t)snprintf(t, sizeof(t), "%" PRIu64, v));
}

void pl__jw_i64(pl__jw *w, int64_t v)
{
    char t[24];
    if (value_starts(w))
        out(w, t, (size_t)snprintf(t, sizeof(t), "%" PRId64, v));
}

void pl__jw_f64(pl__jw *w, double v, int decimals)
{
    char t[64];
    if (!value_starts(w))
        return;
    if (!isfinite(v)) {
        outs(w, "null");
        return;
    }
    int n = decimals < 0 ? snprintf(t, sizeof(t), "%.17g", v)
                         : snprintf(t, sizeof(t), "%.*f",
                                    decimals > 17 ? 17 : decimals, v);
    out(w, t, (size_t)n);
}

void pl__jw_bool(pl__jw *w, bool v)
{
    if (value_starts(w))
        outs(w, v ? "true" : "false");
}

void pl__jw_null(pl__jw *w)
{
    if (value_starts(w))
        outs(w, "null");
}

void pl__jw_raw(pl__jw *w, const char *json, size_t len)
{
    if (value_starts(w))
        out(w, json, len);
}

void pl__jw_key_str(pl__jw *w, const char *key, const char *s)
{
    pl__jw_key(w, key);
    pl__jw_str(w, s);
}

void pl__jw_key_u64(pl__jw *w, const char *key, uint64_t v)
{
    pl__jw_key(w, key);
    pl__jw_u64(w, v);
}

void pl__jw_key_i64(pl__jw *w, const char *key, int64_t v)
{
    pl__jw_key(w, key);
    pl__jw_i64(w, v);
}

void pl__jw_key_f64(pl__jw *w, const char *key, double v, int decimals)
{
    pl__jw_key(w, key);
    pl__jw_f64(w, v, decimals);
}

void pl__jw_key_bool(pl__jw *w, const char *key, bool v)
{
    pl__jw_key(w, key);
    pl__jw_bool(w, v);
}

void pl__json_fputs(FILE *f, const char *s)
{
    pl__jw w;
    pl__jw_to_stream(&w, f, true);
    pl__jw_str(&w, s);
}

void pl__json_put_string(pl__strbuf *sb, const char *s)
{
    pl__jw w;
    pl__jw_to_buffer(&w, sb, true);
    pl__jw_str(&w, s);
}
