/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Byte sizes as people write them: "4GiB", "512MiB", "1.5GB", "100000".
 * Binary (KiB, MiB, GiB, TiB) and decimal (KB, MB, GB, TB) units, a bare
 * number is bytes; case-insensitive units, optional "B".  And the way we
 * print them (log lines, summaries): binary units, one decimal.
 */
#include "proofline.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

bool pl_parse_size(const char *text, uint64_t *out)
{
    static const struct {
        const char *unit;
        double factor;
    } units[] = {
        {"", 1},        {"b", 1},
        {"k", 1024.0},  {"kib", 1024.0},           {"kb", 1e3},
        {"m", 1048576.0}, {"mib", 1048576.0},      {"mb", 1e6},
        {"g", 1073741824.0}, {"gib", 1073741824.0}, {"gb", 1e9},
        {"t", 1099511627776.0}, {"tib", 1099511627776.0}, {"tb", 1e12},
    };
    if (!text || !isdigit((unsigned char)text[0]))
        return false;
    /* digits with at most one decimal point, then the unit: no hex, no
     * exponent, no sign (strtod alone would take them) */
    const char *end = text;
    bool point = false;
    while (isdigit((unsigned char)*end) || (*end == '.' && !point))
        point |= *end++ == '.';
    char number[64];
    if ((size_t)(end - text) >= sizeof(number))
        return false;
    memcpy(number, text, (size_t)(end - text));
    number[end - text] = '\0';
    double value = strtod(number, NULL);
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (strcasecmp(end, units[i].unit) != 0)
            continue;
        double bytes = floor(value * units[i].factor);
        if (!(bytes >= 1) || bytes >= 18446744073709551615.0)
            return false;
        *out = (uint64_t)bytes;
        return true;
    }
    return false;
}

const char *pl_format_bytes(char *buf, size_t cap, uint64_t bytes)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024.0 && u < 4) {
        v /= 1024.0;
        u++;
    }
    if (u == 0)
        snprintf(buf, cap, "%lluB", (unsigned long long)bytes);
    else
        snprintf(buf, cap, "%.1f%s", v, units[u]);
    return buf;
}
