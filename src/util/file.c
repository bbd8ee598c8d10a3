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
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

pl_status pl__file_map(pl__mapped *out, const char *path, pl_error *err)
{
    out->data = NULL;
    out->size = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return pl__error_errno(err, PL_EIO, errno, "%s: cannot open", path);
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return pl__error_errno(err, PL_EIO, e, "%s: cannot stat", path);
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return pl__error_set(err, PL_EIO, "%s: not a regular file", path);
    }
    if (st.st_size == 0) {
        close(fd);
        return pl__error_set(err, PL_EFORMAT, "%s: file is empty", path);
    }
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    int e = errno;
    close(fd);
    if (p == MAP_FAILED)
        return pl__error_errno(err, PL_EIO, e, "%s: cannot map", path);
    out->data = p;
    out->size = (uint64_t)st.st_size;
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

/* Whether a file is still the one first seen: same inode, size and
 * modification time (a writer that changed it between the two looks). */
static bool same_file(const struct stat *a, const struct stat *b)
{
    return a->st_ino == b->st_ino && a->st_dev == b->st_dev &&
           a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
           a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

pl_status pl__file_load(pl__mapped *out, const char *path,
                        pl_buffer_class cls, uint64_t max_bytes, pl_error *err)
{
    out->data = NULL;
    out->size = 0;
    pl_status st = PL_OK;
    uint8_t *buf = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return pl__error_errno(err, PL_EIO, errno, "%s: cannot open", path);
    struct stat st_buf;
    if (fstat(fd, &st_buf) != 0 || !S_ISREG(st_buf.st_mode)) {
        st = pl__error_set(err, PL_EIO, "%s: not a readable regular file", path);
        goto fail;
    }
    if (st_buf.st_size == 0) {
        st = pl__error_set(err, PL_EFORMAT, "%s: file is empty", path);
        goto fail;
    }
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
    /* a writer during the read may have torn it: refuse what it changed */
    struct stat after;
    if (fstat(fd, &after) != 0 || !same_file(&st_buf, &after)) {
        st = pl__error_set(err, PL_EIO, "%s: changed while it was being read",
                           path);
        goto fail;
    }
    close(fd);
    out->data = buf;
    out->size = got;
    return PL_OK;
fail:
    pl__free(buf);
    close(fd);
    return st;
}

pl_status pl__file_read_small(char **out, size_t *size, const char *path,
                              size_t max_bytes, pl_error *err)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return pl__error_errno(err, PL_EIO, errno, "%s: cannot open", path);
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap + 1);
    pl_status st = PL_OK;
    while (buf) {
        if (len == cap) {
            if (cap >= max_bytes) {
                st = pl__error_set(err, PL_EFORMAT,
                                   "%s: larger than %zu bytes", path, max_bytes);
                break;
            }
            cap = cap * 2 > max_bytes ? max_bytes : cap * 2;
            char *grown = realloc(buf, cap + 1);
            if (!grown)
                break;
            buf = grown;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) {
            if (ferror(f))
                st = pl__error_errno(err, PL_EIO, errno, "%s: read failed",
                                     path);
            break;
        }
    }
    fclose(f);
    if (!buf)
        return pl__error_set(err, PL_ENOMEM, "%s: out of memory", path);
    if (st != PL_OK) {
        free(buf);
        return st;
    }
    buf[len] = '\0';
    *out = buf;
    if (size)
        *size = len;
    return PL_OK;
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

/* The target itself when it exists and is neither a regular file nor a
 * folder: -1 (errno 0) when it is not such a target, -1 with errno on
 * failure.  Opened without O_CREAT or O_TRUNC: a device or a FIFO is
 * written as a shell redirection would.  Checked again on the open file,
 * so a target replaced by a regular file in between is not written in
 * place. */
static int open_in_place(const char *path)
{
    struct stat st;
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
static int create_temporary(pl__output *o)
{
    for (unsigned tries = 0; tries < TMP_TRIES; tries++) {
        char suffix[TMP_RANDOM + 1];
        random_suffix(suffix);
        snprintf(o->tmp_path, sizeof(o->tmp_path), "%s" TMP_SUFFIX "%s",
                 o->path, suffix);
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

/* fsyncs the folder holding path, so that the rename itself is durable. */
static int sync_folder(const char *path)
{
    char dir[4096];
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, sizeof(dir), ".");
    else if (slash == path)
        snprintf(dir, sizeof(dir), "/");
    else
        snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
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
