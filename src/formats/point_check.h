/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The point-set checker behind --check-params (point_check.c): every point
 * of some sections of a key decoded by its format's rule (reduced
 * coordinates, on the curve, infinity allowed or not) and checked for its
 * prime-order subgroup, batched and threaded, with progress, naming the
 * first bad point.  The readers of bellperson's files (bp_check.c) and of
 * snarkjs zkeys (zkey.c) are its users: they describe their sections and
 * how a point's bytes decode, and nothing else.
 */
#ifndef PL_FORMATS_POINT_CHECK_H
#define PL_FORMATS_POINT_CHECK_H

#include "proofline.h"
#include "util/pool.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The groups a section's points may be in.  The affine type a decoder
 * writes: blst_p1_affine, blst_p2_affine, pl__bn254_g1_affine,
 * pl__bn254_g2_affine. */
typedef enum {
    PL__PC_BLS12_381_G1,
    PL__PC_BLS12_381_G2,
    PL__PC_BN254_G1, /* cofactor 1: on the curve is in the group */
    PL__PC_BN254_G2,
    PL__PC_GROUPS
} pl__pc_group;

/* Turns one point's bytes into the group's affine point (all zero: the
 * point at infinity): NULL when it is a point of the curve, else why it is
 * unusable, as the message says it after "point N " ("is not on the
 * curve", "has x not below q", "is the point at infinity").  The point
 * must be on the curve when NULL is returned: the batch's soundness
 * rests on it. */
typedef const char *(*pl__pc_decode_fn)(void *out, const uint8_t *bytes,
                                        const void *ctx);

typedef struct {
    const char *name; /* after "section " in messages: "h", "5 (A points)" */
    pl__pc_group group;
    const uint8_t *points;
    uint64_t count;
    size_t unit; /* bytes a point */
    uint64_t at; /* the byte offset of points[0] in the file */
    pl__pc_decode_fn decode;
    const void *decode_ctx;
    const char *not_in_group; /* the reason for a point outside the group */
} pl__pc_section;

#define PL__PC_MAX_SECTIONS 8u

typedef struct {
    const char *path; /* the file, first in messages */
    const pl__pc_section *sections;
    unsigned n_sections; /* <= PL__PC_MAX_SECTIONS */
    /* the caller's pool, or NULL: one made for the check, of cfg's
     * threads (0: one per online core; never more than the points' tasks) */
    pl__pool *pool;
    /* the caller's, or NULL (defaults): its threads, and its progress with
     * stages "G1 points", "G2 points" and, when a batch fails, "G1 points,
     * one by one" ... */
    const pl_check_config *cfg;
    bool alone; /* each point checked on its own (the bench's baseline) */
} pl__pc_job;

/* Checks the sections: one pass per group (the groups in the order their
 * first sections come), each group's sections in their order.  PL_OK, or
 * PL_EFORMAT "<path>: section <name>: point <i> <reason> (at byte offset
 * <n>)" for the first bad point in section order, with one exception
 * within a group: a point that does not decode is found by the batched
 * pass, and is named before an earlier one outside the subgroup. */
pl_status pl__points_check(const pl__pc_job *job, pl_error *err);

/* One point (a header's): decoded, then the group's exact subgroup test;
 * NULL or the reason (not_in_group when outside the subgroup). */
const char *pl__point_check_one(pl__pc_group group, pl__pc_decode_fn decode,
                                const void *ctx, const uint8_t *bytes,
                                const char *not_in_group);

#endif /* PL_FORMATS_POINT_CHECK_H */
