/* SPDX-License-Identifier: Apache-2.0 */
/*
 * File helpers: memory maps, small reads, output (pl__output: temporary
 * file, fsync, rename, fsync of the folder; used by every writer in the
 * library and the CLI) and a text buffer.  Mapped files are file-backed
 * pages, not heap: they are not allocations of the accounted allocator
 * (the ledger reports them apart).
 */
#define _GNU_SOURCE
#include "util/file.h"
#include "util/alloc.h"
#include "util/error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Opens an input for reading: non-blocking, so a FIFO named as an input
 * does not hang in open() waiting for a writer, and checked to be a
 * regular file before a byte is read (a FIFO, a device such as /dev/zero
 * or a folder is refused at once).  O_NONBLOCK means nothing for reads of
 * a regular file, so it stays set.  *fd is -1 on failure. */
static pl_status open_input(int *fd, struct stat *st, const char *path,
                            pl_error *err)
{
    pl_status status = PL_OK;
    *fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (*fd < 0)
        return pl__error_errno(err, PL_EIO, errno, "%s: cannot open", path);
    if (fstat(*fd, st) != 0)
        status = pl__error_errno(err, PL_EIO, errno, "%s: cannot stat", path);
    else if (!S_ISREG(st->st_mode))
        status = pl__error_set(err, PL_EIO, "%s: not a regular file", path);
    else if (st->st_size == 0)
        status = pl__error_set(err, PL_EFORMAT, "%s: file is empty", path);
    if (status != PL_OK) {
        close(*fd);
        *fd = -1;
    }
    return status;
}

static void id_of(pl__file_id *out, const struct stat *sb)
{
    out->dev = (uint64_t)sb->st_dev;
    out->ino = (uint64_t)sb->st_ino;
    out->size = (uint64_t)sb->st_size;
    out->mtime_ns = (int64_t)sb->st_mtim.tv_sec * 1000000000 +
                    sb->st_mtim.tv_nsec;
    out->ctime_ns = (int64_t)sb->st_ctim.tv_sec * 1000000000 +
                    sb->st_ctim.tv_nsec;
}

pl_status pl__file_map(pl__mapped *out, const char *path, pl_error *err)
{
    out->data = NULL;
    out->size = 0;
    struct stat st;
    int fd;
    pl_status status = open_input(&fd, &st, path, err);
    if (status != PL_OK)
        return status;
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    int e = errno;
    close(fd);
    /* ENOMEM: no room in the address space (ulimit -v, a 32-bit process),
     * a resource of this machine, not a fault of the file */
    if (p == MAP_FAILED)
        return pl__error_errno(err, e == ENOMEM ? PL_ENOMEM : PL_EIO, e,
                               "%s: cannot map its %llu bytes", path,
                               (unsigned long long)st.st_size);
    out->data = p;
    out->size = (uint64_t)st.st_size;
    id_of(&out->id, &st);
    return PL_OK;
}

void pl__file_unmap(pl__mapped *m)
{
    if (m && m->data) {
        munmap((void *)m->data, (size_t)m->size);
        m->data = NULL;
        m->size = 0;
    }
}

bool pl__file_unchanged(const char *path, const pl__file_id *id)
{
    struct stat sb;
    pl__file_id now;
    if (stat(path, &sb) != 0)
        return false;
    id_of(&now, &sb);
    return memcmp(&now, id, sizeof(now)) == 0;
}

/* Whether a file is still the one first seen: same inode, size and
 * modification time (a writer that changed it between the two looks). */
static bool same_file(const struct stat *a, const struct stat *b)
{
    return a->st_ino == b->st_ino && a->st_dev == b->st_dev &&
           a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
           a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* A file's modification time comes from the kernel's coarse clock (a tick
 * of 1-10 ms; some file systems keep whole seconds), so a write in the tick
 * of our first look leaves size and time as they were.  A file modified
 * less than this long before its read ended cannot be vouched for by its
 * time alone. */
#define PL__RACY_SECONDS 2

static bool modified_recently(const struct stat *sb)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return sb->st_mtim.tv_sec >= now.tv_sec - PL__RACY_SECONDS;
}

/* Reads fd again and compares it with the size bytes of buf: PL_OK only
 * when every byte is the same.  The compare needs no second copy, only a
 * small block at a time. */
static pl_status read_again_matches(int fd, const uint8_t *buf, uint64_t size,
                                    const char *path, pl_error *err)
{
    enum { BLOCK = 64 * 1024 };
    uint8_t *block = malloc(BLOCK);
    if (!block)
        return pl__error_set(err, PL_ENOMEM, "%s: no memory to read it again",
                             path);
    pl_status st = PL_OK;
    uint64_t got = 0;
    while (got < size && st == PL_OK) {
        size_t want = size - got < BLOCK ? (size_t)(size - got) : BLOCK;
        ssize_t n = pread(fd, block, want, (off_t)got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            st = pl__error_errno(err, PL_EIO, errno,
                                 "%s: read failed at byte offset %llu when "
                                 "read again", path, (unsigned long long)got);
        else if (n == 0 || memcmp(block, buf + got, (size_t)n) != 0)
            st = pl__error_set(err, PL_EIO,
                               "%s: changed while it was being read", path);
        else
            got += (uint64_t)n;
    }
    free(block);
    return st;
}

bool pl__file_still_holds(const char *path, const pl__mapped *m)
{
    struct stat sb;
    int fd;
    if (open_input(&fd, &sb, path, NULL) != PL_OK)
        return false;
    bool same = (uint64_t)sb.st_size == m->size &&
                read_again_matches(fd, m->data, m->size, path, NULL) == PL_OK;
    close(fd);
    return same;
}

static void (*after_read_hook)(void *user);
static void *after_read_user;

void pl__file_load_after_read_hook(void (*fn)(void *user), void *user)
{
    after_read_hook = fn;
    after_read_user = user;
}

pl_status pl__file_load(pl__mapped *out, const char *path,
                        pl_buffer_class cls, uint64_t max_bytes, pl_error *err)
{
    out->data = NULL;
    out->size = 0;
    pl_status st = PL_OK;
    uint8_t *buf = NULL;
    struct stat st_buf;
    int fd;
    if ((st = open_input(&fd, &st_buf, path, err)) != PL_OK)
        return st;
    if (max_bytes && (uint64_t)st_buf.st_size > max_bytes) {
        st = pl__error_set(err, PL_EIO, "%s: %llu bytes, more than the %llu "
                           "reserved for it (it grew after it was sized)",
                           path, (unsigned long long)st_buf.st_size,
                           (unsigned long long)max_bytes);
        goto fail;
    }
    buf = pl__alloc(cls, (uint64_t)st_buf.st_size, err);
    if (!buf) {
        st = PL_ENOMEM;
        goto fail;
    }
    uint64_t got = 0;
    while (got < (uint64_t)st_buf.st_size) {
        ssize_t n = pread(fd, buf + got, (size_t)((uint64_t)st_buf.st_size - got),
                          (off_t)got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            st = pl__error_errno(err, PL_EIO, n < 0 ? errno : EIO,
                                 "%s: read failed at byte offset %llu", path,
                                 (unsigned long long)got);
            goto fail;
        }
        got += (uint64_t)n;
    }
    if (after_read_hook)
        after_read_hook(after_read_user);
    /* a writer during the read may have torn it: refuse what it changed */
    struct stat after;
    if (fstat(fd, &after) != 0 || !same_file(&st_buf, &after)) {
        st = pl__error_set(err, PL_EIO, "%s: changed while it was being read",
                           path);
        goto fail;
    }
    /* a file written this recently may have changed within the tick of its
     * time (a key overwritten in place read as a mix of two keys, whose
     * proofs do not verify): read it again, and look once more after */
    if (modified_recently(&after)) {
        if ((st = read_again_matches(fd, buf, got, path, err)) != PL_OK)
            goto fail;
        if (fstat(fd, &after) != 0 || !same_file(&st_buf, &after)) {
            st = pl__error_set(err, PL_EIO,
                               "%s: changed while it was being read", path);
            goto fail;
        }
    }
    close(fd);
    out->data = buf;
    out->size = got;
    id_of(&out->id, &after);
    return PL_OK;
fail:
    pl__free(buf);
    close(fd);
    return st;
}

pl_status pl__file_head(uint8_t *out, size_t cap, size_t *got,
                        const char *path, pl_error *err)
{
    struct stat sb;
    int fd;
    pl_status st = open_input(&fd, &sb, path, err);
    *got = 0;
    while (st == PL_OK && *got < cap) {
        ssize_t n = pread(fd, out + *got, cap - *got, (off_t)*got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            st = pl__error_errno(err, PL_EIO, errno, "%s: read failed at "
                                 "byte offset %zu", path, *got);
        else if (n == 0)
            break;
        else
            *got += (size_t)n;
    }
    if (fd >= 0)
        close(fd);
    return st;
}

pl_status pl__file_read_small(char **out, size_t *size, const char *path,
                              size_t max_bytes, pl_error *err)
{
    pl_status st = PL_OK;
    char *buf = NULL;
    size_t len = 0;
    struct stat sb;
    int fd;
    *out = NULL;
    if ((st = open_input(&fd, &sb, path, err)) != PL_OK)
        return st;
    /* The size first, so an oversized file is refused before a read; then
     * at most one byte more than that size is read, so a file that grows
     * meanwhile is refused, never read whole. */
    if ((uint64_t)sb.st_size > max_bytes) {
        st = pl__error_set(err, PL_EFORMAT, "%s: %llu bytes, more than "
                           "the %zu bytes it can hold", path,
                           (unsigned long long)sb.st_size, max_bytes);
        goto fail;
    }
    size_t cap = (size_t)sb.st_size + 1;
    if (!(buf = malloc(cap + 1))) {
        st = pl__error_set(err, PL_ENOMEM, "%s: out of memory", path);
        goto fail;
    }
    while (len < cap) {
        ssize_t n = read(fd, buf + len, cap - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            st = pl__error_errno(err, PL_EIO, errno, "%s: read failed at "
                                 "byte offset %zu", path, len);
            goto fail;
        }
        if (n == 0)
            break;
        len += (size_t)n;
    }
    if (len > max_bytes || len == cap) {
        st = pl__error_set(err, PL_EFORMAT, "%s: grew while being read "
                           "(past byte offset %zu)", path, len - 1);
        goto fail;
    }
    buf[len] = '\0';
    *out = buf;
    buf = NULL;
    if (size)
        *size = len;
fail:
    free(buf);
    close(fd);
    return st;
}

/* ---- output ------------------------------------------------------------ */

/* Output buffer: big enough that the zkey writer's chunks go straight
 * through, small enough not to matter beside them. */
#define OUTPUT_BUFFER_BYTES ((size_t)1 << 16)
#define TMP_SUFFIX ".tmp"
#define TMP_RANDOM 6
#define TMP_TRIES 100

/* Six characters for a temporary file's name.  getrandom can fail (old
 * kernels, seccomp); the clock and a counter then keep names apart, and
 * O_EXCL keeps even a guessed name safe. */
static void random_suffix(char out[TMP_RANDOM + 1])
{
    static const char alphabet[] =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    static _Atomic uint64_t counter;
    uint64_t bits = 0;
    if (getrandom(&bits, sizeof(bits), GRND_NONBLOCK) !=
        (ssize_t)sizeof(bits)) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        bits = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^
               ((uint64_t)getpid() << 40) ^ (++counter * 0x9e3779b97f4a7c15ull);
    }
    for (unsigned i = 0; i < TMP_RANDOM; i++, bits /= 62)
        out[i] = alphabet[bits % 62];
    out[TMP_RANDOM] = '\0';
}

/* The descriptor a path names when it is one of the process's own
 * (/dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N), else -1.  Such
 * a path is the stream the caller was given, whatever it leads to: a pipe,
 * a terminal, or a regular file a shell opened with `>`.  A temporary
 * beside it would be made in /dev and renamed over /dev/stdout itself. */
static int own_descriptor(const char *path)
{
    static const char *const prefixes[] = {"/dev/fd/", "/proc/self/fd/"};
    if (strcmp(path, "/dev/stdout") == 0)
        return STDOUT_FILENO;
    if (strcmp(path, "/dev/stderr") == 0)
        return STDERR_FILENO;
    for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
        size_t len = strlen(prefixes[i]);
        char *end;
        if (strncmp(path, prefixes[i], len) != 0 || !path[len])
            continue;
        long fd = strtol(path + len, &end, 10);
        if (!*end && fd >= 0 && fd <= INT32_MAX && path[len] != '-')
            return (int)fd;
    }
    return -1;
}

/* The target itself when it is the process's own stream or exists and is
 * neither a regular file nor a folder: -1 (errno 0) when it is not such a
 * target, -1 with errno on failure.  An own stream is written through a
 * duplicate of its descriptor, so two outputs to /dev/stdout follow each
 * other as two writes to stdout would, even into a regular file; anything
 * else is opened without O_CREAT or O_TRUNC: a device or a FIFO is written
 * as a shell redirection would.  Checked again on the open file, so a
 * target replaced by a regular file in between is not written in place. */
static int open_in_place(const char *path)
{
    struct stat st;
    int own = own_descriptor(path);
    if (own >= 0)
        return fcntl(own, F_DUPFD_CLOEXEC, 3);
    if (stat(path, &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) {
        errno = 0;
        return -1;
    }
    int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return -1;
    if (fstat(fd, &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) {
        close(fd);
        errno = 0;
        return -1;
    }
    return fd;
}

/* The temporary beside the target: O_EXCL never opens an existing name,
 * so a symlink planted at any name is never followed; mode 0666 lets the
 * umask decide, as for any ordinary file (mkstemp would make 0600, and
 * changing the umask to read it races with other threads). */
static void temporary_name(char *out, size_t cap, const char *path)
{
    char suffix[TMP_RANDOM + 1];
    random_suffix(suffix);
    snprintf(out, cap, "%s" TMP_SUFFIX "%s", path, suffix);
}

static int create_temporary(pl__output *o)
{
    for (unsigned tries = 0; tries < TMP_TRIES; tries++) {
        temporary_name(o->tmp_path, sizeof(o->tmp_path), o->path);
        int fd = open(o->tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC |
                                       O_NOFOLLOW, 0666);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    errno = EEXIST;
    return -1;
}

pl_status pl__output_open(pl__output *o, const char *path, pl_error *err)
{
    pl_status st = PL_OK;
    int fd = -1;
    memset(o, 0, sizeof(*o));
    if (strlen(path) >= sizeof(o->path)) {
        st = pl__error_set(err, PL_EUSAGE, "%s: path too long", path);
        goto fail;
    }
    snprintf(o->path, sizeof(o->path), "%s", path);
    fd = open_in_place(path);
    if (fd < 0 && errno != 0) {
        st = pl__error_errno(err, PL_EIO, errno, "%s: cannot open for "
                             "writing", path);
        goto fail;
    }
    if (fd >= 0) {
        o->in_place = true;
    } else {
        fd = create_temporary(o);
        if (fd < 0) {
            st = pl__error_errno(err, PL_EIO, errno, "%s: cannot create a "
                                 "temporary file", path);
            goto fail;
        }
        o->created = true;
    }
    o->f = fdopen(fd, "wb");
    if (!o->f) {
        st = pl__error_errno(err, PL_EIO, errno, "%s: cannot open for "
                             "writing", path);
        goto fail;
    }
    fd = -1;
    setvbuf(o->f, NULL, _IOFBF, OUTPUT_BUFFER_BYTES);
    return PL_OK;

fail:
    if (fd >= 0)
        close(fd);
    pl__output_abort(o);
    return st;
}

/* The file being written, for messages. */
static const char *output_name(const pl__output *o)
{
    return o->in_place ? o->path : o->tmp_path;
}

pl_status pl__output_write(pl__output *o, const void *data, size_t len,
                           pl_error *err)
{
    if (!o->f)
        return pl__error_set(err, PL_EINTERNAL, "%s: not open for writing",
                             o->path);
    if (len && fwrite(data, 1, len, o->f) != len)
        return pl__error_errno(err, PL_EIO, errno ? errno : EIO,
                               "%s: write failed (at byte offset %llu)",
                               output_name(o),
                               (unsigned long long)o->written);
    o->written += len;
    return PL_OK;
}

pl_status pl__output_patch(pl__output *o, uint64_t at, const void *data,
                           size_t len, pl_error *err)
{
    if (!o->f || at > o->written || len > o->written - at)
        return pl__error_set(err, PL_EINTERNAL, "%s: patch of %zu bytes at "
                             "byte offset %llu, outside the %llu written",
                             o->path, len, (unsigned long long)at,
                             (unsigned long long)o->written);
    /* The stream's buffer goes out first; pwrite leaves its position. */
    if (fflush(o->f) != 0)
        return pl__error_errno(err, PL_EIO, errno, "%s: write failed",
                               output_name(o));
    const uint8_t *p = data;
    while (len) {
        ssize_t n = pwrite(fileno(o->f), p, len, (off_t)at);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return pl__error_errno(err, PL_EIO, n < 0 ? errno : EIO,
                                   "%s: cannot write back at byte offset "
                                   "%llu", output_name(o),
                                   (unsigned long long)at);
        p += n;
        len -= (size_t)n;
        at += (uint64_t)n;
    }
    return PL_OK;
}

pl_status pl__output_finish(pl__output *o, pl_error *err)
{
    if (!o->f)
        return o->created || o->in_place
                   ? PL_OK
                   : pl__error_set(err, PL_EINTERNAL, "%s: not open for "
                                   "writing", o->path);
    FILE *f = o->f;
    o->f = NULL;
    int e = 0;
    errno = 0;
    if (fflush(f) != 0 || ferror(f))
        e = errno ? errno : EIO;
    /* A pipe, a terminal or a device may not sync (EINVAL, ENOTSUP, EROFS):
     * that is their nature, not a failed write. */
    if (!e && fsync(fileno(f)) != 0 &&
        !(o->in_place && (errno == EINVAL || errno == ENOTSUP ||
                          errno == EROFS)))
        e = errno;
    if (fclose(f) != 0 && !e)
        e = errno;
    if (e)
        return pl__error_errno(err, PL_EIO, e, "%s: cannot finish writing",
                               output_name(o));
    return PL_OK;
}

/* The folder holding path ("." for a bare name), into dir; the name in
 * it is what follows. */
static const char *folder_of(char *dir, size_t cap, const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, cap, ".");
    else if (slash == path)
        snprintf(dir, cap, "/");
    else
        snprintf(dir, cap, "%.*s", (int)(slash - path), path);
    return slash ? slash + 1 : path;
}

/* fsyncs the folder holding path, so that the rename itself is durable. */
static int sync_folder(const char *path)
{
    char dir[4096];
    folder_of(dir, sizeof(dir), path);
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    int e = 0;
    /* Some file systems cannot sync a folder (EINVAL): nothing to wait for. */
    if (fsync(fd) != 0 && errno != EINVAL)
        e = errno;
    close(fd);
    return e;
}

pl_status pl__output_commit(pl__output *o, pl_error *err)
{
    pl_status st = pl__output_finish(o, err);
    if (st != PL_OK)
        goto fail;
    if (o->in_place)
        goto fail; /* written: nothing to publish */
    if (!o->created) {
        st = pl__error_set(err, PL_EINTERNAL, "%s: nothing to commit",
                           o->path);
        goto fail;
    }
    if (rename(o->tmp_path, o->path) != 0) {
        st = pl__error_errno(err, PL_EIO, errno, "%s: cannot rename into "
                             "place", o->path);
        goto fail;
    }
    o->created = false;
    int e = sync_folder(o->path);
    if (e)
        st = pl__error_errno(err, PL_EIO, e, "%s: written, but its folder "
                             "cannot be synced", o->path);
fail:
    pl__output_abort(o);
    return st;
}

void pl__output_abort(pl__output *o)
{
    if (o->f)
        fclose(o->f);
    o->f = NULL;
    if (o->created)
        unlink(o->tmp_path);
    o->created = false;
}

/* An exclusive flock on the folder of path, or -1 when this file system
 * has none (the commit then goes on unlocked).  Advisory: it orders the
 * pair commits of proofline processes, nothing else. */
static int lock_folder(const char *path)
{
    char dir[4096];
    folder_of(dir, sizeof(dir), path);
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0 && flock(fd, LOCK_EX) != 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* Locks the folders of both targets (once when they are one folder), in
 * the order of their device and inode numbers, so two processes locking
 * the same two folders cannot each hold one and wait for the other. */
static void lock_folders(int fds[2], const char *a, const char *b)
{
    struct stat sa, sb;
    char da[4096], db[4096];
    fds[0] = fds[1] = -1;
    folder_of(da, sizeof(da), a);
    folder_of(db, sizeof(db), b);
    if (stat(da, &sa) != 0 || stat(db, &sb) != 0)
        return;
    bool same = sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    bool a_first = sa.st_dev < sb.st_dev ||
                   (sa.st_dev == sb.st_dev && sa.st_ino <= sb.st_ino);
    fds[0] = lock_folder(a_first ? a : b);
    if (!same)
        fds[1] = lock_folder(a_first ? b : a);
}

pl_status pl__output_commit_pair(pl__output *a, pl__output *b, pl_error *err)
{
    char backup[4096 + 16];
    bool backed_up = false;
    int locks[2] = {-1, -1};
    pl_status st = pl__output_finish(a, err);
    if (st == PL_OK)
        st = pl__output_finish(b, err);
    if (st != PL_OK)
        goto fail;
    lock_folders(locks, a->path, b->path);
    /* The first target's old file stays reachable under a temporary name
     * (a hard link: no copy, and O_EXCL-like, link never follows or
     * replaces an existing name) until the second is in place.  A file
     * system without hard links commits without it, as a single commit
     * would. */
    for (unsigned tries = 0; a->created && tries < TMP_TRIES; tries++) {
        temporary_name(backup, sizeof(backup), a->path);
        if (link(a->path, backup) == 0)
            backed_up = true;
        if (backed_up || errno != EEXIST)
            break;
    }
    if (a->created && rename(a->tmp_path, a->path) != 0) {
        st = pl__error_errno(err, PL_EIO, errno, "%s: cannot rename into "
                             "place", a->path);
        goto fail;
    }
    bool a_renamed = a->created;
    a->created = false;
    if (b->created && rename(b->tmp_path, b->path) != 0) {
        st = pl__error_errno(err, PL_EIO, errno, "%s: cannot rename into "
                             "place (%s keeps its previous content)",
                             b->path, a->path);
        /* the previous pair again: the old first file back, or no first
         * file if there was none */
        if (a_renamed && !(backed_up && rename(backup, a->path) == 0))
            unlink(a->path);
        backed_up = false;
        goto fail;
    }
    b->created = false;
    int e = sync_folder(a->path);
    if (!e)
        e = sync_folder(b->path);
    if (e)
        st = pl__error_errno(err, PL_EIO, e, "%s: written, but its folder "
                             "cannot be synced", a->path);
fail:
    if (backed_up)
        unlink(backup);
    for (int i = 1; i >= 0; i--)
        if (locks[i] >= 0)
            close(locks[i]); /* closing releases the flock */
    pl__output_abort(a);
    pl__output_abort(b);
    return st;
}

/* ---- checking the outputs before the work ----------------------------- */

/* What a path names: an existing file (its device and inode), or a name
 * still to be created in an existing folder (the folder's device and
 * inode, and the name). */
typedef struct file_id {
    bool known;   /* false: an input that does not exist (its reader says) */
    bool exists;
    bool special; /* exists, neither a regular file nor a folder */
    dev_t dev;
    ino_t ino;
    const char *name; /* the name in its folder, for one to be created */
} file_id;

static bool same_target(const file_id *x, const file_id *y)
{
    return x->known && y->known && x->exists == y->exists &&
           x->dev == y->dev && x->ino == y->ino &&
           (x->exists || strcmp(x->name, y->name) == 0);
}

/* An output: a folder refused; a special file (written in place) must be
 * writable; else the folder that will hold the temporary and the rename
 * must exist and be writable. */
static pl_status identify_output(file_id *id, const char *path,
                                 pl_error *err)
{
    struct stat sb;
    char dir[4096];
    memset(id, 0, sizeof(*id));
    id->known = true;
    id->name = folder_of(dir, sizeof(dir), path);
    int own = own_descriptor(path);
    if (own >= 0) {
        id->special = true; /* written in place, through the descriptor */
        int flags = fcntl(own, F_GETFL);
        return flags >= 0 && (flags & O_ACCMODE) != O_RDONLY
                   ? PL_OK
                   : pl__error_errno(err, PL_EIO, flags < 0 ? errno : EBADF,
                                     "%s: cannot be written", path);
    }
    if (stat(path, &sb) == 0) {
        id->exists = true;
        id->dev = sb.st_dev;
        id->ino = sb.st_ino;
        if (S_ISDIR(sb.st_mode))
            return pl__error_set(err, PL_EUSAGE, "%s: is a folder, not a "
                                 "file to write", path);
        if (!S_ISREG(sb.st_mode)) {
            id->special = true;
            return access(path, W_OK) == 0
                       ? PL_OK
                       : pl__error_errno(err, PL_EIO, errno, "%s: cannot "
                                         "be written", path);
        }
    } else if (errno != ENOENT) {
        return pl__error_errno(err, PL_EIO, errno, "%s: cannot stat", path);
    }
    if (!*id->name)
        return pl__error_set(err, PL_EUSAGE, "%s: names a folder, not a file",
                             path);
    int e = stat(dir, &sb) != 0 ? errno : S_ISDIR(sb.st_mode) ? 0 : ENOTDIR;
    if (e)
        return pl__error_errno(err, PL_EIO, e, "%s: its folder %s is "
                               "missing", path, dir);
    if (access(dir, W_OK | X_OK) != 0)
        return pl__error_errno(err, PL_EIO, errno, "%s: cannot write in its "
                               "folder %s", path, dir);
    if (!id->exists) {
        id->dev = sb.st_dev;
        id->ino = sb.st_ino;
    }
    return PL_OK;
}

pl_status pl_output_check(const char *const *outputs, size_t n_outputs,
                          const char *const *inputs, size_t n_inputs,
                          pl_error *err)
{
    pl_status st = PL_OK;
    file_id *ids = calloc(n_outputs + n_inputs + 1, sizeof(*ids));
    if (!ids)
        return pl__error_set(err, PL_ENOMEM, "out of memory checking %zu "
                             "output paths", n_outputs);
    for (size_t i = 0; i < n_inputs; i++) {
        struct stat sb;
        file_id *in = &ids[n_outputs + i];
        if (inputs[i] && stat(inputs[i], &sb) == 0)
            *in = (file_id){.known = true, .exists = true,
                            .dev = sb.st_dev, .ino = sb.st_ino};
    }
    for (size_t i = 0; i < n_outputs; i++) {
        if (!outputs[i])
            continue;
        if ((st = identify_output(&ids[i], outputs[i], err)) != PL_OK)
            goto fail;
        /* special files are written in place, in order: /dev/stdout may
         * take both of rapidsnark's outputs */
        for (size_t k = 0; k < i && !ids[i].special; k++)
            if (same_target(&ids[i], &ids[k])) {
                st = strcmp(outputs[k], outputs[i]) == 0
                         ? pl__error_set(err, PL_EUSAGE, "%s is given as two "
                                         "outputs: one would replace the "
                                         "other", outputs[i])
                         : pl__error_set(err, PL_EUSAGE, "%s and %s name the "
                                         "same file: one output would "
                                         "replace the other", outputs[k],
                                         outputs[i]);
                goto fail;
            }
        for (size_t k = 0; k < n_inputs; k++)
            if (same_target(&ids[i], &ids[n_outputs + k])) {
                st = pl__error_set(err, PL_EUSAGE, "%s is also an input "
                                   "(%s): it would be replaced", outputs[i],
                                   inputs[k]);
                goto fail;
            }
    }
fail:
    free(ids);
    return st;
}

pl_status pl__output_stage(pl__output *o, const char *path, const void *data,
                           size_t len, pl_error *err)
{
    pl_status st = pl__output_open(o, path, err);
    if (st == PL_OK && (st = pl__output_write(o, data, len, err)) == PL_OK)
        st = pl__output_finish(o, err);
    if (st != PL_OK)
        pl__output_abort(o);
    return st;
}

pl_status pl__file_write_atomic(const char *path, const void *data,
                                size_t len, pl_error *err)
{
    pl__output o;
    pl_status st = pl__output_stage(&o, path, data, len, err);
    if (st == PL_OK)
        st = pl__output_commit(&o, err);
    return st;
}

pl_status pl__file_write_pair(const char *path_a, const void *a, size_t len_a,
                              const char *path_b, const void *b, size_t len_b,
                              pl_error *err)
{
    pl__output oa, ob;
    pl_status st;
    memset(&oa, 0, sizeof(oa));
    memset(&ob, 0, sizeof(ob));
    /* Two names for one file would lose the first to the second (a device
     * such as /dev/stdout, written in place, may take both). */
    const char *paths[2] = {path_a, path_b};
    if ((st = pl_output_check(paths, 2, NULL, 0, err)) ||
        (st = pl__output_open(&oa, path_a, err)) ||
        (path_b && (st = pl__output_open(&ob, path_b, err))))
        goto fail;
    /* The files that a rename publishes are written first, those written
     * in place (a device, a pipe) last: a failure to write a file then
     * leaves the stream untouched.  Both are complete before either is
     * renamed, and the pair is renamed together (pl__output_commit_pair):
     * a failure leaves the previous pair. */
    pl__output *order[2] = {&oa, &ob};
    const void *data[2] = {a, b};
    const size_t len[2] = {len_a, len_b};
    const bool swap = path_b && oa.in_place && !ob.in_place;
    for (int k = 0; k < (path_b ? 2 : 1); k++) {
        int i = swap ? 1 - k : k;
        if ((len[i] && (st = pl__output_write(order[i], data[i], len[i],
                                              err))) ||
            (st = pl__output_finish(order[i], err)))
            goto fail;
    }
    st = path_b ? pl__output_commit_pair(&oa, &ob, err)
                : pl__output_commit(&oa, err);
fail:
    pl__output_abort(&oa);
    pl__output_abort(&ob);
    return st;
}

void pl__strbuf_printf(pl__strbuf *sb, const char *fmt, ...)
{
    if (sb->failed)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(sb->data ? sb->data + sb->len : NULL,
                          sb->data ? sb->cap - sb->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            sb->failed = true;
            return;
        }
        if (sb->data && sb->len + (size_t)n < sb->cap) {
            sb->len += (size_t)n;
            return;
        }
        size_t cap = sb->cap ? sb->cap * 2 : 1024;
        while (cap <= sb->len + (size_t)n)
            cap *= 2;
        char *grown = realloc(sb->data, cap);
        if (!grown) {
            sb->failed = true;
            return;
        }
        sb->data = grown;
        sb->cap = cap;
    }
}

void pl__strbuf_free(pl__strbuf *sb)
{
    free(sb->data);
    sb->data = NULL;
    sb->len = sb->cap = 0;
    sb->failed = false;
}
