/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What every ceremony step shares (ceremony.h): the run (pool, budget,
 * progress, report lines), hex and names as snarkjs reads and writes
 * them, reading back an output being written, copying a section.
 */
#define _GNU_SOURCE
#include "ceremony/ceremony.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/error.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void pl_ceremony_config_init(pl_ceremony_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
}

pl_status pl__cer_run_begin(pl__cer_run *run, const char *step,
                            const pl_ceremony_config *cfg, pl_error *err)
{
    memset(run, 0, sizeof(*run));
    run->step = step;
    if (cfg)
        run->cfg = *cfg;
    run->budget = run->cfg.budget_bytes;
    if (run->budget == 0)
        run->budget = pl_memory_limit() / 5 * 4;
    pl_status st = pl__pool_create(&run->pool, run->cfg.threads, "pl-cer", err);
    run->threads = pl__pool_size(run->pool);
    return st;
}

void pl__cer_run_end(pl__cer_run *run)
{
    pl__pool_destroy(run->pool);
    run->pool = NULL;
    if (run->cfg.peak_bytes)
        *run->cfg.peak_bytes = run->peak;
}

static pl_status over_budget(pl__cer_run *run, uint64_t bytes,
                             const char *what, pl_error *err)
{
    char a[32], b[32], c[32];
    return pl__error_set(err, PL_EBUDGET,
                         "%s: %s needs %s, with %s held the budget of %s "
                         "is passed (give a larger --budget)",
                         run->step, what, pl_format_bytes(a, sizeof(a), bytes),
                         pl_format_bytes(b, sizeof(b), run->live),
                         pl_format_bytes(c, sizeof(c), run->budget));
}

pl_status pl__cer_reserve(pl__cer_run *run, uint64_t bytes, const char *what,
                          pl_error *err)
{
    if (bytes > run->budget || run->live > run->budget - bytes)
        return over_budget(run, bytes, what, err);
    run->live += bytes;
    if (run->live > run->peak)
        run->peak = run->live;
    return PL_OK;
}

void pl__cer_release(pl__cer_run *run, uint64_t bytes)
{
    run->live -= bytes;
}

uint64_t pl__cer_room(const pl__cer_run *run)
{
    return run->budget - run->live;
}

pl_status pl__cer_alloc(pl__cer_run *run, void *out, pl_buffer_class cls,
                        uint64_t bytes, const char *what, pl_error *err)
{
    void **p = out;
    *p = NULL;
    pl_status st = pl__cer_reserve(run, bytes, what, err);
    if (st)
        return st;
    *p = pl__alloc(cls, bytes ? bytes : 1, err);
    if (!*p) {
        pl__cer_release(run, bytes);
        return PL_ENOMEM;
    }
    return PL_OK;
}

void pl__cer_free(pl__cer_run *run, void *p, uint64_t bytes)
{
    if (!p)
        return;
    pl__free(p);
    pl__cer_release(run, bytes);
}

void pl__cer_progress(pl__cer_run *run, const char *what, uint64_t done,
                      uint64_t total)
{
    if (!run->cfg.on_progress)
        return;
    double now = pl__now_seconds();
    if (done != total && now - run->progress_at < 1.0)
        return;
    run->progress_at = now;
    run->cfg.on_progress(run->cfg.on_progress_user, what, done, total);
}

void pl__cer_line(pl__cer_run *run, const char *fmt, ...)
{
    if (!run->cfg.on_line)
        return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    run->cfg.on_line(run->cfg.on_line_user, line);
}

void pl__cer_line_hash(pl__cer_run *run, const char *title,
                       const uint8_t hash[PL__CER_HASH])
{
    pl__cer_line(run, "%s", title);
    for (unsigned i = 0; i < 4; i++) {
        char row[64];
        size_t o = 0;
        for (unsigned j = 0; j < 4; j++) {
            const uint8_t *w = hash + 16 * i + 4 * j;
            o += (size_t)snprintf(row + o, sizeof(row) - o, "%s%02x%02x%02x%02x",
                                  j ? " " : "", w[0], w[1], w[2], w[3]);
        }
        pl__cer_line(run, "\t\t%s", row);
    }
}

typedef struct {
    pl__cer_range_fn fn;
    void *ctx;
    size_t n, chunk;
} parallel_job;

static void parallel_task(void *p, size_t task, unsigned worker)
{
    const parallel_job *job = p;
    size_t first = task * job->chunk;
    size_t count = job->n - first < job->chunk ? job->n - first : job->chunk;
    job->fn(job->ctx, first, count, worker);
}

void pl__cer_parallel(pl__cer_run *run, size_t n, size_t chunk,
                      pl__cer_range_fn fn, void *ctx)
{
    if (n == 0)
        return;
    if (chunk == 0)
        chunk = 1;
    parallel_job job = {fn, ctx, n, chunk};
    pl__pool_run(run->pool, (n + chunk - 1) / chunk, parallel_task, &job);
}

static int hex_digit(char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

bool pl__cer_hex(uint8_t *out, size_t *len, size_t max, const char *hex)
{
    /* snarkjs compares the byte count with the string length it was given,
     * 0x included, so a prefixed beacon is refused there too */
    size_t n = strlen(hex);
    if (n == 0 || n % 2 != 0 || n / 2 > max)
        return false;
    for (size_t i = 0; i < n / 2; i++) {
        int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return false;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    *len = n / 2;
    return true;
}

/* One code point decoded from UTF-8 as TextDecoder does for well-formed
 * sequences; a malformed byte gives U+FFFD and is consumed alone. */
static uint32_t utf8_next(const uint8_t *p, size_t len, size_t *used)
{
    uint8_t b = p[0];
    uint32_t cp;
    size_t n;
    if (b < 0x80) {
        *used = 1;
        return b;
    } else if (b >= 0xc2 && b < 0xe0) {
        n = 2;
        cp = b & 0x1f;
    } else if (b >= 0xe0 && b < 0xf0) {
        n = 3;
        cp = b & 0x0f;
    } else if (b >= 0xf0 && b < 0xf5) {
        n = 4;
        cp = b & 0x07;
    } else {
        *used = 1;
        return 0xfffd;
    }
    if (len < n)
        goto bad;
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80)
            goto bad;
        cp = cp << 6 | (p[i] & 0x3f);
    }
    if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp < 0xe000))) ||
        (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
        goto bad;
    *used = n;
    return cp;
bad:
    *used = 1;
    return 0xfffd;
}

static size_t utf8_put(uint8_t *out, uint32_t cp)
{
    if (cp < 0x80) {
        out[0] = (uint8_t)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (uint8_t)(0xc0 | cp >> 6);
        out[1] = (uint8_t)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (uint8_t)(0xe0 | cp >> 12);
        out[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
        out[2] = (uint8_t)(0x80 | (cp & 0x3f));
        return 3;
    }
    out[0] = (uint8_t)(0xf0 | cp >> 18);
    out[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3f));
    out[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
    out[3] = (uint8_t)(0x80 | (cp & 0x3f));
    return 4;
}

size_t pl__cer_name_bytes(uint8_t *out, const uint8_t *name, size_t len)
{
    size_t units = 0, o = 0, i = 0;
    while (i < len && units < 64) {
        size_t used;
        uint32_t cp = utf8_next(name + i, len - i, &used);
        if (cp >= 0x10000) {
            if (units + 2 > 64) {
                /* substring keeps the high surrogate alone, which
                 * TextEncoder writes as U+FFFD */
                o += utf8_put(out + o, 0xfffd);
                units = 64;
                break;
            }
            units += 2;
        } else {
            units += 1;
        }
        o += utf8_put(out + o, cp);
        i += used;
    }
    return o;
}

pl_status pl__cer_output_read(pl__output *o, uint64_t at, void *buf,
                              size_t len, pl_error *err)
{
    if (o->in_place)
        return pl__error_set(err, PL_EUSAGE,
                             "%s: the step reads back the points it has "
                             "written (for the challenge hash), so the output "
                             "must be a regular file, not a device or a pipe",
                             o->path);
    if (fflush(o->f) != 0)
        return pl__error_errno(err, PL_EIO, errno, "%s: writing", o->path);
    int fd = open(o->tmp_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return pl__error_errno(err, PL_EIO, errno, "%s: reading back",
                               o->tmp_path);
    pl_status st = PL_OK;
    size_t got = 0;
    while (got < len) {
        ssize_t n = pread(fd, (uint8_t *)buf + got, len - got,
                          (off_t)(at + got));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            st = pl__error_errno(err, PL_EIO, n < 0 ? errno : EIO,
                                 "%s: reading back %zu bytes at byte offset "
                                 "%" PRIu64, o->tmp_path, len, at);
            break;
        }
        got += (size_t)n;
    }
    close(fd);
    return st;
}

pl_status pl__cer_copy_section(pl__container_writer *w, const pl__mapped *m,
                               const pl__container *c, unsigned id,
                               pl_error *err)
{
    const uint64_t size = c->size[id];
    const uint8_t *p = m->data + c->offset[id];
    pl__container_section_begin(w, id, size, err);
    for (uint64_t done = 0; done < size;) {
        size_t n = size - done < ((size_t)1 << 24) ? (size_t)(size - done)
                                                   : (size_t)1 << 24;
        pl__container_put(w, p + done, n, err);
        done += n;
    }
    return pl__container_section_end(w, err);
}

/* ---- contributions, in both files -------------------------------------------- */

bool pl__cer_params_parse(pl__cer_params *out, const uint8_t *p, size_t len,
                          const char **why)
{
    size_t o = 0;
    unsigned last = 0;
    out->name_len = out->beacon_len = 0;
    out->iter_exp = 0;
    while (o < len) {
        unsigned type = p[o++];
        if (type <= last) {
            *why = "its parameters are not sorted";
            return false;
        }
        last = type;
        if (type == 1 || type == 3) {
            if (o >= len || p[o] > len - o - 1) {
                *why = "a parameter runs past its end";
                return false;
            }
            size_t n = p[o++];
            memcpy(type == 1 ? out->name : out->beacon, p + o, n);
            *(type == 1 ? &out->name_len : &out->beacon_len) = n;
            o += n;
        } else if (type == 2) {
            if (o >= len) {
                *why = "a parameter runs past its end";
                return false;
            }
            out->iter_exp = p[o++];
        } else {
            *why = "it has a parameter snarkjs does not know";
            return false;
        }
    }
    return true;
}

size_t pl__cer_params_encode(uint8_t *out, const pl__cer_params *in)
{
    size_t o = 0;
    if (in->name_len) {
        uint8_t enc[4 * 64];
        size_t n = pl__cer_name_bytes(enc, in->name, in->name_len);
        out[o++] = 1;
        out[o++] = (uint8_t)n;
        memcpy(out + o, enc, n);
        o += n;
    }
    if (in->type == 1) {
        out[o++] = 2;
        out[o++] = (uint8_t)in->iter_exp;
        out[o++] = 3;
        out[o++] = (uint8_t)in->beacon_len;
        memcpy(out + o, in->beacon, in->beacon_len);
        o += in->beacon_len;
    }
    return o;
}

pl_status pl__cer_kind_contribution(pl__cer_kind *k, const char *step,
                                    const char *name, const char *entropy,
                                    pl_error *err)
{
    memset(k, 0, sizeof(*k));
    k->name = name;
    k->entropy = entropy;
    if (!entropy || !entropy[0])
        return pl__error_set(err, PL_EUSAGE, "%s: the entropy text is empty; "
                             "give some random text", step);
    return PL_OK;
}

pl_status pl__cer_kind_beacon(pl__cer_kind *k, const char *step,
                              const char *name, const char *beacon_hex,
                              unsigned iter_exp, pl_error *err)
{
    memset(k, 0, sizeof(*k));
    k->name = name;
    k->beacon = true;
    k->iter_exp = iter_exp;
    if (!beacon_hex ||
        !pl__cer_hex(k->hash, &k->hash_len, PL__CER_BEACON_MAX, beacon_hex))
        return pl__error_set(err, PL_EUSAGE, "%s: the beacon hash '%s' is not "
                             "1 to %u bytes of hexadecimal digits", step,
                             beacon_hex ? beacon_hex : "", PL__CER_BEACON_MAX);
    if (iter_exp < PL_CEREMONY_BEACON_EXP_MIN ||
        iter_exp > PL_CEREMONY_BEACON_EXP_MAX)
        return pl__error_set(err, PL_EUSAGE, "%s: the iteration exponent %u "
                             "is not between %u and %u", step, iter_exp,
                             PL_CEREMONY_BEACON_EXP_MIN,
                             PL_CEREMONY_BEACON_EXP_MAX);
    return PL_OK;
}

static void beacon_progress(void *user, uint64_t done, uint64_t total)
{
    pl__cer_progress(user, "beacon: iterating SHA-256", done, total);
}

pl_status pl__cer_kind_stream(pl__cer_run *run, const pl__cer_kind *k,
                              pl__chacha *rng, pl_error *err)
{
    if (!k->beacon)
        return pl__chacha_from_entropy(rng, k->entropy, err);
    pl__chacha_from_beacon(rng, k->hash, k->hash_len, k->iter_exp,
                           beacon_progress, run);
    return PL_OK;
}

pl_status pl__cer_beacon_replay(pl__cer_run *run, const pl__cer_params *p,
                                pl__chacha *rng, char *why, size_t cap)
{
    const unsigned limit = run->cfg.max_beacon_exp
                               ? run->cfg.max_beacon_exp
                               : PL_CEREMONY_BEACON_EXP_DEFAULT;
    if (p->iter_exp < PL_CEREMONY_BEACON_EXP_MIN ||
        p->iter_exp > PL_CEREMONY_BEACON_EXP_MAX) {
        snprintf(why, cap, "its beacon's iteration exponent %u is not "
                 "between %u and %u", p->iter_exp, PL_CEREMONY_BEACON_EXP_MIN,
                 PL_CEREMONY_BEACON_EXP_MAX);
        return PL_EFORMAT;
    }
    if (p->iter_exp > limit) {
        snprintf(why, cap, "its beacon takes 2^%u SHA-256 iterations to "
                 "check, above this verify's limit of 2^%u (--max-beacon-exp "
                 "%u to check it)", p->iter_exp, limit, p->iter_exp);
        return PL_EUNSUPPORTED;
    }
    pl__chacha_from_beacon(rng, p->beacon, p->beacon_len, p->iter_exp,
                           beacon_progress, run);
    return PL_OK;
}

void pl__cer_kind_params(const pl__cer_kind *k, pl__cer_params *out)
{
    memset(out, 0, sizeof(*out));
    out->type = k->beacon ? 1 : 0;
    if (k->name) {
        size_t n = strlen(k->name);
        out->name_len = n > PL__CER_NAME_MAX ? PL__CER_NAME_MAX : n;
        memcpy(out->name, k->name, out->name_len);
    }
    if (k->beacon) {
        out->iter_exp = k->iter_exp;
        memcpy(out->beacon, k->hash, k->hash_len);
        out->beacon_len = k->hash_len;
    }
}

const char *pl__cer_quoted_name(char *buf, size_t cap, const pl__cer_params *p)
{
    if (p->name_len == 0)
        buf[0] = '\0';
    else
        snprintf(buf, cap, " '%.*s'", (int)p->name_len, (const char *)p->name);
    return buf;
}

pl_status pl__cer_run_begin_io(pl__cer_run *run, const char *step,
                               const pl_ceremony_config *cfg,
                               const char *out_path, const char *const *ins,
                               size_t n_ins, pl_error *err)
{
    pl_status st = pl__cer_run_begin(run, step, cfg, err);
    const char *const outs[] = {out_path};
    if (st == PL_OK)
        st = pl_output_check(outs, 1, ins, n_ins, err);
    return st;
}

const pl__cer_named *pl__cer_check_named(const pl__cer_curve *c,
                                         const pl__cer_named *pts, size_t n,
                                         char *what, size_t cap)
{
    for (size_t i = 0; i < n; i++) {
        const char *why = c->g[pts[i].g].check(pts[i].p);
        if (why) {
            snprintf(what, cap, "its %s %s", pts[i].name, why);
            return &pts[i];
        }
    }
    return NULL;
}
