/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Files: read-only memory maps for the big inputs (.zkey, .wtns, .r1cs),
 * whole-file reads for small JSON inputs, and atomic output: data goes to a
 * temporary file beside the target, then a rename publishes it, so a failed
 * run never leaves a half-written file.
 */
#ifndef PL_UTIL_FILE_H
#define PL_UTIL_FILE_H

#include "proofline.h"

typedef struct pl__mapped {
    const uint8_t *data;
    uint64_t size;
} pl__mapped;

pl_status pl__file_map(pl__mapped *out, const char *path, pl_error *err);
void pl__file_unmap(pl__mapped *m);

/* Reads a whole file into an accounted buffer of class cls (exactly its
 * size), presented as a pl__mapped; free it with pl__free(out->data). */
pl_status pl__file_load(pl__mapped *out, const char *path,
                        pl_buffer_class cls, pl_error *err);

/* Reads a whole small file (at most max_bytes) into a NUL-terminated
 * malloc'd buffer. */
pl_status pl__file_read_small(char **out, size_t *size, const char *path,
                              size_t max_bytes, pl_error *err);

/* Output in two steps: stage writes a temporary file beside `path` and
 * fsyncs it; commit renames it into place; abort removes it. */
typedef struct pl__staged_file {
    char path[4096];
    char tmp_path[4096 + 16];
    bool staged;
} pl__staged_file;

pl_status pl__file_stage(pl__staged_file *sf, const char *path,
                         const void *data, size_t len, pl_error *err);
pl_status pl__file_commit(pl__staged_file *sf, pl_error *err);
void pl__file_abort(pl__staged_file *sf);

/* Growable text buffer for writers. */
typedef struct pl__strbuf {
    char *data;
    size_t len, cap;
    bool failed; /* an append ran out of memory */
} pl__strbuf;

void pl__strbuf_printf(pl__strbuf *sb, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void pl__strbuf_free(pl__strbuf *sb);

#endif /* PL_UTIL_FILE_H */
