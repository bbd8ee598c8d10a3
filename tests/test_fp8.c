/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The 8-lane IFMA multiplication (field/fp8.h) against blst: a b 2^-416
 * mod p computed with blst_fp_mul (a R times b R, times (2^-416) R, out of
 * Montgomery form) on random values and on edge values: 0, 1, 2, p - 1,
 * p - 2, values at and around the 52-bit limb boundaries (2^52 - 1, 2^52,
 * 2^104 - 1, 2^364, 2^380), and 2^381 - 1 mod p; every pair of edges, in
 * every lane.  Where the CPU has no avx512ifma the cases exit 77
 * (skipped), so `make test` says so instead of passing.
 */
#include "harness.h"
#include "field/fp8.h"

#include "blst.h"

/* p - 1 and 2^-416 mod p (Python big integers), little-endian limbs */
static const uint64_t p_minus_1[6] = {0xb9feffffffffaaaa, 0x1eabfffeb153ffff,
                                      0x6730d2a0f6b0f624, 0x64774b84f38512bf,
                                      0x4b1ba7b6434bacd7, 0x1a0111ea397fe69a};
static const uint64_t inv2_416[6] = {0x563bfca80d3357da, 0x49ad31af38b4d1ff,
                                     0x001570c7a87408dd, 0xbfcacba62ee6ff12,
                                     0x60405e9a0c4ba44f, 0x0cf3587083336882};

static void skip_without_ifma(void)
{
    if (!pl__fp8_supported()) {
        printf("skipped: this CPU has no avx512ifma\n");
        exit(77);
    }
}

/* a b 2^-416 mod p by blst, standard form */
static void want_mul(uint64_t out[6], const uint64_t a[6], const uint64_t b[6])
{
    blst_fp x, y, k;
    blst_fp_from_uint64(&x, a);
    blst_fp_from_uint64(&y, b);
    blst_fp_from_uint64(&k, inv2_416);
    blst_fp_mul(&x, &x, &y);
    blst_fp_mul(&x, &x, &k);
    blst_uint64_from_fp(out, &x);
}

static void random_fp(uint64_t *rng, uint64_t out[6])
{
    pl_test_random_bytes(rng, out, 6 * sizeof(uint64_t));
    out[5] %= p_minus_1[5]; /* below p's top limb: < p */
}

#define NEDGE 14

static void edge(uint64_t out[6], unsigned e)
{
    memset(out, 0, 6 * sizeof(uint64_t));
    switch (e) {
    case 0: break;                                   /* 0 */
    case 1: out[0] = 1; break;                       /* 1 */
    case 2: out[0] = 2; break;                       /* 2 */
    case 3: memcpy(out, p_minus_1, 48); break;       /* p - 1 */
    case 4: memcpy(out, p_minus_1, 48); out[0]--; break; /* p - 2 */
    case 5: out[0] = (1ull << 52) - 1; break;        /* one full limb */
    case 6: out[0] = 1ull << 52; break;              /* limb 1's first bit */
    case 7: out[0] = ~0ull; out[1] = (1ull << 40) - 1; break; /* 2^104 - 1 */
    case 8: out[1] = 1ull << 40; break;              /* 2^104 */
    case 9: out[5] = 1ull << 44; break;              /* 2^364 */
    case 10: out[5] = 1ull << 60; break;             /* 2^380 */
    case 11: /* 2^381 - 1 - p: 2^381 - 1 reduced */
        memset(out, 0xff, 48);
        out[5] = (1ull << 61) - 1;
        {
            uint64_t borrow = 0;
            for (int i = 0; i < 6; i++) {
                uint64_t pi = p_minus_1[i] + (i == 0);
                uint64_t d = out[i] - pi - borrow;
                borrow = (out[i] < pi) || (out[i] - pi < borrow);
                out[i] = d;
            }
        }
        break;
    case 12: /* every limb 2^52 - 1 below p's top: 2^364 - 1 */
        memset(out, 0xff, 40);
        out[5] = (1ull << 44) - 1;
        break;
    default: /* p - 2^52 */
        memcpy(out, p_minus_1, 48);
        out[0] -= (1ull << 52) - 1;
        break;
    }
}

/* Runs one vector multiplication of 8 pairs and checks every lane. */
static void check8(const uint64_t a[8][6], const uint64_t b[8][6])
{
    pl__fp8 va, vb, vr;
    for (unsigned l = 0; l < 8; l++) {
        pl__fp8_set(&va, l, a[l]);
        pl__fp8_set(&vb, l, b[l]);
    }
    pl__fp8_mul(&vr, &va, &vb);
    for (unsigned l = 0; l < 8; l++) {
        uint64_t got[6], want[6], back[6];
        pl__fp8_get(got, &vr, l);
        want_mul(want, a[l], b[l]);
        CHECK_MEM(got, want, sizeof(want));
        pl__fp8_get(back, &va, l); /* the limb conversion round-trips */
        CHECK_MEM(back, a[l], sizeof(back));
    }
}

PL_TEST(random_against_blst)
{
    skip_without_ifma();
    uint64_t rng = 91;
    for (int round = 0; round < 2000; round++) {
        uint64_t a[8][6], b[8][6];
        for (unsigned l = 0; l < 8; l++) {
            random_fp(&rng, a[l]);
            random_fp(&rng, b[l]);
        }
        check8(a, b);
    }
}

PL_TEST(edges_against_blst)
{
    skip_without_ifma();
    uint64_t rng = 92;
    /* every pair of edges, in a lane that moves with the pair; the other
     * lanes random */
    for (unsigned i = 0; i < NEDGE; i++)
        for (unsigned j = 0; j < NEDGE; j++) {
            uint64_t a[8][6], b[8][6];
            for (unsigned l = 0; l < 8; l++) {
                random_fp(&rng, a[l]);
                random_fp(&rng, b[l]);
            }
            unsigned lane = (i + j) % 8;
            edge(a[lane], i);
            edge(b[lane], j);
            edge(a[(lane + 1) % 8], j);
            edge(b[(lane + 1) % 8], j);
            check8(a, b);
        }
}
