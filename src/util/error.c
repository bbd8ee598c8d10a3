/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Status codes and error filling.  The status table is generated from
 * PL_STATUS_MAP in proofline.h, so a code, its CLI exit code and its message
 * are defined in exactly one place.
 */
#include "util/error.h"

#include <stdarg.h>
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

static void error_vset(pl_error *err, pl_status code, int sys_errno,
                       const char *fmt, va_list ap)
{
    err->code = code;
    err->sys_errno = sys_errno;
    err->cuda_code = 0;
    vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
    if (sys_errno) {
        size_t used = strlen(err->msg);
        snprintf(err->msg + used, sizeof(err->msg) - used, ": %s",
                 strerror(sys_errno));
    }
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
