/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The SHA-256 gadget and its native reference: FIPS 180-4 vectors ("abc",
 * the 448-bit message, the empty string), OpenSSL's SHA-256 on random
 * inputs (skipped, exit 77, when the build found no OpenSSL), reduced
 * rounds against the native compression, Merkle nodes in both modes, and
 * the constraint counts (printed as key=value lines, bounded loosely).
 * Every gadget run records its constraints and checks them.
 */
#include "harness.h"
#include "circuit/gadgets/gadgets.h"
#include "util/sha256.h"

#ifdef PL_HAVE_OPENSSL
#include <openssl/sha.h>
#endif

static void hex32(uint8_t out[32], const char *hex)
{
    for (unsigned i = 0; i < 32; i++) {
        unsigned v;
        sscanf(hex + 2 * i, "%2x", &v);
        out[i] = (uint8_t)v;
    }
}

/* The message as private bits, SHA-256 gadget over them; returns the
 * digest read from the output bits' values and the constraint count. */
static size_t gadget_digest(uint8_t out[32], const uint8_t *msg, size_t len,
                            bool record)
{
    pl_error err = {0};
    pl_cs *cs;
    if (record)
        CHECK_OK(pl_cs_create_recording(&cs, &err), &err);
    else
        CHECK_OK(pl__cs_create_counting(&cs, &err), &err);
    pl__bit *bits = malloc((len * 8 + 1) * sizeof(pl__bit));
    for (size_t i = 0; i < len * 8; i++)
        bits[i] = pl__bit_alloc(cs, (msg[i / 8] >> (7 - i % 8)) & 1);
    pl__bit d[256];
    pl__sha256_gadget(cs, d, bits, len);
    memset(out, 0, 32);
    for (unsigned i = 0; i < 256; i++)
        out[i / 8] |= (uint8_t)(d[i].value << (7 - i % 8));
    CHECK_OK(pl_cs_freeze(cs, &err), &err);
    if (record)
        CHECK_OK(pl_cs_check(cs, &err), &err);
    size_t n = pl_cs_n_constraints(cs) - len * 8;
    pl_cs_destroy(cs);
    free(bits);
    return n;
}

PL_TEST(fips_vectors)
{
    static const struct {
        const char *msg;
        const char *digest;
    } v[] = {
        {"abc",
         "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
        {"",
         "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
    };
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        uint8_t want[32], got[32];
        hex32(want, v[i].digest);
        size_t len = strlen(v[i].msg);
        pl__sha256_digest(got, (const uint8_t *)v[i].msg, len);
        CHECK_MEM(got, want, 32);
        size_t n = gadget_digest(got, (const uint8_t *)v[i].msg, len, true);
        CHECK_MEM(got, want, 32);
        printf("fips_vector=%zu bytes=%zu blocks=%zu constraints=%zu\n", i,
               len, (len * 8 + 64) / 512 + 1, n);
    }
    /* A million 'a' (FIPS 180-4's third vector), natively. */
    uint8_t *a = malloc(1000000);
    memset(a, 'a', 1000000);
    uint8_t want[32], got[32];
    hex32(want, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    pl__sha256_digest(got, a, 1000000);
    CHECK_MEM(got, want, 32);
    free(a);
}

PL_TEST(openssl_random)
{
#ifndef PL_HAVE_OPENSSL
    printf("SKIP: built without OpenSSL (libssl-dev)\n");
    exit(77);
#else
    uint64_t rng = 0x5a256ull;
    uint8_t msg[300], want[32], got[32];
    for (size_t len = 0; len < sizeof(msg); len += 7) {
        pl_test_random_bytes(&rng, msg, len);
        SHA256(msg, len, want);
        pl__sha256_digest(got, msg, len);
        CHECK_MEM(got, want, 32);
    }
    /* The gadget on lengths around the padding boundaries: recorded and
     * checked for a few, counted (values only) for the rest. */
    static const size_t lens[] = {1, 31, 55, 56, 63, 64, 65, 119, 128};
    for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
        pl_test_random_bytes(&rng, msg, lens[i]);
        SHA256(msg, lens[i], want);
        gadget_digest(got, msg, lens[i], i % 3 == 0);
        CHECK_MEM(got, want, 32);
    }
#endif
}

/* One compression of a private state over a private block: the general
 * case, and the one the brief's 25-30k target is about. */
static size_t compress_once(unsigned rounds, bool const_state, bool check)
{
    pl_error err = {0};
    pl_cs *cs;
    CHECK_OK(pl_cs_create_recording(&cs, &err), &err);
    uint64_t rng = 77 + rounds;
    pl__u32 st[8], w[16];
    uint32_t nst[8];
    uint8_t block[64];
    pl_test_random_bytes(&rng, block, 64);
    for (unsigned i = 0; i < 8; i++) {
        uint32_t v;
        pl_test_random_bytes(&rng, &v, 4);
        nst[i] = const_state ? pl__sha256_iv[i] : v;
        if (const_state)
            pl__u32_const(&st[i], nst[i]);
        else
            pl__u32_alloc(cs, &st[i], nst[i]);
    }
    for (unsigned m = 0; m < 16; m++)
        pl__u32_alloc(cs, &w[m], (uint32_t)block[4 * m] << 24 |
                                     (uint32_t)block[4 * m + 1] << 16 |
                                     (uint32_t)block[4 * m + 2] << 8 |
                                     block[4 * m + 3]);
    size_t before = pl_cs_n_constraints(cs);
    pl__sha256_compress_gadget(cs, st, w, rounds);
    size_t n = pl_cs_n_constraints(cs) - before;
    pl__sha256_compress(nst, block, rounds);
    for (unsigned i = 0; i < 8; i++)
        CHECK_EQ(st[i].value, nst[i]);
    CHECK_OK(pl_cs_freeze(cs, &err), &err);
    if (check)
        CHECK_OK(pl_cs_check(cs, &err), &err);
    pl_cs_destroy(cs);
    return n;
}

PL_TEST(compression_cost)
{
    size_t full = compress_once(64, false, true);
    size_t from_iv = compress_once(64, true, false);
    printf("constraints_per_compression=%zu\n"
           "constraints_per_compression_from_iv=%zu\n", full, from_iv);
    CHECK(full >= 24000 && full <= 30000);
    CHECK(from_iv < full);
}

PL_TEST(reduced_rounds)
{
    for (unsigned r = 1; r <= 64; r += 9) {
        size_t n = compress_once(r, false, r < 20);
        printf("rounds=%u constraints=%zu\n", r, n);
    }
}

static size_t node_cost(pl__node_hash hash, const uint8_t l[32],
                        const uint8_t r[32], uint8_t out[32])
{
    pl_error err = {0};
    pl_cs *cs;
    CHECK_OK(pl_cs_create_recording(&cs, &err), &err);
    pl__u32 L[8], R[8], N[8];
    pl__digest_alloc(cs, L, l);
    pl__digest_alloc(cs, R, r);
    size_t before = pl_cs_n_constraints(cs);
    pl__node_gadget(cs, N, L, R, hash, 64);
    size_t n = pl_cs_n_constraints(cs) - before;
    pl__bit bits[256];
    pl__digest_bits(bits, N);
    memset(out, 0, 32);
    for (unsigned i = 0; i < 256; i++)
        out[i / 8] |= (uint8_t)(bits[i].value << (i % 8));
    CHECK_OK(pl_cs_freeze(cs, &err), &err);
    CHECK_OK(pl_cs_check(cs, &err), &err);
    pl_cs_destroy(cs);
    return n;
}

PL_TEST(merkle_nodes)
{
    uint64_t rng = 99;
    uint8_t l[32], r[32], want[32], got[32], block[64];
    pl_test_random_bytes(&rng, l, 32);
    pl_test_random_bytes(&rng, r, 32);
    l[31] &= 0x3f;
    r[31] &= 0x3f;
    memcpy(block, l, 32);
    memcpy(block + 32, r, 32);
    for (int full = 0; full < 2; full++) {
        pl__node_hash h = full ? PL__NODE_FULL : PL__NODE_COMPRESS;
        pl__node_native(want, l, r, h, 64);
        size_t n = node_cost(h, l, r, got);
        CHECK_MEM(got, want, 32);
        CHECK(want[31] < 0x40);
        printf("node_hash=%s constraints=%zu\n", full ? "full" : "compress",
               n);
    }
    /* full mode is SHA-256 of the 64 bytes, truncated */
    pl__sha256_digest(got, block, 64);
    got[31] &= 0x3f;
    pl__node_native(want, l, r, PL__NODE_FULL, 64);
    CHECK_MEM(got, want, 32);
#ifdef PL_HAVE_OPENSSL
    SHA256(block, 64, got);
    got[31] &= 0x3f;
    CHECK_MEM(got, want, 32);
#endif
}

/* The streaming SHA-256 of util (the service's circuit ids) equals the
 * native reference for lengths around the block and padding edges, fed
 * in uneven pieces (a byte, a block and a bit, the rest). */
PL_TEST(streaming_matches_native)
{
    uint8_t msg[300];
    for (size_t i = 0; i < sizeof(msg); i++)
        msg[i] = (uint8_t)(i * 131 + 7);
    for (size_t len = 0; len <= sizeof(msg); len++) {
        uint8_t want[32], got[32];
        pl__sha256_digest(want, msg, len);
        pl__sha256 h;
        pl__sha256_init(&h);
        size_t a = len < 1 ? len : 1, b = len - a < 65 ? len - a : 65;
        pl__sha256_update(&h, msg, a);
        pl__sha256_update(&h, msg + a, b);
        pl__sha256_update(&h, msg + a + b, len - a - b);
        pl__sha256_final(&h, got);
        CHECK_MEM(got, want, 32);
    }
    /* and the hex form of "abc"'s digest */
    pl__sha256 h;
    uint8_t d[32];
    char hex[65];
    pl__sha256_init(&h);
    pl__sha256_update(&h, "abc", 3);
    pl__sha256_final(&h, d);
    pl__sha256_hex(hex, d);
    CHECK(strcmp(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff"
                      "61f20015ad") == 0);
}
