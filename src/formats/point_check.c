/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The point-set checker of --check-params (point_check.h), for every key
 * format: bellperson's .params and .vk (bp_check.c) and snarkjs zkeys on
 * BLS12-381 and BN254 (zkey.c) describe their sections and a decoder, and
 * this file checks every point for its prime-order subgroup, over a pool,
 * with progress, naming the first bad point.  A 32 GiB PoRep file holds
 * ~5 x 10^8 points, a 2^20 zkey ~5 x 10^6 (bench/README.md has figures).
 *
 * The subgroup check is batched, because one point's check is the work of
 * ~75 point additions in BLS12-381's G1 (blst's endomorphism test, two
 * 64-bit scalar multiplications by z; BN254's G2 test is a 127-bit one,
 * ~190) and a sound batch needs ~18.  Why it is sound:
 *
 *   Let E be the group of points on the curve over the field the section
 *   lives in (E(Fp) for G1, the twist E'(Fp2) for G2), G its prime-order
 *   subgroup (order r), and pi: E -> E/G the quotient map, a homomorphism
 *   whose kernel is G.  |E/G| is the cofactor h.  Every point we add is a
 *   decoded point of E (on the curve, checked by the decoder), so the
 *   group law applies to it.  A round draws c_i uniformly from
 *   {-1, 0, 1}, independently for each point, and accepts when
 *   S = sum c_i P_i is in G (the group's exact test on one point), that
 *   is when sum c_i pi(P_i) = 0.  If every P_i is in G, every round
 *   accepts.  If some P_j is not, t = pi(P_j) != 0; fix the other c_i, so
 *   the round accepts only when c_j t equals one particular element.  The
 *   three values -t, 0, t are distinct: t != 0, and 2t != 0 because the
 *   order of t divides h, which is odd.  So at most one of the three
 *   values of c_j is accepted: probability <= 1/3, whatever the other
 *   points are (points of small order in the cofactor group included: 3
 *   divides BLS12-381's h1, and that is exactly the case the bound is
 *   tight for).  The rounds draw independently, so a bad file passes all
 *   ROUNDS = 41 of them with probability <= 3^-41 < 2^-64.  A single
 *   combination with large random coefficients would not do: with a
 *   component of order 3 its sum lands in G with probability 1/3, however
 *   wide the coefficients.
 *
 *   The cofactors are odd.  BLS12-381 (z = -0xd201000000010000):
 *   h1 = (z - 1)^2 / 3 and h2 = (z^8 - 4z^7 + 5z^6 - 4z^4 + 6z^3 - 4z^2
 *   - 4z + 13) / 9 are both odd.  BN254's G2 twist E'(Fp2) has order r h
 *   with h = 2p - r (field/bn254/curve.h), odd because p and r are odd
 *   primes: 2p is even, r odd.  (Both checked with Python's integers;
 *   BN254's also from the twist's order p^2 + 1 - (t2 + 3f) / 2, with
 *   t = 6u^2 + 1, t2 = t^2 - 2p and 4p^2 - t2^2 = 3f^2, which is
 *   r (2p - r).)  So the {-1, 0, 1} argument holds on all three groups
 *   batched.  BN254's G1 has cofactor 1: on the curve is in the group,
 *   so its sections are decoded and nothing more.
 *
 * The coefficients come from SHA-256 (the compression function, keyed by
 * 32 bytes from getrandom, in counter mode per task, 2-bit values with
 * 3 rejected), so they are independent of the file and uniform; the task
 * a point belongs to, not the thread that runs it, fixes its stream.  A
 * task decodes its points once and, for each pair (P, Q) of them, the
 * table P, Q, P + Q, P - Q and their negatives (two additions a pair, one
 * inversion for the task's normalization): a round's two coefficients of
 * the pair pick one entry, so a round costs 8/9 of an addition a pair
 * instead of 4/3.  Each round's picked entries are summed (on BLS12-381
 * with blst's batch-affine addition tree, blst_p1s_add: one inversion per
 * level, exact for doublings and opposite points; on BN254 with mixed
 * Jacobian additions, which handle those cases first) into the thread's
 * accumulator of that round, and those are summed over the threads after
 * the pass: 41 x 4/9 + 1 = 19.2 additions a point on average.  When a
 * round fails, a second pass checks each point on its own to name the
 * first bad one; a point that does not decode is named by the first pass.
 */
#define _GNU_SOURCE
#include "formats/point_check.h"
#include "blst.h"
#include "field/bn254/curve.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/sha256.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#define ROUNDS 41
/* Points per task: 2048 BLS12-381 G1 points are ~20 ms of work on the
 * 2-core VM (G2 ~3x that), a fine grain for progress and balance, and a
 * round's sum of ~900 picked points keeps blst's addition tree at its
 * best; a 32 GiB file makes ~2.4 x 10^5 tasks. */
#define GRAIN 2048u

/* ---- the groups ----------------------------------------------------------- */

/* What the check needs of a group; affine and Jacobian points are opaque
 * bytes here (aff and jac bytes each; all zero is infinity in both). */
typedef struct {
    const char *stage, *stage_alone;
    size_t aff, jac;
    bool cofactor_one; /* decoding is the whole check */
    void (*neg)(void *dst, const void *src);  /* affine; infinity stays */
    /* s = p + q and d = p - q, Jacobian; mq = -q */
    void (*sum_diff)(void *s, void *d, const void *p, const void *q,
                     const void *mq);
    /* out[i] = in[i] (contiguous Jacobian) in affine form, one inversion;
     * ptrs: n pointers of scratch */
    void (*normalize)(void *out, void *in, const void **ptrs, size_t n);
    void (*sum)(void *jac, const void *const *aff, size_t n); /* jac = sum */
    void (*acc)(void *acc, const void *jac);                   /* acc += jac */
    bool (*aff_in_group)(const void *aff);
    bool (*jac_in_group)(const void *jac);
} group_ops;

static void bls1_neg(void *dst, const void *src)
{
    blst_p1_affine *d = dst;
    *d = *(const blst_p1_affine *)src;
    if (!blst_p1_affine_is_inf(d))
        blst_fp_cneg(&d->y, &d->y, true);
}

static void bls2_neg(void *dst, const void *src)
{
    blst_p2_affine *d = dst;
    *d = *(const blst_p2_affine *)src;
    if (!blst_p2_affine_is_inf(d))
        blst_fp2_cneg(&d->y, &d->y, true);
}

static void bls1_sum_diff(void *s, void *d, const void *p, const void *q,
                          const void *mq)
{
    blst_p1 jp;
    blst_p1_from_affine(&jp, p);
    blst_p1_add_or_double_affine(s, &jp, q);
    blst_p1_add_or_double_affine(d, &jp, mq);
}

static void bls2_sum_diff(void *s, void *d, const void *p, const void *q,
                          const void *mq)
{
    blst_p2 jp;
    blst_p2_from_affine(&jp, p);
    blst_p2_add_or_double_affine(s, &jp, q);
    blst_p2_add_or_double_affine(d, &jp, mq);
}

static void bls1_normalize(void *out, void *in, const void **ptrs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        ptrs[i] = (blst_p1 *)in + i;
    blst_p1s_to_affine(out, (const blst_p1 *const *)ptrs, n);
}

static void bls2_normalize(void *out, void *in, const void **ptrs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        ptrs[i] = (blst_p2 *)in + i;
    blst_p2s_to_affine(out, (const blst_p2 *const *)ptrs, n);
}

static void bls1_sum(void *jac, const void *const *aff, size_t n)
{
    blst_p1s_add(jac, (const blst_p1_affine *const *)aff, n);
}

static void bls2_sum(void *jac, const void *const *aff, size_t n)
{
    blst_p2s_add(jac, (const blst_p2_affine *const *)aff, n);
}

static void bls1_acc(void *acc, const void *jac)
{
    blst_p1_add_or_double(acc, acc, jac);
}

static void bls2_acc(void *acc, const void *jac)
{
    blst_p2_add_or_double(acc, acc, jac);
}

static bool bls1_aff_in(const void *aff) { return blst_p1_affine_in_g1(aff); }
static bool bls2_aff_in(const void *aff) { return blst_p2_affine_in_g2(aff); }
static bool bls1_jac_in(const void *jac) { return blst_p1_in_g1(jac); }
static bool bls2_jac_in(const void *jac) { return blst_p2_in_g2(jac); }

/* BN254's G2 in the implementation chosen at run time (fp.h). */
static void bn2_neg(void *dst, const void *src)
{
    pl__bn254_g2_affine *d = dst;
    *d = *(const pl__bn254_g2_affine *)src;
    if (!pl__bn254_g2_affine_is_inf(d))
        pl__bn254_fp2_neg(&d->y, &d->y, pl__bn254_arith_current());
}

static void bn2_sum_diff(void *s, void *d, const void *p, const void *q,
                         const void *mq)
{
    const pl__bn254_arith v = pl__bn254_arith_current();
    pl__bn254_g2 jp;
    pl__bn254_g2_from_affine(&jp, p);
    pl__bn254_g2_add_affine(s, &jp, q, v);
    pl__bn254_g2_add_affine(d, &jp, mq, v);
}

static void bn2_normalize(void *out, void *in, const void **ptrs, size_t n)
{
    (void)ptrs;
    pl__bn254_g2_batch_to_affine(out, in, n, pl__bn254_arith_current());
}

/* Mixed additions, each exact for infinity, doublings and opposites
 * (curve_impl.h handles those cases first). */
static void bn2_sum(void *jac, const void *const *aff, size_t n)
{
    const pl__bn254_arith v = pl__bn254_arith_current();
    pl__bn254_g2 *s = jac;
    memset(s, 0, sizeof(*s));
    for (size_t i = 0; i < n; i++)
        pl__bn254_g2_add_affine(s, s, aff[i], v);
}

static void bn2_acc(void *acc, const void *jac)
{
    pl__bn254_g2_add(acc, acc, jac, pl__bn254_arith_current());
}

static bool bn2_aff_in(const void *aff)
{
    return pl__bn254_g2_affine_in_group(aff, pl__bn254_arith_current());
}

static bool bn2_jac_in(const void *jac)
{
    const pl__bn254_arith v = pl__bn254_arith_current();
    pl__bn254_g2_affine a;
    pl__bn254_g2_to_affine(&a, jac, v);
    return pl__bn254_g2_affine_in_group(&a, v);
}

static bool bn1_aff_in(const void *aff)
{
    return pl__bn254_g1_affine_in_group(aff, pl__bn254_arith_current());
}

static const group_ops groups[PL__PC_GROUPS] = {
    [PL__PC_BLS12_381_G1] = {"G1 points", "G1 points, one by one",
                             sizeof(blst_p1_affine), sizeof(blst_p1), false,
                             bls1_neg, bls1_sum_diff, bls1_normalize,
                             bls1_sum, bls1_acc, bls1_aff_in, bls1_jac_in},
    [PL__PC_BLS12_381_G2] = {"G2 points", "G2 points, one by one",
                             sizeof(blst_p2_affine), sizeof(blst_p2), false,
                             bls2_neg, bls2_sum_diff, bls2_normalize,
                             bls2_sum, bls2_acc, bls2_aff_in, bls2_jac_in},
    [PL__PC_BN254_G1] = {"G1 points", "G1 points, one by one",
                         sizeof(pl__bn254_g1_affine), sizeof(pl__bn254_g1),
                         true, NULL, NULL, NULL, NULL, NULL, bn1_aff_in,
                         NULL},
    [PL__PC_BN254_G2] = {"G2 points", "G2 points, one by one",
                         sizeof(pl__bn254_g2_affine), sizeof(pl__bn254_g2),
                         false, bn2_neg, bn2_sum_diff, bn2_normalize, bn2_sum,
                         bn2_acc, bn2_aff_in, bn2_jac_in},
};

/* The largest affine point (a decoded point's buffer). */
typedef union {
    blst_p1_affine a;
    blst_p2_affine b;
    pl__bn254_g1_affine c;
    pl__bn254_g2_affine d;
} any_affine;

typedef union {
    blst_p1 a;
    blst_p2 b;
    pl__bn254_g1 c;
    pl__bn254_g2 d;
} any_jacobian;

const char *pl__point_check_one(pl__pc_group group, pl__pc_decode_fn decode,
                                const void *ctx, const uint8_t *bytes,
                                const char *not_in_group)
{
    any_affine pt;
    const char *bad = decode(&pt, bytes, ctx);
    if (!bad && !groups[group].aff_in_group(&pt))
        bad = not_in_group;
    return bad;
}

/* ---- one pass over one group's sections ---------------------------------- */

typedef struct {
    const pl__pc_job *job;
    const group_ops *g;
    bool batch; /* the rounds' sums; else each point checked alone */
    unsigned sections[PL__PC_MAX_SECTIONS]; /* indices into job->sections */
    unsigned n_sections;
    size_t task_end[PL__PC_MAX_SECTIONS]; /* tasks of sections[0..k] */
    uint64_t ordinal[PL__PC_MAX_SECTIONS]; /* each one's first point's */
    uint8_t key[32];
    uint8_t *acc;     /* [worker][ROUNDS] Jacobian points of g->jac bytes */
    uint8_t *scratch; /* [worker]: scratch_bytes (task_scratch) */
    size_t cap;       /* the most points a task holds: GRAIN or fewer */
    _Atomic uint64_t first_bad; /* the lowest ordinal that failed, or ~0 */
    /* progress */
    const char *stage;
    uint64_t total_bytes;
    _Atomic uint64_t done_bytes;
    _Atomic uint64_t next_report;
    pthread_mutex_t lock;
} pass;

/* The coefficients of one task: SHA-256's compression of key || task ||
 * counter, 2 bits at a time. */
typedef struct {
    const uint8_t *key;
    uint64_t task, counter;
    uint32_t words[8];
    unsigned word, bits_left;
    uint32_t bits;
} coef_stream;

static void refill(coef_stream *s)
{
    uint8_t block[64] = {0};
    memcpy(block, s->key, 32);
    memcpy(block + 32, &s->task, 8);
    memcpy(block + 40, &s->counter, 8);
    s->counter++;
    memcpy(s->words, pl__sha256_iv, sizeof(s->words));
    pl__sha256_compress(s->words, block, 64);
    s->word = 0;
}

/* 0, 1 or 2 (the coefficient 0, 1 or -1), each with probability 1/3. */
static unsigned next_coef(coef_stream *s)
{
    for (;;) {
        if (s->bits_left == 0) {
            if (s->word == 8)
                refill(s);
            s->bits = s->words[s->word++];
            s->bits_left = 32;
        }
        unsigned v = s->bits & 3u;
        s->bits >>= 2;
        s->bits_left -= 2;
        if (v != 3)
            return v;
    }
}

static void lower_bad(pass *j, uint64_t ordinal)
{
    uint64_t seen = atomic_load(&j->first_bad);
    while (ordinal < seen &&
           !atomic_compare_exchange_weak(&j->first_bad, &seen, ordinal))
        ;
}

/* Bytes through on_progress, about every 1% and at the end, one caller at
 * a time. */
static void progress(pass *j, uint64_t bytes)
{
    const pl_check_config *cfg = j->job->cfg;
    if (!cfg || !cfg->on_progress)
        return;
    uint64_t done = atomic_fetch_add(&j->done_bytes, bytes) + bytes;
    if (done < atomic_load(&j->next_report) && done < j->total_bytes)
        return;
    pthread_mutex_lock(&j->lock);
    if (done >= atomic_load(&j->next_report) || done == j->total_bytes) {
        atomic_store(&j->next_report, done + j->total_bytes / 100 + 1);
        cfg->on_progress(cfg->on_progress_user, j->stage, done,
                         j->total_bytes);
    }
    pthread_mutex_unlock(&j->lock);
}

/* A worker's scratch, in bytes, for tasks of up to cap points of a group
 * whose affine points take u bytes and Jacobian ones jb: a task's points,
 * their negatives, the pairs' sums and differences and their negatives
 * (affine), the same sums before normalization (Jacobian) and pointers to
 * them: 536 bytes a BLS12-381 G1 point, 1064 a G2 point. */
static size_t scratch_bytes(size_t cap, size_t u, size_t jb)
{
    return cap * (4 * u + jb + sizeof(void *));
}

typedef struct {
    uint8_t *pts, *neg, *sd, *neg_sd; /* cap affine points each */
    uint8_t *jac;                     /* cap Jacobian points */
    const void **jptr;                /* cap pointers into jac */
} task_scratch;

static task_scratch scratch_of(const pass *j, unsigned worker)
{
    const size_t u = j->g->aff, cap = j->cap;
    uint8_t *at = j->scratch + (size_t)worker * scratch_bytes(cap, u,
                                                              j->g->jac);
    task_scratch t;
    t.pts = at;
    t.neg = t.pts + cap * u;
    t.sd = t.neg + cap * u;
    t.neg_sd = t.sd + cap * u;
    t.jac = t.neg_sd + cap * u;
    t.jptr = (const void **)(void *)(t.jac + cap * j->g->jac);
    return t;
}

/* For each pair (P, Q) of the task's n points (the 2k-th and 2k+1-th),
 * S = P + Q and D = P - Q in sd[2k], sd[2k+1], normalized together (one
 * inversion for the task), and all the negatives. */
static void pair_table(const pass *j, const task_scratch *t, size_t n)
{
    const group_ops *g = j->g;
    const size_t u = g->aff, pairs = n / 2;
    for (size_t i = 0; i < n; i++)
        g->neg(t->neg + i * u, t->pts + i * u);
    for (size_t k = 0; k < pairs; k++) {
        const uint8_t *p = t->pts + 2 * k * u;
        g->sum_diff(t->jac + 2 * k * g->jac, t->jac + (2 * k + 1) * g->jac,
                    p, p + u, t->neg + (2 * k + 1) * u);
    }
    if (!pairs)
        return;
    g->normalize(t->sd, t->jac, t->jptr, 2 * pairs);
    for (size_t i = 0; i < 2 * pairs; i++)
        g->neg(t->neg_sd + i * u, t->sd + i * u);
}

/* Each round's sum of the task's n points with the coefficients drawn,
 * added to the worker's accumulators.  Two coefficients (c, d) for the
 * pair (P, Q) pick one point of the table, c P + d Q: the same sum as
 * adding them one by one, with 8/9 of an addition a pair instead of 4/3. */
static void add_rounds(const pass *j, uint8_t *acc, const task_scratch *t,
                       size_t n, coef_stream *cs)
{
    const void *picked[GRAIN];
    const group_ops *g = j->g;
    const size_t u = g->aff;
    for (unsigned r = 0; r < ROUNDS; r++) {
        size_t m = 0;
        for (size_t i = 0; i + 1 < n; i += 2) {
            const unsigned c = next_coef(cs), d = next_coef(cs);
            /* c, d: 0 none, 1 the point, 2 its negative */
            const uint8_t *e = NULL;
            if (c && d)
                e = (c == d ? (c == 1 ? t->sd : t->neg_sd)      /* +-(P + Q) */
                            : (c == 1 ? t->sd : t->neg_sd) + u) /* +-(P - Q) */
                    + i * u;
            else if (c || d)
                e = ((c | d) == 1 ? t->pts : t->neg) + (i + !c) * u;
            if (e)
                picked[m++] = e;
        }
        if (n % 2) {
            const unsigned c = next_coef(cs);
            if (c)
                picked[m++] = (c == 1 ? t->pts : t->neg) + (n - 1) * u;
        }
        any_jacobian sum;
        g->sum(&sum, picked, m);
        g->acc(acc + r * g->jac, &sum);
    }
}

/* Decodes point i of the pass's k-th section; NULL or the reason. */
static const char *decode_at(const pass *j, unsigned k, uint64_t i,
                             void *out)
{
    const pl__pc_section *s = &j->job->sections[j->sections[k]];
    return s->decode(out, s->points + i * s->unit, s->decode_ctx);
}

static void check_task(void *ctx, size_t task, unsigned worker)
{
    pass *j = ctx;
    unsigned k = 0;
    while (task >= j->task_end[k])
        k++;
    const pl__pc_section *s = &j->job->sections[j->sections[k]];
    const size_t first_task = k ? j->task_end[k - 1] : 0;
    const uint64_t lo = (uint64_t)(task - first_task) * GRAIN;
    const uint64_t hi = lo + GRAIN < s->count ? lo + GRAIN : s->count;
    const task_scratch t = scratch_of(j, worker);
    const bool batch = j->batch && !j->g->cofactor_one;
    /* a pass that has found a point that does not decode is over: the
     * rest is not worth the time (the earliest such point is still named:
     * only points after it are skipped) */
    size_t n = 0;
    for (uint64_t i = lo; i < hi; i++, n++) {
        if (j->ordinal[k] + i >= atomic_load(&j->first_bad))
            goto done;
        uint8_t *pt = t.pts + (batch ? n : 0) * j->g->aff;
        bool bad = decode_at(j, k, i, pt) != NULL;
        if (!bad && !batch && !j->g->cofactor_one)
            bad = !j->g->aff_in_group(pt);
        if (bad) {
            lower_bad(j, j->ordinal[k] + i);
            goto done;
        }
    }
    if (batch) {
        coef_stream cs = {.key = j->key, .task = task, .word = 8};
        pair_table(j, &t, n);
        add_rounds(j, j->acc + (size_t)worker * ROUNDS * j->g->jac, &t, n,
                   &cs);
    }
done:
    progress(j, (hi - lo) * s->unit);
}

/* Runs one pass (j set up but for the batch flag and stage). */
static void run_pass(pass *j, pl__pool *pool, bool batch, const char *stage)
{
    j->batch = batch;
    j->stage = stage;
    atomic_store(&j->first_bad, UINT64_MAX);
    atomic_store(&j->done_bytes, 0);
    atomic_store(&j->next_report, 0);
    if (j->acc)
        memset(j->acc, 0, (size_t)pl__pool_size(pool) * ROUNDS * j->g->jac);
    const size_t tasks = j->n_sections ? j->task_end[j->n_sections - 1] : 0;
    if (tasks)
        pl__pool_run(pool, tasks, check_task, j);
}

/* Whether every round's sum, over the workers, is in the subgroup. */
static bool rounds_pass(const pass *j, unsigned workers)
{
    for (unsigned r = 0; r < ROUNDS; r++) {
        any_jacobian sum;
        memset(&sum, 0, sizeof(sum));
        for (unsigned w = 0; w < workers; w++)
            j->g->acc(&sum, j->acc + ((size_t)w * ROUNDS + r) * j->g->jac);
        if (!j->g->jac_in_group(&sum))
            return false;
    }
    return true;
}

/* The error of the pass's point at `ordinal`, which failed. */
static pl_status bad_point(const pass *j, uint64_t ordinal,
                           unsigned *bad_section, pl_error *err)
{
    unsigned k = 0;
    while (k + 1 < j->n_sections && ordinal >= j->ordinal[k + 1])
        k++;
    *bad_section = j->sections[k];
    const pl__pc_section *s = &j->job->sections[j->sections[k]];
    const uint64_t i = ordinal - j->ordinal[k];
    const char *why = pl__point_check_one(s->group, s->decode, s->decode_ctx,
                                          s->points + i * s->unit,
                                          s->not_in_group);
    if (!why) /* cannot be: it failed once already */
        return pl__error_set(err, PL_EINTERNAL, "%s: section %s: point "
                             "%" PRIu64 " failed the check and then passed "
                             "it", j->job->path, s->name, i);
    return pl__error_set(err, PL_EFORMAT, "%s: section %s: point %" PRIu64
                         " %s (at byte offset %" PRIu64 ")", j->job->path,
                         s->name, i, why, s->at + i * s->unit);
}

static pl_status random_key(uint8_t key[32], pl_error *err)
{
    size_t got = 0;
    while (got < 32) {
        ssize_t n = getrandom(key + got, 32 - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return pl__error_errno(err, PL_EINTERNAL, errno, "getrandom "
                                   "failed (the subgroup check's "
                                   "coefficients)");
        got += (size_t)n;
    }
    return PL_OK;
}

/* The sections of one group before the limit-th, batched, then (only if
 * a round fails) point by point; with job->alone, point by point only
 * (the baseline).  *bad_section: the section of the point named. */
static pl_status check_group(const pl__pc_job *job, pl__pc_group group,
                             unsigned limit, pl__pool *pool,
                             unsigned *bad_section, pl_error *err)
{
    pl_status st = PL_OK;
    const unsigned workers = pl__pool_size(pool);
    pass *j = calloc(1, sizeof(*j));
    if (!j)
        return pl__error_set(err, PL_ENOMEM, "%s: out of memory for the "
                             "point check", job->path);
    j->job = job;
    j->g = &groups[group];
    pthread_mutex_init(&j->lock, NULL);
    size_t tasks = 0;
    uint64_t points = 0;
    for (unsigned s = 0; s < limit; s++) {
        const pl__pc_section *sec = &job->sections[s];
        if (sec->group != group || sec->count == 0)
            continue;
        j->sections[j->n_sections] = s;
        j->ordinal[j->n_sections] = points;
        tasks += (sec->count + GRAIN - 1) / GRAIN;
        j->task_end[j->n_sections++] = tasks;
        points += sec->count;
        j->total_bytes += sec->count * sec->unit;
        if (sec->count > j->cap)
            j->cap = sec->count < GRAIN ? sec->count : GRAIN;
    }
    if (!points)
        goto done;
    const bool batched = !job->alone && !j->g->cofactor_one;
    if (batched &&
        !(j->acc = calloc((size_t)workers * ROUNDS, j->g->jac))) {
        st = pl__error_set(err, PL_ENOMEM, "%s: out of memory for the "
                           "point check", job->path);
        goto done;
    }
    /* up to 1.1 MiB a thread in BLS12-381's G1, 2.2 in G2: accounted
     * (msm_scratch, the class of a sum's working points) */
    const uint64_t scratch = scratch_bytes(j->cap, j->g->aff, j->g->jac);
    if (!(j->scratch = pl__alloc(PL_BUF_MSM_SCRATCH, workers * scratch,
                                 err))) {
        st = PL_ENOMEM;
        goto done;
    }
    if (batched && (st = random_key(j->key, err)))
        goto done;
    uint64_t bad = UINT64_MAX;
    if (batched || j->g->cofactor_one) {
        /* (for a group of cofactor 1 the decoding pass is the check) */
        run_pass(j, pool, true, j->g->stage);
        bad = atomic_load(&j->first_bad);
        if (bad == UINT64_MAX && (j->g->cofactor_one || rounds_pass(j, workers)))
            goto done;
    }
    if (bad == UINT64_MAX) { /* some point is outside the subgroup: which */
        run_pass(j, pool, false, j->g->stage_alone);
        bad = atomic_load(&j->first_bad);
        if (bad == UINT64_MAX && !batched)
            goto done; /* every point passed alone */
    }
    st = bad == UINT64_MAX
             ? pl__error_set(err, PL_EINTERNAL, "%s: a batched subgroup "
                             "check failed, but no point fails alone",
                             job->path)
             : bad_point(j, bad, bad_section, err);
done:
    pthread_mutex_destroy(&j->lock);
    pl__free(j->scratch);
    free(j->acc);
    free(j);
    return st;
}

pl_status pl__points_check(const pl__pc_job *job, pl_error *err)
{
    if (job->n_sections > PL__PC_MAX_SECTIONS)
        return pl__error_set(err, PL_EINTERNAL, "%s: %u sections to check, "
                             "at most %u", job->path, job->n_sections,
                             PL__PC_MAX_SECTIONS);
    pl__pool *pool = job->pool;
    pl_status st = PL_OK;
    if (!pool) {
        /* no more threads than tasks of GRAIN points: a small file's
         * scratch stays a few times its size (and no thread waits for
         * nothing) */
        uint64_t points = 0;
        for (unsigned s = 0; s < job->n_sections; s++)
            points += job->sections[s].count;
        const uint64_t tasks = points / GRAIN;
        unsigned threads =
            pl__pool_threads_for(job->cfg ? job->cfg->threads : 0);
        if (tasks < threads)
            threads = tasks > 1 ? (unsigned)tasks : 1;
        if ((st = pl__pool_create(&pool, threads, "pl-check", err)))
            return st;
    }
    /* the groups in the order of their first sections; once one has
     * named a bad point, the others check only the sections before its
     * own, so that the point named is the first bad one in section order
     * (across groups; within one, a point that does not decode before any
     * outside the subgroup) */
    bool done[PL__PC_GROUPS] = {false};
    unsigned limit = job->n_sections;
    for (unsigned s = 0; s < limit; s++) {
        const pl__pc_group g = job->sections[s].group;
        if (done[g])
            continue;
        done[g] = true;
        unsigned bad_section = limit;
        pl_status gs = check_group(job, g, limit, pool, &bad_section, err);
        if (gs == PL_EFORMAT) {
            st = gs; /* err holds it: an earlier one would overwrite it */
            limit = bad_section;
        } else if (gs != PL_OK) {
            st = gs;
            break;
        }
    }
    if (pool != job->pool)
        pl__pool_destroy(pool);
    return st;
}
