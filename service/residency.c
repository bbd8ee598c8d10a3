/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The parameter residency of `proofline serve` (see residency.h): hot
 * circuits held open in the engine under a parameter budget, least
 * recently used demoted first, never one in use.
 */
#define _GNU_SOURCE
#include "residency.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/lock.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef struct entry {
    char id[65];
    char *zkey_path;
    pl_circuit *circuit;     /* hot when set */
    uint64_t resident_bytes; /* 0 until first opened */
    const char *curve;       /* its curve's name once opened, else NULL */
    unsigned refs;
    bool opening;
    uint64_t opening_bytes;  /* what the open in progress holds room for */
    uint64_t promotions, demotions;
    double last_promotion_s;
    double last_used;        /* monotonic seconds at the last release */
} entry;

struct pl__residency {
    pl_engine *engine;
    uint64_t budget;
    pl__lock lock;
    pthread_cond_t opened; /* an open finished */
    entry *entries;
    size_t n, cap;
    uint64_t hot_bytes, opening_bytes, peak_hot_bytes;
};

const char *pl__tier_name(pl__tier tier)
{
    static const char *const names[PL__TIER_COUNT] = {"cold", "warm", "hot"};
    return (unsigned)tier < PL__TIER_COUNT ? names[tier] : "unknown";
}

pl_status pl__residency_create(pl__residency **out, pl_engine *engine,
                               uint64_t budget_bytes, pl_error *err)
{
    pl__residency *r = calloc(1, sizeof(*r));
    if (!r)
        return pl__error_set(err, PL_ENOMEM, "residency: out of memory");
    r->engine = engine;
    r->budget = budget_bytes;
    pl__lock_init(&r->lock);
    pthread_cond_init(&r->opened, NULL);
    *out = r;
    return PL_OK;
}

void pl__residency_destroy(pl__residency *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n; i++) {
        if (r->entries[i].circuit)
            pl_circuit_release(r->entries[i].circuit);
        free(r->entries[i].zkey_path);
    }
    free(r->entries);
    pthread_cond_destroy(&r->opened);
    pl__lock_destroy(&r->lock);
    free(r);
}

uint64_t pl__residency_budget(const pl__residency *r)
{
    return r->budget;
}

static entry *find_locked(pl__residency *r, const char *id)
{
    assert(pl__lock_mine(&r->lock));
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->entries[i].id, id) == 0)
            return &r->entries[i];
    return NULL;
}

/* Finds or adds the entry; the path is taken on first sight (a circuit id
 * is the key's hash, so every path of it holds the same key). */
static entry *find_or_add_locked(pl__residency *r, const char *id,
                                 const char *zkey_path, pl_error *err)
{
    assert(pl__lock_mine(&r->lock));
    entry *e = find_locked(r, id);
    if (e)
        return e;
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 8;
        entry *grown = realloc(r->entries, cap * sizeof(*grown));
        if (!grown) {
            pl__error_set(err, PL_ENOMEM, "residency: out of memory");
            return NULL;
        }
        r->entries = grown;
        r->cap = cap;
    }
    e = &r->entries[r->n];
    memset(e, 0, sizeof(*e));
    snprintf(e->id, sizeof(e->id), "%s", id);
    if (!(e->zkey_path = strdup(zkey_path))) {
        pl__error_set(err, PL_ENOMEM, "residency: out of memory");
        return NULL;
    }
    r->n++;
    return e;
}

/* The least recently used hot circuit that nothing uses, but `keep`. */
static entry *victim_locked(pl__residency *r, const entry *keep)
{
    assert(pl__lock_mine(&r->lock));
    entry *best = NULL;
    for (size_t i = 0; i < r->n; i++) {
        entry *e = &r->entries[i];
        if (e == keep || !e->circuit || e->refs || e->opening)
            continue;
        if (!best || e->last_used < best->last_used)
            best = e;
    }
    return best;
}

/* Under the lock: takes a hot circuit out (the caller releases the handle
 * without the lock: closing frees its buffers). */
static pl_circuit *demote_locked(pl__residency *r, entry *e)
{
    assert(pl__lock_mine(&r->lock));
    pl_circuit *c = e->circuit;
    e->circuit = NULL;
    r->hot_bytes -= e->resident_bytes;
    e->demotions++;
    return c;
}

static pl_status too_big(const entry *e, uint64_t need, uint64_t budget,
                         pl_error *err)
{
    char b1[24], b2[24];
    return pl__error_set(err, PL_EBUDGET,
                         "circuit %.16s...: its parameters need %s resident, "
                         "more than the parameter budget of %s",
                         e->id, pl_format_bytes(b1, sizeof(b1), need),
                         pl_format_bytes(b2, sizeof(b2), budget));
}

pl_status pl__residency_acquire(pl__residency *r, const char *id,
                                const char *zkey_path,
                                uint64_t expected_bytes, pl_circuit **out,
                                double *promote_s, bool *busy, pl_error *err)
{
    *out = NULL;
    *busy = false;
    if (promote_s)
        *promote_s = 0;
    uint64_t need = 0;
    pl__lock_acquire(&r->lock);
    entry *e = find_or_add_locked(r, id, zkey_path, err);
    if (!e) {
        pl__lock_release(&r->lock);
        return PL_ENOMEM;
    }
    for (;;) {
        if (e->circuit) {
            e->refs++;
            *out = e->circuit;
            pl__lock_release(&r->lock);
            return PL_OK;
        }
        if (e->opening) {
            pl__lock_wait(&r->lock, &r->opened);
            e = find_locked(r, id); /* the array may have moved */
            continue;
        }
        need = e->resident_bytes ? e->resident_bytes : expected_bytes;
        if (!need) {
            struct stat sb;
            need = stat(e->zkey_path, &sb) == 0 ? (uint64_t)sb.st_size : 0;
        }
        if (r->budget && need > r->budget) {
            pl_status st = too_big(e, need, r->budget, err);
            pl__lock_release(&r->lock);
            return st;
        }
        if (r->budget &&
            r->hot_bytes + r->opening_bytes + need > r->budget) {
            entry *v = victim_locked(r, e);
            if (!v) { /* everything hot is in use: not now */
                *busy = true;
                char b1[24], b2[24];
                pl_status st = pl__error_set(
                    err, PL_EBUDGET, "circuit %.16s...: %s of parameters "
                    "do not fit beside the %s held by circuits in use",
                    e->id, pl_format_bytes(b1, sizeof(b1), need),
                    pl_format_bytes(b2, sizeof(b2),
                                    r->hot_bytes + r->opening_bytes));
                pl__lock_release(&r->lock);
                return st;
            }
            pl_circuit *drop = demote_locked(r, v);
            pl__lock_release(&r->lock);
            pl_circuit_release(drop);
            pl__lock_acquire(&r->lock);
            e = find_locked(r, id);
            continue;
        }
        break;
    }
    e->opening = true;
    e->opening_bytes = need;
    r->opening_bytes += need;
    char *path = strdup(e->zkey_path);
    pl__lock_release(&r->lock);

    double t0 = pl__now_seconds();
    pl_circuit *c = NULL;
    pl_status st = path ? pl_engine_open_circuit(r->engine, &c, path, NULL, err)
                        : pl__error_set(err, PL_ENOMEM, "out of memory");
    free(path);
    double took = pl__now_seconds() - t0;
    uint64_t resident = 0;
    if (st == PL_OK)
        pl_circuit_plan(c, 0, NULL, &resident);

    pl_circuit *drop = NULL;
    pl__lock_acquire(&r->lock);
    e = find_locked(r, id);
    e->opening = false;
    r->opening_bytes -= e->opening_bytes;
    e->opening_bytes = 0;
    if (st == PL_OK) {
        e->resident_bytes = resident;
        if (r->budget && resident > r->budget) {
            drop = c; /* the estimate was low, and it can never fit */
            st = too_big(e, resident, r->budget, err);
        } else if (r->budget && r->hot_bytes + resident > r->budget) {
            /* the estimate was low: make room now, or give it back */
            entry *v;
            while (r->hot_bytes + resident > r->budget &&
                   (v = victim_locked(r, e))) {
                pl_circuit *old = demote_locked(r, v);
                pl__lock_release(&r->lock);
                pl_circuit_release(old);
                pl__lock_acquire(&r->lock);
                e = find_locked(r, id);
            }
            if (r->hot_bytes + resident > r->budget) {
                drop = c;
                *busy = true;
                st = pl__error_set(err, PL_EBUDGET, "circuit %.16s...: its "
                                   "parameters do not fit beside the "
                                   "circuits in use", e->id);
            }
        }
        if (st == PL_OK) {
            e->circuit = c;
            e->curve = pl_curve_name(pl_circuit_curve(c));
            e->refs = 1;
            e->promotions++;
            e->last_promotion_s = took;
            r->hot_bytes += resident;
            if (r->hot_bytes > r->peak_hot_bytes)
                r->peak_hot_bytes = r->hot_bytes;
            *out = c;
            if (promote_s)
                *promote_s = took;
        }
    } else if (st == PL_EBUDGET) {
        *busy = true; /* the engine's budget is held by work in flight */
    }
    pthread_cond_broadcast(&r->opened);
    pl__lock_release(&r->lock);
    if (drop)
        pl_circuit_release(drop);
    return st;
}

void pl__residency_release(pl__residency *r, const char *id)
{
    pl__lock_acquire(&r->lock);
    entry *e = find_locked(r, id);
    if (e && e->refs) {
        e->refs--;
        e->last_used = pl__now_seconds();
    }
    pl__lock_release(&r->lock);
}

pl_status pl__residency_preload(pl__residency *r, const char *id,
                                const char *zkey_path,
                                uint64_t expected_bytes, bool *busy,
                                pl_error *err)
{
    pl_circuit *c;
    pl_status st = pl__residency_acquire(r, id, zkey_path, expected_bytes, &c,
                                         NULL, busy, err);
    if (st == PL_OK)
        pl__residency_release(r, id);
    return st;
}

pl_status pl__residency_evict(pl__residency *r, const char *id, bool *changed,
                              pl_error *err)
{
    *changed = false;
    pl__lock_acquire(&r->lock);
    entry *e = find_locked(r, id);
    if (e && (e->refs || e->opening)) {
        pl__lock_release(&r->lock);
        return pl__error_set(err, PL_EUSAGE, "circuit %.16s... is in use by "
                             "%u proof(s): it cannot be evicted now", id,
                             e->refs);
    }
    pl_circuit *drop = e && e->circuit ? demote_locked(r, e) : NULL;
    pl__lock_release(&r->lock);
    if (drop) {
        pl_circuit_release(drop);
        *changed = true;
    }
    return PL_OK;
}

unsigned pl__residency_demote_idle(pl__residency *r, double idle_s)
{
    unsigned n = 0;
    for (;;) {
        double now = pl__now_seconds();
        pl_circuit *drop = NULL;
        pl__lock_acquire(&r->lock);
        for (size_t i = 0; i < r->n && !drop; i++) {
            entry *e = &r->entries[i];
            if (e->circuit && !e->refs && !e->opening &&
                now - e->last_used >= idle_s)
                drop = demote_locked(r, e);
        }
        pl__lock_release(&r->lock);
        if (!drop)
            return n;
        pl_circuit_release(drop);
        n++;
    }
}

void pl__residency_bytes(pl__residency *r, uint64_t *hot, uint64_t *in_use,
                         uint64_t *peak)
{
    pl__lock_acquire(&r->lock);
    if (hot)
        *hot = r->hot_bytes;
    if (in_use) {
        uint64_t sum = r->opening_bytes;
        for (size_t i = 0; i < r->n; i++)
            if (r->entries[i].circuit && r->entries[i].refs)
                sum += r->entries[i].resident_bytes;
        *in_use = sum;
    }
    if (peak)
        *peak = r->peak_hot_bytes;
    pl__lock_release(&r->lock);
}

uint64_t pl__residency_shrink(pl__residency *r, uint64_t max_hot,
                              const char *keep_id)
{
    for (;;) {
        pl_circuit *drop = NULL;
        pl__lock_acquire(&r->lock);
        uint64_t hot = r->hot_bytes;
        if (hot > max_hot) {
            entry *v = victim_locked(r, keep_id ? find_locked(r, keep_id)
                                                : NULL);
            if (v)
                drop = demote_locked(r, v);
        }
        pl__lock_release(&r->lock);
        if (!drop)
            return hot;
        pl_circuit_release(drop);
    }
}

/* The key file's bytes in the page cache (mincore over a mapping of it;
 * the mapping reads nothing). 0 when it cannot be mapped. */
static uint64_t cached_bytes(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    struct stat sb;
    uint64_t cached = 0;
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0) {
        size_t len = (size_t)sb.st_size;
        void *p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
        long page = sysconf(_SC_PAGESIZE);
        size_t pages = (len + (size_t)page - 1) / (size_t)page;
        unsigned char *vec = p != MAP_FAILED ? malloc(pages) : NULL;
        if (vec && mincore(p, len, vec) == 0) {
            for (size_t i = 0; i < pages; i++)
                if (vec[i] & 1)
                    cached += (uint64_t)page;
            if (cached > (uint64_t)sb.st_size)
                cached = (uint64_t)sb.st_size;
        }
        free(vec);
        if (p != MAP_FAILED)
            munmap(p, len);
    }
    close(fd);
    return cached;
}

size_t pl__residency_list(pl__residency *r, pl__residency_entry *out,
                          size_t cap)
{
    /* copy under the lock, count pages without it */
    pl__lock_acquire(&r->lock);
    size_t n = r->n;
    double now = pl__now_seconds();
    char **paths = calloc(n ? n : 1, sizeof(char *));
    for (size_t i = 0; i < n && i < cap; i++) {
        const entry *e = &r->entries[i];
        pl__residency_entry *o = &out[i];
        memset(o, 0, sizeof(*o));
        snprintf(o->id, sizeof(o->id), "%s", e->id);
        o->tier = e->circuit ? PL__TIER_HOT : PL__TIER_COLD;
        o->resident_bytes = e->resident_bytes;
        o->curve = e->curve;
        o->refs = e->refs;
        o->opening = e->opening;
        o->promotions = e->promotions;
        o->demotions = e->demotions;
        o->last_promotion_s = e->last_promotion_s;
        o->idle_s = e->refs || !e->last_used ? 0 : now - e->last_used;
        if (paths && !e->circuit)
            paths[i] = strdup(e->zkey_path);
    }
    pl__lock_release(&r->lock);
    for (size_t i = 0; i < n && i < cap; i++) {
        if (!paths || !paths[i])
            continue;
        out[i].cached_bytes = cached_bytes(paths[i]);
        if (out[i].cached_bytes)
            out[i].tier = PL__TIER_WARM;
        free(paths[i]);
    }
    free(paths);
    return n;
}
