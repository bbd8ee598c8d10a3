/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The development setup (src/setup):
 *  - SHA-512 against FIPS 180-4 examples and block-boundary lengths;
 *  - the fixed-base comb against blst's own scalar multiplication, zero
 *    and r - 1 included, for several window widths and thread counts; its
 *    BN254 tables against field/bn254's double-and-add likewise;
 *  - pl_setup_dev writes sections 1-9 byte for byte as the reference tool
 *    fast_zkey.mjs does (committed keys in vectors/setup/), whatever the
 *    thread count; section 10 (where the reference has none) holds exactly
 *    one contribution in snarkjs's layout, named "... TOXIC WASTE KNOWN
 *    ...", with deltaAfter the key's delta_1 and g1_sx = delta g1_s;
 *  - keys it writes open, prove with our prover and verify with our
 *    verifier (multiplier, chain10; BN254's chain10 and noB: a bn128 key);
 *  - failures (missing input, unwritable target, every accounted
 *    allocation failing in turn) return an error, leave no file behind and
 *    leak nothing.
 */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"
#include "field/bn254/curve.h"
#include "formats/formats.h"
#include "setup/fixed_base.h"
#include "setup/sha512.h"
#include "util/alloc.h"
#include "util/pool.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- helpers ------------------------------------------------------------ */

static void hex_to_bytes(uint8_t *out, const char *hex, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        CHECK(sscanf(hex + 2 * i, "%2x", &v) == 1);
        out[i] = (uint8_t)v;
    }
}

/* Names the first differing byte, so a mismatch points at a section. */
static void check_same_file(const char *ours, const char *ref)
{
    size_t a_len, b_len;
    uint8_t *a = pl_test_read_file(ours, &a_len), *b = pl_test_read_file(ref, &b_len);
    size_t n = a_len < b_len ? a_len : b_len;
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            pl_test_fail(__FILE__, __LINE__, "%s and %s differ at byte %zu",
                         ours, ref, i);
    if (a_len != b_len)
        pl_test_fail(__FILE__, __LINE__, "%s has %zu bytes, %s %zu", ours,
                     a_len, ref, b_len);
    free(a);
    free(b);
}

/* No file named `prefix`* is left in the scratch folder. */
static void check_no_file(const char *name)
{
    char dir[512];
    snprintf(dir, sizeof(dir), "%s", pl_test_tmp(""));
    DIR *d = opendir(dir);
    CHECK(d);
    struct dirent *e;
    while ((e = readdir(d)))
        if (strncmp(e->d_name, name, strlen(name)) == 0)
            pl_test_fail(__FILE__, __LINE__, "%s%s was left behind", dir,
                         e->d_name);
    closedir(d);
}

static void setup(const char *r1cs_vector, const char *out, const char *seed,
                  unsigned threads)
{
    pl_error err = {0};
    pl_setup_config cfg;
    pl_setup_config_init(&cfg);
    cfg.seed = seed;
    cfg.threads = threads;
    CHECK_OK(pl_setup_dev(pl_test_vector(r1cs_vector), out, &cfg, &err),
             &err);
}

/* ---- SHA-512 ------------------------------------------------------------- */

PL_TEST(sha512_known_answers)
{
    static const struct {
        const char *msg;
        size_t repeat; /* msg is one byte repeated, when non-zero */
        const char *hex;
    } kat[] = {
        /* FIPS 180-4 examples (NIST CSRC): "abc", the 896-bit message,
         * one million 'a', and the empty message. */
        {"", 0, "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce"
                "47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e"},
        {"abc", 0, "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
                   "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"},
        {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
         "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu", 0,
         "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018"
         "501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909"},
        {"a", 1000000, "e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973eb"
                       "de0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b"},
        /* Padding edges: 111 bytes fit one block with the length, 112 do
         * not; 128 and 239 (from Python's hashlib). */
        {"x", 111, "9a2a120825c2319867758ec277924f6faa254968bf752046dacdd948d8ad299b"
                   "10359fd04bfd7d3810b5fa1b16a294236138baff981cbb85248478053ac4d3dd"},
        {"x", 112, "a3722b515ef40c910f2419f6e0da8ca51d410114ce6272faae64045f9e9f630e"
                   "7fa8dd5a3243c9860b899d148c3da4bc0f9e07454542604d030bb55531fe0d5b"},
        {"x", 128, "e2e22f8422b54b06e35c3ea30a383d1de7a8fbc27992923074103117020d8dd7"
                   "024c3ecf7d6d1a15a6de5a75ff32fb486b9e8ced4c02ffe05822bf2cb734d0e0"},
        {"x", 239, "805c40517b44cef414a06c632b4ee9c21d34c85a84c3f9530274db86e2a3e38c"
                   "b0e54025666b925426bd6860f81538abbfab13011e85767d814a245d232a6044"},
    };
    for (size_t k = 0; k < sizeof(kat) / sizeof(kat[0]); k++) {
        size_t len = kat[k].repeat ? kat[k].repeat : strlen(kat[k].msg);
        char *msg = malloc(len + 1);
        CHECK(msg);
        if (kat[k].repeat)
            memset(msg, kat[k].msg[0], len);
        else
            memcpy(msg, kat[k].msg, len);
        uint8_t want[64], one_shot[64], pieces[64];
        hex_to_bytes(want, kat[k].hex, 64);
        pl__sha512(one_shot, msg, len);
        /* the same message fed in uneven pieces */
        pl__sha512_ctx ctx;
        pl__sha512_init(&ctx);
        for (size_t at = 0, step = 1; at < len; step = step * 7 % 251 + 1) {
            size_t take = len - at < step ? len - at : step;
            pl__sha512_update(&ctx, msg + at, take);
            at += take;
        }
        pl__sha512_final(&ctx, pieces);
        if (memcmp(one_shot, want, 64) != 0 || memcmp(pieces, want, 64) != 0)
            pl_test_fail(__FILE__, __LINE__, "SHA-512 of message %zu (%zu "
                         "bytes) is wrong", k, len);
        free(msg);
    }
}

/* ---- the fixed-base comb -------------------------------------------------- */

/* Products against blst_pX_mult of the generator: 700 scalars (not a
 * multiple of the task size) with zeros, 1, r - 1 and random values. */
static void check_fixed_base(bool g2, unsigned w, unsigned threads)
{
    pl_error err = {0};
    enum { N = 700 };
    const size_t pb = g2 ? 192 : 96;
    blst_fr *scalars = malloc(N * sizeof(blst_fr));
    uint8_t *out = malloc(N * pb);
    CHECK(scalars && out);
    uint64_t rng = 0x5eed0000u + w * 31 + g2;
    for (size_t i = 0; i < N; i++) {
        uint8_t le[32];
        pl_test_random_bytes(&rng, le, 32);
        le[31] &= 0x3f; /* below r */
        if (i % 97 == 3)
            memset(le, 0, 32);
        if (i == 1) {
            memset(le, 0, 32);
            le[0] = 1;
        }
        if (i == 2) { /* r - 1 */
            static const uint8_t r_minus_1[32] = {
                0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xfe, 0x5b, 0xfe,
                0xff, 0x02, 0xa4, 0xbd, 0x53, 0x05, 0xd8, 0xa1, 0x09, 0x08, 0xd8,
                0x39, 0x33, 0x48, 0x7d, 0x9d, 0x29, 0x53, 0xa7, 0xed, 0x73};
            memcpy(le, r_minus_1, 32);
        }
        blst_scalar s;
        memcpy(s.b, le, 32);
        blst_fr_from_scalar(&scalars[i], &s);
    }
    pl__pool *pool;
    CHECK_OK(pl__pool_create(&pool, threads, "pl-test", &err), &err);
    pl__fixed_base *fb;
    CHECK_OK(pl__fixed_base_create(&fb, g2, w, pl__pool_size(pool), &err),
             &err);
    CHECK_EQ(pl__fixed_base_point_bytes(fb), pb);
    pl__fixed_base_mul(fb, out, scalars, N, pool);
    for (size_t i = 0; i < N; i++) {
        blst_scalar s;
        blst_scalar_from_fr(&s, &scalars[i]);
        uint8_t want[192];
        if (g2) {
            blst_p2 p;
            blst_p2_affine a;
            blst_p2_mult(&p, blst_p2_generator(), s.b, 255);
            blst_p2_to_affine(&a, &p);
            memcpy(want, &a, 192); /* infinity is all zeros in blst too */
        } else {
            blst_p1 p;
            blst_p1_affine a;
            blst_p1_mult(&p, blst_p1_generator(), s.b, 255);
            blst_p1_to_affine(&a, &p);
            memcpy(want, &a, 96);
        }
        if (memcmp(out + i * pb, want, pb) != 0)
            pl_test_fail(__FILE__, __LINE__, "G%d, window %u, %u threads: "
                         "product %zu differs from blst", g2 ? 2 : 1, w,
                         threads, i);
    }
    pl__fixed_base_destroy(fb);
    pl__pool_destroy(pool);
    free(out);
    free(scalars);
}

PL_TEST(fixed_base_matches_blst)
{
    static const unsigned windows[] = {1, 4, 8, 11};
    for (size_t i = 0; i < sizeof(windows) / sizeof(windows[0]); i++) {
        check_fixed_base(false, windows[i], 1 + (unsigned)i % 3);
        check_fixed_base(true, windows[i], 1 + (unsigned)(i + 1) % 3);
    }
}

/* BN254's tables: products against pl__bn254_gX_mul of the generator, 300
 * scalars with zeros, 1, r - 1 and random values below r. */
static void check_fixed_base_bn254(bool g2, unsigned w, unsigned threads)
{
    pl_error err = {0};
    enum { N = 300 };
    const pl__bn254_arith v = pl__bn254_arith_current();
    const size_t pb = g2 ? 128 : 64;
    pl__bn254_fr *scalars = malloc(N * sizeof(*scalars));
    uint8_t *out = malloc(N * pb);
    CHECK(scalars && out);
    uint64_t rng = 0xb2540000u + w * 31 + g2;
    for (size_t i = 0; i < N; i++) {
        uint8_t le[32];
        pl_test_random_bytes(&rng, le, 32);
        le[31] &= 0x1f; /* below r (r > 2^253) */
        if (i % 97 == 3)
            memset(le, 0, 32);
        if (i == 1) {
            memset(le, 0, 32);
            le[0] = 1;
        }
        if (i == 2) { /* r - 1 */
            memcpy(le, pl__bn254_r_le, 32);
            le[0] -= 1; /* r is odd */
        }
        CHECK(pl__bn254_fr_from_le(&scalars[i], le));
    }
    pl__pool *pool;
    CHECK_OK(pl__pool_create(&pool, threads, "pl-test", &err), &err);
    pl__fixed_base *fb;
    CHECK_OK(pl__fixed_base_create_curve(&fb, PL__CURVE_BN254, g2, w,
                                         pl__pool_size(pool), &err), &err);
    CHECK_EQ(pl__fixed_base_point_bytes(fb), pb);
    pl__fixed_base_mul(fb, out, scalars, N, pool);
    for (size_t i = 0; i < N; i++) {
        uint8_t le[32];
        uint64_t k[4];
        uint8_t want[128];
        pl__bn254_fr_to_le(le, &scalars[i]);
        memcpy(k, le, 32); /* little-endian limbs */
        if (g2) {
            pl__bn254_g2 p;
            pl__bn254_g2_affine a;
            pl__bn254_g2_from_affine(&p, &pl__bn254_g2_generator);
            pl__bn254_g2_mul(&p, &p, k, v);
            pl__bn254_g2_to_affine(&a, &p, v);
            memcpy(want, &a, 128);
        } else {
            pl__bn254_g1 p;
            pl__bn254_g1_affine a;
            pl__bn254_g1_from_affine(&p, &pl__bn254_g1_generator);
            pl__bn254_g1_mul(&p, &p, k, v);
            pl__bn254_g1_to_affine(&a, &p, v);
            memcpy(want, &a, 64);
        }
        if (memcmp(out + i * pb, want, pb) != 0)
            pl_test_fail(__FILE__, __LINE__, "BN254 G%d, window %u, %u "
                         "threads: product %zu differs", g2 ? 2 : 1, w,
                         threads, i);
    }
    pl__fixed_base_destroy(fb);
    pl__pool_destroy(pool);
    free(out);
    free(scalars);
}

PL_TEST(fixed_base_bn254_matches_mul)
{
    static const unsigned windows[] = {1, 5, 8};
    for (size_t i = 0; i < sizeof(windows) / sizeof(windows[0]); i++) {
        check_fixed_base_bn254(false, windows[i], 1 + (unsigned)i % 3);
        check_fixed_base_bn254(true, windows[i], 1 + (unsigned)(i + 1) % 3);
    }
}

PL_TEST(fixed_base_window_choice)
{
    /* few products: a small table; many: the widest cache-sized window */
    CHECK_EQ(pl__fixed_base_window(1), 4);
    CHECK(pl__fixed_base_window(1000) < pl__fixed_base_window(1u << 20));
    CHECK_EQ(pl__fixed_base_window((uint64_t)1 << 30), 11);
}

/* ---- the setup ----------------------------------------------------------- */

/* The section table of a zkey read into memory. */
static void parse_zkey(pl__container *c, const uint8_t *data, size_t len,
                       const char *path)
{
    pl_error err = {0};
    const pl__mapped m = {.data = data, .size = len};
    CHECK_OK(pl__container_parse(c, &m, path, "zkey", &err), &err);
}

static void g1_from(blst_p1_affine *out, const uint8_t *p)
{
    memcpy(out, p, sizeof(*out)); /* zkey encoding = blst's affine limbs */
}

/* Section 10 of a key we wrote: the zero csHash, then exactly one
 * contribution record (snarkjs zkey_utils.js readContribution) of type 0
 * whose only parameter is a name containing TOXIC WASTE KNOWN; its
 * deltaAfter is the header's delta_1, its points lie in their groups, and
 * g1_sx = delta g1_s (e(g1_s, delta_2) = e(g1_sx, g2)). */
static void check_contribution(const uint8_t *file, const pl__container *c,
                               const char *path)
{
    const uint8_t *p = file + c->offset[10], *end = p + c->size[10];
    /* header: n8q, q, n8r, r, nVars, nPublic, domainSize; alpha_1, beta_1,
     * beta_2, gamma_2, then delta_1 and delta_2 */
    const uint8_t *hdr = file + c->offset[2];
    const uint8_t *delta1 = hdr + 100 + 2 * 96 + 2 * 192, *delta2 =
        delta1 + 96;
    const size_t fixed = 64 + 4 + 3 * 96 + 192 + 64 + 4 + 4;
    if (c->size[10] < fixed + 2)
        pl_test_fail(__FILE__, __LINE__, "%s: section 10 has %llu bytes",
                     path, (unsigned long long)c->size[10]);
    static const uint8_t zero[64];
    CHECK_MEM(p, zero, 64); /* csHash, as the reference */
    p += 64;
    CHECK_EQ(pl__le32(p), 1); /* nContributions */
    p += 4;
    const uint8_t *delta_after = p, *g1_s = p + 96, *g1_sx = p + 192,
                  *g2_spx = p + 288;
    p += 3 * 96 + 192 + 64; /* the points, the transcript */
    CHECK_MEM(delta_after, delta1, 96);
    blst_p1_affine s, sx, d_after;
    blst_p2_affine spx, d2;
    g1_from(&s, g1_s);
    g1_from(&sx, g1_sx);
    g1_from(&d_after, delta_after);
    memcpy(&spx, g2_spx, sizeof(spx));
    memcpy(&d2, delta2, sizeof(d2));
    CHECK(blst_p1_affine_in_g1(&s) && !blst_p1_affine_is_inf(&s));
    CHECK(blst_p1_affine_in_g1(&sx) && blst_p1_affine_in_g1(&d_after));
    CHECK(blst_p2_affine_in_g2(&spx) && !blst_p2_affine_is_inf(&spx));
    blst_fp12 lhs, rhs;
    blst_miller_loop(&lhs, &d2, &s);
    blst_miller_loop(&rhs, blst_p2_affine_generator(), &sx);
    CHECK(blst_fp12_finalverify(&lhs, &rhs));
    CHECK_EQ(pl__le32(p), 0); /* type: contribution, not beacon */
    p += 4;
    uint32_t params = pl__le32(p);
    p += 4;
    CHECK_EQ((uint64_t)params, (uint64_t)(end - p));
    CHECK_EQ(p[0], 1); /* the name, the only parameter */
    CHECK_EQ((uint32_t)p[1] + 2, params);
    CHECK(p[1] <= 64); /* snarkjs keeps 64 bytes of a name */
    char name[256];
    memcpy(name, p + 2, p[1]);
    name[p[1]] = 0;
    if (!strstr(name, "TOXIC WASTE KNOWN"))
        pl_test_fail(__FILE__, __LINE__, "%s: the contribution is named "
                     "'%s'", path, name);
}

/* Sections 1-9 as in the reference, at the same offsets (so every byte
 * before section 10 is the same); section 10 our contribution record where
 * the reference has a zero csHash and no contributions. */
static void check_as_reference(const char *ours, const char *ref)
{
    size_t a_len, b_len;
    uint8_t *a = pl_test_read_file(ours, &a_len), *b = pl_test_read_file(ref, &b_len);
    pl__container ca, cb;
    parse_zkey(&ca, a, a_len, ours);
    parse_zkey(&cb, b, b_len, ref);
    CHECK_EQ(ca.version, cb.version);
    CHECK_EQ(ca.n_sections, cb.n_sections);
    CHECK_EQ(ca.n_sections, 10);
    for (unsigned id = 1; id <= 9; id++) {
        if (ca.offset[id] != cb.offset[id] || ca.size[id] != cb.size[id])
            pl_test_fail(__FILE__, __LINE__, "section %u: %s has %llu bytes "
                         "at %llu, %s %llu at %llu", id, ours,
                         (unsigned long long)ca.size[id],
                         (unsigned long long)ca.offset[id], ref,
                         (unsigned long long)cb.size[id],
                         (unsigned long long)cb.offset[id]);
        const uint8_t *x = a + ca.offset[id], *y = b + cb.offset[id];
        for (uint64_t i = 0; i < ca.size[id]; i++)
            if (x[i] != y[i])
                pl_test_fail(__FILE__, __LINE__, "section %u: %s and %s "
                             "differ at its byte %llu", id, ours, ref,
                             (unsigned long long)i);
    }
    CHECK_EQ(cb.size[10], 68); /* the reference: no contributions */
    CHECK(ca.offset[10] > ca.offset[9]);
    CHECK_EQ(ca.offset[10] + ca.size[10], (uint64_t)a_len);
    check_contribution(a, &ca, ours);
    free(a);
    free(b);
}

PL_TEST(sections_as_reference)
{
    static const char *const names[] = {"multiplier", "noB", "nopublic"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        char r1cs[256], ref[256], out[512];
        snprintf(r1cs, sizeof(r1cs), "%s/circuit.r1cs", names[i]);
        snprintf(ref, sizeof(ref), "%s",
                 pl_test_vector("setup/"));
        snprintf(ref + strlen(ref), sizeof(ref) - strlen(ref),
                 "%s_seed_test.zkey", names[i]);
        for (unsigned threads = 1; threads <= 3; threads += 2) {
            snprintf(out, sizeof(out), "%s", pl_test_tmp("setup_ref.zkey"));
            setup(r1cs, out, "proofline-test", threads);
            check_as_reference(out, ref);
            unlink(out);
        }
    }
}

/* The record is the seed's: another seed gives other points, the same
 * name. */
PL_TEST(contribution_follows_seed)
{
    char a[512], b[512];
    snprintf(a, sizeof(a), "%s", pl_test_tmp("setup_mpc_a.zkey"));
    snprintf(b, sizeof(b), "%s", pl_test_tmp("setup_mpc_b.zkey"));
    setup("chain10/circuit.r1cs", a, "proofline-test", 2);
    setup("chain10/circuit.r1cs", b, NULL, 2);
    size_t a_len, b_len;
    uint8_t *x = pl_test_read_file(a, &a_len), *y = pl_test_read_file(b, &b_len);
    pl__container ca, cb;
    parse_zkey(&ca, x, a_len, a);
    parse_zkey(&cb, y, b_len, b);
    check_contribution(x, &ca, a);
    check_contribution(y, &cb, b);
    CHECK_EQ(ca.size[10], cb.size[10]);
    const uint8_t *ma = x + ca.offset[10], *mb = y + cb.offset[10];
    /* points and transcript differ; type, params and name do not */
    const size_t points = 68, tail = 68 + 3 * 96 + 192 + 64;
    CHECK(memcmp(ma + points, mb + points, tail - points) != 0);
    CHECK_MEM(ma + tail, mb + tail, ca.size[10] - tail);
    free(x);
    free(y);
    unlink(a);
    unlink(b);
}

PL_TEST(threads_do_not_change_bytes)
{
    char one[512], four[512];
    snprintf(one, sizeof(one), "%s", pl_test_tmp("setup_t1.zkey"));
    snprintf(four, sizeof(four), "%s", pl_test_tmp("setup_t4.zkey"));
    setup("chain10/circuit.r1cs", one, NULL, 1);
    setup("chain10/circuit.r1cs", four, NULL, 4);
    check_same_file(one, four);
    unlink(one);
    unlink(four);
}

PL_TEST(seed_changes_key)
{
    char a[512], b[512];
    snprintf(a, sizeof(a), "%s", pl_test_tmp("setup_seed_a.zkey"));
    snprintf(b, sizeof(b), "%s", pl_test_tmp("setup_seed_b.zkey"));
    setup("multiplier/circuit.r1cs", a, "proofline-test", 1);
    setup("multiplier/circuit.r1cs", b, "proofline-test2", 1);
    size_t a_len, b_len;
    uint8_t *x = pl_test_read_file(a, &a_len), *y = pl_test_read_file(b, &b_len);
    CHECK_EQ(a_len, b_len);
    CHECK(memcmp(x, y, a_len) != 0);
    free(x);
    free(y);
    unlink(a);
    unlink(b);
}

/* A key we wrote opens, matches its r1cs, and gives proofs that verify. */
static void prove_and_verify(const char *vector, unsigned threads)
{
    pl_error err = {0};
    char path[512], out[512];
    snprintf(out, sizeof(out), "%s", pl_test_tmp("setup_prove.zkey"));
    snprintf(path, sizeof(path), "%s/circuit.r1cs", vector);
    setup(path, out, NULL, threads);

    pl_zkey *zkey;
    pl_wtns *wtns;
    pl_r1cs *r1cs;
    pl_vkey *vkey;
    pl_prover *prover;
    pl_proof proof;
    CHECK_OK(pl_zkey_open(&zkey, out, &err), &err);
    CHECK_OK(pl_r1cs_open(&r1cs, pl_test_vector(path), &err), &err);
    CHECK_OK(pl_r1cs_matches_zkey(r1cs, zkey, &err), &err);
    CHECK_EQ((int)pl_zkey_curve(zkey), (int)r1cs->curve); /* the r1cs's */
    snprintf(path, sizeof(path), "%s/witness.wtns", vector);
    CHECK_OK(pl_wtns_open(&wtns, pl_test_vector(path), &err), &err);
    CHECK_OK(pl_vkey_from_zkey(&vkey, zkey, &err), &err);
    pl_prover_config cfg;
    pl_prover_config_init(&cfg);
    cfg.threads = threads;
    CHECK_OK(pl_prover_create(&prover, zkey, &cfg, &err), &err);
    CHECK_OK(pl_prove(prover, &proof, wtns, &err), &err);
    pl_zkey_info info;
    pl_zkey_get_info(zkey, &info);
    const pl_scalar *publics = pl_wtns_values(wtns) + 1;
    CHECK_OK(pl_verify(vkey, &proof, publics, info.n_public, &err), &err);
    /* and a wrong public input is refused */
    if (info.n_public) {
        pl_scalar *bad = malloc(info.n_public * sizeof(pl_scalar));
        CHECK(bad);
        memcpy(bad, publics, info.n_public * sizeof(pl_scalar));
        bad[0].b[0] ^= 1;
        CHECK_STATUS(pl_verify(vkey, &proof, bad, info.n_public, &err),
                     PL_EINVALID, &err);
        free(bad);
    }
    pl_prover_destroy(prover);
    pl_vkey_destroy(vkey);
    pl_wtns_close(wtns);
    pl_r1cs_close(r1cs);
    pl_zkey_close(zkey);
    unlink(out);
}

PL_TEST(prove_verify_multiplier) { prove_and_verify("multiplier", 1); }
PL_TEST(prove_verify_chain10) { prove_and_verify("chain10", 2); }
/* BN254 (bn128 r1cs files): the key is the r1cs's curve's */
PL_TEST(prove_verify_bn254_chain10) { prove_and_verify("bn254/chain10", 2); }
PL_TEST(prove_verify_bn254_nob) { prove_and_verify("bn254/noB", 1); }

PL_TEST(errors_leave_no_file)
{
    pl_error err = {0};
    char out[512];
    snprintf(out, sizeof(out), "%s", pl_test_tmp("setup_err.zkey"));
    CHECK_STATUS(pl_setup_dev(pl_test_vector("no/such.r1cs"), out, NULL, &err),
                 PL_EIO, &err);
    check_no_file("setup_err.zkey");
    /* an r1cs that is not one */
    CHECK_STATUS(pl_setup_dev(pl_test_vector("multiplier/circuit.zkey"), out,
                              NULL, &err), PL_EFORMAT, &err);
    check_no_file("setup_err.zkey");
    /* a target folder that does not exist */
    char missing[600];
    snprintf(missing, sizeof(missing), "%s", pl_test_tmp("no_such_dir/k.zkey"));
    CHECK_STATUS(pl_setup_dev(pl_test_vector("multiplier/circuit.r1cs"),
                              missing, NULL, &err), PL_EIO, &err);
    CHECK(strstr(err.msg, "no_such_dir") != NULL);
}

static void every_allocation_failure_of(const char *vector)
{
    pl_error err = {0};
    char out[512], r1cs[4096];
    snprintf(out, sizeof(out), "%s", pl_test_tmp("setup_fault.zkey"));
    pl_setup_config cfg;
    pl_setup_config_init(&cfg);
    cfg.threads = 2;
    snprintf(r1cs, sizeof(r1cs), "%s", pl_test_vector(vector));
    pl__alloc_fail_at(0);
    CHECK_OK(pl_setup_dev(r1cs, out, &cfg, &err), &err);
    uint64_t total = pl__alloc_fail_at(0);
    CHECK(total >= 4);
    unlink(out);
    for (uint64_t k = 1; k <= total; k++) {
        pl__alloc_fail_at(k);
        pl_status st = pl_setup_dev(r1cs, out, &cfg, &err);
        pl__alloc_fail_at(0);
        if (st != PL_ENOMEM)
            pl_test_fail(__FILE__, __LINE__, "failing allocation %llu of "
                         "%llu gave %s", (unsigned long long)k,
                         (unsigned long long)total, pl_strerror(st));
        if (!pl_alloc_all_freed(&err))
            pl_test_fail(__FILE__, __LINE__, "failing allocation %llu: %s",
                         (unsigned long long)k, err.msg);
        check_no_file("setup_fault.zkey");
    }
}

PL_TEST(every_allocation_failure)
{
    every_allocation_failure_of("chain10/circuit.r1cs");
    every_allocation_failure_of("bn254/chain10/circuit.r1cs"); /* BN254's */
}
