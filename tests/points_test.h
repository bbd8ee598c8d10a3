/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the point-check tests (test_point_check.c, test_bp_strict.c,
 * test_badinput.c) share: points of BLS12-381's curves outside their
 * prime-order subgroups, and a progress callback that records what a
 * check reported.
 */
#ifndef PL_TEST_POINTS_H
#define PL_TEST_POINTS_H

#include "harness.h"

#include "blst.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* A point of E1: y^2 = x^3 + 4 outside G1: x = 1, 2, ... until x^3 + 4 is
 * a square (E1's cofactor is large, so such a point is almost never in
 * G1). */
static inline void bls_g1_outside_subgroup(blst_p1_affine *out)
{
    const uint64_t four_l[6] = {4};
    blst_fp four;
    blst_fp_from_uint64(&four, four_l);
    for (uint64_t k = 1;; k++) {
        const uint64_t limbs[6] = {k};
        blst_fp rhs;
        blst_fp_from_uint64(&out->x, limbs);
        blst_fp_sqr(&rhs, &out->x);
        blst_fp_mul(&rhs, &rhs, &out->x);
        blst_fp_add(&rhs, &rhs, &four);
        if (blst_fp_sqrt(&out->y, &rhs) && !blst_p1_affine_in_g1(out)) {
            CHECK(blst_p1_affine_on_curve(out));
            return;
        }
    }
}

/* The same on E2: y^2 = x^3 + 4(1 + i), x = k + 4i. */
static inline void bls_g2_outside_subgroup(blst_p2_affine *out)
{
    const uint64_t four_l[6] = {4};
    blst_fp2 b;
    blst_fp_from_uint64(&b.fp[0], four_l);
    b.fp[1] = b.fp[0];
    for (uint64_t k = 1;; k++) {
        const uint64_t limbs[6] = {k};
        blst_fp2 rhs;
        blst_fp_from_uint64(&out->x.fp[0], limbs);
        blst_fp_from_uint64(&out->x.fp[1], four_l);
        blst_fp2_sqr(&rhs, &out->x);
        blst_fp2_mul(&rhs, &rhs, &out->x);
        blst_fp2_add(&rhs, &rhs, &b);
        if (blst_fp2_sqrt(&out->y, &rhs) && !blst_p2_affine_in_g2(out)) {
            CHECK(blst_p2_affine_on_curve(out));
            return;
        }
    }
}

/* What a check's progress callback (pl_check_config.on_progress) was
 * told: how often, whether each group's count reached its total, and the
 * last figures. */
typedef struct {
    unsigned calls;
    bool ended_g1, ended_g2;
    uint64_t last_done, last_total;
} progress_seen;

static inline void progress_record(void *user, const char *stage,
                                   uint64_t done, uint64_t total)
{
    progress_seen *s = user;
    s->calls++;
    CHECK(done <= total);
    if (done == total && strcmp(stage, "G1 points") == 0)
        s->ended_g1 = true;
    if (done == total && strcmp(stage, "G2 points") == 0)
        s->ended_g2 = true;
    s->last_done = done;
    s->last_total = total;
}

#endif
