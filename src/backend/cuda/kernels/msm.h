/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The bodies of the CUDA backend's G1 MSM kernels (the bucket method), one
 * function per thread with the thread's index as an argument, shared by
 * gpu_cuda.cu (on the GPU) and gpu_emu.c (the host emulation make test runs
 * against the CPU); gpu.c's pl__gpu_msm_g1 runs the steps below over either.
 * See ntt.h for why the bodies live here.
 *
 * sum_i s_i P_i for 256-bit scalars s_i read as the curve's CPU MSM reads
 * them (BLS12-381: bit 255 ignored; BN254: all 256 bits, reduced mod r)
 * and affine points P_i in the CPU's layout, on either curve: steps 2 and
 * 3 only sort digits and are the same for both; step 1 (for the way it
 * reads a scalar) and steps 4 and 5 (which add points) are msm_impl.h's,
 * instantiated per curve (pl__cu_msm_reduce_thread for BLS12-381,
 * pl__cu_bn254_msm_reduce_thread for BN254, ...):
 *
 *  1. digits:     each scalar is cut into W windows of c bits, as signed
 *                 digits d in [-2^(c-1), 2^(c-1)] (a digit above 2^(c-1)
 *                 becomes d - 2^c with a carry into the next window; with
 *                 W = ceil(256 / c) the top window never carries out).
 *                 Entry (w, i) gets the key w 2^(c-1) + |d| - 1 (bucket |d|
 *                 of window w) and the value 2 i + (d < 0); a zero digit
 *                 gets the key NB = W 2^(c-1), which sorts last and is
 *                 never read.
 *  2. sort:       entries by key (CUB's radix sort on the GPU, stable;
 *                 a stable counting sort on the host), between the two
 *                 key/value buffers, into whichever the sort chooses.
 *  3. bounds:     each bucket's run [start, end) of sorted entries.
 *  4. accumulate: level 0 sums each bucket's run in segments of at most
 *                 S entries, one thread per segment, into XYZZ partial
 *                 sums; level k > 0 does the same over level k-1's
 *                 partials, until every bucket has at most one (levels are
 *                 fixed in advance for the longest possible run, n: the
 *                 least L >= 1 with n <= S^L).  A bucket with many points
 *                 (witness scalars are mostly 1) is thus spread over many
 *                 threads instead of one.  Segment offsets are an
 *                 exclusive scan of per-bucket segment counts, and a thread
 *                 finds its bucket by binary search in them.
 *  5. reduce:     per window, sum_b b B_b by running sums over chunks of L
 *                 buckets, one thread per (window, chunk); a chunk starting
 *                 at bucket lo adds lo times its plain sum.
 *  6. combine:    on the host: the chunks of a window summed, the windows
 *                 by Horner's rule (c doublings each), in blst
 *                 (BLS12-381) or field/bn254 (BN254).
 */
#ifndef PL_CUDA_KERNELS_MSM_H
#define PL_CUDA_KERNELS_MSM_H

#include "backend/cuda/arith/g1.h"

/* The largest MSM the kernels take: its W n sort entries, and the thread
 * indices over them and over the partial sums, are 32-bit (CUB sorts them
 * with 32-bit offsets, its fast path), so W n < 2^32: n < 2^28, W being 16
 * from 2^20 points up.  gpu.c refuses larger ones when it plans them. */
#define PL_CU_MSM_MAX_POINTS (((uint32_t)1 << 28) - 1)

/* The shape of one MSM, chosen on the host by pl__cu_msm_config. */
typedef struct {
    uint32_t n;            /* points */
    unsigned c;            /* window bits */
    unsigned windows;      /* W = ceil(256 / c) */
    uint32_t buckets;      /* NB = W 2^(c-1); also the zero-digit key */
    unsigned key_bits;     /* bits of a key, for the radix sort */
    uint32_t segment;      /* S: entries (or partials) per accumulate thread */
    unsigned levels;       /* accumulate levels */
    uint32_t chunks;       /* T: reduce chunks per window */
    uint64_t max_partials; /* partial sums at level 0, an upper bound */
} pl__cu_msm_cfg;

PL_DEVICE_FN unsigned pl__cu_log2_ceil(uint64_t x)
{
    unsigned k = 0;
    while (((uint64_t)1 << k) < x)
        k++;
    return k;
}

/* The window: wide enough that the sort and accumulate (W n entries)
 * outweigh the reduction (W 2^(c-1) buckets, 2 additions each), capped at
 * 16 bits so buckets stay addressable in the key and the reduction short. */
PL_DEVICE_FN void pl__cu_msm_config(pl__cu_msm_cfg *cfg, uint32_t n)
{
    unsigned lg = pl__cu_log2_ceil(n ? n : 1);
    unsigned c = lg > 12 ? lg - 4 : 8;
    if (c > 16)
        c = 16;
    cfg->n = n;
    cfg->c = c;
    cfg->windows = (256 + c - 1) / c;
    cfg->buckets = (uint32_t)cfg->windows << (c - 1);
    cfg->key_bits = pl__cu_log2_ceil((uint64_t)cfg->buckets + 1);
    cfg->segment = 64;
    /* each level cuts a bucket's run of r entries (at most n: a point has
     * one digit per window) into ceil(r / S) sums; the last must leave one */
    cfg->levels = 1;
    for (uint64_t run = n; run > cfg->segment;
         run = (run + cfg->segment - 1) / cfg->segment)
        cfg->levels++;
    /* chunks of at least 16 buckets, so the multiplication by the chunk's
     * first bucket number (16 doublings) stays a small share of a thread */
    uint32_t per_window = (uint32_t)1 << (c - 1);
    cfg->chunks = per_window / 16 < 256 ? per_window / 16 : 256;
    cfg->max_partials = (uint64_t)cfg->windows * n / cfg->segment + cfg->buckets;
}

/* The device buffers of one MSM, cut from one scratch allocation. */
typedef struct {
    uint32_t *keys[2], *values[2]; /* W n each: the sort's double buffers */
    uint32_t *start, *end;         /* NB: bucket runs */
    uint32_t *count;               /* NB + 1: segments per bucket */
    uint32_t *offsets[2];          /* NB + 1 each: this level's, the last's */
    /* the curve's XYZZ points (pl__cu_g1_xyzz, pl__cu_bn254_g1_xyzz):
     * untyped here, as the layout serves both curves */
    void *partials[2];             /* max_partials each */
    void *chunks;                  /* W T: the reduction's output */
    void *temp;                    /* the sort's and scan's own storage */
    uint64_t temp_bytes;
} pl__cu_msm_scratch;

/* The next piece of `bytes` at *at (256-byte aligned); NULL while only
 * counting (base NULL). */
PL_DEVICE_FN char *pl__cu_take(char *base, uint64_t *at, uint64_t bytes)
{
    char *p = base ? base + *at : (char *)0;
    *at += (bytes + 255) & ~(uint64_t)255;
    return p;
}

/* Cuts base into the buffers of an MSM of this shape, temp_bytes for the
 * sort's storage last, and returns the bytes it takes (base NULL: only
 * that).  point_bytes: the size of the curve's XYZZ point. */
PL_DEVICE_FN uint64_t pl__cu_msm_layout(const pl__cu_msm_cfg *cfg,
                                        uint64_t point_bytes,
                                        uint64_t temp_bytes, void *base,
                                        pl__cu_msm_scratch *s)
{
    pl__cu_msm_scratch unused;
    char *b = (char *)base;
    uint64_t at = 0;
    uint64_t entries = (uint64_t)cfg->windows * cfg->n;
    uint64_t bounds = (uint64_t)cfg->buckets * 4, counts = bounds + 4;
    uint64_t sums = cfg->max_partials * point_bytes;
    if (!s)
        s = &unused;
    for (int k = 0; k < 2; k++) {
        s->keys[k] = (uint32_t *)pl__cu_take(b, &at, entries * 4);
        s->values[k] = (uint32_t *)pl__cu_take(b, &at, entries * 4);
        s->offsets[k] = (uint32_t *)pl__cu_take(b, &at, counts);
        s->partials[k] = pl__cu_take(b, &at, sums);
    }
    s->start = (uint32_t *)pl__cu_take(b, &at, bounds);
    s->end = (uint32_t *)pl__cu_take(b, &at, bounds);
    s->count = (uint32_t *)pl__cu_take(b, &at, counts);
    s->chunks = pl__cu_take(b, &at,
                            (uint64_t)cfg->windows * cfg->chunks * point_bytes);
    s->temp = pl__cu_take(b, &at, temp_bytes);
    s->temp_bytes = temp_bytes;
    return at;
}

/* Bits [bit, bit + c) of a 256-bit little-endian scalar, c <= 16. */
PL_DEVICE_FN uint32_t pl__cu_scalar_bits(const uint32_t *s, unsigned bit,
                                         unsigned c)
{
    unsigned limb = bit / 32, shift = bit % 32;
    uint64_t w = s[limb];
    if (limb + 1 < 8)
        w |= (uint64_t)s[limb + 1] << 32;
    return (uint32_t)(w >> shift) & (((uint32_t)1 << c) - 1);
}

/* Scalar i's W entries, at w n + i, from its 8 limbs s (below 2^255, so
 * that the top window never carries out; each curve's digits kernel,
 * msm_impl.h's, brings the scalar there first). */
PL_DEVICE_FN void pl__cu_msm_digits_of(const pl__cu_msm_cfg *cfg,
                                       const uint32_t *s, uint32_t *keys,
                                       uint32_t *values, uint32_t i)
{
    uint32_t half = (uint32_t)1 << (cfg->c - 1), carry = 0;
    for (unsigned w = 0; w < cfg->windows; w++) {
        uint32_t v = pl__cu_scalar_bits(s, w * cfg->c, cfg->c) + carry;
        uint32_t neg = v > half;
        uint32_t mag = neg ? ((uint32_t)1 << cfg->c) - v : v;
        carry = neg;
        size_t e = (size_t)w * cfg->n + i;
        keys[e] = mag ? w * half + mag - 1 : cfg->buckets;
        values[e] = (i << 1) | neg;
    }
}

/* The scalar as each curve's CPU MSM reads it, below 2^255.  BLS12-381:
 * bit 255 is ignored, as blst's MSM and ours do (r > 2^254, so a value
 * with bit 255 set is no reduced scalar anyway). */
PL_DEVICE_FN void pl__cu_msm_scalar(uint32_t s[8])
{
    s[7] &= 0x7fffffffu;
}

/* BN254: all 256 bits, reduced mod r, as the CPU's BN254 MSM reads them
 * (msm_bn254.c): 2^256 < 6r, so five conditional subtractions of r. */
PL_DEVICE_FN void pl__cu_bn254_msm_scalar(uint32_t s[8])
{
    const uint32_t r[8] = PL_CU_BN254_FR_R;
    uint32_t d[8];
    PL_UNROLL
    for (int k = 0; k < 5; k++) {
        uint32_t borrow = pl__cu_limbs_sub(d, s, r, 8);
        pl__cu_limbs_select(s, borrow - 1u, d, s, 8); /* s >= r: d */
    }
}

/* Thread p of W n, over the sorted keys: marks where bucket runs start and
 * end (start and end zeroed beforehand, so empty buckets read [0, 0)). */
PL_DEVICE_FN void pl__cu_msm_bounds_thread(const pl__cu_msm_cfg *cfg,
                                           const uint32_t *keys,
                                           uint32_t *start, uint32_t *end,
                                           uint32_t p)
{
    uint32_t total = cfg->windows * cfg->n; /* < 2^32: MAX_POINTS */
    uint32_t key = keys[p];
    if (key >= cfg->buckets)
        return;
    if (p == 0 || keys[p - 1] != key)
        start[key] = p;
    if (p + 1 == total || keys[p + 1] != key)
        end[key] = p + 1;
}

/* Thread b of NB + 1: bucket b's segment count at this level, from its run
 * [from[b], to[b]) (the count past the last bucket is 0, so that the
 * exclusive scan of NB + 1 counts ends with the total). */
PL_DEVICE_FN void pl__cu_msm_count_thread(const pl__cu_msm_cfg *cfg,
                                          const uint32_t *from,
                                          const uint32_t *to, uint32_t *count,
                                          uint32_t b)
{
    if (b >= cfg->buckets) {
        count[b] = 0;
        return;
    }
    uint32_t len = to[b] - from[b];
    count[b] = (len + cfg->segment - 1) / cfg->segment;
}

/* The bucket whose segments [offsets[b], offsets[b + 1]) hold segment t:
 * the last b with offsets[b] <= t (empty buckets share their offset with
 * the next, so the last one is the bucket that has segments). */
PL_DEVICE_FN uint32_t pl__cu_msm_bucket_of(const uint32_t *offsets,
                                           uint32_t buckets, uint32_t t)
{
    uint32_t lo = 0, hi = buckets; /* offsets[lo] <= t < offsets[hi] */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (offsets[mid] <= t)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Steps 4 and 5, per curve (msm_impl.h): pl__cu_msm_*_thread for
 * BLS12-381, pl__cu_bn254_msm_*_thread for BN254. */
#define PL__CU_P(name) pl__cu_##name
#include "backend/cuda/kernels/msm_impl.h"
#undef PL__CU_P

#define PL__CU_P(name) pl__cu_bn254_##name
#include "backend/cuda/kernels/msm_impl.h"
#undef PL__CU_P

#endif /* PL_CUDA_KERNELS_MSM_H */
