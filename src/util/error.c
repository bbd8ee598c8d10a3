/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Status codes and error filling.  The status table is generated from
 * PL_STATUS_MAP in proofline.h, so a code, its CLI exit code and its message
 * are defined in exactly one place.
 */
#include "util/error.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static const struct {
    int exit_code;
    const char *message;
} status_table[] = {
#define PL__STATUS_ROW(name, exit_code, message) {exit_code, message},
    PL_STATUS_MAP(PL__STATUS_ROW)
#undef PL__STATUS_ROW
};

const char *pl_strerror(pl_status status)
{
    if ((unsigned)status >= PL_STATUS_COUNT)
        return "unknown status";
    return status_table[status].message;
}

int pl_status_exit_code(pl_status status)
{
    if ((unsigned)status >= PL_STATUS_COUNT)
        return 3;
    return status_table[status].exit_code;
}

/* A message whose text does not fit in pl_error.msg (255 bytes, public
 * ABI) keeps its words at the cost of the folders of the paths it names:
 * a long absolute path (a service's job folder, a deep build tree) would
 * otherwise push the end of the message, where the hint of what to do is,
 * or a second file's name, past the end.  Each path's own file name is
 * always kept (a message must name its files); folders are dropped whole,
 * from the first, behind "...", from the longest path first and no more
 * than needed; a text still too long is cut at the end and ends in "...". */

static bool path_token_end(char c)
{
    return c == 0 || c == ' ' || c == '\'' || c == '"' || c == ')' ||
           c == ',';
}

/* Shortens the path with the most folders to drop by `need` bytes or as
 * near as it can; returns the bytes saved (0: nothing left to shorten). */
static size_t shorten_longest_path(char *text, size_t need)
{
    char *best = NULL;
    size_t best_folders = 0;
    for (char *c = text; *c;) {
        bool starts = c == text || c[-1] == ' ' || c[-1] == '\'' ||
                      c[-1] == '"' || c[-1] == '(';
        char *end = c;
        while (!path_token_end(*end))
            end++;
        if (starts && end > c) {
            char *last = NULL; /* the '/' before the file's own name */
            for (char *s = c; s < end; s++)
                if (*s == '/')
                    last = s;
            size_t folders = last ? (size_t)(last - c) : 0;
            if (folders > 3 && folders > best_folders) {
                best = c;
                best_folders = folders;
            }
        }
        c = end > c ? end : c + 1;
    }
    if (!best)
        return 0;
    /* the first folder boundary that saves enough, else all the folders */
    size_t cut = best_folders;
    for (size_t b = 1; b < best_folders; b++)
        if (best[b] == '/' && b - 3 >= need) {
            cut = b;
            break;
        }
    memcpy(best, "...", 3);
    memmove(best + 3, best + cut, strlen(best + cut) + 1);
    return cut - 3;
}

static void message_fit(char *dst, size_t cap, char *text)
{
    size_t len = strlen(text);
    while (len >= cap) {
        size_t saved = shorten_longest_path(text, len - (cap - 1));
        if (!saved)
            break;
        len -= saved;
    }
    if (len < cap)
        memcpy(dst, text, len + 1);
    else
        snprintf(dst, cap, "%.*s...", (int)(cap - 4), text);
}

static void error_vset(pl_error *err, pl_status code, int sys_errno,
                       const char *fmt, va_list ap)
{
    char text[4096];
    err->code = code;
    err->sys_errno = sys_errno;
    err->cuda_code = 0;
    vsnprintf(text, sizeof(text), fmt, ap);
    if (sys_errno) {
        size_t used = strlen(text);
        snprintf(text + used, sizeof(text) - used, ": %s",
                 strerror(sys_errno));
    }
    message_fit(err->msg, sizeof(err->msg), text);
}

pl_status pl__error_set(pl_error *err, pl_status code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        error_vset(err, code, 0, fmt, ap);
        va_end(ap);
    }
    return code;
}

pl_status pl__error_errno(pl_error *err, pl_status code, int sys_errno,
                          const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        error_vset(err, code, sys_errno, fmt, ap);
        va_end(ap);
    }
    return code;
}
