/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The accounted allocator: one function for every large buffer, tagged with
 * its class.  Each block carries a 64-byte header with its class and size,
 * so frees are exact without a lookup.  Blocks of 1 MiB or more are
 * anonymous maps, unmapped on free: their pages go back to the OS at once,
 * where glibc's heap would keep them (its mmap threshold rises after frees),
 * which the ledger would then see as untracked RSS.  Counters are C11 atomics: allocation
 * is rare (a few dozen per proof) and the buffers are large, so contention
 * is not a concern.  Debug builds poison freed memory.
 */
#define _DEFAULT_SOURCE
#include "util/alloc.h"
#include "util/error.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define HEADER_BYTES 64u
#define MAP_AT_BYTES (1u << 20)
#define HEADER_MAGIC 0x706c616c6c6f6321ull /* "plalloc!" */

struct pl__alloc_scope {
    _Atomic uint64_t live_count[PL_BUF_CLASS_COUNT];
    _Atomic uint64_t live_bytes[PL_BUF_CLASS_COUNT];
    /* references: its owner's (until pl__alloc_scope_destroy) and one per
     * live block; the last to go frees it, so a block that outlives its
     * engine (a leak) still counts its free against a valid scope */
    _Atomic uint64_t refs;
};

typedef struct {
    uint64_t magic;
    uint64_t bytes;
    uint32_t cls;
    uint32_t mapped;
    pl__alloc_scope *scope; /* counted there too (NULL: none) */
} block_header;

_Static_assert(sizeof(block_header) <= 64, "the header fits its 64 bytes");

static _Thread_local pl__alloc_scope *current_scope;

typedef struct {
    _Atomic uint64_t live_count, peak_count, live_bytes, high_water, largest,
        allocs, frees;
} class_counters;

static class_counters counters[PL_BUF_CLASS_COUNT];
static _Atomic uint64_t total_live, total_high_water;
static _Atomic uint64_t fail_countdown; /* 0: disabled */
static _Atomic uint64_t allocs_since_mark;

static const char *const class_names[] = {
#define PL__BUF_NAME(name, label) label,
    PL_BUFFER_CLASS_MAP(PL__BUF_NAME)
#undef PL__BUF_NAME
};

const char *pl_buffer_class_name(pl_buffer_class cls)
{
    return (unsigned)cls < PL_BUF_CLASS_COUNT ? class_names[cls] : "unknown";
}

static void atomic_max(_Atomic uint64_t *slot, uint64_t value)
{
    uint64_t seen = atomic_load(slot);
    while (seen < value && !atomic_compare_exchange_weak(slot, &seen, value))
        ;
}

bool pl__alloc_class_is_host(pl_buffer_class cls)
{
    return cls != PL_BUF_DEVICE;
}

/* The process's total (pl_alloc_total) counts host memory only: it is what
 * the ledger reconciles with RSS and what the budget bounds. */
static void count_alloc(pl__alloc_scope *scope, pl_buffer_class cls,
                        uint64_t bytes)
{
    class_counters *c = &counters[cls];
    if (scope) {
        atomic_fetch_add(&scope->refs, 1);
        atomic_fetch_add(&scope->live_count[cls], 1);
        atomic_fetch_add(&scope->live_bytes[cls], bytes);
    }
    atomic_max(&c->peak_count, atomic_fetch_add(&c->live_count, 1) + 1);
    uint64_t live = atomic_fetch_add(&c->live_bytes, bytes) + bytes;
    atomic_max(&c->high_water, live);
    atomic_max(&c->largest, bytes);
    atomic_fetch_add(&c->allocs, 1);
    if (pl__alloc_class_is_host(cls))
        atomic_max(&total_high_water,
                   atomic_fetch_add(&total_live, bytes) + bytes);
}

static void count_free(pl__alloc_scope *scope, pl_buffer_class cls,
                       uint64_t bytes)
{
    class_counters *c = &counters[cls];
    if (scope) {
        atomic_fetch_sub(&scope->live_count[cls], 1);
        atomic_fetch_sub(&scope->live_bytes[cls], bytes);
        if (atomic_fetch_sub(&scope->refs, 1) == 1)
            free(scope); /* its owner let go before this block */
    }
    atomic_fetch_sub(&c->live_count, 1);
    atomic_fetch_sub(&c->live_bytes, bytes);
    atomic_fetch_add(&c->frees, 1);
    if (pl__alloc_class_is_host(cls))
        atomic_fetch_sub(&total_live, bytes);
}

static bool injected_failure(void)
{
    atomic_fetch_add(&allocs_since_mark, 1);
    uint64_t left = atomic_load(&fail_countdown);
    while (left) {
        if (atomic_compare_exchange_weak(&fail_countdown, &left, left - 1))
            return left == 1;
    }
    return false;
}

void *pl__alloc(pl_buffer_class cls, uint64_t bytes, pl_error *err)
{
    if ((unsigned)cls >= PL_BUF_CLASS_COUNT) {
        pl__error_set(err, PL_EINTERNAL, "allocator: unknown buffer class %d",
                      (int)cls);
        return NULL;
    }
    void *block = NULL;
    bool mapped = bytes >= MAP_AT_BYTES;
    bool ok = bytes <= UINT64_MAX - HEADER_BYTES &&
              bytes + HEADER_BYTES <= SIZE_MAX && !injected_failure();
    if (ok && mapped) {
        block = mmap(NULL, (size_t)(bytes + HEADER_BYTES),
                     PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        ok = block != MAP_FAILED;
    } else if (ok) {
        ok = posix_memalign(&block, HEADER_BYTES,
                            (size_t)(bytes + HEADER_BYTES)) == 0;
    }
    if (!ok) {
        pl__error_set(err, PL_ENOMEM,
                      "out of memory allocating %llu bytes of class %s",
                      (unsigned long long)bytes, class_names[cls]);
        return NULL;
    }
    block_header *h = block;
    h->magic = HEADER_MAGIC;
    h->bytes = bytes;
    h->cls = (uint32_t)cls;
    h->mapped = mapped;
    h->scope = current_scope;
    count_alloc(h->scope, cls, bytes);
    return (char *)block + HEADER_BYTES;
}

bool pl__alloc_account(pl_buffer_class cls, uint64_t bytes, pl_error *err)
{
    if ((unsigned)cls >= PL_BUF_CLASS_COUNT || injected_failure()) {
        pl__error_set(err, PL_ENOMEM,
                      "out of memory allocating %llu bytes of class %s",
                      (unsigned long long)bytes, pl_buffer_class_name(cls));
        return false;
    }
    count_alloc(current_scope, cls, bytes);
    return true;
}

void pl__alloc_unaccount(pl_buffer_class cls, uint64_t bytes)
{
    if ((unsigned)cls < PL_BUF_CLASS_COUNT)
        count_free(current_scope, cls, bytes);
}

void *pl__calloc(pl_buffer_class cls, uint64_t bytes, pl_error *err)
{
    void *p = pl__alloc(cls, bytes, err);
    /* fresh anonymous maps are zero already; touching them would only
     * bring every page in early */
    if (p && bytes < MAP_AT_BYTES)
        memset(p, 0, (size_t)bytes);
    return p;
}

void pl__free(void *ptr)
{
    if (!ptr)
        return;
    block_header *h = (block_header *)((char *)ptr - HEADER_BYTES);
    if (h->magic != HEADER_MAGIC || h->cls >= PL_BUF_CLASS_COUNT)
        abort(); /* not ours, or a double free: memory is already corrupt */
    count_free(h->scope, (pl_buffer_class)h->cls, h->bytes);
    h->magic = 0;
    if (h->mapped) { /* unmapping is the best poison */
        munmap(h, (size_t)(h->bytes + HEADER_BYTES));
        return;
    }
#ifndef NDEBUG
    memset(ptr, 0xdb, (size_t)h->bytes);
#endif
    free(h);
}

uint64_t pl__alloc_fail_at(uint64_t n)
{
    atomic_store(&fail_countdown, n);
    return atomic_exchange(&allocs_since_mark, 0);
}

void pl_alloc_stats_read(pl_alloc_stats *out, pl_buffer_class cls, bool reset)
{
    memset(out, 0, sizeof(*out));
    if ((unsigned)cls >= PL_BUF_CLASS_COUNT)
        return;
    class_counters *c = &counters[cls];
    out->live_count = atomic_load(&c->live_count);
    out->peak_count = atomic_load(&c->peak_count);
    out->live_bytes = atomic_load(&c->live_bytes);
    out->high_water_bytes = atomic_load(&c->high_water);
    out->largest_request = atomic_load(&c->largest);
    out->total_allocs = atomic_load(&c->allocs);
    out->total_frees = atomic_load(&c->frees);
    if (reset) {
        atomic_store(&c->high_water, out->live_bytes);
        atomic_store(&c->peak_count, out->live_count);
    }
}

void pl_alloc_total(uint64_t *live_bytes, uint64_t *high_water_bytes)
{
    if (live_bytes)
        *live_bytes = atomic_load(&total_live);
    if (high_water_bytes)
        *high_water_bytes = atomic_load(&total_high_water);
}

/* Names the classes with live buffers in err; true when there are none. */
static bool none_live(const uint64_t live_count[PL_BUF_CLASS_COUNT],
                      pl_error *err)
{
    char names[200] = "";
    size_t used = 0;
    for (int cls = 0; cls < PL_BUF_CLASS_COUNT; cls++) {
        uint64_t n = live_count[cls];
        if (n && used < sizeof(names))
            used += (size_t)snprintf(names + used, sizeof(names) - used,
                                     "%s%s=%llu", used ? " " : "",
                                     class_names[cls], (unsigned long long)n);
    }
    if (!used)
        return true;
    pl__error_set(err, PL_EINTERNAL, "buffers still live: %s", names);
    return false;
}

bool pl_alloc_all_freed(pl_error *err)
{
    uint64_t live[PL_BUF_CLASS_COUNT];
    for (int cls = 0; cls < PL_BUF_CLASS_COUNT; cls++)
        live[cls] = atomic_load(&counters[cls].live_count);
    return none_live(live, err);
}

pl_status pl__alloc_scope_create(pl__alloc_scope **out, pl_error *err)
{
    *out = calloc(1, sizeof(**out));
    if (!*out)
        return pl__error_set(err, PL_ENOMEM, "allocator: out of memory");
    atomic_store(&(*out)->refs, 1);
    return PL_OK;
}

void pl__alloc_scope_destroy(pl__alloc_scope *scope)
{
    if (scope && atomic_fetch_sub(&scope->refs, 1) == 1)
        free(scope);
}

pl__alloc_scope *pl__alloc_scope_enter(pl__alloc_scope *scope)
{
    pl__alloc_scope *previous = current_scope;
    current_scope = scope;
    return previous;
}

pl__alloc_scope *pl__alloc_scope_current(void)
{
    return current_scope;
}

bool pl__alloc_scope_all_freed(pl__alloc_scope *scope, pl_error *err)
{
    uint64_t live[PL_BUF_CLASS_COUNT];
    for (int cls = 0; cls < PL_BUF_CLASS_COUNT; cls++)
        live[cls] = atomic_load(&scope->live_count[cls]);
    return none_live(live, err);
}
