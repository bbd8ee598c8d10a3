/* SPDX-License-Identifier: Apache-2.0 */
/*
 * --check-params for bellperson's files (pl_bp_params_check_points, the
 * commands inspect, verify --format bellperson and c2): every point of a
 * parameter or .vk file decoded as bellperson reads it (bellperson.c's
 * readers: the flag bits, the curve, the point at infinity) and checked
 * for its prime-order subgroup, over a pool, with progress for the CLI.
 * A 32 GiB PoRep file holds ~5 x 10^8 points (bench/README.md has the
 * figures); opening a file checks only its verifying key and IC points.
 *
 * The subgroup check is batched, because one point's check is the work of
 * ~75 point additions in G1 (blst's endomorphism test, two 64-bit scalar
 * multiplications by z) and a sound batch needs ~18.  Why it is sound:
 *
 *   Let E be the group of points on the curve over the field the section
 *   lives in (E(Fp) for G1, E'(Fp2) for G2), G its prime-order subgroup
 *   (order r), and pi: E -> E/G the quotient map, a homomorphism whose
 *   kernel is G.  |E/G| is the cofactor, h1 or h2; both are odd.  Every
 *   point we add is a decoded point of E (on the curve, checked by the
 *   decoder), so the group law applies to it.  A round draws c_i uniformly
 *   from {-1, 0, 1}, independently for each point, and accepts when
 *   S = sum c_i P_i is in G (blst's exact test on one point), that is when
 *   sum c_i pi(P_i) = 0.  If every P_i is in G, every round accepts.  If
 *   some P_j is not, t = pi(P_j) != 0; fix the other c_i, so the round
 *   accepts only when c_j t equals one particular element.  The three
 *   values -t, 0, t are distinct: t != 0, and 2t != 0 because the order of
 *   t divides |E/G|, which is odd.  So at most one of the three values of
 *   c_j is accepted: probability <= 1/3, whatever the other points are
 *   (points of small order in the cofactor group included: 3 divides h1,
 *   and that is exactly the case the bound is tight for).  The rounds
 *   draw independently, so a bad file passes all ROUNDS = 41 of them with
 *   probability <= 3^-41 < 2^-64.  A single combination with large random
 *   coefficients would not do: with a component of order 3 its sum lands
 *   in G with probability 1/3, however wide the coefficients.
 *
 * The coefficients come from SHA-256 (the compression function, keyed by
 * 32 bytes from getrandom, in counter mode per task, 2-bit values with
 * 3 rejected), so they are independent of the file and uniform; the task
 * a point belongs to, not the thread that runs it, fixes its stream.  A
 * task decodes its points once and, for each pair (P, Q) of them, the
 * table P, Q, P + Q, P - Q and their negatives (two additions a pair, one
 * inversion for the task's normalization): a round's two coefficients of
 * the pair pick one entry, so a round costs 8/9 of an addition a pair
 * instead of 4/3.  Each round's picked entries are summed with blst's
 * batch-affine addition tree (blst_p1s_add: one inversion per level,
 * exact for doublings and opposite points; 1.5-2x faster than adding them
 * one by one on the 2-core VM) into the thread's accumulator of that
 * round, and those are summed over the threads after the pass: 41 x 4/9
 * + 1 = 19.2 additions a point on average, 5.8x less CPU than a check of
 * each point (bench/README.md).  When a round fails, a second pass checks
 * each point on its own to name the first bad one; a point that does not
 * decode is named by the first pass.
 */
#define _GNU_SOURCE
#include "formats/bellperson.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/pool.h"
#include "util/sha256.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#define ROUNDS 41
/* Points per task: 2048 G1 points are ~20 ms of work on the 2-core VM (G2
 * ~3x that), a fine grain for progress and balance, and a round's sum of
 * ~900 picked points keeps blst's addition tree at its best; a 32 GiB
 * file makes ~2.4 x 10^5 tasks. */
#define GRAIN 2048u

typedef union {
    blst_p1_affine g1;
    blst_p2_affine g2;
} affine;

typedef union {
    blst_p1 g1;
    blst_p2 g2;
} jacobian;

/* One pass over the G1 sections or the G2 one. */
typedef struct {
    const pl_bp_params *p;
    bool g2;
    bool batch; /* the rounds' sums; else each point checked alone */
    unsigned sections[PL__BP_SECTIONS];
    unsigned n_sections;
    size_t task_end[PL__BP_SECTIONS]; /* tasks of sections[0..k] */
    uint64_t ordinal[PL__BP_SECTIONS]; /* each one's first point's index */
    uint8_t key[32];
    jacobian *acc; /* [worker][ROUNDS] */
    uint8_t *scratch; /* [worker]: scratch_bytes (task_scratch) */
    size_t cap;       /* the most points a task holds: GRAIN or fewer */
    _Atomic uint64_t first_bad; /* the lowest ordinal that failed, or ~0 */
    /* progress */
    const pl_bp_check_config *cfg;
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
    if (!j->cfg || !j->cfg->on_progress)
        return;
    uint64_t done = atomic_fetch_add(&j->done_bytes, bytes) + bytes;
    if (done < atomic_load(&j->next_report) && done < j->total_bytes)
        return;
    pthread_mutex_lock(&j->lock);
    if (done >= atomic_load(&j->next_report) || done == j->total_bytes) {
        atomic_store(&j->next_report, done + j->total_bytes / 100 + 1);
        j->cfg->on_progress(j->cfg->on_progress_user, j->stage, done,
                            j->total_bytes);
    }
    pthread_mutex_unlock(&j->lock);
}

/* Decodes point i of section s: bellperson's rules (bellperson.c). */
static BLST_ERROR decode(affine *out, const pass *j, unsigned s, uint32_t i)
{
    return j->g2 ? pl__bp_g2_at(&out->g2, j->p, i)
                 : pl__bp_g1_at(&out->g1, j->p, s, i);
}

/* blst's test of one point (the endomorphism's: exact). */
static BLST_ERROR in_group(const pass *j, const affine *pt)
{
    bool in = j->g2 ? blst_p2_affine_in_g2(&pt->g2)
                    : blst_p1_affine_in_g1(&pt->g1);
    return in ? BLST_SUCCESS : BLST_POINT_NOT_IN_GROUP;
}

/* A worker's scratch, in bytes, for tasks of up to cap points of a group
 * whose affine points take u bytes and Jacobian ones jb: a task's points,
 * their negatives, the pairs' sums and differences and their negatives
 * (affine), the same sums before normalization (Jacobian) and pointers to
 * them: 536 bytes a G1 point, 1064 a G2 point. */
static size_t scratch_bytes(size_t cap, size_t u, size_t jb)
{
    return cap * (4 * u + jb + sizeof(void *));
}

typedef struct {
    uint8_t *pts, *neg, *sd, *neg_sd; /* GRAIN affine points each */
    uint8_t *jac;                     /* GRAIN Jacobian points */
    const void **jptr;                /* GRAIN pointers into jac */
    size_t u;                         /* bytes of an affine point */
} task_scratch;

static task_scratch scratch_of(const pass *j, unsigned worker)
{
    const size_t u = j->g2 ? sizeof(blst_p2_affine) : sizeof(blst_p1_affine);
    const size_t jb = j->g2 ? sizeof(blst_p2) : sizeof(blst_p1);
    const size_t cap = j->cap;
    uint8_t *at = j->scratch + (size_t)worker * scratch_bytes(cap, u, jb);
    task_scratch t = {.u = u};
    t.pts = at;
    t.neg = t.pts + cap * u;
    t.sd = t.neg + cap * u;
    t.neg_sd = t.sd + cap * u;
    t.jac = t.neg_sd + cap * u;
    t.jptr = (const void **)(void *)(t.jac + cap * jb);
    return t;
}

/* dst = -src (affine; the point at infinity stays all zero). */
static void negate(const pass *j, void *dst, const void *src)
{
    if (j->g2) {
        blst_p2_affine *d = dst;
        *d = *(const blst_p2_affine *)src;
        if (!blst_p2_affine_is_inf(d))
            blst_fp2_cneg(&d->y, &d->y, true);
    } else {
        blst_p1_affine *d = dst;
        *d = *(const blst_p1_affine *)src;
        if (!blst_p1_affine_is_inf(d))
            blst_fp_cneg(&d->y, &d->y, true);
    }
}

/* For each pair (P, Q) of the task's n points (the 2k-th and 2k+1-th),
 * S = P + Q and D = P - Q in sd[2k], sd[2k+1], normalized together (one
 * inversion for the task), and all the negatives. */
static void pair_table(const pass *j, const task_scratch *t, size_t n)
{
    const size_t u = t->u, pairs = n / 2;
    for (size_t i = 0; i < n; i++)
        negate(j, t->neg + i * u, t->pts + i * u);
    for (size_t k = 0; k < pairs; k++) {
        const uint8_t *p = t->pts + 2 * k * u, *q = p + u, *mq = t->neg +
                                                             (2 * k + 1) * u;
        if (j->g2) {
            blst_p2 *s = (blst_p2 *)(void *)t->jac + 2 * k, jp;
            blst_p2_from_affine(&jp, (const blst_p2_affine *)p);
            blst_p2_add_or_double_affine(&s[0], &jp,
                                         (const blst_p2_affine *)q);
            blst_p2_add_or_double_affine(&s[1], &jp,
                                         (const blst_p2_affine *)mq);
            t->jptr[2 * k] = &s[0];
            t->jptr[2 * k + 1] = &s[1];
        } else {
            blst_p1 *s = (blst_p1 *)(void *)t->jac + 2 * k, jp;
            blst_p1_from_affine(&jp, (const blst_p1_affine *)p);
            blst_p1_add_or_double_affine(&s[0], &jp,
                                         (const blst_p1_affine *)q);
            blst_p1_add_or_double_affine(&s[1], &jp,
                                         (const blst_p1_affine *)mq);
            t->jptr[2 * k] = &s[0];
            t->jptr[2 * k + 1] = &s[1];
        }
    }
    if (!pairs)
        return;
    if (j->g2)
        blst_p2s_to_affine((blst_p2_affine *)(void *)t->sd,
                           (const blst_p2 *const *)t->jptr, 2 * pairs);
    else
        blst_p1s_to_affine((blst_p1_affine *)(void *)t->sd,
                           (const blst_p1 *const *)t->jptr, 2 * pairs);
    for (size_t i = 0; i < 2 * pairs; i++)
        negate(j, t->neg_sd + i * u, t->sd + i * u);
}

/* Each round's sum of the task's n points with the coefficients drawn,
 * added to the worker's accumulators.  Two coefficients (c, d) for the
 * pair (P, Q) pick one point of the table, c P + d Q: the same sum as
 * adding them one by one, with 8/9 of an addition a pair instead of 4/3. */
static void add_rounds(const pass *j, jacobian *acc, const task_scratch *t,
                       size_t n, coef_stream *cs)
{
    const void *picked[GRAIN];
    const size_t u = t->u;
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
        jacobian sum;
        if (j->g2) {
            blst_p2s_add(&sum.g2, (const blst_p2_affine *const *)picked, m);
            blst_p2_add_or_double(&acc[r].g2, &acc[r].g2, &sum.g2);
        } else {
            blst_p1s_add(&sum.g1, (const blst_p1_affine *const *)picked, m);
            blst_p1_add_or_double(&acc[r].g1, &acc[r].g1, &sum.g1);
        }
    }
}

static void check_task(void *ctx, size_t task, unsigned worker)
{
    pass *j = ctx;
    unsigned k = 0;
    while (task >= j->task_end[k])
        k++;
    const unsigned s = j->sections[k];
    const size_t first_task = k ? j->task_end[k - 1] : 0;
    const uint64_t lo = (uint64_t)(task - first_task) * GRAIN;
    const uint64_t count = j->p->count[s];
    const uint64_t hi = lo + GRAIN < count ? lo + GRAIN : count;
    const uint64_t unit = j->g2 ? PL__BP_G2_BYTES : PL__BP_G1_BYTES;
    const task_scratch t = scratch_of(j, worker);
    /* a pass that has found a point that does not decode is over: the
     * rest is not worth the time (the earliest such point is still named:
     * only points after it are skipped) */
    size_t n = 0;
    for (uint64_t i = lo; i < hi; i++, n++) {
        if (j->ordinal[k] + i >= atomic_load(&j->first_bad))
            goto done;
        affine *pt = (affine *)(void *)(t.pts + (j->batch ? n : 0) * t.u);
        BLST_ERROR e = decode(pt, j, s, (uint32_t)i);
        if (e == BLST_SUCCESS && !j->batch)
            e = in_group(j, pt);
        if (e != BLST_SUCCESS) {
            lower_bad(j, j->ordinal[k] + i);
            goto done;
        }
    }
    if (j->batch) {
        coef_stream cs = {.key = j->key, .task = task, .word = 8};
        pair_table(j, &t, n);
        add_rounds(j, j->acc + (size_t)worker * ROUNDS, &t, n, &cs);
    }
done:
    progress(j, (hi - lo) * unit);
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
        memset(j->acc, 0, (size_t)pl__pool_size(pool) * ROUNDS *
                              sizeof(*j->acc));
    const size_t tasks = j->n_sections ? j->task_end[j->n_sections - 1] : 0;
    if (tasks)
        pl__pool_run(pool, tasks, check_task, j);
}

/* Whether every round's sum, over the workers, is in the subgroup. */
static bool rounds_pass(const pass *j, unsigned workers)
{
    for (unsigned r = 0; r < ROUNDS; r++) {
        jacobian sum;
        memset(&sum, 0, sizeof(sum));
        for (unsigned w = 0; w < workers; w++) {
            const jacobian *a = &j->acc[(size_t)w * ROUNDS + r];
            if (j->g2)
                blst_p2_add_or_double(&sum.g2, &sum.g2, &a->g2);
            else
                blst_p1_add_or_double(&sum.g1, &sum.g1, &a->g1);
        }
        if (!(j->g2 ? blst_p2_in_g2(&sum.g2) : blst_p1_in_g1(&sum.g1)))
            return false;
    }
    return true;
}

/* The error of the pass's point at `ordinal`, which failed. */
static pl_status bad_point(const pass *j, uint64_t ordinal, pl_error *err)
{
    unsigned k = 0;
    while (k + 1 < j->n_sections && ordinal >= j->ordinal[k + 1])
        k++;
    const unsigned s = j->sections[k];
    const uint64_t i = ordinal - j->ordinal[k];
    affine pt;
    BLST_ERROR e = decode(&pt, j, s, (uint32_t)i);
    if (e == BLST_SUCCESS)
        e = in_group(j, &pt);
    if (e == BLST_SUCCESS) /* cannot be: it failed once already */
        return pl__error_set(err, PL_EINTERNAL, "%s: section %s: point "
                             "%" PRIu64 " failed the check and then passed "
                             "it", j->p->path, pl__bp_section_name(s), i);
    return pl__bp_point_fail(j->p, s, i, e, err);
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

/* The G1 sections (g2 false: h, l, a, b_g1, in file order; ic was checked
 * at open) or the G2 one, batched, then (only if a round fails) point by
 * point; without `batched`, point by point only (the baseline). */
static pl_status check_group(const pl_bp_params *p, bool g2, pl__pool *pool,
                             const pl_bp_check_config *cfg, bool batched,
                             pl_error *err)
{
    pl_status st = PL_OK;
    const unsigned workers = pl__pool_size(pool);
    pass *j = calloc(1, sizeof(*j));
    if (!j)
        return pl__error_set(err, PL_ENOMEM, "%s: out of memory for the "
                             "point check", p->path);
    j->p = p;
    j->g2 = g2;
    j->cfg = cfg;
    pthread_mutex_init(&j->lock, NULL);
    size_t tasks = 0;
    uint64_t points = 0;
    for (unsigned s = PL__BP_H; s < PL__BP_SECTIONS; s++) {
        if (pl__bp_section_is_g2(s) != g2 || p->count[s] == 0)
            continue;
        j->sections[j->n_sections] = s;
        j->ordinal[j->n_sections] = points;
        tasks += ((uint64_t)p->count[s] + GRAIN - 1) / GRAIN;
        j->task_end[j->n_sections++] = tasks;
        points += p->count[s];
        if (p->count[s] > j->cap)
            j->cap = p->count[s] < GRAIN ? p->count[s] : GRAIN;
    }
    j->total_bytes = points * (g2 ? PL__BP_G2_BYTES : PL__BP_G1_BYTES);
    if (!points)
        goto done;
    if (!(j->acc = calloc((size_t)workers * ROUNDS, sizeof(*j->acc)))) {
        st = pl__error_set(err, PL_ENOMEM, "%s: out of memory for the "
                           "point check", p->path);
        goto done;
    }
    /* up to 1.1 MiB a thread in G1, 2.2 in G2: accounted (msm_scratch,
     * the class of a sum's working points) */
    const uint64_t scratch =
        g2 ? scratch_bytes(j->cap, sizeof(blst_p2_affine), sizeof(blst_p2))
           : scratch_bytes(j->cap, sizeof(blst_p1_affine), sizeof(blst_p1));
    if (!(j->scratch = pl__alloc(PL_BUF_MSM_SCRATCH, workers * scratch,
                                 err))) {
        st = PL_ENOMEM;
        goto done;
    }
    if ((st = random_key(j->key, err)))
        goto done;
    uint64_t bad = UINT64_MAX;
    if (batched) {
        run_pass(j, pool, true, g2 ? "G2 points" : "G1 points");
        bad = atomic_load(&j->first_bad);
        if (bad == UINT64_MAX && rounds_pass(j, workers))
            goto done;
    }
    if (bad == UINT64_MAX) { /* some point is outside the subgroup: which */
        run_pass(j, pool, false, g2 ? "G2 points, one by one"
                                    : "G1 points, one by one");
        bad = atomic_load(&j->first_bad);
        if (bad == UINT64_MAX && !batched)
            goto done; /* every point passed alone */
    }
    st = bad == UINT64_MAX
             ? pl__error_set(err, PL_EINTERNAL, "%s: a batched subgroup "
                             "check failed, but no point fails alone",
                             p->path)
             : bad_point(j, bad, err);
done:
    pthread_mutex_destroy(&j->lock);
    pl__free(j->scratch);
    free(j->acc);
    free(j);
    return st;
}

static pl_status point_fail(const pl_bp_params *p, const char *what,
                            uint64_t at, const char *bad, pl_error *err)
{
    return pl__error_set(err, PL_EFORMAT, "%s: verifying key: %s %s (at byte "
                         "offset %" PRIu64 ")", p->path, what, bad, at);
}

/* The verifying key's six points: decoded and in their subgroups at open;
 * the point at infinity refused here (bellperson's keys never hold it:
 * its comments say "never the point at infinity"). */
static pl_status check_vk(const pl_bp_params *p, pl_error *err)
{
    const blst_p1_affine *g1[3] = {&p->alpha_g1, &p->beta_g1, &p->delta_g1};
    const char *g1_names[3] = {"alpha_g1", "beta_g1", "delta_g1"};
    const uint64_t g1_at[3] = {0, PL__BP_G1_BYTES,
                               2 * PL__BP_G1_BYTES + 2 * PL__BP_G2_BYTES};
    const blst_p2_affine *g2[3] = {&p->beta_g2, &p->gamma_g2, &p->delta_g2};
    const char *g2_names[3] = {"beta_g2", "gamma_g2", "delta_g2"};
    const uint64_t g2_at[3] = {2 * PL__BP_G1_BYTES,
                               2 * PL__BP_G1_BYTES + PL__BP_G2_BYTES,
                               3 * PL__BP_G1_BYTES + 2 * PL__BP_G2_BYTES};
    for (unsigned i = 0; i < 3; i++) {
        if (blst_p1_affine_is_inf(g1[i]))
            return point_fail(p, g1_names[i], g1_at[i], "is the point at "
                              "infinity", err);
        if (blst_p2_affine_is_inf(g2[i]))
            return point_fail(p, g2_names[i], g2_at[i], "is the point at "
                              "infinity", err);
    }
    return PL_OK;
}

pl_status pl__bp_params_check_points(const pl_bp_params *p, pl__pool *pool,
                                     const pl_bp_check_config *cfg,
                                     pl_error *err)
{
    pl_status st;
    if ((st = check_vk(p, err)) ||
        (st = check_group(p, false, pool, cfg, true, err)))
        return st;
    return check_group(p, true, pool, cfg, true, err);
}

pl_status pl__bp_params_check_points_alone(const pl_bp_params *p,
                                           pl__pool *pool, pl_error *err)
{
    pl_status st;
    if ((st = check_vk(p, err)) ||
        (st = check_group(p, false, pool, NULL, false, err)))
        return st;
    return check_group(p, true, pool, NULL, false, err);
}

pl_status pl_bp_params_check_points_with(const pl_bp_params *p,
                                         const pl_bp_check_config *cfg,
                                         pl_error *err)
{
    /* no more threads than tasks of GRAIN points: a small file's scratch
     * stays a few times its size (and no thread waits for nothing) */
    uint64_t points = 0;
    for (unsigned s = PL__BP_H; s < PL__BP_SECTIONS; s++)
        points += p->count[s];
    unsigned threads = pl__pool_threads_for(cfg ? cfg->threads : 0);
    if (points / GRAIN < threads)
        threads = points / GRAIN > 1 ? (unsigned)(points / GRAIN) : 1;
    pl__pool *pool = NULL;
    pl_status st = pl__pool_create(&pool, threads, "pl-check", err);
    if (st == PL_OK)
        st = pl__bp_params_check_points(p, pool, cfg, err);
    pl__pool_destroy(pool);
    return st;
}

pl_status pl_bp_params_check_points(const pl_bp_params *p, pl_error *err)
{
    return pl_bp_params_check_points_with(p, NULL, err);
}
