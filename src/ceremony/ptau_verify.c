/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pl_ptau_verify: snarkjs's `powersoftau verify` (powersoftau_verify.js),
 * check for check, with the same messages' substance, plus one more: every
 * point of the file is checked to be a point of its group first (snarkjs
 * leaves that to its arithmetic).
 *
 *  1. the last contribution: its public key (each secret's G1 pair and G2
 *     pair in the same ratio, g2_sp from the challenge it answered), a
 *     beacon's key re-derived from its beacon, and its tau G1, tau G2,
 *     alpha G1, beta G1, beta G2 following the contribution before;
 *  2. sections 2-5 are successive powers of the last tau: with random
 *     64-bit r_i, R1 = sum r_i P_i and R2 = sum r_i P_(i+1) have the ratio
 *     of tau (one pairing check per section), and their first points are
 *     the generator and the record's points; section 6 is beta G2;
 *  3. the next challenge: the hash of the last response and every point,
 *     uncompressed, equals the record's (for a file not reduced);
 *  4. every earlier contribution as in 1, back to the first;
 *  5. after prepare, each level p of sections 12-15 against the powers:
 *     sum f_k L_k = sum r_j [tau^j] with f the FFT of random r.
 * A failure is PL_EINVALID naming the file, the section and the
 * contribution.  Memory: MSMs over the mapped points in chunks (scalars and
 * the MSM's scratch), an FFT of the largest level's scalars in step 5.
 */
#include "ceremony/ceremony.h"
#include "util/alloc.h"
#include "util/error.h"

#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#define CHECK_TASK 1024u
/* points per MSM at most (2^16 G2 points uncompressed are 12 MiB of
 * buffer); fewer when the budget is smaller, down to MIN_CHUNK */
#define MSM_CHUNK ((size_t)1 << 16)
#define MIN_CHUNK ((size_t)1 << 8)

/* ---- every point a point of its group ---------------------------------------- */

typedef struct {
    const pl__cer_group *g;
    const uint8_t *base;
    _Atomic uint64_t first_bad;     /* UINT64_MAX: none */
    const char *_Atomic why;
} check_job;

static void check_task(void *ctx, size_t first, size_t count, unsigned worker)
{
    check_job *j = ctx;
    (void)worker;
    for (size_t i = first; i < first + count; i++) {
        if (i >= atomic_load(&j->first_bad))
            return;
        const char *why = j->g->check(j->base + i * j->g->aff_bytes);
        if (why) {
            uint64_t cur = atomic_load(&j->first_bad);
            while (i < cur && !atomic_compare_exchange_weak(&j->first_bad,
                                                            &cur, i))
                ;
            if (atomic_load(&j->first_bad) == i)
                atomic_store(&j->why, why);
            return;
        }
    }
}

static pl_status check_section(pl__cer_run *run, const pl__ptau *p,
                               unsigned id, pl_error *err)
{
    const pl__cer_group *g = pl__ptau_section_group(p->curve, id);
    const uint64_t n = pl__ptau_section_points(id, p->power);
    check_job job = {g, pl__ptau_point(p, id, 0), UINT64_MAX, NULL};
    pl__cer_parallel(run, n, CHECK_TASK, check_task, &job);
    pl__cer_progress(run, "checking points", id, 15);
    if (job.first_bad == UINT64_MAX)
        return PL_OK;
    return pl__error_set(err, PL_EINVALID, "%s: section %u (%s): point %" PRIu64
                         " %s (at byte offset %" PRIu64 ")", p->path, id,
                         pl__ptau_section_name(id), job.first_bad, job.why,
                         p->c.offset[id] + job.first_bad * g->aff_bytes);
}

/* ---- contributions ----------------------------------------------------------- */

/* What a contribution is checked against: the one before, or the
 * initial state. */
typedef struct {
    const uint8_t *tau_g1, *tau_g2, *alpha_g1, *beta_g1, *beta_g2;
    const uint8_t *next_challenge;
} prev_state;

static const char *const key_names[3] = {"tau", "alpha", "beta"};

/* A contribution's check failed with `st` (PL_EINVALID unless the record
 * could not be checked at all). */
static pl_status contrib_fail_as(pl_status st, const pl__ptau *p, size_t i,
                                 const char *what, pl_error *err)
{
    const pl__ptau_contrib *r = &p->contribs[i];
    char name[PL__CER_NAME_MAX + 4];
    return pl__error_set(err, st, "%s: section 7 (contributions): "
                         "contribution #%zu%s: %s (record at byte offset %"
                         PRIu64 ")", p->path, i + 1,
                         pl__cer_quoted_name(name, sizeof(name), &r->p), what,
                         r->at);
}

static pl_status contrib_fail(const pl__ptau *p, size_t i, const char *what,
                              pl_error *err)
{
    return contrib_fail_as(PL_EINVALID, p, i, what, err);
}

static pl_status check_record_points(const pl__ptau *p, size_t i,
                                     pl_error *err)
{
    const pl__cer_curve *c = p->curve;
    const pl__ptau_contrib *r = &p->contribs[i];
    const pl__cer_named pts[] = {{r->tau_g1, 0, "tau G1"},        {r->tau_g2, 1, "tau G2"},
               {r->alpha_g1, 0, "alpha G1"},    {r->beta_g1, 0, "beta G1"},
               {r->beta_g2, 1, "beta G2"},      {r->g1_s[0], 0, "tau g1_s"},
               {r->g1_sx[0], 0, "tau g1_sx"},   {r->g1_s[1], 0, "alpha g1_s"},
               {r->g1_sx[1], 0, "alpha g1_sx"}, {r->g1_s[2], 0, "beta g1_s"},
               {r->g1_sx[2], 0, "beta g1_sx"},  {r->g2_spx[0], 1, "tau g2_spx"},
               {r->g2_spx[1], 1, "alpha g2_spx"},
               {r->g2_spx[2], 1, "beta g2_spx"}};
    char what[128];
    if (pl__cer_check_named(c, pts, sizeof(pts) / sizeof(pts[0]), what,
                            sizeof(what)))
        return contrib_fail(p, i, what, err);
    return PL_OK;
}

/* verifyContribution */
static pl_status check_contrib(pl__cer_run *run, const pl__ptau *p, size_t i,
                               const prev_state *prev, pl_error *err)
{
    const pl__cer_curve *c = p->curve;
    const pl__ptau_contrib *r = &p->contribs[i];
    const size_t b1 = c->g[0].aff_bytes, b2 = c->g[1].aff_bytes;
    pl_status st = check_record_points(p, i, err);
    if (st)
        return st;
    if (r->p.type == 1) {
        pl__chacha rng;
        pl__ptau_key key;
        char why[160];
        if ((st = pl__cer_beacon_replay(run, &r->p, &rng, why, sizeof(why))))
            return contrib_fail_as(st, p, i, why, err);
        pl__ptau_key_create(c, &key, prev->next_challenge, &rng);
        for (unsigned k = 0; k < 3; k++) {
            char what[128];
            const char *which = NULL;
            if (memcmp(key.g1_s[k], r->g1_s[k], b1) != 0)
                which = "g1_s";
            else if (memcmp(key.g1_sx[k], r->g1_sx[k], b1) != 0)
                which = "g1_sx";
            else if (memcmp(key.g2_spx[k], r->g2_spx[k], b2) != 0)
                which = "g2_spx";
            if (which) {
                snprintf(what, sizeof(what), "BEACON key (%s %s) is not the "
                         "one its beacon gives", key_names[k], which);
                return contrib_fail(p, i, what, err);
            }
        }
        memset(&key, 0, sizeof(key));
    } else if (r->p.type != 0) {
        return contrib_fail(p, i, "its type is neither a contribution (0) "
                            "nor a beacon (1)", err);
    }
    uint8_t g2_sp[3][PL__CER_G2_MAX];
    for (unsigned k = 0; k < 3; k++) {
        pl__ptau_g2sp(c, g2_sp[k], k, prev->next_challenge, r->g1_s[k],
                      r->g1_sx[k]);
        if (!c->same_ratio(r->g1_s[k], r->g1_sx[k], g2_sp[k], r->g2_spx[k])) {
            char what[96];
            snprintf(what, sizeof(what), "INVALID key (%s): its G1 and G2 "
                     "halves are not in the same ratio", key_names[k]);
            return contrib_fail(p, i, what, err);
        }
    }
    if (!c->same_ratio(prev->tau_g1, r->tau_g1, g2_sp[0], r->g2_spx[0]))
        return contrib_fail(p, i, "INVALID tau*G1: it does not follow the "
                            "previous contribution", err);
    if (!c->same_ratio(r->g1_s[0], r->g1_sx[0], prev->tau_g2, r->tau_g2))
        return contrib_fail(p, i, "INVALID tau*G2: it does not follow the "
                            "previous contribution", err);
    if (!c->same_ratio(prev->alpha_g1, r->alpha_g1, g2_sp[1], r->g2_spx[1]))
        return contrib_fail(p, i, "INVALID alpha*G1: it does not follow the "
                            "previous contribution", err);
    if (!c->same_ratio(prev->beta_g1, r->beta_g1, g2_sp[2], r->g2_spx[2]))
        return contrib_fail(p, i, "INVALID beta*G1: it does not follow the "
                            "previous contribution", err);
    if (!c->same_ratio(r->g1_s[2], r->g1_sx[2], prev->beta_g2, r->beta_g2))
        return contrib_fail(p, i, "INVALID beta*G2: it does not follow the "
                            "previous contribution", err);
    pl__cer_line(run, "contribution #%zu %.*s: its key and points follow the "
                 "contribution before", i + 1, (int)r->p.name_len,
                 (const char *)r->p.name);
    return PL_OK;
}

static void prev_of(const pl__ptau *p, size_t i, prev_state *s,
                    const uint8_t *g1, const uint8_t *g2,
                    const uint8_t *first_challenge)
{
    if (i == 0) {
        *s = (prev_state){g1, g2, g1, g1, g2, first_challenge};
        return;
    }
    const pl__ptau_contrib *r = &p->contribs[i - 1];
    *s = (prev_state){r->tau_g1, r->tau_g2, r->alpha_g1, r->beta_g1,
                      r->beta_g2, r->next_challenge};
}

/* ---- random linear combinations ------------------------------------------------ */

typedef struct {
    pl__chacha rng;
} random_src;

static pl_status random_init(random_src *r, pl_error *err)
{
    return pl__chacha_from_entropy(&r->rng, "proofline verify", err);
}

/* n scalars of 64 random bits (never 0), 32-byte little-endian */
static void random_scalars(random_src *r, uint8_t *out, size_t n)
{
    memset(out, 0, n * 32);
    for (size_t i = 0; i < n; i++) {
        uint64_t v;
        do
            v = pl__chacha_u64(&r->rng);
        while (v == 0);
        for (unsigned b = 0; b < 8; b++)
            out[32 * i + b] = (uint8_t)(v >> (8 * b));
    }
}

static pl_status msm(pl__cer_run *run, const pl__cer_group *g, void *out,
                     const uint8_t *pts, const uint8_t *scalars, size_t n,
                     pl_error *err)
{
    const uint64_t scratch = g->msm_scratch_bytes(n, run->threads);
    pl_status st = pl__cer_reserve(run, scratch, "an MSM's scratch", err);
    if (st)
        return st;
    st = g->msm(out, pts, scalars, n, run->pool, err);
    pl__cer_release(run, scratch);
    return st;
}

/* R1 = sum r_i P_i, R2 = sum r_i P_(i+1) over i < n - 1 of section id, the
 * points hashed (uncompressed) into h on the way. */
static pl_status successive(pl__cer_run *run, const pl__ptau *p, unsigned id,
                            random_src *rnd, uint8_t *scalars, uint8_t *ubuf,
                            size_t chunk, void *R1, void *R2, pl__blake2b *h,
                            pl_error *err)
{
    const pl__cer_group *g = pl__ptau_section_group(p->curve, id);
    const uint64_t n = pl__ptau_section_points(id, p->power);
    _Alignas(64) uint8_t t[PL__CER_MAX_JAC];
    pl_status st = PL_OK;
    g->set_inf(R1);
    g->set_inf(R2);
    for (uint64_t i = 0; i < n && st == PL_OK; i += chunk) {
        const size_t k = n - i < chunk ? (size_t)(n - i) : chunk;
        const uint8_t *base = pl__ptau_point(p, id, i);
        for (size_t j = 0; j < k; j++)
            g->to_u(ubuf + j * g->aff_bytes, base + j * g->aff_bytes);
        pl__blake2b_update(h, ubuf, k * g->aff_bytes);
        /* the terms i .. i + m - 1, those with a successor */
        const size_t m = i + k < n ? k : k - 1;
        random_scalars(rnd, scalars, m);
        if ((st = msm(run, g, t, base, scalars, m, err)))
            break;
        g->add(R1, R1, t);
        if ((st = msm(run, g, t, base + g->aff_bytes, scalars, m, err)))
            break;
        g->add(R2, R2, t);
        pl__cer_progress(run, pl__ptau_section_name(id), i + k, n);
    }
    return st;
}

static pl_status section_fail(const pl__ptau *p, unsigned id, const char *what,
                              pl_error *err)
{
    return pl__error_set(err, PL_EINVALID, "%s: section %u (%s): %s "
                         "(contribution #%zu, the last)", p->path, id,
                         pl__ptau_section_name(id), what, p->n_contribs);
}

/* ---- the Lagrange sections --------------------------------------------------- */

static pl_status check_lagrange(pl__cer_run *run, const pl__ptau *p,
                                unsigned src, random_src *rnd, uint8_t *scalars,
                                pl__cer_fr *fr, pl_error *err)
{
    const pl__cer_curve *c = p->curve;
    const pl__cer_group *g = pl__ptau_section_group(c, src);
    const unsigned dst = src + 10;
    const unsigned top = src == 2 ? p->power + 1 : p->power;
    _Alignas(64) uint8_t a[PL__CER_MAX_JAC], b[PL__CER_MAX_JAC];
    pl_status st = PL_OK;
    uint64_t level_start = 0;
    for (unsigned lv = 0; lv <= top; lv++) {
        const size_t n = (size_t)1 << lv;
        const bool pad = src == 2 && lv == p->power + 1;
        const size_t terms = pad ? n - 1 : n;
        random_scalars(rnd, scalars, terms);
        if ((st = msm(run, g, a, pl__ptau_point(p, src, 0), scalars, terms,
                      err)))
            return st;
        for (size_t i = 0; i < n; i++) {
            if (i < terms)
                c->fr_from_le(&fr[i], scalars + 32 * i);
            else
                c->fr_from_u64(&fr[i], 0);
        }
        const uint64_t fft = c->fr_fft_bytes(lv);
        if ((st = pl__cer_reserve(run, fft, "the FFT's tables", err)))
            return st;
        st = c->fr_fft(fr, lv, run->pool, err);
        pl__cer_release(run, fft);
        if (st)
            return st;
        for (size_t i = 0; i < n; i++)
            c->fr_to_le(scalars + 32 * i, &fr[i]);
        if ((st = msm(run, g, b, pl__ptau_point(p, dst, level_start), scalars,
                      n, err)))
            return st;
        if (!g->eq(a, b)) {
            char what[160];
            snprintf(what, sizeof(what), "level 2^%u (points %" PRIu64 " to %"
                     PRIu64 ") is not the Lagrange basis of section %u's "
                     "powers", lv, level_start, level_start + n - 1, src);
            return pl__error_set(err, PL_EINVALID, "%s: section %u (%s): %s",
                                 p->path, dst, pl__ptau_section_name(dst),
                                 what);
        }
        level_start += n;
        pl__cer_progress(run, pl__ptau_section_name(dst), lv + 1, top + 1);
    }
    pl__cer_line(run, "section %u (%s): the Lagrange bases match the powers",
                 dst, pl__ptau_section_name(dst));
    return PL_OK;
}

/* ---- verify -------------------------------------------------------------------- */

pl_status pl_ptau_verify(const char *path, const pl_ceremony_config *cfg,
                         pl_error *err)
{
    pl__cer_run run;
    pl__ptau p;
    uint8_t *block = NULL;
    uint64_t block_bytes = 0;
    random_src rnd;
    memset(&p, 0, sizeof(p));
    pl_status st = pl__cer_run_begin(&run, "ptau verify", cfg, err);
    if (st || (st = pl__ptau_open(&p, path, err)) ||
        (st = random_init(&rnd, err)))
        goto fail;
    run.curve = p.curve;
    const pl__cer_curve *c = p.curve;
    const size_t b1 = c->g[0].aff_bytes, b2 = c->g[1].aff_bytes;
    pl__cer_line(&run, "%s: %s, power %u (ceremony power %u), %zu "
                 "contributions%s", path, c->name, p.power, p.ceremony_power,
                 p.n_contribs, p.prepared ? ", prepared for phase 2" : "");
    if (p.n_contribs == 0) {
        st = pl__error_set(err, PL_EINVALID, "%s: section 7 (contributions): "
                           "the file has no contribution, so it cannot be "
                           "used in production", path);
        goto fail;
    }

    /* buffers: a chunk's scalars and uncompressed points (the chunk as
     * large as the budget leaves room for, with its MSM's scratch); after
     * prepare the largest level's scalars and field elements */
    const uint64_t top = (uint64_t)1 << (p.power + 1);
    const uint64_t fr_bytes = p.prepared ? top * sizeof(pl__cer_fr) : 0;
    /* no larger than the largest section (tauG1: top - 1 points) */
    size_t chunk = top < MSM_CHUNK ? (size_t)top : MSM_CHUNK;
    uint64_t scal, ubytes;
    for (;;) {
        scal = chunk;
        if (p.prepared && top > scal)
            scal = top;
        ubytes = (uint64_t)chunk * b2;
        block_bytes = scal * 32 + ubytes + fr_bytes;
        const uint64_t msm_scratch =
            c->g[1].msm_scratch_bytes(chunk, run.threads);
        if (chunk <= MIN_CHUNK || block_bytes + msm_scratch <= pl__cer_room(&run))
            break;
        chunk /= 2;
    }
    if ((st = pl__cer_alloc(&run, &block, PL_BUF_PARAMS, block_bytes,
                            "the random scalars and a chunk of points", err)))
        goto fail;
    uint8_t *scalars = block, *ubuf = block + scal * 32;
    pl__cer_fr *fr = (pl__cer_fr *)(ubuf + ubytes);

    /* every point a point of its group */
    for (unsigned id = 2; id <= 15; id++)
        if (p.c.offset[id] && (id <= 6 || id >= 12) &&
            (st = check_section(&run, &p, id, err)))
            goto fail;

    uint8_t g1[PL__CER_G1_MAX], g2[PL__CER_G2_MAX], first[PL__CER_HASH];
    c->g[0].generator(g1);
    c->g[1].generator(g2);
    pl__ptau_first_challenge(c, p.ceremony_power, first);
    const size_t last = p.n_contribs - 1;
    const pl__ptau_contrib *cur = &p.contribs[last];
    prev_state prev;
    prev_of(&p, last, &prev, g1, g2, first);
    if ((st = check_contrib(&run, &p, last, &prev, err)))
        goto fail;

    uint8_t response[PL__CER_HASH], next[PL__CER_HASH];
    pl__ptau_response_hash(c, cur, response);
    pl__blake2b h;
    pl__blake2b_init(&h);
    pl__blake2b_update(&h, response, PL__CER_HASH);
    _Alignas(64) uint8_t R1[PL__CER_MAX_JAC], R2[PL__CER_MAX_JAC];
    uint8_t a1[PL__CER_G2_MAX], a2[PL__CER_G2_MAX];

    /* tauG1 */
    if ((st = successive(&run, &p, 2, &rnd, scalars, ubuf, chunk, R1, R2, &h,
                         err)))
        goto fail;
    c->g[0].to_aff(a1, R1);
    c->g[0].to_aff(a2, R2);
    if (!c->same_ratio(a1, a2, g2, cur->tau_g2)) {
        st = section_fail(&p, 2, "the points are not successive powers of "
                          "the last contribution's tau", err);
        goto fail;
    }
    if (memcmp(pl__ptau_point(&p, 2, 0), g1, b1) != 0) {
        st = section_fail(&p, 2, "its first point is not the generator", err);
        goto fail;
    }
    if (memcmp(pl__ptau_point(&p, 2, 1), cur->tau_g1, b1) != 0) {
        st = section_fail(&p, 2, "its second point is not the tau G1 of the "
                          "last contribution", err);
        goto fail;
    }
    /* tauG2 */
    if ((st = successive(&run, &p, 3, &rnd, scalars, ubuf, chunk, R1, R2, &h,
                         err)))
        goto fail;
    c->g[1].to_aff(a1, R1);
    c->g[1].to_aff(a2, R2);
    if (!c->same_ratio(g1, cur->tau_g1, a1, a2)) {
        st = section_fail(&p, 3, "the points are not successive powers of "
                          "the last contribution's tau", err);
        goto fail;
    }
    if (memcmp(pl__ptau_point(&p, 3, 0), g2, b2) != 0) {
        st = section_fail(&p, 3, "its first point is not the generator", err);
        goto fail;
    }
    if (memcmp(pl__ptau_point(&p, 3, 1), cur->tau_g2, b2) != 0) {
        st = section_fail(&p, 3, "its second point is not the tau G2 of the "
                          "last contribution", err);
        goto fail;
    }
    /* alphaTauG1, betaTauG1 */
    for (unsigned id = 4; id <= 5; id++) {
        if ((st = successive(&run, &p, id, &rnd, scalars, ubuf, chunk, R1, R2,
                             &h, err)))
            goto fail;
        c->g[0].to_aff(a1, R1);
        c->g[0].to_aff(a2, R2);
        if (!c->same_ratio(a1, a2, g2, cur->tau_g2)) {
            st = section_fail(&p, id, "the points are not successive powers "
                              "of the last contribution's tau", err);
            goto fail;
        }
        if (memcmp(pl__ptau_point(&p, id, 0),
                   id == 4 ? cur->alpha_g1 : cur->beta_g1, b1) != 0) {
            st = section_fail(&p, id, id == 4
                                          ? "its first point is not the alpha "
                                            "G1 of the last contribution"
                                          : "its first point is not the beta "
                                            "G1 of the last contribution",
                              err);
            goto fail;
        }
    }
    /* betaG2 */
    if (memcmp(pl__ptau_point(&p, 6, 0), cur->beta_g2, b2) != 0) {
        st = section_fail(&p, 6, "its point is not the beta G2 of the last "
                          "contribution", err);
        goto fail;
    }
    c->g[1].to_u(ubuf, pl__ptau_point(&p, 6, 0));
    pl__blake2b_update(&h, ubuf, b2);
    pl__blake2b_final(&h, next);
    if (p.power == p.ceremony_power &&
        memcmp(next, cur->next_challenge, PL__CER_HASH) != 0) {
        st = pl__error_set(err, PL_EINVALID, "%s: sections 2-6: the hash of "
                           "the points is not the next challenge that the "
                           "last contribution (#%zu) recorded", path,
                           p.n_contribs);
        goto fail;
    }
    pl__cer_line_hash(&run, "Next challenge hash: ", next);
    pl__cer_line(&run, "sections 2-6: the powers follow the last "
                 "contribution");

    for (size_t i = last; i-- > 0;) {
        prev_of(&p, i, &prev, g1, g2, first);
        if ((st = check_contrib(&run, &p, i, &prev, err)))
            goto fail;
    }

    if (!p.prepared) {
        pl__cer_line(&run, "this file holds no phase 2 values: run `proofline "
                     "ptau prepare` before using it for a circuit");
    } else {
        for (unsigned src = 2; src <= 5; src++)
            if ((st = check_lagrange(&run, &p, src, &rnd, scalars, fr, err)))
                goto fail;
    }
    pl__cer_line(&run, "Powers of Tau Ok!");
fail:
    pl__cer_free(&run, block, block_bytes);
    pl__ptau_close(&p);
    pl__cer_run_end(&run);
    return st;
}
