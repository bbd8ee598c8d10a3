/* SPDX-License-Identifier: Apache-2.0 */
/*
 * File helpers: memory maps, small reads, staged (temp + rename) writes and
 * a text buffer.  Mapped files are file-backed pages, not heap: they are not
 * allocations of the accounted allocator (the ledger reports them apart).
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
#include <sys/stat.h>
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

pl_status pl__file_load(pl__mapped *out, const char *path,
                        pl_buffer_class cls, pl_error *err)
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

pl_status pl__file_stage(pl__staged_file *sf, const char *path,
                         const void *data, size_t len, pl_error *err)
{
    sf->staged = false;
    if (strlen(path) >= sizeof(sf->path))
        return pl__error_set(err, PL_EUSAGE, "%s: path too long", path);
    snprintf(sf->path, sizeof(sf->path), "%s", path);
    snprintf(sf->tmp_path, sizeof(sf->tmp_path), "%s.tmpXXXXXX", path);
    int fd = mkstemp(sf->tmp_path);
    if (fd < 0)
        return pl__error_errno(err, PL_EIO, errno,
                               "%s: cannot create a temporary file", path);
    const char *p = data;
    size_t left = len;
    while (left) {
        ssize_t n = write(fd, p, left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int e = n < 0 ? errno : EIO;
            close(fd);
            unlink(sf->tmp_path);
            return pl__error_errno(err, PL_EIO, e, "%s: write failed",
                                   sf->tmp_path);
        }
        p += n;
        left -= (size_t)n;
    }
    /* mkstemp makes 0600; outputs are ordinary files. */
    mode_t mask = umask(0);
    umask(mask);
    if (fchmod(fd, 0666 & ~mask) != 0 || fsync(fd) != 0 || close(fd) != 0) {
        int e = errno;
        unlink(sf->tmp_path);
        return pl__error_errno(err, PL_EIO, e, "%s: cannot finish writing",
                               sf->tmp_path);
    }
    sf->staged = true;
    return PL_OK;
}

pl_status pl__file_commit(pl__staged_file *sf, pl_error *err)
{
    if (!sf->staged)
        return pl__error_set(err, PL_EINTERNAL, "%s: nothing staged",
                             sf->path);
    if (rename(sf->tmp_path, sf->path) != 0) {
        int e = errno;
        pl__file_abort(sf);
        return pl__error_errno(err, PL_EIO, e, "%s: cannot rename into place",
                               sf->path);
    }
    sf->staged = false;
    return PL_OK;
}

void pl__file_abort(pl__staged_file *sf)
{
    if (sf->staged)
        unlink(sf->tmp_path);
    sf->staged = false;
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
