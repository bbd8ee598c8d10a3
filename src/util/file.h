/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Files: read-only memory maps for the big inputs (.zkey, .wtns, .r1cs),
 * whole-file reads for small JSON inputs, and output (pl__output, the one
 * way files are written): data goes to a temporary file beside the target,
 * then a rename publishes it, so a failed run never leaves a half-written
 * file.
 */
#ifndef PL_UTIL_FILE_H
#define PL_UTIL_FILE_H

#include "proofline.h"

#include <stdio.h>

/* What a file was when it was read: to tell later whether it changed. */
typedef struct pl__file_id {
    uint64_t dev, ino, size;
    int64_t mtime_ns, ctime_ns;
} pl__file_id;

typedef struct pl__mapped {
    const uint8_t *data;
    uint64_t size;
    pl__file_id id; /* the file's, as it was read (map and load) */
} pl__mapped;

pl_status pl__file_map(pl__mapped *out, const char *path, pl_error *err);
void pl__file_unmap(pl__mapped *m);

/* Reads a whole file into an accounted buffer of class cls (exactly its
 * size), presented as a pl__mapped; free it with pl__free(out->data).  A
 * file larger than max_bytes (0: no limit; a caller that reserved its size
 * first passes that) is refused before anything is allocated, and one that
 * changed while it was read (size, time, inode; and, for a file modified
 * in the last seconds, whose time is too coarse to tell, its bytes read
 * again and compared) is refused after: the bytes handed out are one
 * version of the file, and stay so whatever happens to it later. */
pl_status pl__file_load(pl__mapped *out, const char *path,
                        pl_buffer_class cls, uint64_t max_bytes,
                        pl_error *err);
/* Whether the file at path still holds exactly m's bytes (a copy from
 * pl__file_load): false when its size or any byte differs, or it cannot be
 * read.  Read a block at a time, nothing allocated but the block.  For
 * telling, when a proof made with a loaded key does not verify, whether
 * the key changed on disk since it was read. */
bool pl__file_still_holds(const char *path, const pl__mapped *m);
/* Whether the file at path is still the one id describes (the same inode,
 * size, modification and change times): false once anything wrote to it,
 * replaced or removed it.  A cheap look, for files too large to read
 * again (a parameter file decoded in place): a proof made from a copy that
 * does not verify is blamed on the file when it changed since the read (a
 * writer paused mid-file left a torn copy that looked at rest). */
bool pl__file_unchanged(const char *path, const pl__file_id *id);
/* Test hook: fn(user) runs in pl__file_load after the bytes are read and
 * before they are checked, so a test can change the file at the moment a
 * writer would tear it (NULL: none).  Not for concurrent loads. */
void pl__file_load_after_read_hook(void (*fn)(void *user), void *user);

/* Reads a whole small file (at most max_bytes, refused before reading
 * when its size is larger) into a NUL-terminated malloc'd buffer.
 *
 * Every input (map, load, small read, head) is opened non-blocking and
 * must be a regular file that is not empty, checked before anything is
 * read: a FIFO does not hang the open, a device such as /dev/zero is not
 * read. */
pl_status pl__file_read_small(char **out, size_t *size, const char *path,
                              size_t max_bytes, pl_error *err);
/* The first bytes of a file, up to cap of them (fewer when the file is
 * shorter; *got says how many), for a reader that tells a file's kind by
 * its start (a magic, JSON's first character). */
pl_status pl__file_head(uint8_t *out, size_t cap, size_t *got,
                        const char *path, pl_error *err);

/*
 * Output, written one way: every file proofline writes goes through a
 * pl__output.  Open creates a temporary file beside the target, named
 * "<target>.tmp" and six random characters, with O_CREAT | O_EXCL (so a
 * name planted in the folder, a symlink included, is never opened: another
 * name is drawn) and mode 0666 less the umask, as an ordinary file gets.
 * The caller writes through `f` (fprintf) or pl__output_write.  Finish
 * flushes, fsyncs and closes it; commit (finishing first if need be)
 * renames it over the target and fsyncs the folder, so the target is the
 * old file or the complete new one, never a part.  Abort (safe after any
 * step, and after a failed one) closes and removes the temporary file:
 * a failed write leaves nothing behind.
 *
 * An existing target that is not a regular file or a folder (a device, a
 * FIFO) is written in place instead: opened for writing, never renamed
 * over or removed; `in_place` says so.  So are the process's own streams
 * (/dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N), whatever they
 * lead to, through a duplicate of the descriptor: two outputs to
 * /dev/stdout follow each other even when a shell sent it to a file.
 * A pl__output is used by one thread.
 */
typedef struct pl__output {
    FILE *f;             /* open between open and finish */
    char path[4096];
    char tmp_path[4096 + 16];
    uint64_t written;    /* bytes through pl__output_write */
    bool in_place;       /* the target itself is open: no temporary */
    bool created;        /* the temporary exists and is ours to remove */
} pl__output;

pl_status pl__output_open(pl__output *o, const char *path, pl_error *err);
/* Writes len bytes; an error names the file and the byte offset. */
pl_status pl__output_write(pl__output *o, const void *data, size_t len,
                           pl_error *err);
/* Overwrites len bytes at byte offset `at` of what was written (a size
 * field known only later).  Needs a file that can seek: not a pipe or a
 * terminal written in place. */
pl_status pl__output_patch(pl__output *o, uint64_t at, const void *data,
                           size_t len, pl_error *err);
/* Flushes, fsyncs and closes the file (write errors of `f` show here). */
pl_status pl__output_finish(pl__output *o, pl_error *err);
/* Finishes if need be, renames the temporary over the target and fsyncs the
 * folder.  On failure the temporary is removed. */
pl_status pl__output_commit(pl__output *o, pl_error *err);
void pl__output_abort(pl__output *o);
/* Commits two finished (or written) outputs as a pair, for files that
 * must agree (proof.json and public.json): both are complete before
 * either is renamed; a's old file stays reachable (a hard link under a
 * temporary name) until b is in place, so when b's rename fails a's old
 * file is put back and the targets hold the previous pair.  An exclusive
 * flock on the targets' folders keeps two proofline processes committing
 * pairs there from interleaving their renames.  Either may be in place
 * (written already: nothing to rename).  Both are aborted on failure. */
pl_status pl__output_commit_pair(pl__output *a, pl__output *b, pl_error *err);

/* A whole buffer in one call: open, write, finish (commit or abort it
 * later: a caller with two files stages both before it commits either). */
pl_status pl__output_stage(pl__output *o, const char *path, const void *data,
                           size_t len, pl_error *err);
/* Stage and commit: path holds data, or (on failure) what it held before. */
pl_status pl__file_write_atomic(const char *path, const void *data,
                                size_t len, pl_error *err);
/* Two files that must agree (a proof and its public inputs), written as a
 * pair: the two paths checked against each other (pl_output_check), each
 * written to its temporary, those written in place (a device, a pipe)
 * after those renamed, then committed together (pl__output_commit_pair):
 * both are the new ones, or both the previous ones.  path_b may be NULL
 * (a alone, committed as pl__file_write_atomic does). */
pl_status pl__file_write_pair(const char *path_a, const void *a, size_t len_a,
                              const char *path_b, const void *b, size_t len_b,
                              pl_error *err);

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
