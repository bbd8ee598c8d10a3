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
 * (affine coordinates are unique), so the work is organised for speed: the
 * Lagrange values in O(n) with one inversion, the points by a fixed-base
 * comb (fixed_base.c) over a thread pool, streamed chunk by chunk to a
 * temporary file beside the target, fsynced and renamed into place.
 *
 * Memory (class params): L (n scalars, reused for H), A, B, C (nVars
 * scalars each) in one allocation; the G1 and G2 tables; one output chunk.
 */
#define _GNU_SOURCE
#include "proofline.h"
#include "field/field.h"
#include "formats/formats.h"
#include "setup/fixed_base.h"
#include "setup/sha512.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/file.h"
#include "util/pool.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The prover's NTT stops at 2^28; a larger key could not be used. */
#define MAX_LOG2_DOMAIN 28u
/* Points per chunk written: 32 Ki G2 points are 6 MiB of output buffer. */
#define CHUNK ((size_t)1 << 15)
#define CHUNK_BYTES (CHUNK * PL__G2_BYTES)
#define ZKEY_VERSION 1u
#define ZKEY_SECTIONS 10u
#define GROTH16_PROTOCOL 1u
#define HEADER_BYTES 964u  /* section 2 */
/* The one contribution's name.  snarkjs writes at most 64 characters of a
 * name (zkey_utils.js writeContribution), so a longer one would be cut
 * when a snarkjs tool rewrites the section. */
#define CONTRIBUTION_NAME \
    "proofline setup --dev: TOXIC WASTE KNOWN; tests/benchmarks only"
#define NAME_BYTES (sizeof(CONTRIBUTION_NAME) - 1)
_Static_assert(NAME_BYTES <= 64, "snarkjs keeps 64 bytes of a name");
/* Section 10: csHash, nContributions, then the record: deltaAfter, g1_s,
 * g1_sx, g2_spx, transcript, type, paramsLength, params (id, len, name). */
#define CS_HASH_BYTES 64u
#define TRANSCRIPT_BYTES 64u
#define PARAMS_BYTES (2u + NAME_BYTES)
#define MPC_BYTES (CS_HASH_BYTES + 4u + 3u * PL__G1_BYTES + PL__G2_BYTES + \
                   TRANSCRIPT_BYTES + 4u + 4u + PARAMS_BYTES)

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

static void fr_set_u64(blst_fr *out, uint64_t v)
{
    const uint64_t limbs[4] = {v, 0, 0, 0};
    blst_fr_from_uint64(out, limbs);
}

static bool fr_is_zero(const blst_fr *a)
{
    static const blst_fr zero;
    return memcmp(a, &zero, sizeof(zero)) == 0;
}

/* SHA-512(seed ":" label) as a big-endian integer, reduced mod r (Horner
 * over its bytes: the reduction the reference gets from BigInt %). */
static void derive_secret(blst_fr *out, const char *seed, const char *label)
{
    uint8_t digest[PL__SHA512_BYTES];
    pl__sha512_ctx ctx;
    pl__sha512_init(&ctx);
    pl__sha512_update(&ctx, seed, strlen(seed));
    pl__sha512_update(&ctx, ":", 1);
    pl__sha512_update(&ctx, label, strlen(label));
    pl__sha512_final(&ctx, digest);
    blst_fr acc, radix, byte;
    fr_set_u64(&acc, 0);
    fr_set_u64(&radix, 256);
    for (size_t i = 0; i < sizeof(digest); i++) {
        blst_fr_mul(&acc, &acc, &radix);
        fr_set_u64(&byte, digest[i]);
        blst_fr_add(&acc, &acc, &byte);
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
static bool lagrange_values(blst_fr *out, size_t count, const blst_fr *tau,
                            const blst_fr *g, const blst_fr *w,
                            const blst_fr *num, const blst_fr *sub)
{
    blst_fr acc, x, d;
    fr_set_u64(&acc, 1);
    x = *g;
    for (size_t i = 0; i < count; i++) {
        out[i] = acc;
        blst_fr_sub(&d, tau, &x);
        blst_fr_mul(&acc, &acc, &d);
        blst_fr_mul(&x, &x, w);
    }
    if (fr_is_zero(&acc))
        return false;
    blst_fr inv, w_inv, t;
    blst_fr_inverse(&inv, &acc);
    blst_fr_inverse(&w_inv, w);
    /* x = g * w^count now; step back to x_{count-1} */
    blst_fr_mul(&x, &x, &w_inv);
    for (size_t i = count; i-- > 0;) {
        blst_fr_mul(&t, &inv, &out[i]);      /* 1 / (tau - x_i) */
        blst_fr_sub(&d, tau, &x);
        blst_fr_mul(&inv, &inv, &d);
        blst_fr_mul(&t, &t, num);
        blst_fr_sub(&t, &t, sub);
        blst_fr_mul(&out[i], &t, &x);
        blst_fr_mul(&x, &x, &w_inv);
    }
    return true;
}

/* ---- output ------------------------------------------------------------- */

typedef pl__output out_file;

static pl_status out_write(out_file *o, const void *data, size_t len,
                           pl_error *err)
{
    return pl__output_write(o, data, len, err);
}

static void put_le32(uint8_t *p, uint32_t v)
{
    for (unsigned i = 0; i < 4; i++, v >>= 8)
        p[i] = (uint8_t)v;
}

static void put_le64(uint8_t *p, uint64_t v)
{
    put_le32(p, (uint32_t)v);
    put_le32(p + 4, (uint32_t)(v >> 32));
}

static pl_status section_start(out_file *o, uint32_t id, uint64_t bytes,
                               pl_error *err)
{
    uint8_t h[12];
    put_le32(h, id);
    put_le64(h + 4, bytes);
    return out_write(o, h, sizeof(h), err);
}

/* scalars[i] * G for i < n, written in chunks through buf. */
static pl_status write_points(out_file *o, const pl__fixed_base *fb,
                              const blst_fr *scalars, size_t n, uint8_t *buf,
                              pl__pool *pool, pl_error *err)
{
    pl_status st = PL_OK;
    size_t point_bytes = pl__fixed_base_point_bytes(fb);
    for (size_t i = 0; i < n && st == PL_OK; i += CHUNK) {
        size_t m = n - i < CHUNK ? n - i : CHUNK;
        pl__fixed_base_mul(fb, buf, scalars + i, m, pool);
        st = out_write(o, buf, m * point_bytes, err);
    }
    return st;
}

/* The coefficients section's records, in the reference's order. */
static pl_status write_coefs(out_file *o, const pl_r1cs *r1cs,
                             uint32_t n_public, uint8_t *buf, pl_error *err)
{
    pl_status st = PL_OK;
    const uint32_t n_constraints = r1cs->info.n_constraints;
    const size_t per_flush = CHUNK_BYTES / PL__COEF_RECORD_BYTES;
    size_t fill = 0;
    /* value = coef * R^2: R is the integer in one's Montgomery limbs */
    blst_fr one, r_fr, r2, v;
    blst_scalar r_int;
    fr_set_u64(&one, 1);
    memcpy(r_int.b, &one, sizeof(r_int.b));
    blst_fr_from_scalar(&r_fr, &r_int);
    blst_fr_sqr(&r2, &r_fr);

    const uint8_t *p = r1cs->constraints;
    for (uint64_t k = 0; k < (uint64_t)n_constraints + n_public + 1; k++) {
        bool extra = k >= n_constraints;
        for (uint32_t mat = 0; mat < (extra ? 1u : 3u); mat++) {
            uint32_t terms = extra ? 1 : pl__le32(p);
            if (!extra)
                p += 4;
            for (uint32_t t = 0; t < terms; t++) {
                if (mat == 2) { /* C terms are not stored */
                    p += 4 + PL__FR_BYTES;
                    continue;
                }
                if (fill == per_flush) {
                    if ((st = out_write(o, buf, fill * PL__COEF_RECORD_BYTES,
                                        err)))
                        goto fail;
                    fill = 0;
                }
                uint8_t *rec = buf + fill++ * PL__COEF_RECORD_BYTES;
                put_le32(rec, mat);
                put_le32(rec + 4, (uint32_t)k);
                if (extra) {
                    put_le32(rec + 8, (uint32_t)(k - n_constraints));
                    v = r2;
                } else {
                    memcpy(rec + 8, p, 4);
                    pl__fr_from_le(&v, p + 4);
                    blst_fr_mul(&v, &v, &r2);
                    p += 4 + PL__FR_BYTES;
                }
                pl__fr_to_le(rec + 12, &v);
            }
        }
    }
    st = out_write(o, buf, fill * PL__COEF_RECORD_BYTES, err);
fail:
    return st;
}

/* ---- the setup ---------------------------------------------------------- */

typedef struct {
    blst_fr tau, alpha, beta, delta, delta_inv;
} secrets;

/* Section 10's payload (MPC_BYTES): the zero csHash and one contribution
 * record saying the toxic waste is known; see the top of the file. */
static void write_contribution(uint8_t *out, const secrets *sec,
                               const char *seed, const pl__fixed_base *fb1,
                               const pl__fixed_base *fb2, pl__pool *pool)
{
    blst_fr s, t, g1s[3], g2s[1];
    derive_secret(&s, seed, "contribution g1_s");
    derive_secret(&t, seed, "contribution g2_sp");
    g1s[0] = sec->delta;                         /* deltaAfter */
    g1s[1] = s;                                  /* g1_s */
    blst_fr_mul(&g1s[2], &s, &sec->delta);       /* g1_sx */
    blst_fr_mul(&g2s[0], &t, &sec->delta);       /* g2_spx */

    uint8_t *p = out;
    memset(p, 0, CS_HASH_BYTES); /* as fast_zkey: no circuit hash */
    p += CS_HASH_BYTES;
    put_le32(p, 1);
    p += 4;
    uint8_t *g1 = p;
    pl__fixed_base_mul(fb1, p, g1s, 3, pool);
    p += 3 * PL__G1_BYTES;
    pl__fixed_base_mul(fb2, p, g2s, 1, pool);
    p += PL__G2_BYTES;
    pl__sha512_ctx ctx;
    pl__sha512_init(&ctx);
    pl__sha512_update(&ctx, out, CS_HASH_BYTES);
    pl__sha512_update(&ctx, g1 + PL__G1_BYTES, 2 * PL__G1_BYTES);
    pl__sha512_final(&ctx, p);
    p += TRANSCRIPT_BYTES;
    put_le32(p, 0); /* type: a contribution, not a beacon */
    p += 4;
    put_le32(p, PARAMS_BYTES);
    p += 4;
    *p++ = 1; /* param id: name */
    *p++ = (uint8_t)NAME_BYTES;
    memcpy(p, CONTRIBUTION_NAME, NAME_BYTES);
    p += NAME_BYTES;
    assert((size_t)(p - out) == MPC_BYTES);
    memset(&s, 0, sizeof(s));
    memset(&t, 0, sizeof(t));
    memset(g1s, 0, sizeof(g1s));
    memset(g2s, 0, sizeof(g2s));
}

pl_status pl_setup_dev(const char *r1cs_path, const char *zkey_path,
                       const pl_setup_config *cfg_in, pl_error *err)
{
    pl_status st = PL_OK;
    pl_setup_config cfg;
    pl_r1cs *r1cs = NULL;
    pl__pool *pool = NULL;
    blst_fr *qap = NULL;
    uint8_t *buf = NULL;
    pl__fixed_base *fb1 = NULL, *fb2 = NULL;
    out_file o;
    secrets sec;
    double t = pl__now_seconds();

    if (cfg_in)
        cfg = *cfg_in;
    else
        pl_setup_config_init(&cfg);
    const char *seed = cfg.seed ? cfg.seed : PL_SETUP_DEV_DEFAULT_SEED;
    memset(&o, 0, sizeof(o));

    if ((st = pl_r1cs_open(&r1cs, r1cs_path, err)))
        goto fail;
    const pl_r1cs_info *info = &r1cs->info;
    const uint32_t n_vars = info->n_wires;
    const uint32_t n_public = info->n_pub_out + info->n_pub_in;
    const uint64_t rows = (uint64_t)info->n_constraints + n_public + 1;
    unsigned log2n = 0;
    while (((uint64_t)1 << log2n) < rows)
        log2n++;
    if (log2n > MAX_LOG2_DOMAIN) {
        st = pl__error_set(err, PL_EUNSUPPORTED,
                           "%s: %" PRIu32 " constraints + %" PRIu32 " public "
                           "+ 1 need a domain of 2^%u; the prover stops at "
                           "2^%u", r1cs_path, info->n_constraints, n_public,
                           log2n, MAX_LOG2_DOMAIN);
        goto fail;
    }
    const size_t n = (size_t)1 << log2n;
    const uint64_t n_priv = (uint64_t)n_vars - n_public - 1;

    derive_secret(&sec.tau, seed, "tau");
    derive_secret(&sec.alpha, seed, "alpha");
    derive_secret(&sec.beta, seed, "beta");
    derive_secret(&sec.delta, seed, "delta");
    if (fr_is_zero(&sec.delta)) {
        st = pl__error_set(err, PL_EUSAGE, "seed '%s' gives delta = 0; "
                           "choose another seed", seed);
        goto fail;
    }
    blst_fr_inverse(&sec.delta_inv, &sec.delta);

    if ((st = pl__pool_create(&pool, cfg.threads, "pl-setup", err)))
        goto fail;

    /* ---- QAP at tau: L (n), then A, B, C (nVars each) */
    qap = pl__calloc(PL_BUF_PARAMS,
                     ((uint64_t)n + 3 * (uint64_t)n_vars) * sizeof(blst_fr),
                     err);
    if (!qap) {
        st = PL_ENOMEM;
        goto fail;
    }
    blst_fr *L = qap, *A = qap + n, *B = A + n_vars, *C = B + n_vars;
    {
        blst_fr one, zero, w, num, inv_n;
        fr_set_u64(&one, 1);
        fr_set_u64(&zero, 0);
        pl__fr_root_of_unity(&w, log2n);
        pl__fr_pow(&num, &sec.tau, n);
        blst_fr_sub(&num, &num, &one);
        fr_set_u64(&inv_n, n);
        blst_fr_inverse(&inv_n, &inv_n);
        blst_fr_mul(&num, &num, &inv_n);
        if (!lagrange_values(L, n, &sec.tau, &one, &w, &num, &zero)) {
            st = pl__error_set(err, PL_EUSAGE, "seed '%s' puts tau on the "
                               "domain; choose another seed", seed);
            goto fail;
        }
    }
    uint64_t n_coefs = n_public + 1;
    {
        blst_fr *acc[3] = {A, B, C};
        const uint8_t *p = r1cs->constraints;
        blst_fr coef;
        for (uint32_t k = 0; k < info->n_constraints; k++)
            for (unsigned mat = 0; mat < 3; mat++) {
                uint32_t terms = pl__le32(p);
                p += 4;
                if (mat < 2)
                    n_coefs += terms;
                for (uint32_t i = 0; i < terms; i++, p += 4 + PL__FR_BYTES) {
                    uint32_t s = pl__le32(p);
                    pl__fr_from_le(&coef, p + 4);
                    blst_fr_mul(&coef, &coef, &L[k]);
                    blst_fr_add(&acc[mat][s], &acc[mat][s], &coef);
                }
            }
        for (uint32_t s = 0; s <= n_public; s++)
            blst_fr_add(&A[s], &A[s], &L[info->n_constraints + s]);
    }
    if (n_coefs > UINT32_MAX) {
        st = pl__error_set(err, PL_EUNSUPPORTED,
                           "%s: %" PRIu64 " A and B terms do not fit the "
                           "zkey's u32 count", r1cs_path, n_coefs);
        goto fail;
    }
    /* C becomes beta A + alpha B + C: IC as is (gamma = 1), over delta for
     * the private signals. */
    for (uint32_t s = 0; s < n_vars; s++) {
        blst_fr u;
        blst_fr_mul(&u, &sec.beta, &A[s]);
        blst_fr_add(&C[s], &C[s], &u);
        blst_fr_mul(&u, &sec.alpha, &B[s]);
        blst_fr_add(&C[s], &C[s], &u);
        if (s > n_public)
            blst_fr_mul(&C[s], &C[s], &sec.delta_inv);
    }
    stage_done(&cfg, "qap", &t);

    unsigned workers = pl__pool_size(pool);
    /* Products per group: header, IC, A, B1, C, H in G1; header, B2 in G2 */
    unsigned w1 = pl__fixed_base_window(4 + (uint64_t)n_public +
                                        2 * (uint64_t)n_vars + n_priv + n);
    unsigned w2 = pl__fixed_base_window(3 + (uint64_t)n_vars);
    if ((st = pl__fixed_base_create(&fb1, false, w1, workers, err)) ||
        (st = pl__fixed_base_create(&fb2, true, w2, workers, err)))
        goto fail;
    buf = pl__alloc(PL_BUF_PARAMS, CHUNK_BYTES, err);
    if (!buf) {
        st = PL_ENOMEM;
        goto fail;
    }
    stage_done(&cfg, "tables", &t);

    /* ---- the file, streamed to a temporary beside the target */
    if ((st = pl__output_open(&o, zkey_path, err)))
        goto fail;

    {
        uint8_t h[12 + 12 + 4];
        memcpy(h, "zkey", 4);
        put_le32(h + 4, ZKEY_VERSION);
        put_le32(h + 8, ZKEY_SECTIONS);
        put_le32(h + 12, 1);
        put_le64(h + 16, 4);
        put_le32(h + 24, GROTH16_PROTOCOL);
        if ((st = out_write(&o, h, sizeof(h), err)))
            goto fail;
    }
    {
        /* Header: n8q, q, n8r, r, nVars, nPublic, domainSize, then alpha_1,
         * beta_1, beta_2, gamma_2 (the generator), delta_1, delta_2. */
        uint8_t h[4 + 48 + 4 + 32 + 12];
        put_le32(h, PL__FP_BYTES);
        memcpy(h + 4, pl__fp_modulus_le, 48);
        put_le32(h + 52, PL__FR_BYTES);
        memcpy(h + 56, pl__fr_modulus_le, 32);
        put_le32(h + 88, n_vars);
        put_le32(h + 92, n_public);
        put_le32(h + 96, (uint32_t)n);
        blst_fr g1s[3] = {sec.alpha, sec.beta, sec.delta};
        blst_fr g2s[3];
        g2s[0] = sec.beta;
        fr_set_u64(&g2s[1], 1);
        g2s[2] = sec.delta;
        uint8_t pts[3 * PL__G1_BYTES + 3 * PL__G2_BYTES];
        uint8_t *p1 = pts, *p2 = pts + 3 * PL__G1_BYTES;
        pl__fixed_base_mul(fb1, p1, g1s, 3, pool);
        pl__fixed_base_mul(fb2, p2, g2s, 3, pool);
        if ((st = section_start(&o, 2, HEADER_BYTES, err)) ||
            (st = out_write(&o, h, sizeof(h), err)) ||
            (st = out_write(&o, p1, 2 * PL__G1_BYTES, err)) ||      /* alpha, beta */
            (st = out_write(&o, p2, 2 * PL__G2_BYTES, err)) ||      /* beta, gamma */
            (st = out_write(&o, p1 + 2 * PL__G1_BYTES, PL__G1_BYTES, err)) ||
            (st = out_write(&o, p2 + 2 * PL__G2_BYTES, PL__G2_BYTES, err)))
            goto fail;
    }
    if ((st = section_start(&o, 3, (uint64_t)(n_public + 1) * PL__G1_BYTES,
                            err)) ||
        (st = write_points(&o, fb1, C, n_public + 1, buf, pool, err)))
        goto fail;
    stage_done(&cfg, "ic", &t);
    if ((st = section_start(&o, 4, 4 + n_coefs * PL__COEF_RECORD_BYTES,
                            err)))
        goto fail;
    {
        uint8_t c4[4];
        put_le32(c4, (uint32_t)n_coefs);
        if ((st = out_write(&o, c4, 4, err)) ||
            (st = write_coefs(&o, r1cs, n_public, buf, err)))
            goto fail;
    }
    stage_done(&cfg, "coefs", &t);
    if ((st = section_start(&o, 5, (uint64_t)n_vars * PL__G1_BYTES, err)) ||
        (st = write_points(&o, fb1, A, n_vars, buf, pool, err)))
        goto fail;
    stage_done(&cfg, "a", &t);
    if ((st = section_start(&o, 6, (uint64_t)n_vars * PL__G1_BYTES, err)) ||
        (st = write_points(&o, fb1, B, n_vars, buf, pool, err)))
        goto fail;
    stage_done(&cfg, "b1", &t);
    if ((st = section_start(&o, 7, (uint64_t)n_vars * PL__G2_BYTES, err)) ||
        (st = write_points(&o, fb2, B, n_vars, buf, pool, err)))
        goto fail;
    stage_done(&cfg, "b2", &t);
    if ((st = section_start(&o, 8, n_priv * PL__G1_BYTES, err)) ||
        (st = write_points(&o, fb1, C + n_public + 1, n_priv, buf, pool,
                           err)))
        goto fail;
    stage_done(&cfg, "c", &t);

    /* H over L's storage: x_i = g omega_n^i = omega_2n^(2i+1), num =
     * (tau^2n - 1) / (2n), less tau^(2n-1) / (2n) (the prepare-phase-2
     * truncation), all over delta. */
    {
        blst_fr one, g, w, num, sub, inv_2n;
        fr_set_u64(&one, 1);
        pl__fr_root_of_unity(&g, log2n + 1);
        pl__fr_root_of_unity(&w, log2n);
        fr_set_u64(&inv_2n, 2 * (uint64_t)n);
        blst_fr_inverse(&inv_2n, &inv_2n);
        pl__fr_pow(&num, &sec.tau, 2 * (uint64_t)n);
        blst_fr_sub(&num, &num, &one);
        blst_fr_mul(&num, &num, &inv_2n);
        blst_fr_mul(&num, &num, &sec.delta_inv);
        pl__fr_pow(&sub, &sec.tau, 2 * (uint64_t)n - 1);
        blst_fr_mul(&sub, &sub, &inv_2n);
        blst_fr_mul(&sub, &sub, &sec.delta_inv);
        if (!lagrange_values(L, n, &sec.tau, &g, &w, &num, &sub)) {
            st = pl__error_set(err, PL_EUSAGE, "seed '%s' puts tau on the "
                               "2n-point domain; choose another seed", seed);
            goto fail;
        }
    }
    if ((st = section_start(&o, 9, (uint64_t)n * PL__G1_BYTES, err)) ||
        (st = write_points(&o, fb1, L, n, buf, pool, err)))
        goto fail;
    stage_done(&cfg, "h", &t);
    {
        uint8_t mpc[MPC_BYTES];
        write_contribution(mpc, &sec, seed, fb1, fb2, pool);
        if ((st = section_start(&o, 10, MPC_BYTES, err)) ||
            (st = out_write(&o, mpc, sizeof(mpc), err)))
            goto fail;
    }

    st = pl__output_commit(&o, err);
    stage_done(&cfg, "sync", &t);
fail:
    pl__output_abort(&o);
    pl__free(buf);
    pl__fixed_base_destroy(fb2);
    pl__fixed_base_destroy(fb1);
    pl__free(qap);
    pl__pool_destroy(pool);
    pl_r1cs_close(r1cs);
    memset(&sec, 0, sizeof(sec));
    return st;
}
