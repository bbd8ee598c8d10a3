/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Internal helpers for filling a pl_error.  Every fallible internal call
 * reports through pl__error_set, so messages share one shape:
 * "<file>: <section/field>: <what> (at byte offset N)".
 */
#ifndef PL_UTIL_ERROR_H
#define PL_UTIL_ERROR_H

#include "proofline.h"

#if defined(__GNUC__)
#define PL__PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define PL__PRINTF(a, b)
#endif

/* Sets err (if non-NULL) and returns code, so callers can `return
 * pl__error_set(...)`.  errno is captured by pl__error_errno.  The text
 * is formed whole before it is written, so an argument may be err->msg
 * itself (a caller prefixing the file or the item to a callee's message);
 * a text too long for pl_error.msg keeps its words and its files' names at
 * the cost of their folders.  So give paths as plain %s, never %.Ns: a
 * precision cuts a path's end, its file name, first. */
pl_status pl__error_set(pl_error *err, pl_status code, const char *fmt, ...)
    PL__PRINTF(3, 4);
pl_status pl__error_errno(pl_error *err, pl_status code, int sys_errno,
                          const char *fmt, ...) PL__PRINTF(4, 5);

#endif /* PL_UTIL_ERROR_H */
