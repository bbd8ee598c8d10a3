/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fuzz target: BN254's snarkjs encodings (field/bn254/serial.h), what the
 * bn128 zkeys, ptau files, verification keys and proofs are read through:
 * points as Montgomery-form bytes, field elements and points as JSON
 * decimal strings, GT elements as twelve of them.
 *
 * The input's first byte chooses the decoder (mode below); the rest is
 * its bytes, or its strings separated by commas (corpus/bn254_serial/ has
 * the generators and a verification key's points).  Properties, beyond the
 * sanitizers':
 *  - the decoders are exact: a field element is taken if and only if it is
 *    below its modulus (bytes: compared here as integers; decimals: digits
 *    only, no sign, no leading zero, compared with p's or r's digits);
 *  - a point in decimals is taken if and only if its z is "1" (G2:
 *    "1", "0") and its coordinates are, or it is the point at infinity as
 *    snarkjs writes it; (0, 0) with z = 1 is no point, and was read as
 *    the point at infinity (found here: a second spelling of it that
 *    snarkjs refuses);
 *  - what is taken reads back to the same bytes or the same strings (for
 *    decimal points, those on the curve);
 *  - the curve and subgroup checks give the same answer with the portable
 *    and the ADX arithmetic (where the CPU has ADX).
 */
#include "fuzz.h"
#include "field/bn254/serial.h"

#include <string.h>

/* The moduli, as decimal text and as little-endian bytes. */
static const char P_DEC[] = "2188824287183927522224640574525727508869631115"
                            "7297823662689037894645226208583";
static const char R_DEC[] = "2188824287183927522224640574525727508854836440"
                            "0416034343698204186575808495617";
static const uint8_t P_BE[32] = {
    0x30, 0x64, 0x4e, 0x72, 0xe1, 0x31, 0xa0, 0x29, 0xb8, 0x50, 0x45,
    0xb6, 0x81, 0x81, 0x58, 0x5d, 0x97, 0x81, 0x6a, 0x91, 0x68, 0x71,
    0xca, 0x8d, 0x3c, 0x20, 0x8c, 0x16, 0xd8, 0x7c, 0xfd, 0x47};
static const uint8_t R_BE[32] = {
    0x30, 0x64, 0x4e, 0x72, 0xe1, 0x31, 0xa0, 0x29, 0xb8, 0x50, 0x45,
    0xb6, 0x81, 0x81, 0x58, 0x5d, 0x28, 0x33, 0xe8, 0x48, 0x79, 0xb9,
    0x70, 0x91, 0x43, 0xe1, 0xf5, 0x93, 0xf0, 0x00, 0x00, 0x01};

/* le < the modulus given big-endian */
static bool below(const uint8_t le[32], const uint8_t be[32])
{
    for (int i = 0; i < 32; i++) {
        uint8_t a = le[31 - i];
        if (a != be[i])
            return a < be[i];
    }
    return false;
}

/* s[0..len) is the decimal text of a number below the modulus (its
 * digits): digits only, no leading zero, fewer digits or, as many, less. */
static bool dec_below(const char *s, size_t len, const char *mod)
{
    size_t ml = strlen(mod);
    if (len == 0 || len > ml || (len > 1 && s[0] == '0'))
        return false;
    for (size_t i = 0; i < len; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return len < ml || memcmp(s, mod, len) < 0;
}

/* The strings of the input: at most n, separated by commas, each cut to
 * cap - 1 bytes (a NUL ends one early: the decoders read C strings). */
#define STR_CAP 96
static void strings(const uint8_t *p, size_t size, char out[][STR_CAP],
                    const char *ptrs[], size_t n)
{
    size_t k = 0, o = 0;
    for (size_t i = 0; i < n; i++)
        out[i][0] = '\0';
    for (size_t i = 0; i < size && k < n; i++) {
        if (p[i] == ',') {
            k++;
            o = 0;
            continue;
        }
        if (o + 1 < STR_CAP) {
            out[k][o++] = (char)p[i];
            out[k][o] = '\0';
        }
    }
    for (size_t i = 0; i < n; i++)
        ptrs[i] = out[i];
}

static void check_self(void)
{
    /* the constants are the library's moduli: p - 1 and r - 1 are taken,
     * p and r are not */
    static const char p1[] = "21888242871839275222246405745257275088696311157"
                             "297823662689037894645226208582";
    static const char r1[] = "21888242871839275222246405745257275088548364400"
                             "416034343698204186575808495616";
    pl__bn254_fp x;
    pl__bn254_fr y;
    PL_FUZZ_ASSERT(!pl__bn254_fp_from_dec(&x, P_DEC, strlen(P_DEC)) &&
                       pl__bn254_fp_from_dec(&x, p1, strlen(p1)) &&
                       !pl__bn254_fr_from_dec(&y, R_DEC, strlen(R_DEC)) &&
                       pl__bn254_fr_from_dec(&y, r1, strlen(r1)),
                   "the moduli of this target are not the library's");
    uint8_t le[32];
    for (int i = 0; i < 32; i++)
        le[i] = P_BE[31 - i];
    PL_FUZZ_ASSERT(!pl__bn254_fp_from_le(&x, le), "p as bytes taken");
    le[0]--;
    PL_FUZZ_ASSERT(pl__bn254_fp_from_le(&x, le), "p - 1 as bytes refused");
}

/* The CPU's best arithmetic (ADX where it has it): compared with the
 * portable one.  Asking for ADX on a CPU without it would be SIGILL. */
static pl__bn254_arith best;

static void curve_checks_agree_g1(const pl__bn254_g1_affine *a)
{
    bool c0 = pl__bn254_g1_affine_on_curve(a, PL__BN254_PORTABLE),
         c1 = pl__bn254_g1_affine_on_curve(a, best),
         g0 = pl__bn254_g1_affine_in_group(a, PL__BN254_PORTABLE),
         g1 = pl__bn254_g1_affine_in_group(a, best);
    PL_FUZZ_ASSERT(c0 == c1 && g0 == g1 && c0 == g0,
                   "G1 checks: on curve %d/%d, in group %d/%d", c0, c1, g0,
                   g1);
}

static bool curve_checks_agree_g2(const pl__bn254_g2_affine *a)
{
    bool c0 = pl__bn254_g2_affine_on_curve(a, PL__BN254_PORTABLE),
         c1 = pl__bn254_g2_affine_on_curve(a, best),
         g0 = pl__bn254_g2_affine_in_group(a, PL__BN254_PORTABLE),
         g1 = pl__bn254_g2_affine_in_group(a, best);
    PL_FUZZ_ASSERT(c0 == c1 && g0 == g1 && (c0 || !g0),
                   "G2 checks: on curve %d/%d, in group %d/%d", c0, c1, g0,
                   g1);
    return c0;
}

static void fuzz_bytes(const uint8_t *p, size_t size, bool g2)
{
    uint8_t in[PL__BN254_G2_BYTES] = {0}, out[PL__BN254_G2_BYTES];
    size_t n = g2 ? PL__BN254_G2_BYTES : PL__BN254_G1_BYTES;
    memcpy(in, p, size < n ? size : n);
    bool want = true;
    for (size_t i = 0; i < n; i += 32)
        want &= below(in + i, P_BE);
    if (!g2) {
        pl__bn254_g1_affine a;
        bool got = pl__bn254_g1_from_bytes(&a, in);
        PL_FUZZ_ASSERT(got == want, "G1 bytes: %s", got ? "taken" : "refused");
        if (!got)
            return;
        pl__bn254_g1_to_bytes(out, &a);
        curve_checks_agree_g1(&a);
    } else {
        pl__bn254_g2_affine a;
        bool got = pl__bn254_g2_from_bytes(&a, in);
        PL_FUZZ_ASSERT(got == want, "G2 bytes: %s", got ? "taken" : "refused");
        if (!got)
            return;
        pl__bn254_g2_to_bytes(out, &a);
        curve_checks_agree_g2(&a);
    }
    PL_FUZZ_ASSERT(memcmp(in, out, n) == 0, "bytes do not read back");
}

static void fuzz_scalar_bytes(const uint8_t *p, size_t size)
{
    uint8_t in[32] = {0}, out[32];
    memcpy(in, p, size < 32 ? size : 32);
    pl__bn254_fp x;
    pl__bn254_fr y;
    bool fp = pl__bn254_fp_from_le(&x, in), fr = pl__bn254_fr_from_le(&y, in);
    PL_FUZZ_ASSERT(fp == below(in, P_BE) && fr == below(in, R_BE),
                   "standard bytes: Fp %d, Fr %d", fp, fr);
    if (fp) {
        pl__bn254_fp_to_le(out, &x);
        PL_FUZZ_ASSERT(memcmp(in, out, 32) == 0, "Fp bytes do not read back");
    }
    if (fr) {
        pl__bn254_fr_to_le(out, &y);
        PL_FUZZ_ASSERT(memcmp(in, out, 32) == 0, "Fr bytes do not read back");
    }
}

static void fuzz_dec(const uint8_t *p, size_t size, bool fr)
{
    const char *s = (const char *)p;
    char out[PL__BN254_DEC_CAP];
    bool got, want = dec_below(s, size, fr ? R_DEC : P_DEC);
    if (fr) {
        pl__bn254_fr y;
        got = pl__bn254_fr_from_dec(&y, s, size);
        if (got)
            pl__bn254_fr_to_dec(out, &y);
    } else {
        pl__bn254_fp x;
        got = pl__bn254_fp_from_dec(&x, s, size);
        if (got)
            pl__bn254_fp_to_dec(out, &x);
    }
    PL_FUZZ_ASSERT(got == want, "%s decimal '%.*s': %s", fr ? "Fr" : "Fp",
                   (int)(size < 90 ? size : 90), s,
                   got ? "taken" : "refused");
    if (got)
        PL_FUZZ_ASSERT(strlen(out) == size && memcmp(out, s, size) == 0,
                       "decimal '%.*s' reads back as '%s'", (int)size, s,
                       out);
}

/* Each string decoded alone must agree with the whole: a point or an
 * element is taken only if every coordinate is. */
static bool coord_ok(const char *s)
{
    return dec_below(s, strlen(s), P_DEC);
}

static bool all_zero(const char *const s[], size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(s[i], "0") != 0)
            return false;
    return true;
}

static void fuzz_dec_points(const uint8_t *p, size_t size, int mode)
{
    char buf[12][STR_CAP];
    const char *s[12];
    if (mode == 4) {
        strings(p, size, buf, s, 3);
        pl__bn254_g1_affine a;
        bool got = pl__bn254_g1_from_dec(&a, s);
        bool inf = strcmp(s[2], "0") == 0;
        bool want = inf ? strcmp(s[0], "0") == 0 && strcmp(s[1], "1") == 0
                        : strcmp(s[2], "1") == 0 && coord_ok(s[0]) &&
                              coord_ok(s[1]) &&
                              !(strcmp(s[0], "0") == 0 &&
                                strcmp(s[1], "0") == 0);
        PL_FUZZ_ASSERT(got == want, "G1 ['%s', '%s', '%s']: %s", s[0], s[1],
                       s[2], got ? "taken" : "refused");
        if (!got)
            return;
        curve_checks_agree_g1(&a);
        if (!pl__bn254_g1_affine_on_curve(&a, PL__BN254_PORTABLE))
            return;
        char out[3][PL__BN254_DEC_CAP];
        pl__bn254_g1_to_dec(out, &a);
        for (int i = 0; i < 3; i++)
            PL_FUZZ_ASSERT(strcmp(out[i], s[i]) == 0, "G1 coordinate %d: "
                           "'%s' reads back as '%s'", i, s[i], out[i]);
    } else if (mode == 5) {
        strings(p, size, buf, s, 6);
        const char *const t[3][2] = {{s[0], s[1]}, {s[2], s[3]}, {s[4], s[5]}};
        pl__bn254_g2_affine a;
        bool got = pl__bn254_g2_from_dec(&a, t);
        bool inf = strcmp(s[4], "0") == 0 && strcmp(s[5], "0") == 0;
        bool want = inf ? strcmp(s[0], "0") == 0 && strcmp(s[1], "0") == 0 &&
                              strcmp(s[2], "1") == 0 && strcmp(s[3], "0") == 0
                        : strcmp(s[4], "1") == 0 && strcmp(s[5], "0") == 0 &&
                              coord_ok(s[0]) && coord_ok(s[1]) &&
                              coord_ok(s[2]) && coord_ok(s[3]) &&
                              !all_zero(s, 4);
        PL_FUZZ_ASSERT(got == want, "G2: %s", got ? "taken" : "refused");
        if (!got || !curve_checks_agree_g2(&a))
            return;
        char out[3][2][PL__BN254_DEC_CAP];
        pl__bn254_g2_to_dec(out, &a);
        for (int i = 0; i < 6; i++)
            PL_FUZZ_ASSERT(strcmp(out[i / 2][i % 2], s[i]) == 0,
                           "G2 string %d: '%s' reads back as '%s'", i, s[i],
                           out[i / 2][i % 2]);
    } else {
        strings(p, size, buf, s, 12);
        const char *const t[2][3][2] = {
            {{s[0], s[1]}, {s[2], s[3]}, {s[4], s[5]}},
            {{s[6], s[7]}, {s[8], s[9]}, {s[10], s[11]}}};
        pl__bn254_fp12 a;
        bool got = pl__bn254_fp12_from_dec(&a, t), want = true;
        for (int i = 0; i < 12; i++)
            want &= coord_ok(s[i]);
        PL_FUZZ_ASSERT(got == want, "Fp12: %s", got ? "taken" : "refused");
        if (!got)
            return;
        char out[2][3][2][PL__BN254_DEC_CAP];
        pl__bn254_fp12_to_dec(out, &a);
        for (int i = 0; i < 12; i++)
            PL_FUZZ_ASSERT(strcmp(out[i / 6][(i / 2) % 3][i % 2], s[i]) == 0,
                           "Fp12 string %d: '%s' reads back differently", i,
                           s[i]);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool checked;
    if (!checked) {
        check_self();
        best = pl__bn254_arith_best();
        checked = true;
    }
    if (size == 0)
        return 0;
    const uint8_t *p = data + 1;
    size_t n = size - 1;
    switch (data[0] % 8) {
    case 0:
        fuzz_bytes(p, n, false);
        break;
    case 1:
        fuzz_bytes(p, n, true);
        break;
    case 2:
        fuzz_dec(p, n, false);
        break;
    case 3:
        fuzz_dec(p, n, true);
        break;
    case 7:
        fuzz_scalar_bytes(p, n);
        break;
    default:
        fuzz_dec_points(p, n, data[0] % 8);
        break;
    }
    return 0;
}
