/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The zkey's --check-params through the shared point checker
 * (formats/point_check.c): good keys of both curves pass on pools of one
 * and two threads with progress to the end of each stage; a point outside
 * its subgroup (BLS12-381 G1 and G2, BN254 G2, and a G1 point with a
 * component of order 3, the case a single random combination misses one
 * time in three), off the curve or with a coordinate not below q, is
 * refused naming the section, the index and the byte offset, whatever the
 * pool; several bad points name the first in section order (across the
 * groups), and the per-point baseline agrees.  bellperson's users of the
 * same checker are tested in test_bp_strict.c.
 */
#include "harness.h"
#include "points_test.h"

#include "blst.h"
#include "field/field.h"
#include "field/bn254/curve.h"
#include "field/bn254/serial.h"
#include "formats/formats.h"
#include "util/pool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint8_t *read_vector(const char *rel, size_t *len)
{
    return pl_test_read_file(pl_test_vector(rel), len);
}

/* ---- points that are bad in each way -------------------------------------- */

/* q + T, T = (0, 2) of order 3 on E1. */
static void g1_plus_order_three(blst_p1_affine *out, const blst_p1_affine *q)
{
    const uint64_t l2[6] = {2};
    blst_p1_affine t;
    memset(&t.x, 0, sizeof(t.x));
    blst_fp_from_uint64(&t.y, l2);
    CHECK(blst_p1_affine_on_curve(&t));
    blst_p1 j;
    blst_p1_from_affine(&j, q);
    blst_p1_add_or_double_affine(&j, &j, &t);
    blst_p1_to_affine(out, &j);
    CHECK(blst_p1_affine_on_curve(out) && !blst_p1_affine_in_g1(out));
}

/* A point of BN254's twist outside G2 (test_bn254_curve.c's first, found
 * with Python), in the zkey's bytes. */
static void bn254_g2_outside(uint8_t out[PL__BN254_G2_BYTES])
{
    const char *const t[3][2] = {
        {"3413513218498352040262653353725127729454431939539290118844322056"
         "224532443637",
         "6077776500692565155461894309070795882353485867345896979329447163"
         "197530625403"},
        {"1897204082705797627957867419348500681772036737521809408451442798"
         "2330241426754",
         "1400686791369657808728779000072902691633689812434021674138250392"
         "5435473444548"},
        {"1", "0"}};
    pl__bn254_g2_affine q;
    CHECK(pl__bn254_g2_from_dec(&q, t));
    const pl__bn254_arith v = pl__bn254_arith_current();
    CHECK(pl__bn254_g2_affine_on_curve(&q, v));
    CHECK(!pl__bn254_g2_affine_in_group(&q, v));
    pl__bn254_g2_to_bytes(out, &q);
}

/* ---- running the check ------------------------------------------------------ */

/* The check of m on a pool of `threads` (batched, or each point alone). */
static pl_status check_on(const uint8_t *m, size_t len, const char *label,
                          unsigned threads, bool alone, progress_seen *seen,
                          pl_error *err)
{
    pl_zkey *z = NULL;
    pl__pool *pool = NULL;
    CHECK_OK(pl__zkey_parse(&z, m, len, label, err), err);
    CHECK_OK(pl__pool_create(&pool, threads, "pl-test", err), err);
    pl_check_config cfg = {.on_progress = seen ? progress_record : NULL,
                           .on_progress_user = seen};
    pl_status st = pl__zkey_check_points(z, pool, &cfg, alone, err);
    pl__pool_destroy(pool);
    pl_zkey_close(z);
    return st;
}

/* Refused on pools of 1 and 2 threads (and, with alone_too, by the
 * per-point baseline: slower, so for some cases only), with "section
 * <sec>: point <i> <why> (at byte offset <at>)". */
static void expect_named_by(const uint8_t *m, size_t len, const char *label,
                            const char *sec, size_t i, const char *why,
                            size_t at, bool alone_too)
{
    char want[256];
    snprintf(want, sizeof(want), "%s: section %s: point %zu %s (at byte "
             "offset %zu)", label, sec, i, why, at);
    for (unsigned mode = 0; mode < (alone_too ? 3u : 2u); mode++) {
        pl_error err = {0};
        pl_status st = check_on(m, len, label, mode == 1 ? 2 : 1, mode == 2,
                                NULL, &err);
        if (st != PL_EFORMAT || !strstr(err.msg, want))
            pl_test_fail(__FILE__, __LINE__, "%s (mode %u): status %d, "
                         "wanted \"%s\" in: %s", label, mode, (int)st, want,
                         err.msg);
    }
}

static void expect_named(const uint8_t *m, size_t len, const char *label,
                         const char *sec, size_t i, const char *why,
                         size_t at)
{
    expect_named_by(m, len, label, sec, i, why, at, false);
}

/* A point of the section that is not infinity, from the middle on. */
static size_t pick(const uint8_t *b, size_t base, size_t count, size_t unit)
{
    static const uint8_t zero[192];
    for (size_t k = count / 2; k < count; k++)
        if (memcmp(b + base + k * unit, zero, unit) != 0)
            return k;
    for (size_t k = 0; k < count; k++)
        if (memcmp(b + base + k * unit, zero, unit) != 0)
            return k;
    CHECK(!"no point that is not infinity");
    return 0;
}

typedef struct {
    uint8_t *b, *m;
    size_t len;
    uint32_t n_vars, n_public, domain;
    bool bn;
    size_t g1, g2; /* bytes a point */
} key;

static void key_open(key *k, const char *rel, bool bn)
{
    k->b = read_vector(rel, &k->len);
    CHECK((k->m = malloc(k->len)) != NULL);
    /* the header's counts, at the same place on both curves' layouts */
    const size_t n8q = bn ? 32 : 48;
    const size_t s2 = pl_test_section_payload(k->b, k->len, 2);
    k->n_vars = pl__le32(k->b + s2 + 4 + n8q + 4 + 32);
    k->n_public = pl__le32(k->b + s2 + 4 + n8q + 4 + 32 + 4);
    k->domain = pl__le32(k->b + s2 + 4 + n8q + 4 + 32 + 8);
    k->bn = bn;
    k->g1 = 2 * n8q;
    k->g2 = 4 * n8q;
}

static void key_close(key *k)
{
    free(k->m);
    free(k->b);
}

/* Point count and size of section id (3, 5..9). */
static size_t count_of(const key *k, unsigned id)
{
    switch (id) {
    case 3:
        return k->n_public + 1;
    case 8:
        return k->n_vars - k->n_public - 1;
    case 9:
        return k->domain;
    default:
        return k->n_vars;
    }
}

static size_t unit_of(const key *k, unsigned id)
{
    return id == 7 ? k->g2 : k->g1;
}

/* The byte offset of a picked point of section id, in k->b. */
static size_t site(const key *k, unsigned id, size_t *index)
{
    const size_t base = pl_test_section_payload(k->b, k->len, id);
    *index = pick(k->b, base, count_of(k, id), unit_of(k, id));
    return base + *index * unit_of(k, id);
}

static const char *const names[10] = {
    [3] = "3 (IC points)", [5] = "5 (A points)", [6] = "6 (B1 points)",
    [7] = "7 (B2 points)", [8] = "8 (C points)", [9] = "9 (H points)"};

/* ---- the cases ------------------------------------------------------------- */

/* Good keys of both curves pass on 1, 2 and 3 threads and through the
 * public calls, telling their progress to the end of each stage. */
PL_TEST(zkey_good_keys_pass_with_progress)
{
    static const char *const keys[] = {"chain10/circuit.zkey",
                                       "multiplier/circuit.zkey",
                                       "bn254/chain10/circuit.zkey",
                                       "bn254/multiplier/circuit.zkey"};
    for (size_t f = 0; f < sizeof(keys) / sizeof(keys[0]); f++) {
        size_t len;
        uint8_t *b = read_vector(keys[f], &len);
        for (unsigned threads = 1; threads <= 3; threads++) {
            pl_error err = {0};
            progress_seen seen = {0};
            CHECK_OK(check_on(b, len, keys[f], threads, false, &seen, &err),
                     &err);
            CHECK(seen.ended_g1 && seen.ended_g2 && seen.calls >= 2);
            if (threads == 1)
                CHECK_OK(check_on(b, len, keys[f], 1, true, NULL, &err),
                         &err);
        }
        pl_error err = {0};
        pl_zkey *z = NULL;
        CHECK_OK(pl_zkey_open(&z, pl_test_vector(keys[f]), &err), &err);
        for (unsigned threads = 0; threads <= 2; threads++) {
            progress_seen seen = {0};
            pl_check_config cfg = {.threads = threads,
                                   .on_progress = progress_record,
                                   .on_progress_user = &seen};
            CHECK_OK(pl_zkey_check_points_with(z, &cfg, &err), &err);
            CHECK(seen.ended_g1 && seen.ended_g2);
        }
        CHECK_OK(pl_zkey_check_points_with(z, NULL, &err), &err);
        CHECK_OK(pl_zkey_check_points(z, &err), &err);
        pl_zkey_close(z);
        free(b);
    }
}

/* BLS12-381: outside G1 (H, A), outside G2 (B2), a component of order 3
 * (C), off the curve (B1, B2), not reduced (IC, B2). */
PL_TEST(zkey_bls12_381_bad_points_named)
{
    key k;
    key_open(&k, "chain10/circuit.zkey", false);
    blst_p1_affine p1, q1;
    blst_p2_affine p2;
    bls_g1_outside_subgroup(&p1);
    bls_g2_outside_subgroup(&p2);
    size_t i, at;
    char label[64];
    static const unsigned g1_subgroup[] = {9, 5};
    for (size_t s = 0; s < 2; s++) {
        const unsigned id = g1_subgroup[s];
        memcpy(k.m, k.b, k.len);
        at = site(&k, id, &i);
        memcpy(k.m + at, &p1, sizeof(p1));
        snprintf(label, sizeof(label), "g1_subgroup_%u.zkey", id);
        expect_named_by(k.m, k.len, label, names[id], i,
                        "is not in the G1 subgroup", at, s == 0);
    }
    memcpy(k.m, k.b, k.len);
    at = site(&k, 7, &i);
    memcpy(k.m + at, &p2, sizeof(p2));
    expect_named_by(k.m, k.len, "g2_subgroup.zkey", names[7], i,
                    "is not in the G2 subgroup", at, true);

    /* the tight case for the batch: each run draws new coefficients */
    memcpy(k.m, k.b, k.len);
    at = site(&k, 8, &i);
    memcpy(&q1, k.b + at, sizeof(q1));
    g1_plus_order_three(&p1, &q1);
    memcpy(k.m + at, &p1, sizeof(p1));
    for (unsigned run = 0; run < 2; run++)
        expect_named(k.m, k.len, "order3.zkey", names[8], i,
                     "is not in the G1 subgroup", at);

    memcpy(k.m, k.b, k.len);
    at = site(&k, 6, &i);
    k.m[at] ^= 1; /* the low bit of x, still below q */
    expect_named_by(k.m, k.len, "offcurve_b1.zkey", names[6], i,
                    "is not on the curve", at, true);
    memcpy(k.m, k.b, k.len);
    at = site(&k, 7, &i);
    k.m[at] ^= 1;
    expect_named(k.m, k.len, "offcurve_b2.zkey", names[7], i,
                 "is not on the curve", at);

    memcpy(k.m, k.b, k.len);
    at = site(&k, 3, &i);
    memset(k.m + at + 48, 0xff, 48); /* y >= q */
    expect_named(k.m, k.len, "unreduced_ic.zkey", names[3], i,
                 "has y not below q", at);
    memcpy(k.m, k.b, k.len);
    at = site(&k, 7, &i);
    memset(k.m + at + 48, 0xff, 48); /* x.c1 >= q */
    expect_named(k.m, k.len, "unreduced_b2.zkey", names[7], i,
                 "has x.c1 not below q", at);
    key_close(&k);
}

/* BN254: outside G2 (B2), off the curve (B2, A), not reduced (B2, H). */
PL_TEST(zkey_bn254_bad_points_named)
{
    key k;
    key_open(&k, "bn254/chain10/circuit.zkey", true);
    uint8_t out2[PL__BN254_G2_BYTES];
    bn254_g2_outside(out2);
    size_t i, at;
    memcpy(k.m, k.b, k.len);
    at = site(&k, 7, &i);
    memcpy(k.m + at, out2, sizeof(out2));
    expect_named_by(k.m, k.len, "bn_g2_subgroup.zkey", names[7], i,
                    "is not in the G2 subgroup", at, true);
    /* the same outside point plus the key's own (a G2 point): still
     * outside, and not a point the test vectors hold */
    memcpy(k.m, k.b, k.len);
    {
        const pl__bn254_arith v = pl__bn254_arith_current();
        pl__bn254_g2_affine a, o;
        pl__bn254_g2 s;
        CHECK(pl__bn254_g2_from_bytes(&a, k.b + at));
        CHECK(pl__bn254_g2_from_bytes(&o, out2));
        pl__bn254_g2_from_affine(&s, &a);
        pl__bn254_g2_add_affine(&s, &s, &o, v);
        pl__bn254_g2_to_affine(&a, &s, v);
        pl__bn254_g2_to_bytes(k.m + at, &a);
    }
    expect_named(k.m, k.len, "bn_g2_moved.zkey", names[7], i,
                 "is not in the G2 subgroup", at);

    memcpy(k.m, k.b, k.len);
    at = site(&k, 7, &i);
    k.m[at] ^= 1;
    expect_named(k.m, k.len, "bn_offcurve_b2.zkey", names[7], i,
                 "is not on the curve", at);
    memcpy(k.m, k.b, k.len);
    at = site(&k, 5, &i);
    k.m[at] ^= 1;
    expect_named(k.m, k.len, "bn_offcurve_a.zkey", names[5], i,
                 "is not on the curve", at);

    memcpy(k.m, k.b, k.len);
    at = site(&k, 7, &i);
    memset(k.m + at + 96, 0xff, 32);
    expect_named(k.m, k.len, "bn_unreduced_b2.zkey", names[7], i,
                 "has a coordinate not below q", at);
    memcpy(k.m, k.b, k.len);
    at = site(&k, 9, &i);
    memset(k.m + at + 32, 0xff, 32);
    expect_named(k.m, k.len, "bn_unreduced_h.zkey", names[9], i,
                 "has a coordinate not below q", at);
    key_close(&k);
}

/* Several bad points: the first in section order is named, across the
 * groups (B2, section 7, before H, section 9, though G1 is checked
 * first); within a group a point that does not decode is named before an
 * earlier one outside the subgroup (the batched pass finds it). */
PL_TEST(zkey_first_bad_point_in_section_order)
{
    key k;
    key_open(&k, "chain10/circuit.zkey", false);
    blst_p1_affine p1;
    blst_p2_affine p2;
    bls_g1_outside_subgroup(&p1);
    bls_g2_outside_subgroup(&p2);
    size_t i7, i9, i5, i8;
    const size_t at7 = site(&k, 7, &i7), at9 = site(&k, 9, &i9),
                 at5 = site(&k, 5, &i5), at8 = site(&k, 8, &i8);

    memcpy(k.m, k.b, k.len);
    memcpy(k.m + at7, &p2, sizeof(p2));
    memcpy(k.m + at9, &p1, sizeof(p1));
    expect_named(k.m, k.len, "b2_then_h.zkey", names[7], i7,
                 "is not in the G2 subgroup", at7);

    memcpy(k.m, k.b, k.len);
    memcpy(k.m + at5, &p1, sizeof(p1));
    k.m[at7] ^= 1;
    memcpy(k.m + at9, &p1, sizeof(p1));
    expect_named(k.m, k.len, "a_then_b2.zkey", names[5], i5,
                 "is not in the G1 subgroup", at5);

    /* batched: the point off the curve (C) is named before A's */
    memcpy(k.m, k.b, k.len);
    memcpy(k.m + at5, &p1, sizeof(p1));
    k.m[at8] ^= 1;
    for (unsigned threads = 1; threads <= 2; threads++) {
        pl_error err = {0};
        CHECK_STATUS(check_on(k.m, k.len, "dec.zkey", threads, false, NULL,
                              &err),
                     PL_EFORMAT, &err);
        char want[128];
        snprintf(want, sizeof(want), "section %s: point %zu is not on the "
                 "curve", names[8], i8);
        CHECK(strstr(err.msg, want) != NULL);
    }
    key_close(&k);
}
