/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the batch-affine MSM's files share (not for callers: msm.h is the
 * interface).  msm_affine.c is the sum itself, written once over a group
 * descriptor (pl__msm_group): the plan, the split over the pool, the
 * witness path and the Horner over the windows.  Each curve's file
 * (msm_bls12_381.c, msm_bn254.c) instantiates the per-window tile of
 * msm_affine_impl.h once per group (and, for BN254, once per field
 * implementation), with its field, point and scalar operations inlined,
 * and fills a descriptor with the resulting functions: the sum then calls
 * a group's code through the descriptor once per tile or range of points,
 * never per field operation.
 *
 * Below: the tuning constants, the small helpers the tiles use, and the
 * descriptor.
 */
#ifndef PL_MSM_CORE_H
#define PL_MSM_CORE_H

#include "msm/msm.h"

#include <stdatomic.h>
#include <string.h>

/* Largest worker workspace; buckets dominate it and grow 2x per window
 * bit: 8 MiB keeps G1 at c <= 17 and G2 at c <= 16. */
#define PL__MSM_MAX_WORKER_BYTES ((uint64_t)8 << 20)
/* Most additions per inversion (see batch_for).  G1 at 2^18 on one
 * worker (c = 15) of a 2-core AMD EPYC (Zen 5, shared), best of 3, two
 * rounds: 512 / 1024 / 2048 took 1.17-1.27 / 1.16-1.31 / 1.28-1.32 s, so
 * nothing to gain past 512, and 2048's batch (288 KiB of addends and
 * prefix products for G1) no longer sits in L2. */
#define PL__BATCH 1024u
/* Points parked while their bucket waits in the open batch, and Jacobian
 * spill slots for points that collide twice (see msm_affine_impl.h).  With
 * random scalars under 0.5% of the additions spill (G1, 2^16 and 2^18). */
#define PL__QUEUE 256u
#define PL__SPILL 256u
/* Segments of the bucket sum that run side by side: 2 * PL__SEGS
 * additions per batch. */
#define PL__SEGS (PL__BATCH / 2)
/* Points per fold task: a multiple of 64 so tasks own whole bitmap words. */
#define PL__FOLD_CHUNK 4096u

/* bucket flags, and the kind of a batched addition in dst[]'s top bits */
#define PL__FULL 1u
#define PL__BUSY 2u
#define PL__DBL (1u << 31)
#define PL__CANCEL (1u << 30)
#define PL__BUCKET_MASK (PL__CANCEL - 1)
/* the sign bit of a witness MSM's point index (see wit_range) */
#define PL__IDX_NEG (1u << 31)
/* Gathered points the tile prefetches ahead of use. */
#define PL__AHEAD 8u

/* A scalar's class for the witness MSM, from a curve's scalar_load. */
#define PL__SCALAR_ZERO 0u
#define PL__SCALAR_ONE 1u
#define PL__SCALAR_BIG 2u

static inline uint64_t round64(uint64_t x) { return (x + 63) & ~(uint64_t)63; }

/*
 * Additions that share one inversion, for a tile with nb buckets.  A wider
 * batch amortises the inversion (about 60 multiplications) better, but the
 * more buckets an open batch holds, the more points collide with it and
 * take the slower spill path: an eighth of the buckets keeps collisions
 * near 6%.
 */
static inline size_t batch_for(size_t nb, size_t max)
{
    size_t b = nb / 8;
    if (b < 8)
        b = 8;
    return b < max ? b : max;
}

/*
 * Segments of the bucket sum (see bucket_sum in msm_affine_impl.h) for
 * 2^(c-1) buckets.  S segments cost about 3S Jacobian additions and the
 * nb / S steps one inversion each, so the best S is near sqrt(nb): the
 * power of two just above it.
 */
static inline size_t segs_for(unsigned c, size_t max)
{
    size_t s = (size_t)1 << ((c - 1) / 2 + 1);
    if (s > ((size_t)1 << (c - 1)))
        s = (size_t)1 << (c - 1);
    return s < max ? s : max;
}

/* The signed digit of window [bit0, bit0 + c) of a folded scalar
 * (nlimbs little-endian limbs: 4, < 2^254; or a GLV half, 2, < 2^127), in
 * [-2^(c-1), 2^(c-1)]: Booth recoding reads the c bits and the bit below
 * them, so windows are independent. */
static inline int64_t booth_digit(const uint64_t *s, unsigned bit0,
                                  unsigned c, unsigned nlimbs)
{
    uint64_t raw;
    if (bit0 == 0) {
        raw = (s[0] << 1) & ((2ull << c) - 1);
    } else {
        unsigned p = bit0 - 1, limb = p / 64, sh = p % 64;
        raw = s[limb] >> sh;
        if (sh + c + 1 > 64 && limb + 1 < nlimbs)
            raw |= s[limb + 1] << (64 - sh);
        raw &= (2ull << c) - 1;
    }
    return (int64_t)((raw + 1) >> 1) - (int64_t)((raw >> c) << c);
}

/* a > b, 256-bit little-endian limbs */
static inline bool gt256(const uint64_t a[4], const uint64_t b[4])
{
    for (int i = 3; i >= 0; i--)
        if (a[i] != b[i])
            return a[i] > b[i];
    return false;
}

/* out = a - b, for a >= b */
static inline void sub256(uint64_t out[4], const uint64_t a[4],
                          const uint64_t b[4])
{
    uint64_t borrow = 0;
    for (int i = 0; i < 4; i++) {
        uint64_t d = a[i] - b[i];
        uint64_t nb = (a[i] < b[i]) | (d < borrow);
        out[i] = d - borrow;
        borrow = nb;
    }
}

/* The class of a reduced scalar (PL__SCALAR_ZERO, _ONE, _BIG). */
static inline unsigned scalar_class(const uint64_t s[4])
{
    if ((s[1] | s[2] | s[3]) == 0 && s[0] <= 1)
        return (unsigned)s[0];
    return PL__SCALAR_BIG;
}

/* s = min(s, r - s) for a reduced s (half = (r - 1) / 2); true when it
 * took r - s. */
static inline bool scalar_fold_mod(uint64_t s[4], const uint64_t r[4],
                                   const uint64_t half[4])
{
    bool neg = gt256(s, half);
    if (neg)
        sub256(s, r, s);
    return neg;
}

/* All-zero bytes: the zkey's point at infinity. */
static inline bool point_is_inf(const uint8_t *pt, size_t bytes)
{
    uint64_t any = 0, w;
    for (size_t o = 0; o < bytes; o += 8) {
        memcpy(&w, pt + o, 8);
        any |= w;
    }
    return any == 0;
}

/*
 * One group of one curve, as msm_affine_impl.h's instantiation for it
 * fills it in (the function members are that file's; see there).  The
 * GLV halves are below 2^127 on both curves (each curve's glv_split), and
 * folded scalars below 2^254, so the windows are the same.
 */
typedef struct pl__msm_group {
    size_t point_bytes; /* affine, as in the zkey */
    /* Fewer points than this go to small() (BLS12-381: msm_blst.c) */
    size_t small_below;
    size_t sum_bytes;   /* the Jacobian sum */
    /* one bucket of the bucket sum (two batched affine additions and a
     * share of Jacobian ones) in units of one batched affine addition */
    double sum_cost;
    /* one inversion, in the same units (the plan's cost model) */
    double inv_cost;
    bool has_glv;       /* an endomorphism phi(x, y) = (beta x, y) */
    /* the default GLV mode of pl__msm_default_opts (tests may set it) */
    _Atomic int *default_glv;
    uint64_t (*worker_bytes)(unsigned c);
    void (*tile)(uint8_t *work, void *out, const uint8_t *points,
                 const uint8_t *endo, bool glv, const uint64_t *fold,
                 const uint64_t *neg, const uint32_t *idx, size_t lo,
                 size_t hi, unsigned bit0, unsigned c);
    size_t (*wit_range)(uint8_t *work, void *out, const uint8_t *points,
                        const uint8_t *scalars, size_t lo, size_t hi,
                        uint32_t *idx, uint64_t *fold, bool glv, unsigned c);
    void (*fold)(uint64_t *fold, uint64_t *neg, uint8_t *table,
                 const uint8_t *points, const uint8_t *scalars, size_t lo,
                 size_t hi, bool glv);
    void (*classify)(const uint8_t *points, const uint8_t *scalars,
                     size_t lo, size_t hi, size_t *big, size_t *ones);
    void (*endo)(uint8_t *out, const uint8_t *points, const uint32_t *idx,
                 size_t lo, size_t hi);
    void (*add)(void *acc, const void *p);
    void (*dbl)(void *acc);
    pl_status (*small)(void *out, const uint8_t *points, const uint8_t *scalars,
                       size_t n, pl__pool *pool, pl_error *err);
    uint64_t (*small_bytes)(size_t n, unsigned threads);
} pl__msm_group;

/* The groups (msm_bls12_381.c, msm_bn254.c; BN254's in both field
 * implementations). */
extern const pl__msm_group pl__msm_group_bls12_381_g1;
extern const pl__msm_group pl__msm_group_bls12_381_g2;
extern const pl__msm_group pl__msm_group_bn254_g1_portable;
extern const pl__msm_group pl__msm_group_bn254_g2_portable;
extern const pl__msm_group pl__msm_group_bn254_g1_adx;
extern const pl__msm_group pl__msm_group_bn254_g2_adx;

/* The sums of msm_affine.c over one descriptor (msm.h's contracts). */
pl_status pl__msm_run(const pl__msm_group *gr, void *out, const uint8_t *points,
                      const uint8_t *scalars, size_t n, const pl__msm_opts *o,
                      pl__pool *pool, pl_error *err);
pl_status pl__msm_run_witness(const pl__msm_group *gr, void *out,
                              const uint8_t *points, const uint8_t *scalars,
                              size_t n, const pl__msm_opts *o, pl__pool *pool,
                              pl_error *err);
uint64_t pl__msm_run_bytes(const pl__msm_group *gr, size_t n,
                           unsigned threads, const pl__msm_opts *o);
uint64_t pl__msm_run_witness_bytes(const pl__msm_group *gr, size_t n,
                                   unsigned threads, const pl__msm_opts *o);
unsigned pl__msm_run_window(const pl__msm_group *gr, size_t n,
                            unsigned threads, const pl__msm_opts *o);
void pl__msm_run_endo_table(const pl__msm_group *gr, uint8_t *out,
                            const uint8_t *points, size_t n, pl__pool *pool);
/* The group's default options (its default GLV mode, no table). */
pl__msm_opts pl__msm_group_default_opts(const pl__msm_group *gr);

/* The plan of one plain sum of n points (msm_affine.c): the window, the
 * grid of tiles and the one allocation's parts, in this order: folded
 * scalars, sign bits, phi's table, tile sums, one workspace per worker.
 * The batch (msm_batch.c) runs the same tiles k times over it. */
typedef struct {
    bool small;            /* handed to the group's small() */
    pl__glv_mode glv;
    unsigned c;            /* window bits */
    size_t nwin, nx;       /* windows, point ranges */
    unsigned workers;
    uint64_t fold_bytes;   /* n folded scalars (or GLV halves), 32 bytes each */
    uint64_t neg_bytes;    /* their sign bits (none with GLV) */
    uint64_t endo_bytes;   /* PL__GLV_CALL: phi of every point */
    uint64_t sums_bytes;   /* nx * nwin tile sums */
    uint64_t worker_bytes; /* one worker's workspace */
    uint64_t total_bytes;  /* the one allocation */
    /* the cost model's figure for the tiles: rounds of the busiest worker
     * times a tile's work, in batched affine additions (for all k vectors
     * of a batch) */
    double cost;
} pl__msm_plan;

/* k: the sums over these points that share the pool (1 for one sum; the
 * batch's k gives its grid the slack of k times the tiles). */
pl__msm_plan pl__msm_plan_for(const pl__msm_group *gr, size_t n, size_t k,
                              unsigned threads, const pl__msm_opts *o);
/* out (at infinity) += the tiles' sums, Horner over the windows. */
void pl__msm_combine_tiles(const pl__msm_group *gr, void *out,
                           const pl__msm_plan *p, const uint8_t *sums);

/* The batch of msm_batch.c over one descriptor (msm.h's contracts). */
pl_status pl__msm_run_batch(const pl__msm_group *gr, void *outs,
                            const uint8_t *points,
                            const uint8_t *const *scalars, size_t k, size_t n,
                            const pl__msm_opts *o, pl__pool *pool,
                            pl_error *err);
pl_status pl__msm_run_batch_witness(const pl__msm_group *gr, void *outs,
                                    const uint8_t *points,
                                    const uint8_t *const *scalars, size_t k,
                                    size_t n, const pl__msm_opts *o,
                                    pl__pool *pool, pl_error *err);
double pl__msm_run_batch_gain(const pl__msm_group *gr, size_t n, size_t k,
                              unsigned threads, const pl__msm_opts *o);
uint64_t pl__msm_run_batch_bytes(const pl__msm_group *gr, size_t n, size_t k,
                                 unsigned threads, const pl__msm_opts *o);

/* Point references (the tile's queue) are 2 i + (GLV half): sums of 2^31
 * points or more go to small(). */
#define PL__MAX_N ((size_t)PL__IDX_NEG - 1)

#endif /* PL_MSM_CORE_H */
