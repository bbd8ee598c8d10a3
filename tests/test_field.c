/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tests of the decimal encodings of field elements (field/decimal.c): round
 * trips at the edges (0, 1, r - 1, q - 1, 2^384 - 1), rejection of r, q,
 * overflow and malformed text, and the Montgomery conversion of Fp against
 * blst's own.
 */
#include "harness.h"
#include "field/field.h"

/* r and q in decimal, as in ffjavascript */
static const char R_DEC[] =
    "52435875175126190479447740508185965837690552500527637822603658699938581184513";
static const char R_MINUS_1[] =
    "52435875175126190479447740508185965837690552500527637822603658699938581184512";
static const char Q_DEC[] =
    "4002409555221667393417789825735904156556882819939007885332058136124031650490837864442687629129015664037894272559787";
static const char Q_MINUS_1[] =
    "4002409555221667393417789825735904156556882819939007885332058136124031650490837864442687629129015664037894272559786";
static const char TWO_384_MINUS_1[] =
    "39402006196394479212279040100143613805079739270465446667948293404245721771497210611414266254884915640806627990306815";
static const char TWO_384[] =
    "39402006196394479212279040100143613805079739270465446667948293404245721771497210611414266254884915640806627990306816";

static void roundtrip_le(const char *dec, size_t n)
{
    uint8_t le[48];
    char back[128];
    CHECK(pl__dec_to_le(le, n, dec, strlen(dec)));
    size_t len = pl__dec_from_le(back, sizeof(back), le, n);
    CHECK_EQ(len, strlen(dec));
    if (strcmp(back, dec) != 0)
        pl_test_fail(__FILE__, __LINE__, "%s != %s", back, dec);
}

PL_TEST(dec_roundtrip_edges)
{
    roundtrip_le("0", 32);
    roundtrip_le("1", 32);
    roundtrip_le("1000000000", 32); /* a 9-digit chunk boundary */
    roundtrip_le("999999999", 32);
    roundtrip_le("1000000000000000000", 8);
    roundtrip_le("18446744073709551615", 8); /* 2^64 - 1 */
    roundtrip_le(R_MINUS_1, 32);
    roundtrip_le(R_DEC, 32);
    roundtrip_le(Q_MINUS_1, 48);
    roundtrip_le(TWO_384_MINUS_1, 48);
}

PL_TEST(dec_modulus_bytes)
{
    uint8_t le[48];
    CHECK(pl__dec_to_le(le, 32, R_DEC, strlen(R_DEC)));
    CHECK_MEM(le, pl__fr_modulus_le, 32);
    CHECK(pl__dec_to_le(le, 48, Q_DEC, strlen(Q_DEC)));
    CHECK_MEM(le, pl__fp_modulus_le, 48);
    char s[128];
    CHECK(pl__dec_from_le(s, sizeof(s), pl__fp_modulus_le, 48) > 0);
    CHECK(strcmp(s, Q_DEC) == 0);
}

PL_TEST(dec_overflow_rejected)
{
    uint8_t le[48];
    CHECK(!pl__dec_to_le(le, 48, TWO_384, strlen(TWO_384)));
    CHECK(!pl__dec_to_le(le, 8, "18446744073709551616", 20)); /* 2^64 */
    CHECK(pl__dec_to_le(le, 1, "255", 3));
    CHECK_EQ(le[0], 255);
    CHECK(!pl__dec_to_le(le, 1, "256", 3));
    /* 200 digits of 9 */
    char big[201];
    memset(big, '9', 200);
    big[200] = '\0';
    CHECK(!pl__dec_to_le(le, 48, big, 200));
}

PL_TEST(dec_malformed_rejected)
{
    uint8_t le[32];
    static const char *bad[] = {"", "-1", "+1", "01", "00", " 1", "1 ",
                                "1a", "0x10", "1.0", "1e3", "\xd9\xa1"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        if (pl__dec_to_le(le, 32, bad[i], strlen(bad[i])))
            pl_test_fail(__FILE__, __LINE__, "accepted \"%s\"", bad[i]);
    /* the length is honoured: "12" of "123" */
    CHECK(pl__dec_to_le(le, 32, "123", 2));
    CHECK_EQ(le[0], 12);
}

PL_TEST(dec_small_buffer)
{
    char s[4];
    uint8_t le[32] = {0};
    le[0] = 0x39;
    le[1] = 0x30; /* 12345 */
    CHECK_EQ(pl__dec_from_le(s, sizeof(s), le, 32), 0);
    CHECK_EQ(s[0], '\0');
    char t[6];
    CHECK_EQ(pl__dec_from_le(t, sizeof(t), le, 32), 5);
    CHECK(strcmp(t, "12345") == 0);
}

PL_TEST(fr_scalar_dec)
{
    pl_scalar s;
    char back[128];
    CHECK(pl__fr_scalar_from_dec(&s, R_MINUS_1, strlen(R_MINUS_1)));
    CHECK(pl__fr_scalar_to_dec(back, sizeof(back), &s) > 0);
    CHECK(strcmp(back, R_MINUS_1) == 0);
    CHECK(!pl__fr_scalar_from_dec(&s, R_DEC, strlen(R_DEC)));
    CHECK(!pl__fr_scalar_from_dec(&s, Q_MINUS_1, strlen(Q_MINUS_1)));
    CHECK(pl__fr_scalar_from_dec(&s, "0", 1));
    pl_scalar zero = {{0}};
    CHECK_MEM(s.b, zero.b, 32);
    CHECK(pl__fr_scalar_from_dec(&s, "258", 3));
    CHECK_EQ(s.b[0], 2);
    CHECK_EQ(s.b[1], 1);
}

PL_TEST(fp_dec_montgomery)
{
    blst_fp x, y;
    char back[128];
    /* 1 in Montgomery form is what blst_fp_from_uint64 gives */
    static const uint64_t one64[6] = {1, 0, 0, 0, 0, 0};
    CHECK(pl__fp_from_dec(&x, "1", 1));
    blst_fp_from_uint64(&y, one64);
    CHECK_MEM(&x, &y, sizeof(x));
    CHECK(pl__fp_to_dec(back, sizeof(back), &x) == 1);
    CHECK(strcmp(back, "1") == 0);

    CHECK(pl__fp_from_dec(&x, Q_MINUS_1, strlen(Q_MINUS_1)));
    CHECK(pl__fp_to_dec(back, sizeof(back), &x) > 0);
    CHECK(strcmp(back, Q_MINUS_1) == 0);
    /* q - 1 = -1: adding 1 gives 0 */
    blst_fp_add(&x, &x, &y);
    blst_fp zero;
    memset(&zero, 0, sizeof(zero));
    CHECK_MEM(&x, &zero, sizeof(x));

    CHECK(!pl__fp_from_dec(&x, Q_DEC, strlen(Q_DEC)));
    CHECK(!pl__fp_from_dec(&x, TWO_384_MINUS_1, strlen(TWO_384_MINUS_1)));

    /* random values against blst's uint64 conversion */
    uint64_t seed = 7;
    for (int i = 0; i < 100; i++) {
        uint64_t limbs[6], limbs2[6];
        pl_test_random_bytes(&seed, limbs, sizeof(limbs));
        limbs[5] &= 0x0fffffffffffffffull; /* < q */
        blst_fp_from_uint64(&x, limbs);
        size_t n = pl__fp_to_dec(back, sizeof(back), &x);
        CHECK(n > 0);
        CHECK(pl__fp_from_dec(&y, back, n));
        CHECK_MEM(&x, &y, sizeof(x));
        blst_uint64_from_fp(limbs2, &y);
        CHECK_MEM(limbs, limbs2, sizeof(limbs));
    }
}
