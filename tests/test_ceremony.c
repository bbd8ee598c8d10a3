/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The trusted setup (src/ceremony, include/proofline_ceremony.h) on our
 * side; tests/cli_ceremony.sh runs the same steps against snarkjs.
 *  - BLAKE2b-512 against RFC 7693's vector and node's crypto 'blake2b512'
 *    (digests computed once with node 20 and written below), in pieces of
 *    every size, and its partialHash record resuming a hash;
 *  - ChaCha20's block against RFC 8439's;
 *  - prepare's Lagrange points against a naive inverse DFT of the powers;
 *  - the batched products (variable-time, GLV with each curve's
 *    endomorphism; constant-time for secrets) against double-and-add, on
 *    both curves' groups and both BN254 field implementations;
 *  - a whole ceremony (new, two contributions, beacon, prepare; zkey new,
 *    a contribution, a beacon) verified, then a tampered contribution, a
 *    swapped section and a truncated file refused with their reasons; the
 *    same ceremony on bn128;
 *  - the budget: refused before any work when too small, never passed;
 *  - every accounted allocation failed in turn: an error, no leak, no
 *    output left; an output over an input refused.
 * Powers are tiny (2^3 to 2^5) so each case takes a fraction of a second.
 */
#include "harness.h"
#include "ceremony/ceremony.h"
#include "formats/formats.h"
#include "field/field.h"
#include "field/bn254/fp.h"
#include "util/alloc.h"
#include "blst.h"

#include <dirent.h>
#include <unistd.h>

/* ---- helpers ------------------------------------------------------------------- */

static void hex_to(uint8_t *out, const char *hex)
{
    for (size_t i = 0; hex[2 * i]; i++) {
        unsigned v;
        sscanf(hex + 2 * i, "%2x", &v);
        out[i] = (uint8_t)v;
    }
}

static void fill_pattern(uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (uint8_t)(i * 7 + 3);
}

static const char *tmp(const char *name)
{
    static char buf[8][1024];
    static unsigned k;
    char *p = buf[k++ % 8];
    snprintf(p, 1024, "%s", pl_test_tmp(name));
    return p;
}

static pl_ceremony_config quiet_cfg(void)
{
    pl_ceremony_config cfg;
    pl_ceremony_config_init(&cfg);
    cfg.threads = 2;
    return cfg;
}

static void check_no_file(const char *name)
{
    DIR *d = opendir(pl_test_tmp(""));
    CHECK(d);
    struct dirent *e;
    while ((e = readdir(d)))
        if (strncmp(e->d_name, name, strlen(name)) == 0)
            pl_test_fail(__FILE__, __LINE__, "%s was left behind", e->d_name);
    closedir(d);
}

/* file `name` of this test's files (ctest may run cases side by side) */
static const char *own(const char *prefix, const char *name)
{
    char n[256];
    snprintf(n, sizeof(n), "%s_%s", prefix, name);
    return tmp(n);
}

/* a ceremony of `power` as prefix_{0,1,2,3}.ptau: new, two contributions,
 * a beacon; prepared into prefix_final.ptau */
static void make_ptau_on(const char *curve, unsigned power,
                        const char *prefix)
{
    pl_error err = {0};
    pl_ceremony_config cfg = quiet_cfg();
    const char *p0 = own(prefix, "0.ptau"), *p1 = own(prefix, "1.ptau");
    const char *p2 = own(prefix, "2.ptau"), *p3 = own(prefix, "3.ptau");
    CHECK_OK(pl_ptau_new(curve, power, p0, &cfg, &err), &err);
    CHECK_OK(pl_ptau_contribute(p0, p1, "first", "some entropy", &cfg, &err),
             &err);
    CHECK_OK(pl_ptau_contribute(p1, p2, "second", "more entropy", &cfg, &err),
             &err);
    CHECK_OK(pl_ptau_beacon(p2, p3, "the beacon", "0102030405060708", 10, &cfg,
                            &err), &err);
    CHECK_OK(pl_ptau_prepare(p3, own(prefix, "final.ptau"), &cfg, &err),
             &err);
    unlink(p0);
    unlink(p1);
    unlink(p2);
}

static void make_ptau(unsigned power, const char *prefix)
{
    make_ptau_on("bls12381", power, prefix);
}

/* ---- hashes and streams ------------------------------------------------------- */

PL_TEST(blake2b_rfc7693_and_node)
{
    static const struct {
        size_t n;
        const char *hex;
    } node[] = {
        {0, "786a02f742015903c6c6fd852552d272912f4740e15847618a86e217f71f5419"
            "d25e1031afee585313896444934eb04b903a685b1448b755d56f701afe9be2ce"},
        {1, "4fe4da61bcc756071b226843361d74944c72245d23e8245ea678c13fdcd7fe2a"
            "e529cf999ad99cc24f7a73416a18ba53e76c0afef83b16a568b12fbfc1a2674d"},
        {127, "71546bbf9110ad184cc60f2eb120fcfd9b4dbbca7a7f1270045b8a23a6a4f433"
              "0f65c1f030dd2f5fabc6c57617242c37cf427bd90407fac5b9deffd3ae888c39"},
        {128, "2d9e329f42afa3601d646692b81c13e87fcaff5bf15972e9813d7373cb6d181f"
              "9599f4d513d4af4fd6ebd37497aceb29aba5ee23ed764d8510b552bd088814fb"},
        {129, "47889df9eb4d717afc5019df5c6a83df00a0b8677395e078cd5778ace0f338a6"
              "18e68b7d9afb065d9e6a01ccd31d109447e7fae771c3ee3e105709194122ba2b"},
        {256, "91019c558584980249ca43eceed27e19f1c3c24161b93eed1eee2a6a774f60bf"
              "8a81b43750870bee1698feac9c5336ae4d5c842e7ead159bf3916387e8ded9ae"},
        {257, "9f1975efca45e7b74b020975d4d2c22802906ed8bfefca51ac497bd23147fc8f"
              "303890d8e5471ab6caaa02362e831a9e8d3435279912ccd4842c7806b096c348"},
        {1000, "4bdd2c9cf31d797a81d245c989ffb7515143ca345c66f73087dd5c58bf642bf0"
               "83ba16894eab79e3b08d5126404d833e7510271b50be36a7b7cbbb46f5c89fac"},
        {4103, "dd016ba3d350d6b3a1e8fcdb7a004d9eb524d6d1951d40746f67a5619cbdb23a"
               "2c739fe367f628a621bb78fc4c72738afcfb5afc1f837843716b9564827c0ba9"},
    };
    uint8_t want[64], got[64];
    /* RFC 7693 appendix A */
    hex_to(want, "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1"
                 "7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923");
    pl__blake2b_digest(got, "abc", 3);
    CHECK_MEM(got, want, 64);
    uint8_t *data = malloc(4103);
    fill_pattern(data, 4103);
    static const size_t pieces[] = {1, 7, 64, 127, 128, 129, 1000, 5000};
    for (size_t v = 0; v < sizeof(node) / sizeof(node[0]); v++) {
        hex_to(want, node[v].hex);
        for (size_t p = 0; p < sizeof(pieces) / sizeof(pieces[0]); p++) {
            pl__blake2b h;
            pl__blake2b_init(&h);
            for (size_t at = 0; at < node[v].n; at += pieces[p])
                pl__blake2b_update(&h, data + at,
                                   node[v].n - at < pieces[p] ? node[v].n - at
                                                              : pieces[p]);
            pl__blake2b_final(&h, got);
            if (memcmp(got, want, 64) != 0)
                pl_test_fail(__FILE__, __LINE__, "blake2b of %zu bytes in "
                             "pieces of %zu is not node's", node[v].n,
                             pieces[p]);
        }
    }
    free(data);
}

PL_TEST(blake2b_partial_record_resumes)
{
    /* the record taken after any prefix continues to the same digest */
    uint8_t data[1200], want[64], got[64], rec[PL__BLAKE2B_PARTIAL_BYTES];
    fill_pattern(data, sizeof(data));
    pl__blake2b_digest(want, data, sizeof(data));
    for (size_t cut = 0; cut <= sizeof(data); cut += 37) {
        pl__blake2b h, g;
        pl__blake2b_init(&h);
        pl__blake2b_update(&h, data, cut);
        pl__blake2b_export(rec, &h);
        pl__blake2b_import(&g, rec);
        pl__blake2b_update(&g, data + cut, sizeof(data) - cut);
        pl__blake2b_final(&g, got);
        CHECK_MEM(got, want, 64);
    }
}

PL_TEST(chacha_rfc8439_block)
{
    /* RFC 8439 2.3.2: key 00..1f, counter 1, nonce 00000009 0000004a 0 */
    uint32_t key[8];
    for (unsigned i = 0; i < 8; i++)
        key[i] = (uint32_t)(4 * i) | (uint32_t)(4 * i + 1) << 8 |
                 (uint32_t)(4 * i + 2) << 16 | (uint32_t)(4 * i + 3) << 24;
    pl__chacha c;
    pl__chacha_init(&c, key);
    c.state[12] = 1;
    c.state[13] = 0x09000000;
    c.state[14] = 0x4a000000;
    c.state[15] = 0;
    static const uint32_t want[16] = {
        0xe4e7f110, 0x15593bd1, 0x1fdd0f50, 0xc47120a3, 0xc7f4d1c7, 0x0368c033,
        0x9aaa2204, 0x4e6cd4c3, 0x466482d2, 0x09aa9f07, 0x05d7c214, 0xa2028bd9,
        0xd19c12b5, 0xb94e16de, 0xe883d0cb, 0x4e3c50a2};
    for (unsigned i = 0; i < 16; i++)
        CHECK_EQ(pl__chacha_u32(&c), want[i]);
    /* the 64-bit draw is the first word times 2^32 plus the second */
    pl__chacha a, b;
    pl__chacha_init(&a, key);
    pl__chacha_init(&b, key);
    uint64_t hi = pl__chacha_u32(&a);
    uint64_t lo = pl__chacha_u32(&a);
    CHECK_EQ(pl__chacha_u64(&b), hi << 32 | lo);
}

PL_TEST(names_and_beacon_hashes)
{
    uint8_t out[256];
    char name[300];
    memset(name, 'a', 70);
    /* ASCII: the first 64 characters */
    CHECK_EQ(pl__cer_name_bytes(out, (const uint8_t *)name, 70), 64);
    /* two-byte characters count one unit each */
    size_t o = 0;
    for (unsigned i = 0; i < 70; i++) {
        name[o++] = (char)0xc3;
        name[o++] = (char)0xa9; /* é */
    }
    CHECK_EQ(pl__cer_name_bytes(out, (const uint8_t *)name, o), 128);
    /* an astral character is two units: one that would straddle unit 64
     * leaves a lone surrogate, which TextEncoder writes as U+FFFD */
    memset(name, 'a', 63);
    memcpy(name + 63, "\xf0\x9f\x98\x80", 4);
    CHECK_EQ(pl__cer_name_bytes(out, (const uint8_t *)name, 67), 66);
    CHECK_MEM(out + 63, "\xef\xbf\xbd", 3);
    /* a malformed byte reads as U+FFFD */
    CHECK_EQ(pl__cer_name_bytes(out, (const uint8_t *)"a\xff" "b", 3), 5);
    uint8_t h[255];
    size_t len;
    CHECK(pl__cer_hex(h, &len, 255, "0aFf"));
    CHECK_EQ(len, 2);
    CHECK_EQ(h[1], 0xff);
    CHECK(!pl__cer_hex(h, &len, 255, ""));
    CHECK(!pl__cer_hex(h, &len, 255, "abc"));
    CHECK(!pl__cer_hex(h, &len, 255, "0x01"));
    CHECK(!pl__cer_hex(h, &len, 255, "zz"));
    pl_error err = {0};
    pl__cer_kind k;
    CHECK_STATUS(pl__cer_kind_beacon(&k, "t", NULL, "01", 9, &err), PL_EUSAGE,
                 &err);
    CHECK_STATUS(pl__cer_kind_beacon(&k, "t", NULL, "01", 64, &err),
                 PL_EUSAGE, &err);
    CHECK_STATUS(pl__cer_kind_beacon(&k, "t", NULL, "0x01", 10, &err),
                 PL_EUSAGE, &err);
    CHECK_OK(pl__cer_kind_beacon(&k, "t", "n", "01", 10, &err), &err);
    CHECK_EQ(k.hash_len, 1);
    CHECK_STATUS(pl__cer_kind_contribution(&k, "t", NULL, "", &err), PL_EUSAGE,
                 &err);
}

/* snarkjs's G1.sub of bytes that are not a point (y above q): what its
 * WebAssembly gives (ffjavascript 0.3.1, node 20), for zkey new's hash */
PL_TEST(wasm_subtraction_of_non_points)
{
    static const char *const a_hex =
        "030000000000600000000000100a9402a28ff2f51a96b48726fbf5b380e52a3e"
        "b593a8a1e9ae3c1a9d9994986b36631863b7676fd7bc50439291810506f6239e"
        "75c0a9a5c360cdbc9dc5a0aa067886e2187eb13b67b34185ccb61a1b478515f2";
    static const struct {
        const char *b, *u;
    } v[] = {
        {"160c53fd9087b35cf5ff769967fc1778c1a13b14c7954f1547e7d0f3cd6aaef0"
         "40f4db21cc6eceed75fb0b9e417701127122e70cd593acba8efd18791a63228c"
         "ce250757135f59dd945140502958ac51c05900ad3f8c1c0e6aa20850fc3ebc0b",
         "078c45b954450b00a9bd22bfde42cff1beea5af8b36734a36299704a86b32c2e"
         "d657b77a6b70906f39d1d4bf4a5e67000f51204183ad2694d8db149f44be7005"
         "5e5c9e8cefe56a47ab55e2aa6f7f4ec805a87357f5cd5cdb7d58507674994f1c"},
        {"3cbaa958ce78e953f9653d4f3c58a03e602901f047bb204dd9b5b2e54a664ca5"
         "1fb27e9da352b5268587e6265d89080040392998320b1170fc6a1f3f39c533da"
         "85a75a6ad1df6eb895c8b1e7c9d1c6ae2017d122b5c2cf25159bd0f8831c3606",
         "01648f969f5f2258127de05f15bde16e08f13b5647e7a9984b57d3a5e3e82616"
         "0675b7dc7f7a638af7d71a3b0eaea86f054b83bb0fe2232972753219609c89c5"
         "409f1cd575445de1919cda6ac5fbca4693436229c0ddee72cb2252f21c332ae7"},
    };
    const pl__cer_curve *c = &pl__cer_bls12381;
    uint8_t a[96], b[96], want[96], got[96], aff[96], xyz[144];
    _Alignas(64) uint8_t j[PL__CER_MAX_JAC];
    hex_to(a, a_hex);
    for (size_t i = 0; i < 2; i++) {
        hex_to(b, v[i].b);
        hex_to(want, v[i].u);
        pl__cer_wasm_sub_affine(c, xyz, a, b);
        c->g[0].from_jac_le(j, xyz);
        c->g[0].to_aff(aff, j);
        c->g[0].to_u(got, aff);
        CHECK_MEM(got, want, 96);
    }
}

/* ---- prepare against a naive inverse DFT -------------------------------------- */

PL_TEST(prepare_matches_naive_lagrange)
{
    make_ptau(3, "cer_naive");
    pl_error err = {0};
    pl__ptau p;
    CHECK_OK(pl__ptau_open(&p, own("cer_naive", "final.ptau"), &err), &err);
    CHECK(p.prepared);
    for (unsigned src = 2; src <= 5; src++) {
        const bool g2 = src == 3;
        const unsigned top = src == 2 ? p.power + 1 : p.power;
        uint64_t start = 0;
        for (unsigned lv = 0; lv <= top; lv++) {
            const size_t n = (size_t)1 << lv;
            blst_fr w, winv, ninv, e;
            pl__fr_root_of_unity(&w, lv);
            blst_fr_inverse(&winv, &w);
            const uint64_t nn[4] = {n, 0, 0, 0};
            blst_fr_from_uint64(&ninv, nn);
            blst_fr_inverse(&ninv, &ninv);
            for (size_t i = 0; i < n; i++) {
                blst_p1 acc1;
                blst_p2 acc2;
                memset(&acc1, 0, sizeof(acc1));
                memset(&acc2, 0, sizeof(acc2));
                for (size_t j = 0; j < n; j++) {
                    if (src == 2 && lv == p.power + 1 && j == n - 1)
                        continue; /* the missing power: infinity */
                    pl__fr_pow(&e, &winv, (uint64_t)(i * j % n));
                    blst_fr_mul(&e, &e, &ninv);
                    blst_scalar s;
                    blst_scalar_from_fr(&s, &e);
                    const uint8_t *pt = pl__ptau_point(&p, src, j);
                    if (g2) {
                        blst_p2_affine a;
                        blst_p2 t;
                        memcpy(&a, pt, sizeof(a));
                        blst_p2_from_affine(&t, &a);
                        blst_p2_mult(&t, &t, s.b, 255);
                        blst_p2_add_or_double(&acc2, &acc2, &t);
                    } else {
                        blst_p1_affine a;
                        blst_p1 t;
                        memcpy(&a, pt, sizeof(a));
                        blst_p1_from_affine(&t, &a);
                        blst_p1_mult(&t, &t, s.b, 255);
                        blst_p1_add_or_double(&acc1, &acc1, &t);
                    }
                }
                const uint8_t *got = pl__ptau_point(&p, src + 10, start + i);
                uint8_t want[192];
                if (g2) {
                    blst_p2_affine a;
                    blst_p2_to_affine(&a, &acc2);
                    memcpy(want, &a, 192);
                } else {
                    blst_p1_affine a;
                    blst_p1_to_affine(&a, &acc1);
                    memcpy(want, &a, 96);
                }
                if (memcmp(got, want, g2 ? 192 : 96) != 0)
                    pl_test_fail(__FILE__, __LINE__, "section %u level %u "
                                 "point %zu is not the naive one", src + 10,
                                 lv, i);
            }
            start += n;
        }
    }
    pl__ptau_close(&p);
}

/* ---- the batched products -------------------------------------------------------- */

/* n points k_i G and scalars: edges (0, 1, 2, r - 1, (r - 1) / 2,
 * (r + 1) / 2) and a pattern; mul_batch public and secret against mul_int
 * (double and add over the canonical bytes), and mul against both. */
static void products_agree(const pl__cer_curve *c, const pl__cer_group *g)
{
    enum { N = 24 };
    uint8_t *pts = malloc(N * g->aff_bytes), *out = malloc(N * g->aff_bytes);
    uint8_t *out2 = malloc(N * g->aff_bytes);
    pl__cer_fr s[N];
    uint8_t le[32], want[PL__CER_MAX_AFF], got[PL__CER_MAX_AFF];
    _Alignas(64) uint8_t j[PL__CER_MAX_JAC], gen[PL__CER_MAX_JAC];
    size_t scratch_bytes = g->mul_scratch_bytes(N);
    void *scratch = aligned_alloc(64, (scratch_bytes + 63) / 64 * 64);
    CHECK(pts && out && out2 && scratch);
    uint8_t aff[PL__CER_MAX_AFF];
    g->generator(aff);
    g->from_aff(gen, aff);
    for (size_t i = 0; i < N; i++) {
        const uint8_t k = (uint8_t)(3 + 7 * i);
        g->mul_int(j, gen, &k, 1);
        g->to_aff(pts + i * g->aff_bytes, j);
    }
    uint8_t half[32], r_minus_1[32];
    memcpy(r_minus_1, c->r_le, 32);
    r_minus_1[0]--;  /* r is odd */
    for (int i = 31, carry = 0; i >= 0; i--) { /* (r - 1) / 2 */
        half[i] = (uint8_t)((r_minus_1[i] >> 1) | (carry << 7));
        carry = r_minus_1[i] & 1;
    }
    for (size_t i = 0; i < N; i++) {
        memset(le, 0, 32);
        if (i < 3)
            le[0] = (uint8_t)i;
        else if (i == 3)
            memcpy(le, r_minus_1, 32);
        else if (i == 4 || i == 5) {
            memcpy(le, half, 32);
            le[0] = (uint8_t)(le[0] + (i == 5)); /* (r-1)/2 is even */
        } else {
            uint64_t x = 0x9e3779b97f4a7c15ull * (i + 1);
            for (unsigned b = 0; b < 32; b++) { /* xorshift bytes */
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                le[b] = (uint8_t)x;
            }
            le[31] &= 0x1f; /* below both r */
        }
        c->fr_from_le(&s[i], le);
    }
    g->mul_batch(out, pts, s, 1, N, false, scratch);
    g->mul_batch(out2, pts, s, 1, N, true, scratch);
    for (size_t i = 0; i < N; i++) {
        c->fr_to_le(le, &s[i]);
        g->from_aff(j, pts + i * g->aff_bytes);
        g->mul_int(j, j, le, 32);
        g->to_aff(want, j);
        if (memcmp(out + i * g->aff_bytes, want, g->aff_bytes) != 0 ||
            memcmp(out2 + i * g->aff_bytes, want, g->aff_bytes) != 0)
            pl_test_fail(__FILE__, __LINE__, "%s %s: product %zu differs "
                         "(public %d, secret %d)", c->name, g->name, i,
                         memcmp(out + i * g->aff_bytes, want, g->aff_bytes) != 0,
                         memcmp(out2 + i * g->aff_bytes, want, g->aff_bytes) != 0);
        g->from_aff(j, pts + i * g->aff_bytes);
        g->mul(j, j, &s[i]);
        g->to_aff(got, j);
        CHECK_MEM(got, want, g->aff_bytes);
    }
    /* one scalar for all (stride 0), in place */
    memcpy(out, pts, N * g->aff_bytes);
    g->mul_batch(out, out, &s[9], 0, N, false, scratch);
    c->fr_to_le(le, &s[9]);
    for (size_t i = 0; i < N; i++) {
        g->from_aff(j, pts + i * g->aff_bytes);
        g->mul_int(j, j, le, 32);
        g->to_aff(want, j);
        CHECK_MEM(out + i * g->aff_bytes, want, g->aff_bytes);
    }
    free(scratch);
    free(pts);
    free(out);
    free(out2);
}

PL_TEST(batch_products_agree)
{
    for (unsigned gi = 0; gi < 2; gi++)
        products_agree(&pl__cer_bls12381, &pl__cer_bls12381.g[gi]);
    const pl__bn254_arith best = pl__bn254_arith_best();
    for (unsigned v = 0; v <= (unsigned)best; v++) {
        pl__bn254_set_arith((pl__bn254_arith)v);
        for (unsigned gi = 0; gi < 2; gi++)
            products_agree(&pl__cer_bn128, &pl__cer_bn128.g[gi]);
    }
    pl__bn254_set_arith(best);
}

/* fft_stage2 (two stages at once, prepare.c's pairs on G1) writes what
 * fft_stage does at m then at 2m: every m of a 64-point transform, with
 * and without the scale (block 0's), the groups split over two calls at
 * an odd place, some points at infinity and two equal points; each
 * group of each curve (G2's too: it is in the table). */
static void stage2_agrees(const pl__cer_curve *c, const pl__cer_group *g)
{
    enum { N = 64, TOP = 7 };   /* twiddles of a 2^7 table, as prepare's */
    const size_t b = g->aff_bytes;
    uint8_t *pts = malloc(N * b), *want = malloc(N * b), *got = malloc(N * b);
    const size_t sb = g->stage_scratch_bytes(N / 2) > g->stage2_scratch_bytes(N / 4)
                          ? g->stage_scratch_bytes(N / 2)
                          : g->stage2_scratch_bytes(N / 4);
    void *scratch = aligned_alloc(64, (sb + 63) / 64 * 64);
    pl__cer_fr tw[(1u << TOP) / 2], w, scale;
    CHECK(pts && want && got && scratch);
    c->fr_root(&w, TOP);
    c->fr_inv(&w, &w);
    c->fr_from_u64(&tw[0], 1);
    for (size_t k = 1; k < (1u << TOP) / 2; k++)
        c->fr_mul(&tw[k], &tw[k - 1], &w);
    c->fr_from_u64(&scale, N);
    c->fr_inv(&scale, &scale);
    uint8_t j[PL__CER_MAX_JAC] __attribute__((aligned(64))),
        gen[PL__CER_MAX_JAC] __attribute__((aligned(64)));
    uint8_t aff[PL__CER_MAX_AFF];
    g->generator(aff);
    g->from_aff(gen, aff);
    for (unsigned m = 2; 4 * m <= N; m *= 2)
        for (unsigned scaled = 0; scaled < 2; scaled++) {
            for (size_t i = 0; i < N; i++) {
                const uint8_t k = (uint8_t)(5 + 11 * i + m);
                g->mul_int(j, gen, &k, 1);
                g->to_aff(pts + i * b, j);
            }
            memset(pts + 3 * m * b, 0, b);           /* d of group 0 */
            memset(pts + (N - 1) * b, 0, b);
            memcpy(pts + (m + 1) * b, pts + 1 * b, b); /* b = a in group 1 */
            const pl__cer_fr *sc = scaled ? &scale : NULL;
            const size_t stride = ((size_t)1 << TOP) / (2 * m);
            memcpy(want, pts, N * b);
            g->fft_stage(want, m, 0, N / 2, tw, stride, sc, scratch);
            g->fft_stage(want, 2 * m, 0, N / 2, tw, stride / 2, sc, scratch);
            memcpy(got, pts, N * b);
            g->fft_stage2(got, m, 0, 3, tw, stride, sc, scratch);
            g->fft_stage2(got, m, 3, N / 4, tw, stride, sc, scratch);
            for (size_t i = 0; i < N; i++)
                if (memcmp(got + i * b, want + i * b, b) != 0) {
                    pl_test_fail(__FILE__, __LINE__, "%s %s: m %u scaled %u: "
                                 "point %zu differs", c->name, g->name, m,
                                 scaled, i);
                    break;
                }
        }
    free(scratch);
    free(pts);
    free(want);
    free(got);
}

PL_TEST(stage_pairs_agree)
{
    for (unsigned gi = 0; gi < 2; gi++)
        stage2_agrees(&pl__cer_bls12381, &pl__cer_bls12381.g[gi]);
    const pl__bn254_arith best = pl__bn254_arith_best();
    for (unsigned v = 0; v <= (unsigned)best; v++) {
        pl__bn254_set_arith((pl__bn254_arith)v);
        for (unsigned gi = 0; gi < 2; gi++)
            stage2_agrees(&pl__cer_bn128, &pl__cer_bn128.g[gi]);
    }
    pl__bn254_set_arith(best);
}

/* ---- a whole ceremony, and what verify refuses ----------------------------------- */

/* bn128: phase 1, phase 2 on a bn128 circuit, verified; another circuit
 * refused (snarkjs's side in cli_ceremony.sh) */
PL_TEST(bn128_ceremony_verifies)
{
    pl_error err = {0};
    pl_ceremony_config cfg = quiet_cfg();
    make_ptau_on("bn128", 4, "cer_bn");
    const char *ptau = own("cer_bn", "final.ptau");
    CHECK_OK(pl_ptau_verify(ptau, &cfg, &err), &err);
    const char *r1cs = pl_test_vector("bn254/edgevalues/circuit.r1cs");
    const char *z0 = own("cer_bn", "0.zkey"), *z1 = own("cer_bn", "1.zkey");
    const char *z2 = own("cer_bn", "2.zkey");
    CHECK_OK(pl_zkey_new(r1cs, ptau, z0, &cfg, &err), &err);
    CHECK_OK(pl_zkey_contribute(z0, z1, "alice", "entropy", &cfg, &err), &err);
    CHECK_OK(pl_zkey_beacon(z1, z2, "beacon", "0a0b0c", 10, &cfg, &err), &err);
    CHECK_OK(pl_zkey_verify(r1cs, ptau, z2, &cfg, &err), &err);
    CHECK_STATUS(pl_zkey_verify(pl_test_vector("bn254/multiplier/circuit.r1cs"),
                                ptau, z2, &cfg, &err), PL_EINVALID, &err);
    /* a BLS12-381 circuit on a bn128 ceremony */
    CHECK_STATUS(pl_zkey_new(pl_test_vector("edgevalues/circuit.r1cs"), ptau,
                             own("cer_bn", "x.zkey"), &cfg, &err),
                 PL_EUSAGE, &err);
}


PL_TEST(ceremony_verifies)
{
    pl_error err = {0};
    pl_ceremony_config cfg = quiet_cfg();
    make_ptau(4, "cer_v");
    const char *ptau = own("cer_v", "final.ptau");
    CHECK_OK(pl_ptau_verify(ptau, &cfg, &err), &err);
    CHECK_OK(pl_ptau_verify(own("cer_v", "3.ptau"), &cfg, &err), &err);
    const char *r1cs = pl_test_vector("edgevalues/circuit.r1cs");
    const char *z0 = own("cer_v", "0.zkey"), *z1 = own("cer_v", "1.zkey");
    const char *z2 = own("cer_v", "2.zkey");
    CHECK_OK(pl_zkey_new(r1cs, ptau, z0, &cfg, &err), &err);
    CHECK_OK(pl_zkey_contribute(z0, z1, "alice", "entropy", &cfg, &err), &err);
    CHECK_OK(pl_zkey_beacon(z1, z2, "beacon", "0a0b0c", 10, &cfg, &err), &err);
    CHECK_OK(pl_zkey_verify(r1cs, ptau, z0, &cfg, &err), &err);
    CHECK_OK(pl_zkey_verify(r1cs, ptau, z2, &cfg, &err), &err);
    /* another circuit's r1cs is refused with its section */
    CHECK_STATUS(pl_zkey_verify(pl_test_vector("multiplier/circuit.r1cs"),
                                ptau, z2, &cfg, &err), PL_EINVALID, &err);
    /* the key proves with the prover, and the proof verifies */
    pl_zkey *zk = NULL;
    pl_wtns *w = NULL;
    pl_prover *prover = NULL;
    pl_vkey *vk = NULL;
    pl_proof proof;
    CHECK_OK(pl_zkey_open(&zk, z2, &err), &err);
    CHECK_OK(pl_wtns_open(&w, pl_test_vector("edgevalues/witness.wtns"), &err),
             &err);
    CHECK_OK(pl_prover_create(&prover, zk, NULL, &err), &err);
    CHECK_OK(pl_prove(prover, &proof, w, &err), &err);
    CHECK_OK(pl_vkey_from_zkey(&vk, zk, &err), &err);
    pl_scalar pub[16];
    const size_t np = pl_vkey_n_public(vk);
    CHECK(np <= 16);
    for (size_t i = 0; i < np; i++)
        memcpy(pub[i].b, w->values + 32 * (i + 1), 32);
    CHECK_OK(pl_verify(vk, &proof, pub, np, &err), &err);
    pl_vkey_destroy(vk);
    pl_prover_destroy(prover);
    pl_wtns_close(w);
    pl_zkey_close(zk);
}

static uint8_t *copy_file(const char *from, const char *to, size_t *len)
{
    uint8_t *b = pl_test_read_file(from, len);
    pl_test_write_file(to, b, *len);
    return b;
}

PL_TEST(verify_refuses_tampering)
{
    pl_error err = {0};
    pl_ceremony_config cfg = quiet_cfg();
    make_ptau(3, "cer_t");
    const char *good = own("cer_t", "3.ptau"), *bad = own("cer_t", "bad.ptau");
    size_t len;
    uint8_t *b = copy_file(good, bad, &len);
    size_t s7 = pl_test_section_payload(b, len, 7);
    /* contribution #1's tau g1_s, replaced by its g1_sx: a point of the
     * group, but the key's halves no longer match */
    const size_t rec = s7 + 4, g1 = 96, g2 = 192;
    const size_t key = rec + 3 * g1 + 2 * g2;
    memcpy(b + key, b + key + g1, g1);
    pl_test_write_file(bad, b, len);
    CHECK_STATUS(pl_ptau_verify(bad, &cfg, &err), PL_EINVALID, &err);
    CHECK(strstr(err.msg, "section 7 (contributions)"));
    CHECK(strstr(err.msg, "contribution #1 'first'"));
    CHECK(strstr(err.msg, "INVALID key (tau)"));
    free(b);

    /* a flipped byte: not a point any more */
    b = copy_file(good, bad, &len);
    b[key + 5] ^= 0x40;
    pl_test_write_file(bad, b, len);
    CHECK_STATUS(pl_ptau_verify(bad, &cfg, &err), PL_EINVALID, &err);
    CHECK(strstr(err.msg, "contribution #1"));
    CHECK(strstr(err.msg, "tau g1_s"));
    free(b);

    /* sections 4 and 5 swapped (their ids exchanged: the file still parses) */
    b = copy_file(good, bad, &len);
    size_t h4 = pl_test_find_section(b, len, 4, NULL);
    size_t h5 = pl_test_find_section(b, len, 5, NULL);
    pl_test_put_le32(b + h4, 5);
    pl_test_put_le32(b + h5, 4);
    pl_test_write_file(bad, b, len);
    CHECK_STATUS(pl_ptau_verify(bad, &cfg, &err), PL_EINVALID, &err);
    CHECK(strstr(err.msg, "section 4 (alphaTauG1)"));
    CHECK(strstr(err.msg, "alpha G1"));
    free(b);

    /* a point of section 2 replaced by another point of the group */
    b = copy_file(good, bad, &len);
    size_t s2 = pl_test_section_payload(b, len, 2);
    memcpy(b + s2 + 3 * g1, b + s2 + 2 * g1, g1);
    pl_test_write_file(bad, b, len);
    CHECK_STATUS(pl_ptau_verify(bad, &cfg, &err), PL_EINVALID, &err);
    CHECK(strstr(err.msg, "section 2 (tauG1)"));
    CHECK(strstr(err.msg, "successive powers"));
    free(b);

    /* a truncated file */
    b = copy_file(good, bad, &len);
    pl_test_write_file(bad, b, len - 100);
    CHECK_STATUS(pl_ptau_verify(bad, &cfg, &err), PL_EFORMAT, &err);
    CHECK(strstr(err.msg, bad));
    CHECK(strstr(err.msg, "section"));
    free(b);

    /* a Lagrange point changed */
    b = copy_file(own("cer_t", "final.ptau"), bad, &len);
    size_t s14 = pl_test_section_payload(b, len, 14);
    memcpy(b + s14 + 3 * g1, b + s14 + 4 * g1, g1);
    pl_test_write_file(bad, b, len);
    CHECK_STATUS(pl_ptau_verify(bad, &cfg, &err), PL_EINVALID, &err);
    CHECK(strstr(err.msg, "section 14 (lagrange alphaTauG1)"));
    CHECK(strstr(err.msg, "level 2^2"));
    free(b);
    unlink(bad);
}

PL_TEST(zkey_verify_refuses_tampering)
{
    pl_error err = {0};
    pl_ceremony_config cfg = quiet_cfg();
    make_ptau(4, "cer_z");
    const char *ptau = own("cer_z", "final.ptau");
    const char *r1cs = pl_test_vector("edgevalues/circuit.r1cs");
    const char *z0 = tmp("cer_z0.zkey"), *z1 = tmp("cer_z1.zkey");
    const char *bad = tmp("cer_zbad.zkey");
    CHECK_OK(pl_zkey_new(r1cs, ptau, z0, &cfg, &err), &err);
    CHECK_OK(pl_zkey_contribute(z0, z1, "alice", "entropy", &cfg, &err), &err);
    size_t len;
    /* an A point replaced by another */
    uint8_t *b = copy_file(z1, bad, &len);
    size_t s5 = pl_test_section_payload(b, len, 5);
    memcpy(b + s5 + 96, b + s5 + 2 * 96, 96);
    pl_test_write_file(bad, b, len);
    CHECK_STATUS(pl_zkey_verify(r1cs, ptau, bad, &cfg, &err), PL_EINVALID,
                 &err);
    CHECK(strstr(err.msg, "section 5 (A points)"));
    free(b);
    /* an H point replaced */
    b = copy_file(z1, bad, &len);
    size_t s9 = pl_test_section_payload(b, len, 9);
    memcpy(b + s9, b + s9 + 96, 96);
    pl_test_write_file(bad, b, len);
    CHECK_STATUS(pl_zkey_verify(r1cs, ptau, bad, &cfg, &err), PL_EINVALID,
                 &err);
    CHECK(strstr(err.msg, "section 9 (H points)"));
    free(b);
    /* the contribution's transcript changed */
    b = copy_file(z1, bad, &len);
    size_t s10 = pl_test_section_payload(b, len, 10);
    b[s10 + 64 + 4 + 3 * 96 + 192 + 7] ^= 1;
    pl_test_write_file(bad, b, len);
    CHECK_STATUS(pl_zkey_verify(r1cs, ptau, bad, &cfg, &err), PL_EINVALID,
                 &err);
    CHECK(strstr(err.msg, "contribution #1 'alice'"));
    CHECK(strstr(err.msg, "Inconsistent transcript"));
    free(b);
    /* delta not the contribution's */
    b = copy_file(z1, bad, &len);
    size_t s2 = pl_test_section_payload(b, len, 2);
    memcpy(b + s2 + 4 + 48 + 4 + 32 + 12 + 2 * 96 + 2 * 192,
           b + s2 + 4 + 48 + 4 + 32 + 12, 96);
    pl_test_write_file(bad, b, len);
    CHECK_STATUS(pl_zkey_verify(r1cs, ptau, bad, &cfg, &err), PL_EINVALID,
                 &err);
    CHECK(strstr(err.msg, "delta1"));
    free(b);
    unlink(bad);
}

/* ---- memory ------------------------------------------------------------------- */

PL_TEST(budget_refused_and_kept)
{
    pl_error err = {0};
    pl_ceremony_config cfg = quiet_cfg();
    make_ptau(5, "cer_b");
    const char *in = own("cer_b", "3.ptau"), *out = own("cer_b", "out.ptau");
    unlink(out);
    unlink(own("cer_b", "out.zkey"));
    cfg.budget_bytes = 64 << 10;
    CHECK_STATUS(pl_ptau_prepare(in, out, &cfg, &err), PL_EBUDGET, &err);
    CHECK(strstr(err.msg, "ptau prepare"));
    CHECK(strstr(err.msg, "budget"));
    check_no_file("cer_b_out.ptau");
    uint64_t peak = 0;
    cfg.budget_bytes = 4 << 20;
    cfg.peak_bytes = &peak;
    CHECK_OK(pl_ptau_prepare(in, out, &cfg, &err), &err);
    CHECK(peak > 0 && peak <= cfg.budget_bytes);
    CHECK_OK(pl_ptau_beacon(in, out, NULL, "01", 10, &cfg, &err), &err);
    CHECK(peak > 0 && peak <= cfg.budget_bytes);
    CHECK_OK(pl_ptau_verify(own("cer_b", "final.ptau"), &cfg, &err), &err);
    CHECK(peak > 0 && peak <= cfg.budget_bytes);
    const char *r1cs = pl_test_vector("edgevalues/circuit.r1cs");
    cfg.budget_bytes = 16 << 10;
    CHECK_STATUS(pl_zkey_new(r1cs, own("cer_b", "final.ptau"),
                             own("cer_b", "out.zkey"), &cfg, &err),
                 PL_EBUDGET, &err);
    CHECK(strstr(err.msg, "zkey new"));
    check_no_file("cer_b_out.zkey");
    unlink(out);
}

PL_TEST(allocation_failures_leave_nothing)
{
    pl_error err = {0};
    pl_ceremony_config cfg = quiet_cfg();
    make_ptau(3, "cer_f");
    const char *in = own("cer_f", "3.ptau"), *ptau = own("cer_f", "final.ptau");
    const char *r1cs = pl_test_vector("multiplier/circuit.r1cs");
    const char *out = tmp("cer_fault.out");
    unlink(out);
    for (unsigned step = 0; step < 4; step++) {
        pl__alloc_fail_at(0);
        pl_status st = PL_OK;
#define STEP()                                                                \
    (step == 0   ? pl_ptau_prepare(in, out, &cfg, &err)                       \
     : step == 1 ? pl_ptau_contribute(in, out, NULL, "e", &cfg, &err)         \
     : step == 2 ? pl_zkey_new(r1cs, ptau, out, &cfg, &err)                   \
                 : pl_ptau_verify(ptau, &cfg, &err))
        CHECK_OK(STEP(), &err);
        uint64_t total = pl__alloc_fail_at(0);
        CHECK(total >= 1);
        unlink(out);
        for (uint64_t k = 1; k <= total; k++) {
            pl__alloc_fail_at(k);
            st = STEP();
            pl__alloc_fail_at(0);
            if (st != PL_ENOMEM)
                pl_test_fail(__FILE__, __LINE__, "step %u: failing allocation "
                             "%llu of %llu gave %s", step,
                             (unsigned long long)k, (unsigned long long)total,
                             pl_strerror(st));
            if (!pl_alloc_all_freed(&err))
                pl_test_fail(__FILE__, __LINE__, "step %u, allocation %llu: "
                             "%s", step, (unsigned long long)k, err.msg);
            check_no_file("cer_fault.out");
        }
#undef STEP
    }
}

PL_TEST(outputs_never_over_inputs)
{
    pl_error err = {0};
    pl_ceremony_config cfg = quiet_cfg();
    const char *p = tmp("cer_same.ptau");
    CHECK_OK(pl_ptau_new("bls12381", 2, p, &cfg, &err), &err);
    size_t before, after;
    uint8_t *a = pl_test_read_file(p, &before);
    CHECK_STATUS(pl_ptau_beacon(p, p, NULL, "01", 10, &cfg, &err), PL_EUSAGE,
                 &err);
    CHECK_STATUS(pl_ptau_prepare(p, p, &cfg, &err), PL_EUSAGE, &err);
    uint8_t *b = pl_test_read_file(p, &after);
    CHECK_EQ(before, after);
    CHECK_MEM(a, b, before);
    free(a);
    free(b);
    CHECK_STATUS(pl_ptau_new("bn256", 2, p, &cfg, &err), PL_EUNSUPPORTED, &err);
    CHECK(strstr(err.msg, "bls12381, bn128"));
    CHECK_STATUS(pl_ptau_new("bls12381", 29, p, &cfg, &err), PL_EUSAGE, &err);
    CHECK_STATUS(pl_ptau_verify(p, &cfg, &err), PL_EINVALID, &err);
    CHECK(strstr(err.msg, "no contribution"));
    unlink(p);
}
