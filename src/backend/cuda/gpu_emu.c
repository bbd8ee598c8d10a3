/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The host emulation of the CUDA backend's device (gpu.h): "device" memory
 * is host memory (on a 4 GiB card whose context uses 32 MiB, for the
 * ledger's reconciliation), streams are the calling thread (so every operation is
 * complete when it returns and events are no-ops), and each kernel is a
 * loop over its thread body from kernels/ (ntt.h, msm.h), one launch after another as
 * kernels.cu orders them.  The radix sort is a stable sort by key, as CUB's
 * is.  Slow (the portable 32-bit-limb arithmetic, one thread): for tests at
 * small sizes, where it checks the kernels' index arithmetic, digit
 * decomposition and bucket bookkeeping against the CPU backend.
 */
#include "backend/cuda/gpu.h"
#include "backend/cuda/kernels/ntt.h"
#include "util/error.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int emu_device_count(char *why, size_t why_len)
{
    return 1;
}

/* The emulated card: a fixed size, and a share "used" before anything is
 * allocated (as a CUDA context takes), so that the ledger's reconciliation
 * of driver-used with class device has something to reconcile. */
#define EMU_CARD_BYTES ((uint64_t)4 << 30)
#define EMU_CONTEXT_BYTES ((uint64_t)32 << 20)
#define EMU_HEADER 64u

typedef struct {
    _Atomic uint64_t used; /* device allocations, headers excluded */
} emu_device;

static pl_status emu_open(void **dev, int ordinal, char *description,
                          size_t description_len, pl_error *err)
{
    snprintf(description, description_len,
             "emulated device %d (host memory, one thread)", ordinal);
    emu_device *d = calloc(1, sizeof(*d));
    if (!d)
        return pl__error_set(err, PL_ENOMEM, "emulated device: out of memory");
    *dev = d;
    return PL_OK;
}

static void emu_close(void *dev)
{
    free(dev);
}

static pl_status emu_mem_info(void *dev, uint64_t *free_bytes,
                              uint64_t *total_bytes, pl_error *err)
{
    uint64_t used = EMU_CONTEXT_BYTES + atomic_load(&((emu_device *)dev)->used);
    *total_bytes = EMU_CARD_BYTES;
    *free_bytes = used < EMU_CARD_BYTES ? EMU_CARD_BYTES - used : 0;
    return PL_OK;
}

/* Pinning brings every page in: the emulation touches them, so RssAnon
 * sees the pinned class as it would on a real device. */
static pl_status emu_host_register(void *dev, void *ptr, uint64_t bytes,
                                   pl_error *err)
{
    memset(ptr, 0, (size_t)bytes);
    return PL_OK;
}

static void emu_host_unregister(void *dev, void *ptr)
{
}

/* Device memory carries its size in a header, for mem_info's "used". */
static pl_status emu_alloc(void *dev, void **ptr, uint64_t bytes,
                           pl_error *err)
{
    char *block = NULL;
    *ptr = NULL;
    if (bytes > SIZE_MAX - 2 * EMU_HEADER ||
        !(block = aligned_alloc(EMU_HEADER,
                                ((size_t)bytes + 2 * EMU_HEADER - 1) &
                                    ~(size_t)(EMU_HEADER - 1))))
        return pl__error_set(err, PL_ENOMEM,
                             "emulated device: out of memory allocating %llu "
                             "bytes",
                             (unsigned long long)bytes);
    memcpy(block, &bytes, sizeof(bytes));
    atomic_fetch_add(&((emu_device *)dev)->used, bytes);
    *ptr = block + EMU_HEADER;
    return PL_OK;
}

static void emu_free(void *dev, void *ptr)
{
    if (!ptr)
        return;
    char *block = (char *)ptr - EMU_HEADER;
    uint64_t bytes;
    memcpy(&bytes, block, sizeof(bytes));
    atomic_fetch_sub(&((emu_device *)dev)->used, bytes);
    free(block);
}

static pl_status emu_memset_zero(void *dev, int stream, void *ptr,
                                 uint64_t bytes, pl_error *err)
{
    memset(ptr, 0, (size_t)bytes);
    return PL_OK;
}

static pl_status emu_copy(void *dev, int stream, void *dst, const void *src,
                          uint64_t bytes, pl_error *err)
{
    memcpy(dst, src, (size_t)bytes);
    return PL_OK;
}

static pl_status emu_event(void *dev, int event, int stream, pl_error *err)
{
    return PL_OK;
}

static pl_status emu_event_sync(void *dev, int event, pl_error *err)
{
    return PL_OK;
}

static pl_status emu_stream_sync(void *dev, int stream, pl_error *err)
{
    return PL_OK;
}

/* ---- NTT and H ---------------------------------------------------------- */

/* Stages [from, to) of one direction over the whole array, or (tiled)
 * tile by tile, as kernels.cu launches them. */
typedef void (*stage_body)(pl__cu_fr *, const pl__cu_fr *, unsigned, unsigned,
                           uint32_t);

static void emu_stage(stage_body body, pl__cu_fr *data,
                      const pl__cu_fr *twiddles, unsigned log2n, unsigned s)
{
    for (uint32_t t = 0; t < ((uint32_t)1 << log2n) / 2; t++)
        body(data, twiddles, log2n, s, t);
}

static void emu_tile_stages(stage_body body, pl__cu_fr *data,
                            const pl__cu_fr *twiddles, unsigned log2n,
                            bool descending)
{
    unsigned tile_log = pl__cu_ntt_tile_log(log2n);
    uint32_t n = (uint32_t)1 << log2n, tile = (uint32_t)1 << tile_log;
    for (uint32_t base = 0; base < n; base += tile)
        for (unsigned k = 0; k < tile_log; k++) {
            unsigned s = descending ? tile_log - 1 - k : k;
            for (uint32_t t = 0; t < tile / 2; t++)
                body(data + base, twiddles, log2n, s, t);
        }
}

static pl_status emu_to_odd_coset(void *dev, void *data,
                                  const pl__gpu_ntt_tables *tb, pl_error *err)
{
    pl__cu_fr *d = data;
    const pl__cu_fr *tw = tb->twiddles;
    unsigned log2n = tb->log2n, tile_log = pl__cu_ntt_tile_log(log2n);
    if (log2n == 0)
        return PL_OK; /* the CPU transform leaves n = 1 alone too */
    /* inverse, natural in, bit-reversed out: wide spans first */
    for (unsigned s = log2n; s-- > tile_log;)
        emu_stage(pl__cu_ntt_dif_inverse_thread, d, tw, log2n, s);
    emu_tile_stages(pl__cu_ntt_dif_inverse_thread, d, tw, log2n, true);
    for (uint32_t p = 0; p < ((uint32_t)1 << log2n); p++)
        pl__cu_ntt_shift_thread(d, log2n, tb->n_inv, tb->g_lo, tb->g_hi,
                                tb->lo_log, p);
    /* forward, bit-reversed in, natural out: narrow spans first */
    emu_tile_stages(pl__cu_ntt_dit_thread, d, tw, log2n, false);
    for (unsigned s = tile_log; s < log2n; s++)
        emu_stage(pl__cu_ntt_dit_thread, d, tw, log2n, s);
    return PL_OK;
}

static pl_status emu_coset_h(void *dev, const void *a, const void *b, void *c,
                             uint32_t n, pl_error *err)
{
    for (uint32_t i = 0; i < n; i++)
        pl__cu_h_thread(a, b, c, i);
    return PL_OK;
}

/* ---- MSM ------------------------------------------------------------------ */

static uint64_t emu_msm_scratch_bytes(void *dev, const pl__cu_msm_cfg *cfg)
{
    return pl__cu_msm_layout(cfg, 0, NULL, NULL);
}

typedef struct {
    uint32_t key, position, value;
} sort_entry;

static int by_key_then_position(const void *x, const void *y)
{
    const sort_entry *a = x, *b = y;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return a->position < b->position ? -1 : a->position > b->position;
}

/* CUB's radix sort is stable: equal keys keep their input order.  The
 * emulation's own sort buffer is plain malloc: it stands for CUB's
 * temporary storage, which the device scratch (class device) already
 * counts, and the emulation only runs at test sizes. */
static pl_status emu_sort(uint32_t *keys, uint32_t *values, uint64_t count,
                          pl_error *err)
{
    sort_entry *tmp = malloc((size_t)count * sizeof(*tmp));
    if (!tmp)
        return pl__error_set(err, PL_ENOMEM, "emulated device: out of memory");
    for (uint64_t i = 0; i < count; i++)
        tmp[i] = (sort_entry){keys[i], (uint32_t)i, values[i]};
    qsort(tmp, (size_t)count, sizeof(*tmp), by_key_then_position);
    for (uint64_t i = 0; i < count; i++) {
        keys[i] = tmp[i].key;
        values[i] = tmp[i].value;
    }
    free(tmp);
    return PL_OK;
}

static void exclusive_scan(const uint32_t *in, uint32_t *out, uint32_t count)
{
    uint32_t sum = 0;
    for (uint32_t i = 0; i < count; i++) {
        out[i] = sum;
        sum += in[i];
    }
}

static pl_status emu_msm_g1(void *dev, const pl__cu_msm_cfg *cfg,
                            const void *points, const void *scalars,
                            void *scratch, uint64_t scratch_bytes,
                            void *pinned_chunks, pl_error *err)
{
    pl__cu_msm_scratch s;
    pl__cu_msm_layout(cfg, 0, scratch, &s);
    uint32_t entries = cfg->windows * cfg->n, nb = cfg->buckets;
    pl_status st;

    for (uint32_t i = 0; i < cfg->n; i++)
        pl__cu_msm_digits_thread(cfg, scalars, s.keys[0], s.values[0], i);
    if ((st = emu_sort(s.keys[0], s.values[0], entries, err)))
        return st;
    memset(s.start, 0, (size_t)nb * 4);
    memset(s.end, 0, (size_t)nb * 4);
    for (uint32_t p = 0; p < entries; p++)
        pl__cu_msm_bounds_thread(cfg, s.keys[0], s.start, s.end, p);

    /* level 0 over the sorted points, then over the partials */
    int cur = 0;
    for (uint32_t b = 0; b <= nb; b++)
        pl__cu_msm_count_thread(cfg, s.start, s.end, s.count, b);
    exclusive_scan(s.count, s.offsets[cur], nb + 1);
    for (uint32_t t = 0; t < cfg->max_partials; t++)
        pl__cu_msm_accumulate_points_thread(cfg, points, s.values[0], s.start,
                                            s.end, s.offsets[cur],
                                            s.partials[cur], t);
    for (unsigned level = 1; level < cfg->levels; level++) {
        int prev = cur;
        cur ^= 1;
        for (uint32_t b = 0; b <= nb; b++)
            pl__cu_msm_count_thread(cfg, s.offsets[prev], s.offsets[prev] + 1,
                                    s.count, b);
        exclusive_scan(s.count, s.offsets[cur], nb + 1);
        for (uint32_t t = 0; t < cfg->max_partials; t++)
            pl__cu_msm_accumulate_partials_thread(cfg, s.partials[prev],
                                                  s.offsets[prev],
                                                  s.offsets[cur],
                                                  s.partials[cur], t);
    }
    for (uint32_t j = 0; j < cfg->windows * cfg->chunks; j++)
        pl__cu_msm_reduce_thread(cfg, s.partials[cur], s.offsets[cur],
                                 pinned_chunks, j);
    return PL_OK;
}

const pl__gpu_impl pl__gpu_impl_emulated = {
    .name = "emulated",
    .device_count = emu_device_count,
    .open = emu_open,
    .close = emu_close,
    .mem_info = emu_mem_info,
    .alloc = emu_alloc,
    .free = emu_free,
    .host_register = emu_host_register,
    .host_unregister = emu_host_unregister,
    .memset_zero = emu_memset_zero,
    .copy_to_device = emu_copy,
    .copy_to_host = emu_copy,
    .event_record = emu_event,
    .event_sync = emu_event_sync,
    .stream_wait = emu_event,
    .stream_sync = emu_stream_sync,
    .to_odd_coset = emu_to_odd_coset,
    .coset_h = emu_coset_h,
    .msm_scratch_bytes = emu_msm_scratch_bytes,
    .msm_g1 = emu_msm_g1,
};
