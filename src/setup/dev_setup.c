/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The development setup (pl_setup_dev): a final Groth16 .zkey straight from
 * an .r1cs and secrets derived from a seed, sections 1-9 byte for byte what
 * the reference tool fast_zkey.mjs writes.  The toxic waste is known to
 * anyone with the seed: for tests and benchmarks only, and the file says so
 * in its contribution section.  `proofline setup --dev` calls it; nothing
 * else in the library does.
 *
 * What gets written (FORMATS.md, .zkey), with n the domain size and L_i the
 * Lagrange basis of the n-point domain evaluated at tau:
 *  - A_s = sum over A terms (s, constraint k, coef) of coef * L_k, plus
 *    L_{nConstraints + s} for s <= nPublic (the input-consistency rows);
 *    B_s and C_s likewise from the B and C matrices, without extra rows;
 *  - IC_s = beta A_s + alpha B_s + C_s (gamma = 1), s <= nPublic;
 *    C section: (beta A_s + alpha B_s + C_s) / delta, s > nPublic;
 *  - H_i = L'_{2i+1} / delta with L' the basis of the 2n-point domain, less
 *    omega_2n^(2i+1) tau^(2n-1) / (2n): snarkjs's prepare phase 2 drops
 *    tau^(2n-1) from the top level of the ptau, and the reference
 *    reproduces that quirk, so we do too;
 *  - the coefficients section in r1cs order (per constraint its A terms,
 *    then its B terms), then the nPublic+1 extra A records, each value
 *    coef * R^2 mod r (R = 2^256);
 *  - section 10 (where fast_zkey writes a zero csHash and no
 *    contributions): the zero csHash, then ONE contribution record in
 *    snarkjs 0.7.6's layout (zkey_utils.js readContribution), so that
 *    snarkjs tools that read the ceremony history (zkey contribute, beacon,
 *    verify) show who made the key:
 *        deltaAfter G1 | g1_s G1 | g1_sx G1 | g2_spx G2 | transcript[64] |
 *        u32 type = 0 | u32 paramsLength | params: 0x01, u8 len, name
 *    with the name CONTRIBUTION_NAME ("... TOXIC WASTE KNOWN ...").  The
 *    record is what a snarkjs contribution of x = delta to a fresh key
 *    (delta_1 = the generator) would hold: deltaAfter = [delta]_1 (the
 *    header's), g1_sx = delta g1_s, g2_spx = delta g2_sp, with g1_s and
 *    g2_sp seed-derived multiples of the generators.  snarkjs derives g2_sp
 *    from a BLAKE2b transcript (hashToG2); we do not reproduce that (the
 *    transcript here is SHA-512 of the csHash, g1_s and g1_sx as written),
 *    so `snarkjs zkey verify` rejects the record -- as it must reject any
 *    dev key, which descends from no powers of tau.  Proving reads none of
 *    section 10.
 *
 * Any correct computation of the same field values gives the same bytes
 * (affine coordinates are unique), so the work is organised for speed, in
 * two steps.  compute_key: the secrets, the Lagrange values in O(n) with
 * one inversion, the QAP scalars A, B, C and the H scalars, the fixed-base
 * tables.  write_key: the points by a fixed-base comb (fixed_base.c) over a
 * thread pool, streamed chunk by chunk through the zkey writer
 * (formats/zkey.c, which owns the layout) into a pl__output: a temporary
 * file beside the target, fsynced and renamed into place.
 *
 * Memory (class params): L (n scalars, reused for H), A, B, C (nVars
 * scalars each) in one allocation; the G1 and G2 tables; one output chunk.
 *
 * The curve is the r1cs's: BLS12-381 (blst) or BN254 (snarkjs's "bn128",
 * field/bn254).  The scalars are computed through the ceremony's curve
 * table (ceremony/curve.h: Fr of either curve, snarkjs's roots of unity),
 * which is O(terms + n) work against the points' comb; the points through
 * fixed_base.c's tables for the curve's groups.  On BN254 the domain stops
 * at 2^27: H needs a root of order 2n and BN254's Fr has 2^28 at most.
 * fast_zkey.mjs makes BLS12-381 keys only, so the BN254 keys are checked
 * by what snarkjs does with them (tests/cli_setup_bn254.sh).
 *
 * pl_setup_dev_bellperson runs the same computation from the same secrets
 * and writes bellperson's layout (formats/bellperson.c) instead: a
 * parameter file and its .vk, as a pair.  Two things differ besides the
 * bytes, both because a bellperson prover assumes them: the domain's
 * generator is blstrs's root of unity (so A, B, C and so l, ic differ from
 * the zkey's points), and H is tau^i t(tau) / delta for i < n - 1, the
 * monomial basis, in place of the zkey's Lagrange-basis H.
 */
#define _GNU_SOURCE
#include "proofline.h"
#include "ceremony/curve.h"
#include "field/field.h"
#include "formats/bellperson.h"
#include "formats/formats.h"
#include "setup/dev_setup.h"
#include "setup/fixed_base.h"
#include "setup/sha512.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/file.h"
#include "util/pool.h"

#include <inttypes.h>
#include <string.h>

/* The prover's NTT stops at 2^28; a larger key could not be used (BN254:
 * one less, see the top of the file). */
#define MAX_LOG2_DOMAIN 28u
/* Points per chunk written: 32 Ki G2 points are 6 MiB of output buffer. */
#define CHUNK ((size_t)1 << 15)
#define CHUNK_BYTES (CHUNK * PL__G2_BYTES)
/* The one contribution's name.  snarkjs writes at most 64 characters of a
 * name (zkey_utils.js writeContribution), so a longer one would be cut
 * when a snarkjs tool rewrites the section. */
#define CONTRIBUTION_NAME \
    "proofline setup --dev: TOXIC WASTE KNOWN; tests/benchmarks only"
_Static_assert(sizeof(CONTRIBUTION_NAME) - 1 <= PL__ZKEY_NAME_MAX,
               "snarkjs keeps 64 bytes of a name");

void pl_setup_config_init(pl_setup_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
}

static void stage_done(const pl_setup_config *cfg, const char *stage,
                       double *t)
{
    double t1 = pl__now_seconds();
    if (cfg->on_stage)
        cfg->on_stage(cfg->on_stage_user, stage, t1 - *t);
    *t = t1;
}

/* The curve's Fr (ceremony/curve.h's table): cc, the table, in scope. */
typedef pl__cer_fr fr;
#define FR_U64(out, v) cc->fr_from_u64((out), (v))
#define FR_ADD(r, a, b) cc->fr_add((r), (a), (b))
#define FR_SUB(r, a, b) cc->fr_sub((r), (a), (b))
#define FR_MUL(r, a, b) cc->fr_mul((r), (a), (b))
#define FR_INV(r, a) cc->fr_inv((r), (a))
#define FR_IS_ZERO(a) cc->fr_is_zero(a)

/* SHA-512(seed ":" label) as a big-endian integer, reduced mod r (Horner
 * over its bytes: the reduction the reference gets from BigInt %). */
static void derive_secret(const pl__cer_curve *cc, fr *out, const char *seed,
                          const char *label)
{
    uint8_t digest[PL__SHA512_BYTES];
    pl__sha512_ctx ctx;
    pl__sha512_init(&ctx);
    pl__sha512_update(&ctx, seed, strlen(seed));
    pl__sha512_update(&ctx, ":", 1);
    pl__sha512_update(&ctx, label, strlen(label));
    pl__sha512_final(&ctx, digest);
    fr acc, radix, byte;
    FR_U64(&acc, 0);
    FR_U64(&radix, 256);
    for (size_t i = 0; i < sizeof(digest); i++) {
        FR_MUL(&acc, &acc, &radix);
        FR_U64(&byte, digest[i]);
        FR_ADD(&acc, &acc, &byte);
    }
    *out = acc;
    memset(digest, 0, sizeof(digest));
}

/*
 * out[i] = x_i * (num / (tau - x_i) - sub) for x_i = g * w^i, i < count:
 * with g = 1, num = (tau^N - 1) / N, sub = 0 and w the N-th root this is
 * the Lagrange basis L_i(tau).  One inversion (prefix products kept in
 * out, x_i walked back down with w^-1).  False if some x_i equals tau.
 */
static bool lagrange_values(const pl__cer_curve *cc, fr *out, size_t count,
                            const fr *tau, const fr *g, const fr *w,
                            const fr *num, const fr *sub)
{
    fr acc, x, d;
    FR_U64(&acc, 1);
    x = *g;
    for (size_t i = 0; i < count; i++) {
        out[i] = acc;
        FR_SUB(&d, tau, &x);
        FR_MUL(&acc, &acc, &d);
        FR_MUL(&x, &x, w);
    }
    if (FR_IS_ZERO(&acc))
        return false;
    fr inv, w_inv, t;
    FR_INV(&inv, &acc);
    FR_INV(&w_inv, w);
    /* x = g * w^count now; step back to x_{count-1} */
    FR_MUL(&x, &x, &w_inv);
    for (size_t i = count; i-- > 0;) {
        FR_MUL(&t, &inv, &out[i]);      /* 1 / (tau - x_i) */
        FR_SUB(&d, tau, &x);
        FR_MUL(&inv, &inv, &d);
        FR_MUL(&t, &t, num);
        FR_SUB(&t, &t, sub);
        FR_MUL(&out[i], &t, &x);
        FR_MUL(&x, &x, &w_inv);
    }
    return true;
}

/* ---- compute: the key in field elements ---------------------------------- */

typedef struct {
    fr tau, alpha, beta, delta, delta_inv;
} secrets;

/* What compute_key works out and write_key turns into the file. */
typedef struct {
    const pl_r1cs *r1cs;
    const pl__cer_curve *cc; /* the r1cs's curve: its Fr */
    const char *seed;
    pl__zkey_header header;  /* counts only: the points come in write_key */
    unsigned log2n;
    uint64_t n_priv;
    secrets sec;
    fr r2;                   /* coefficient values are coef * r2 */
    /* One accounted allocation (class params): H (n scalars, the Lagrange
     * values first), then A, B, C (nVars each); C ends as IC for the
     * public signals and the C section's scalars for the private ones. */
    fr *qap;
    fr *h, *a, *b, *c;
    pl__fixed_base *fb1, *fb2;
    /* bellperson's layout (pl_setup_dev_bellperson): blstrs's domain
     * generator, H in the monomial basis */
    bool bellperson;
    bool snarkjs_domain; /* tests: bellperson's layout over snarkjs's domain */
} dev_key;

/* The domain: n = 2^log2n rows for the constraints, then one input row per
 * public signal and ONE. */
static pl_status key_shape(dev_key *key, const char *r1cs_path,
                           pl_error *err)
{
    const pl_r1cs_info *info = &key->r1cs->info;
    key->header.n_vars = info->n_wires;
    key->header.n_public = info->n_pub_out + info->n_pub_in;
    const uint64_t rows = (uint64_t)info->n_constraints +
                          key->header.n_public + 1;
    /* BN254: H's 2n-point domain needs a root Fr has (2-adicity 28) */
    const unsigned max_log2 = key->cc->fr_s - 1 < MAX_LOG2_DOMAIN
                                  ? key->cc->fr_s - 1 : MAX_LOG2_DOMAIN;
    key->log2n = 0;
    while (((uint64_t)1 << key->log2n) < rows)
        key->log2n++;
    if (key->log2n > max_log2)
        return pl__error_set(err, PL_EUNSUPPORTED,
                             "%s: %" PRIu32 " constraints + %" PRIu32 " public "
                             "+ 1 need a domain of 2^%u; the development "
                             "setup stops at 2^%u on %s", r1cs_path,
                             info->n_constraints, key->header.n_public,
                             key->log2n, max_log2, key->cc->name);
    key->header.domain_size = (uint32_t)1 << key->log2n;
    key->n_priv = (uint64_t)key->header.n_vars - key->header.n_public - 1;
    return PL_OK;
}

static pl_status derive_secrets(const pl__cer_curve *cc, secrets *sec,
                                const char *seed, pl_error *err)
{
    derive_secret(cc, &sec->tau, seed, "tau");
    derive_secret(cc, &sec->alpha, seed, "alpha");
    derive_secret(cc, &sec->beta, seed, "beta");
    derive_secret(cc, &sec->delta, seed, "delta");
    if (FR_IS_ZERO(&sec->delta))
        return pl__error_set(err, PL_EUSAGE, "seed '%s' gives delta = 0; "
                             "choose another seed", seed);
    FR_INV(&sec->delta_inv, &sec->delta);
    return PL_OK;
}

/* L_k(tau) into key->h: the Lagrange basis of the n-point domain. */
static pl_status lagrange_at_tau(dev_key *key, pl_error *err)
{
    const pl__cer_curve *cc = key->cc;
    const size_t n = key->header.domain_size;
    fr one, zero, w, num, inv_n;
    FR_U64(&one, 1);
    FR_U64(&zero, 0);
    if (key->bellperson && !key->snarkjs_domain) /* BLS12-381 only */
        pl__fr_root_of_unity_blstrs((blst_fr *)&w, key->log2n);
    else
        cc->fr_root(&w, key->log2n);
    pl__cer_fr_pow(cc, &num, &key->sec.tau, n);
    FR_SUB(&num, &num, &one);
    FR_U64(&inv_n, n);
    FR_INV(&inv_n, &inv_n);
    FR_MUL(&num, &num, &inv_n);
    if (!lagrange_values(cc, key->h, n, &key->sec.tau, &one, &w, &num,
                         &zero))
        return pl__error_set(err, PL_EUSAGE, "seed '%s' puts tau on the "
                             "domain; choose another seed", key->seed);
    return PL_OK;
}

/* A_s, B_s, C_s = sum of coef * L_k over the matrices' terms (s, k, coef),
 * plus L_{nConstraints + s} in A for the input rows; counts the A and B
 * terms (the coefficient records) on the way. */
static pl_status qap_at_tau(dev_key *key, const char *r1cs_path,
                            pl_error *err)
{
    const pl__cer_curve *cc = key->cc;
    const fr *L = key->h;
    fr *acc[3] = {key->a, key->b, key->c};
    const uint32_t n_constraints = key->r1cs->info.n_constraints;
    uint64_t n_coefs = (uint64_t)key->header.n_public + 1;
    pl__r1cs_iter it;
    pl__r1cs_lc lc[3];
    uint32_t k;
    fr coef;
    for (pl__r1cs_iter_init(&it, key->r1cs); pl__r1cs_iter_next(&it, &k, lc);)
        for (unsigned m = 0; m < 3; m++) {
            if (m < 2)
                n_coefs += lc[m].n_terms;
            for (uint32_t t = 0; t < lc[m].n_terms; t++) {
                pl__r1cs_term term = pl__r1cs_lc_term(&lc[m], t);
                cc->fr_from_le(&coef, term.coef);
                FR_MUL(&coef, &coef, &L[k]);
                FR_ADD(&acc[m][term.wire], &acc[m][term.wire], &coef);
            }
        }
    for (uint32_t s = 0; s <= key->header.n_public; s++)
        FR_ADD(&key->a[s], &key->a[s], &L[n_constraints + s]);
    if (n_coefs > UINT32_MAX)
        return pl__error_set(err, PL_EUNSUPPORTED,
                             "%s: %" PRIu64 " A and B terms do not fit the "
                             "zkey's u32 count", r1cs_path, n_coefs);
    key->header.n_coefs = (uint32_t)n_coefs;

    /* C becomes beta A + alpha B + C: IC as is (gamma = 1), over delta for
     * the private signals. */
    for (uint32_t s = 0; s < key->header.n_vars; s++) {
        fr u;
        FR_MUL(&u, &key->sec.beta, &key->a[s]);
        FR_ADD(&key->c[s], &key->c[s], &u);
        FR_MUL(&u, &key->sec.alpha, &key->b[s]);
        FR_ADD(&key->c[s], &key->c[s], &u);
        if (s > key->header.n_public)
            FR_MUL(&key->c[s], &key->c[s], &key->sec.delta_inv);
    }
    return PL_OK;
}

/* H over L's storage (L is spent): x_i = g omega_n^i = omega_2n^(2i+1),
 * num = (tau^2n - 1) / (2n), less tau^(2n-1) / (2n) (the prepare-phase-2
 * truncation), all over delta. */
static pl_status h_at_tau(dev_key *key, pl_error *err)
{
    const pl__cer_curve *cc = key->cc;
    const uint64_t n = key->header.domain_size;
    const secrets *sec = &key->sec;
    fr one, g, w, num, sub, inv_2n;
    FR_U64(&one, 1);
    cc->fr_root(&g, key->log2n + 1);
    cc->fr_root(&w, key->log2n);
    FR_U64(&inv_2n, 2 * n);
    FR_INV(&inv_2n, &inv_2n);
    pl__cer_fr_pow(cc, &num, &sec->tau, 2 * n);
    FR_SUB(&num, &num, &one);
    FR_MUL(&num, &num, &inv_2n);
    FR_MUL(&num, &num, &sec->delta_inv);
    pl__cer_fr_pow(cc, &sub, &sec->tau, 2 * n - 1);
    FR_MUL(&sub, &sub, &inv_2n);
    FR_MUL(&sub, &sub, &sec->delta_inv);
    if (!lagrange_values(cc, key->h, n, &sec->tau, &g, &w, &num, &sub))
        return pl__error_set(err, PL_EUSAGE, "seed '%s' puts tau on the "
                             "2n-point domain; choose another seed",
                             key->seed);
    return PL_OK;
}

/* bellperson's H over L's storage: tau^i t(tau) / delta for i < n - 1,
 * t(x) = x^n - 1 (its prover takes h's coefficients, not its values on a
 * coset); the last slot is unused. */
static void h_monomial(dev_key *key)
{
    const pl__cer_curve *cc = key->cc;
    const uint64_t n = key->header.domain_size;
    fr one, acc;
    FR_U64(&one, 1);
    pl__cer_fr_pow(cc, &acc, &key->sec.tau, n);
    FR_SUB(&acc, &acc, &one);
    FR_MUL(&acc, &acc, &key->sec.delta_inv);
    for (uint64_t i = 0; i + 1 < n; i++) {
        key->h[i] = acc;
        FR_MUL(&acc, &acc, &key->sec.tau);
    }
    FR_U64(&key->h[n - 1], 0);
}

/* Everything but the points: the shape, the secrets, the QAP and H scalars
 * (stage "qap"), the fixed-base tables (stage "tables").  Fails before any
 * file is touched. */
static pl_status compute_key(dev_key *key, const char *r1cs_path,
                             unsigned workers, const pl_setup_config *cfg,
                             double *t, pl_error *err)
{
    pl_status st;
    const pl__cer_curve *cc = key->cc;
    if ((st = key_shape(key, r1cs_path, err)) ||
        (st = derive_secrets(cc, &key->sec, key->seed, err)))
        return st;

    /* value = coef * R^2: R (2^256 mod r on both curves) is the integer
     * in one's Montgomery limbs */
    fr one, r_fr;
    uint8_t r_int[32];
    FR_U64(&one, 1);
    memcpy(r_int, one.l, sizeof(r_int));
    cc->fr_from_le(&r_fr, r_int);
    FR_MUL(&key->r2, &r_fr, &r_fr);

    const uint64_t n = key->header.domain_size, n_vars = key->header.n_vars;
    key->qap = pl__calloc(PL_BUF_PARAMS, (n + 3 * n_vars) * sizeof(fr), err);
    if (!key->qap)
        return PL_ENOMEM;
    key->h = key->qap;
    key->a = key->h + n;
    key->b = key->a + n_vars;
    key->c = key->b + n_vars;
    if ((st = lagrange_at_tau(key, err)) ||
        (st = qap_at_tau(key, r1cs_path, err)))
        return st;
    if (key->bellperson)
        h_monomial(key);
    else if ((st = h_at_tau(key, err)))
        return st;
    stage_done(cfg, "qap", t);

    /* Products per group: header, IC, A, B1, C, H in G1 (and section 10's
     * three); header, B2 in G2 */
    const uint64_t n_public = key->header.n_public;
    unsigned w1 = pl__fixed_base_window(4 + n_public + 2 * n_vars +
                                        key->n_priv + n);
    unsigned w2 = pl__fixed_base_window(3 + n_vars);
    const pl__curve curve = key->header.curve;
    if ((st = pl__fixed_base_create_curve(&key->fb1, curve, false, w1,
                                          workers, err)) ||
        (st = pl__fixed_base_create_curve(&key->fb2, curve, true, w2,
                                          workers, err)))
        return st;
    stage_done(cfg, "tables", t);
    return PL_OK;
}

static void key_free(dev_key *key)
{
    pl__fixed_base_destroy(key->fb2);
    pl__fixed_base_destroy(key->fb1);
    pl__free(key->qap);
    memset(&key->sec, 0, sizeof(key->sec));
}

/* ---- write: the points, streamed into the container ---------------------- */

/* scalars[i] * G for i < n, written in chunks through buf. */
static pl_status put_points(pl__container_writer *w, const pl__fixed_base *fb,
                            const fr *scalars, size_t n, uint8_t *buf,
                            pl__pool *pool, pl_error *err)
{
    size_t point_bytes = pl__fixed_base_point_bytes(fb);
    for (size_t i = 0; i < n && w->status == PL_OK; i += CHUNK) {
        size_t m = n - i < CHUNK ? n - i : CHUNK;
        pl__fixed_base_mul(fb, buf, scalars + i, m, pool);
        pl__container_put(w, buf, m * point_bytes, err);
    }
    return w->status;
}

/* A point section (3, 5..9): begun, filled, ended (its size checked). */
static pl_status write_point_section(pl__container_writer *w, unsigned id,
                                     const dev_key *key,
                                     const pl__fixed_base *fb,
                                     const fr *scalars, size_t n,
                                     uint8_t *buf, pl__pool *pool,
                                     pl_error *err)
{
    pl__zkey_section_begin(w, id, &key->header, err);
    put_points(w, fb, scalars, n, buf, pool, err);
    return pl__container_section_end(w, err);
}

/* The coefficient records, batched through buf. */
typedef struct {
    pl__container_writer *w;
    uint8_t *buf;
    size_t fill, cap;
} record_batch;

static void put_record(record_batch *rb, const pl__cer_curve *cc,
                       uint32_t matrix, uint32_t constraint, uint32_t signal,
                       const fr *value, pl_error *err)
{
    uint8_t le[PL__FR_BYTES];
    if (rb->fill == rb->cap) {
        pl__container_put(rb->w, rb->buf, rb->fill * PL__COEF_RECORD_BYTES,
                          err);
        rb->fill = 0;
    }
    cc->fr_to_le(le, value);
    pl__zkey_coef_encode(rb->buf + rb->fill++ * PL__COEF_RECORD_BYTES, matrix,
                         constraint, signal, le);
}

/* Section 4 in the reference's order: per constraint its A terms, then its
 * B terms (C terms are not stored), then the input rows {A, nConstraints +
 * s, s, 1}; each value coef * R^2. */
static pl_status write_coefs(pl__container_writer *w, const dev_key *key,
                             uint8_t *buf, pl_error *err)
{
    const pl__cer_curve *cc = key->cc;
    record_batch rb = {w, buf, 0, CHUNK_BYTES / PL__COEF_RECORD_BYTES};
    pl__r1cs_iter it;
    pl__r1cs_lc lc[3];
    uint32_t k;
    fr v;
    pl__zkey_section_begin(w, 4, &key->header, err);
    for (pl__r1cs_iter_init(&it, key->r1cs);
         pl__r1cs_iter_next(&it, &k, lc) && w->status == PL_OK;)
        for (uint32_t m = 0; m < 2; m++)
            for (uint32_t t = 0; t < lc[m].n_terms; t++) {
                pl__r1cs_term term = pl__r1cs_lc_term(&lc[m], t);
                cc->fr_from_le(&v, term.coef);
                FR_MUL(&v, &v, &key->r2);
                put_record(&rb, cc, m, k, term.wire, &v, err);
            }
    const uint32_t n_constraints = key->r1cs->info.n_constraints;
    for (uint32_t s = 0; s <= key->header.n_public; s++)
        put_record(&rb, cc, 0, n_constraints + s, s, &key->r2, err);
    pl__container_put(w, buf, rb.fill * PL__COEF_RECORD_BYTES, err);
    return pl__container_section_end(w, err);
}

/* Sections 1 and 2: alpha_1, beta_1, delta_1; beta_2, gamma_2 (the
 * generator), delta_2. */
static pl_status write_header(pl__container_writer *w, pl__output *out,
                              dev_key *key, pl__pool *pool, pl_error *err)
{
    const pl__cer_curve *cc = key->cc;
    const size_t g1b = pl__fixed_base_point_bytes(key->fb1);
    const size_t g2b = pl__fixed_base_point_bytes(key->fb2);
    fr g1s[3] = {key->sec.alpha, key->sec.beta, key->sec.delta};
    fr g2s[3];
    uint8_t p1[3 * PL__G1_BYTES], p2[3 * PL__G2_BYTES]; /* the largest */
    g2s[0] = key->sec.beta;
    FR_U64(&g2s[1], 1);
    g2s[2] = key->sec.delta;
    pl__fixed_base_mul(key->fb1, p1, g1s, 3, pool);
    pl__fixed_base_mul(key->fb2, p2, g2s, 3, pool);
    key->header.alpha1 = p1;
    key->header.beta1 = p1 + g1b;
    key->header.delta1 = p1 + 2 * g1b;
    key->header.beta2 = p2;
    key->header.gamma2 = p2 + g2b;
    key->header.delta2 = p2 + 2 * g2b;
    pl_status st = pl__zkey_write_header(w, out, &key->header, err);
    /* the points lived on this stack frame */
    key->header.alpha1 = key->header.beta1 = key->header.delta1 = NULL;
    key->header.beta2 = key->header.gamma2 = key->header.delta2 = NULL;
    memset(g1s, 0, sizeof(g1s));
    memset(g2s, 0, sizeof(g2s));
    return st;
}

/* Section 10: the zero csHash and one contribution record saying the toxic
 * waste is known; see the top of the file. */
static pl_status write_contribution(pl__container_writer *w,
                                    const dev_key *key, pl__pool *pool,
                                    pl_error *err)
{
    const pl__cer_curve *cc = key->cc;
    const size_t g1b = pl__fixed_base_point_bytes(key->fb1);
    fr s, t, g1s[3], g2s[1];
    uint8_t g1[3 * PL__G1_BYTES], g2[PL__G2_BYTES]; /* the largest */
    uint8_t transcript[PL__ZKEY_HASH_BYTES];
    static const uint8_t cs_hash[PL__ZKEY_HASH_BYTES]; /* as fast_zkey */
    derive_secret(cc, &s, key->seed, "contribution g1_s");
    derive_secret(cc, &t, key->seed, "contribution g2_sp");
    g1s[0] = key->sec.delta;                        /* deltaAfter */
    g1s[1] = s;                                     /* g1_s */
    FR_MUL(&g1s[2], &s, &key->sec.delta);           /* g1_sx */
    FR_MUL(&g2s[0], &t, &key->sec.delta);           /* g2_spx */
    pl__fixed_base_mul(key->fb1, g1, g1s, 3, pool);
    pl__fixed_base_mul(key->fb2, g2, g2s, 1, pool);
    pl__sha512_ctx ctx;
    pl__sha512_init(&ctx);
    pl__sha512_update(&ctx, cs_hash, sizeof(cs_hash));
    pl__sha512_update(&ctx, g1 + g1b, 2 * g1b);
    pl__sha512_final(&ctx, transcript);
    const pl__zkey_contribution c = {
        .curve = key->header.curve,
        .cs_hash = cs_hash,
        .delta_after = g1,
        .g1_s = g1 + g1b,
        .g1_sx = g1 + 2 * g1b,
        .g2_spx = g2,
        .transcript = transcript,
        .type = 0, /* a contribution, not a beacon */
        .name = CONTRIBUTION_NAME,
    };
    pl_status st = pl__zkey_write_contributions(w, &c, err);
    memset(&s, 0, sizeof(s));
    memset(&t, 0, sizeof(t));
    memset(g1s, 0, sizeof(g1s));
    memset(g2s, 0, sizeof(g2s));
    return st;
}

/* The file: every section in order through the container writer into a
 * temporary beside the target, then committed (stages "ic" .. "h", then
 * "sync"). */
static pl_status write_key(dev_key *key, const char *zkey_path,
                           pl__pool *pool, const pl_setup_config *cfg,
                           double *t, pl_error *err)
{
    pl_status st = PL_OK;
    pl__output out;
    pl__container_writer w;
    const uint32_t n_vars = key->header.n_vars;
    const uint32_t n_in = key->header.n_public + 1;
    memset(&out, 0, sizeof(out));
    /* the chunk buffer before the file, so that running out of memory
     * leaves no file */
    uint8_t *buf = pl__alloc(PL_BUF_PARAMS, CHUNK_BYTES, err);
    if (!buf) {
        st = PL_ENOMEM;
        goto fail;
    }
    if ((st = pl__output_open(&out, zkey_path, err)) ||
        (st = write_header(&w, &out, key, pool, err)) ||
        (st = write_point_section(&w, 3, key, key->fb1, key->c, n_in, buf,
                                  pool, err)))
        goto fail;
    stage_done(cfg, "ic", t);
    if ((st = write_coefs(&w, key, buf, err)))
        goto fail;
    stage_done(cfg, "coefs", t);
    if ((st = write_point_section(&w, 5, key, key->fb1, key->a, n_vars, buf,
                                  pool, err)))
        goto fail;
    stage_done(cfg, "a", t);
    if ((st = write_point_section(&w, 6, key, key->fb1, key->b, n_vars, buf,
                                  pool, err)))
        goto fail;
    stage_done(cfg, "b1", t);
    if ((st = write_point_section(&w, 7, key, key->fb2, key->b, n_vars, buf,
                                  pool, err)))
        goto fail;
    stage_done(cfg, "b2", t);
    if ((st = write_point_section(&w, 8, key, key->fb1, key->c + n_in,
                                  key->n_priv, buf, pool, err)))
        goto fail;
    stage_done(cfg, "c", t);
    if ((st = write_point_section(&w, 9, key, key->fb1, key->h,
                                  key->header.domain_size, buf, pool, err)))
        goto fail;
    stage_done(cfg, "h", t);
    if ((st = write_contribution(&w, key, pool, err)) ||
        (st = pl__container_write_end(&w, err)) ||
        (st = pl__output_commit(&out, err)))
        goto fail;
    stage_done(cfg, "sync", t);
fail:
    pl__output_abort(&out);
    pl__free(buf);
    return st;
}

pl_status pl_setup_dev(const char *r1cs_path, const char *zkey_path,
                       const pl_setup_config *cfg_in, pl_error *err)
{
    pl_status st = PL_OK;
    pl_setup_config cfg;
    pl_r1cs *r1cs = NULL;
    pl__pool *pool = NULL;
    dev_key key;
    double t = pl__now_seconds();

    memset(&key, 0, sizeof(key));
    if (cfg_in)
        cfg = *cfg_in;
    else
        pl_setup_config_init(&cfg);
    key.seed = cfg.seed ? cfg.seed : PL_SETUP_DEV_DEFAULT_SEED;

    if ((st = pl_r1cs_open(&r1cs, r1cs_path, err)))
        goto fail;
    key.r1cs = r1cs;
    key.header.curve = r1cs->curve;
    key.cc = r1cs->curve == PL__CURVE_BN254 ? &pl__cer_bn128
                                            : &pl__cer_bls12381;
    if ((st = pl__pool_create(&pool, cfg.threads, "pl-setup", err)) ||
        (st = compute_key(&key, r1cs_path, pl__pool_size(pool), &cfg, &t,
                          err)) ||
        (st = write_key(&key, zkey_path, pool, &cfg, &t, err)))
        goto fail;
fail:
    key_free(&key);
    pl__pool_destroy(pool);
    pl_r1cs_close(r1cs);
    return st;
}

/* ---- bellperson's layout ---------------------------------------------- */

/* scalars[i] * G for i < n into the open section of a bellperson writer
 * (which drops the points at infinity of the a and b sections). */
static pl_status bp_put(pl__bp_writer *w, const pl__fixed_base *fb,
                        const fr *scalars, size_t n, uint8_t *buf,
                        pl__pool *pool, pl_error *err)
{
    for (size_t i = 0; i < n && w->status == PL_OK; i += CHUNK) {
        size_t m = n - i < CHUNK ? n - i : CHUNK;
        pl__fixed_base_mul(fb, buf, scalars + i, m, pool);
        pl__bp_put_points(w, buf, m, err);
    }
    return w->status;
}

static pl_status bp_section(pl__bp_writer *w, unsigned section, uint32_t count,
                            const pl__fixed_base *fb, const fr *scalars,
                            size_t n, uint8_t *buf, pl__pool *pool,
                            pl_error *err)
{
    pl__bp_section_begin(w, section, count, err);
    bp_put(w, fb, scalars, n, buf, pool, err);
    return pl__bp_section_end(w, err);
}

static uint32_t count_nonzero(const pl__cer_curve *cc, const fr *v, size_t n)
{
    uint32_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += !FR_IS_ZERO(&v[i]);
    return c;
}

/* The parameter file and the .vk, committed as a pair. */
static pl_status write_bellperson(dev_key *key, const char *params_path,
                                  const char *vk_path, pl__pool *pool,
                                  const pl_setup_config *cfg, double *t,
                                  pl_error *err)
{
    pl_status st = PL_OK;
    pl__output pout, vout;
    pl__bp_writer w;
    const uint32_t n_vars = key->header.n_vars;
    const uint32_t n_in = key->header.n_public + 1;
    const uint32_t n = key->header.domain_size;
    memset(&pout, 0, sizeof(pout));
    memset(&vout, 0, sizeof(vout));

    /* the verifying key's points: alpha, beta, delta in G1; beta, gamma
     * (the generator), delta in G2 */
    const pl__cer_curve *cc = key->cc;
    fr g1s[3] = {key->sec.alpha, key->sec.beta, key->sec.delta};
    fr g2s[3];
    blst_p1_affine p1[3];
    blst_p2_affine p2[3];
    g2s[0] = key->sec.beta;
    FR_U64(&g2s[1], 1);
    g2s[2] = key->sec.delta;
    pl__fixed_base_mul(key->fb1, (uint8_t *)p1, g1s, 3, pool);
    pl__fixed_base_mul(key->fb2, (uint8_t *)p2, g2s, 3, pool);
    memset(g1s, 0, sizeof(g1s));
    memset(g2s, 0, sizeof(g2s));
    const pl__bp_vk vk = {&p1[0], &p1[1], &p1[2], &p2[0], &p2[1], &p2[2]};

    uint8_t *buf = pl__alloc(PL_BUF_PARAMS, CHUNK_BYTES, err);
    if (!buf) {
        st = PL_ENOMEM;
        goto fail;
    }
    if ((st = pl__output_open(&pout, params_path, err)) ||
        (st = pl__output_open(&vout, vk_path, err)) ||
        (st = pl__bp_write_begin(&w, &pout, false, &vk, err)) ||
        (st = bp_section(&w, PL__BP_IC, n_in, key->fb1, key->c, n_in, buf,
                         pool, err)))
        goto fail;
    stage_done(cfg, "ic", t);
    if ((st = bp_section(&w, PL__BP_H, n - 1, key->fb1, key->h, n - 1, buf,
                         pool, err)))
        goto fail;
    stage_done(cfg, "h", t);
    if ((st = bp_section(&w, PL__BP_L, (uint32_t)key->n_priv, key->fb1,
                         key->c + n_in, key->n_priv, buf, pool, err)))
        goto fail;
    stage_done(cfg, "l", t);
    const uint32_t n_a = count_nonzero(cc, key->a, n_vars);
    const uint32_t n_b = count_nonzero(cc, key->b, n_vars);
    if ((st = bp_section(&w, PL__BP_A, n_a, key->fb1, key->a, n_vars, buf,
                         pool, err)))
        goto fail;
    stage_done(cfg, "a", t);
    if ((st = bp_section(&w, PL__BP_B_G1, n_b, key->fb1, key->b, n_vars, buf,
                         pool, err)))
        goto fail;
    stage_done(cfg, "b1", t);
    if ((st = bp_section(&w, PL__BP_B_G2, n_b, key->fb2, key->b, n_vars, buf,
                         pool, err)) ||
        (st = pl__bp_write_end(&w, err)))
        goto fail;
    stage_done(cfg, "b2", t);
    /* the .vk: the same key and ic */
    if ((st = pl__bp_write_begin(&w, &vout, true, &vk, err)) ||
        (st = bp_section(&w, PL__BP_IC, n_in, key->fb1, key->c, n_in, buf,
                         pool, err)) ||
        (st = pl__bp_write_end(&w, err)) ||
        (st = pl__output_commit_pair(&pout, &vout, err)))
        goto fail;
    stage_done(cfg, "sync", t);
fail:
    pl__output_abort(&vout);
    pl__output_abort(&pout);
    pl__free(buf);
    return st;
}

pl_status pl_setup_dev_bellperson(const char *r1cs_path,
                                  const char *params_path,
                                  const char *vk_path,
                                  const pl_setup_config *cfg, pl_error *err)
{
    return pl__setup_dev_bellperson_domain(r1cs_path, params_path, vk_path,
                                           cfg, false, err);
}

pl_status pl__setup_dev_bellperson_domain(const char *r1cs_path,
                                          const char *params_path,
                                          const char *vk_path,
                                          const pl_setup_config *cfg_in,
                                          bool snarkjs_domain, pl_error *err)
{
    pl_status st = PL_OK;
    pl_setup_config cfg;
    pl_r1cs *r1cs = NULL;
    pl__pool *pool = NULL;
    dev_key key;
    double t = pl__now_seconds();

    memset(&key, 0, sizeof(key));
    key.bellperson = true;
    key.snarkjs_domain = snarkjs_domain;
    if (cfg_in)
        cfg = *cfg_in;
    else
        pl_setup_config_init(&cfg);
    key.seed = cfg.seed ? cfg.seed : PL_SETUP_DEV_DEFAULT_SEED;

    if ((st = pl_r1cs_open(&r1cs, r1cs_path, err)))
        goto fail;
    key.r1cs = r1cs;
    key.cc = &pl__cer_bls12381;
    /* bellperson's files (Filecoin's) are BLS12-381's */
    if (r1cs->curve != PL__CURVE_BLS12_381) {
        st = pl__error_set(err, PL_EUNSUPPORTED, "%s: bellperson's layout "
                           "is BLS12-381's, but this r1cs is for curve %s "
                           "(write a zkey: setup --dev without --format)",
                           r1cs_path, pl__curve_name(r1cs->curve));
        goto fail;
    }
    if (key_shape(&key, r1cs_path, err) == PL_OK &&
        key.header.domain_size < 2) {
        st = pl__error_set(err, PL_EUNSUPPORTED, "%s: a domain of 1 leaves "
                           "bellperson's h query empty", r1cs_path);
        goto fail;
    }
    if ((st = pl__pool_create(&pool, cfg.threads, "pl-setup", err)) ||
        (st = compute_key(&key, r1cs_path, pl__pool_size(pool), &cfg, &t,
                          err)) ||
        (st = write_bellperson(&key, params_path, vk_path, pool, &cfg, &t,
                               err)))
        goto fail;
fail:
    key_free(&key);
    pl__pool_destroy(pool);
    pl_r1cs_close(r1cs);
    return st;
}
