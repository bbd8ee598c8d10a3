/* SPDX-License-Identifier: Apache-2.0 */
/*
 * --check-params for bellperson's files (pl_bp_params_check_points, the
 * commands inspect, verify --format bellperson and c2): every point of a
 * parameter or .vk file decoded as bellperson reads it (bellperson.c's
 * readers: the flag bits, the curve, the point at infinity) and checked
 * for its prime-order subgroup, over a pool, with progress for the CLI.
 * The check itself is formats/point_check.c's, shared with the zkey's
 * (its file-top comment has the batched subgroup test and why it is
 * sound); this file names the sections h, l, a, b_g1 (G1) and b_g2 (G2)
 * in file order, with bellperson's decoders, and refuses the verifying
 * key's points at infinity.  A 32 GiB PoRep file holds ~5 x 10^8 points
 * (bench/README.md has the figures); opening a file checks only its
 * verifying key and IC points.
 */
#include "formats/bellperson.h"
#include "formats/point_check.h"
#include "util/error.h"

#include <inttypes.h>

/* The query sections (ic was checked at open) over the pool, or a pool of
 * cfg's threads when NULL; alone: each point on its own (the baseline). */
static pl_status check_sections(const pl_bp_params *p, pl__pool *pool,
                                const pl_bp_check_config *cfg, bool alone,
                                pl_error *err)
{
    pl__pc_section sec[PL__BP_SECTIONS];
    unsigned n = 0;
    for (unsigned s = PL__BP_H; s < PL__BP_SECTIONS; s++) {
        const bool g2 = pl__bp_section_is_g2(s);
        sec[n++] = (pl__pc_section){
            .name = pl__bp_section_name(s),
            .group = g2 ? PL__PC_BLS12_381_G2 : PL__PC_BLS12_381_G1,
            .points = p->points[s],
            .count = p->count[s],
            .unit = g2 ? PL__BP_G2_BYTES : PL__BP_G1_BYTES,
            .at = p->at[s] + 4, /* after the section's count */
            .decode = g2 ? pl__bp_decode_g2 : pl__bp_decode_g1,
            .not_in_group = pl__bp_not_in_group,
        };
    }
    const pl__pc_job job = {
        .path = p->path,
        .sections = sec,
        .n_sections = n,
        .pool = pool,
        .cfg = cfg,
        .alone = alone,
    };
    return pl__points_check(&job, err);
}

static pl_status point_fail(const pl_bp_params *p, const char *what,
                            uint64_t at, const char *bad, pl_error *err)
{
    return pl__error_set(err, PL_EFORMAT, "%s: verifying key: %s %s (at byte "
                         "offset %" PRIu64 ")", p->path, what, bad, at);
}

/* The verifying key's six points: decoded and in their subgroups at open;
 * the point at infinity refused here (bellperson's keys never hold it:
 * its comments say "never the point at infinity"). */
static pl_status check_vk(const pl_bp_params *p, pl_error *err)
{
    const blst_p1_affine *g1[3] = {&p->alpha_g1, &p->beta_g1, &p->delta_g1};
    const char *g1_names[3] = {"alpha_g1", "beta_g1", "delta_g1"};
    const uint64_t g1_at[3] = {0, PL__BP_G1_BYTES,
                               2 * PL__BP_G1_BYTES + 2 * PL__BP_G2_BYTES};
    const blst_p2_affine *g2[3] = {&p->beta_g2, &p->gamma_g2, &p->delta_g2};
    const char *g2_names[3] = {"beta_g2", "gamma_g2", "delta_g2"};
    const uint64_t g2_at[3] = {2 * PL__BP_G1_BYTES,
                               2 * PL__BP_G1_BYTES + PL__BP_G2_BYTES,
                               3 * PL__BP_G1_BYTES + 2 * PL__BP_G2_BYTES};
    for (unsigned i = 0; i < 3; i++) {
        if (blst_p1_affine_is_inf(g1[i]))
            return point_fail(p, g1_names[i], g1_at[i], "is the point at "
                              "infinity", err);
        if (blst_p2_affine_is_inf(g2[i]))
            return point_fail(p, g2_names[i], g2_at[i], "is the point at "
                              "infinity", err);
    }
    return PL_OK;
}

pl_status pl__bp_params_check_points(const pl_bp_params *p, pl__pool *pool,
                                     const pl_bp_check_config *cfg,
                                     pl_error *err)
{
    pl_status st = check_vk(p, err);
    return st ? st : check_sections(p, pool, cfg, false, err);
}

pl_status pl__bp_params_check_points_alone(const pl_bp_params *p,
                                           pl__pool *pool, pl_error *err)
{
    pl_status st = check_vk(p, err);
    return st ? st : check_sections(p, pool, NULL, true, err);
}

pl_status pl_bp_params_check_points_with(const pl_bp_params *p,
                                         const pl_bp_check_config *cfg,
                                         pl_error *err)
{
    pl_status st = check_vk(p, err);
    return st ? st : check_sections(p, NULL, cfg, false, err);
}

pl_status pl_bp_params_check_points(const pl_bp_params *p, pl_error *err)
{
    return pl_bp_params_check_points_with(p, NULL, err);
}
