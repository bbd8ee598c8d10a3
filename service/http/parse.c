/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The strict parsers of what a request carries (see http.h): its path's
 * escapes, ids, indexes, numbers and durations, idempotency keys, Host
 * and Origin, a media type.  Each takes plain text and says yes or no:
 * nothing is trimmed, nothing lenient (no sign, no space, no hex, no
 * exponent, no inf or nan), so what the service acts on is exactly what
 * it checked.  No state, no allocation: a fuzzer calls them as they are.
 */
#include "http.h"

#include <ctype.h>
#include <string.h>

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

size_t pl__http_unescape(char *s)
{
    char *w = s;
    for (const char *r = s; *r;) {
        int hi, lo;
        if (r[0] == '%' && (hi = hex_value(r[1])) >= 0 &&
            (lo = hex_value(r[2])) >= 0 && (hi | lo) != 0) {
            *w++ = (char)(hi * 16 + lo);
            r += 3;
        } else {
            *w++ = *r++; /* %00 and a malformed escape stay as written */
        }
    }
    *w = '\0';
    return (size_t)(w - s);
}

static bool lower_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

bool pl__http_job_id(const char *s)
{
    if (!s || strlen(s) != PL__STORE_JOB_ID_LEN)
        return false;
    for (int i = 0; i < PL__STORE_JOB_ID_LEN; i++) {
        bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash ? s[i] != '-' : !lower_hex(s[i]))
            return false;
    }
    return true;
}

bool pl__http_circuit_id(const char *s)
{
    if (!s || strlen(s) != PL__STORE_ID_LEN)
        return false;
    for (int i = 0; i < PL__STORE_ID_LEN; i++)
        if (!lower_hex(s[i]))
            return false;
    return true;
}

bool pl__http_uint(const char *s, uint64_t max, uint64_t *out)
{
    size_t n = s ? strlen(s) : 0;
    if (n == 0 || n > 18)
        return false;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (v > max)
        return false;
    *out = v;
    return true;
}

/* digits[.ddd] into thousandths; *end after it. */
static bool decimal_milli(const char *s, uint64_t *milli, const char **end)
{
    uint64_t whole = 0;
    size_t digits = 0;
    const char *p = s;
    while (*p >= '0' && *p <= '9') {
        if (++digits > 9)
            return false;
        whole = whole * 10 + (uint64_t)(*p++ - '0');
    }
    if (digits == 0)
        return false;
    uint64_t frac = 0, scale = 100;
    if (*p == '.') {
        p++;
        size_t fd = 0;
        while (*p >= '0' && *p <= '9') {
            if (++fd > 3)
                return false;
            frac += (uint64_t)(*p++ - '0') * scale;
            scale /= 10;
        }
        if (fd == 0)
            return false;
    }
    *milli = whole * 1000 + frac;
    *end = p;
    return true;
}

bool pl__http_duration_ms(const char *s, uint64_t *ms)
{
    uint64_t milli;
    const char *unit;
    if (!s || !decimal_milli(s, &milli, &unit))
        return false;
    if (strcmp(unit, "ms") == 0)
        *ms = milli / 1000;
    else if (*unit == '\0' || strcmp(unit, "s") == 0)
        *ms = milli;
    else if (strcmp(unit, "m") == 0)
        *ms = milli * 60;
    else
        return false;
    return true;
}

bool pl__http_seconds(const char *s, double *out)
{
    uint64_t milli;
    const char *end;
    if (!s || !decimal_milli(s, &milli, &end) || *end)
        return false;
    *out = (double)milli / 1000.0;
    return true;
}

bool pl__http_key(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n < 1 || n > PL__HTTP_KEY_MAX)
        return false;
    for (const char *p = s; *p; p++)
        if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
              (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' ||
              *p == ':' || *p == '-'))
            return false;
    return true;
}

/* "127.a.b.c" with each part 0..255, no leading zeros. */
static bool loopback_v4(const char *s, size_t n)
{
    int parts = 0;
    size_t i = 0;
    while (i < n) {
        size_t start = i;
        unsigned v = 0;
        while (i < n && s[i] >= '0' && s[i] <= '9' && i - start < 3)
            v = v * 10 + (unsigned)(s[i++] - '0');
        size_t len = i - start;
        if (len == 0 || v > 255 || (len > 1 && s[start] == '0'))
            return false;
        if (parts == 0 && v != 127)
            return false;
        parts++;
        if (i < n) {
            if (s[i] != '.' || parts == 4)
                return false;
            i++;
            if (i == n)
                return false;
        }
    }
    return parts == 4;
}

/* The host part of a Host header (without its port) names loopback. */
static bool loopback_name(const char *s, size_t n)
{
    return (n == 9 && strncmp(s, "localhost", 9) == 0) ||
           (n == 5 && strncmp(s, "[::1]", 5) == 0) || loopback_v4(s, n);
}

/* host[:port] -> its host part's length, and whether its port (if any) is
 * `port` (0: any). */
static bool host_port(const char *h, unsigned port, size_t *host_len)
{
    size_t n = strlen(h);
    const char *colon = NULL;
    if (h[0] == '[') {
        const char *close = strchr(h, ']');
        if (!close)
            return false;
        colon = close[1] == ':' ? close + 1 : NULL;
        if (!colon && close[1])
            return false;
    } else {
        colon = strchr(h, ':');
    }
    *host_len = colon ? (size_t)(colon - h) : n;
    if (!colon)
        return true;
    uint64_t p;
    if (!pl__http_uint(colon + 1, 65535, &p) || colon[1] == '0')
        return false;
    return port == 0 || p == port;
}

bool pl__http_loopback_host(const char *host, unsigned port)
{
    size_t len;
    return host && *host && host_port(host, port, &len) &&
           loopback_name(host, len);
}

bool pl__http_own_origin(const char *origin, unsigned port)
{
    if (!origin || strncmp(origin, "http://", 7) != 0)
        return false;
    const char *h = origin + 7;
    if (strchr(h, '/'))
        return false;
    size_t len;
    /* a browser leaves the port out only when it is http's own */
    return host_port(h, port, &len) && loopback_name(h, len) &&
           (port == 0 || port == 80 || strchr(h + len, ':'));
}

void pl__http_media_type(const char *content_type, char *out, size_t cap)
{
    size_t o = 0;
    if (cap == 0)
        return;
    for (const char *p = content_type ? content_type : "";
         *p && *p != ';' && o + 1 < cap; p++)
        if (*p != ' ' && *p != '\t')
            out[o++] = (char)tolower((unsigned char)*p);
    out[o] = '\0';
}
