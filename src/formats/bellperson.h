/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The byte layouts of bellperson's files (include/proofline_c2.h lists
 * them; docs/filecoin.md maps their bytes): the parsed view of a parameter
 * or .vk file, its writer, and the zcash point encodings.  Everything that
 * knows these layouts is in formats/bellperson.c; the dev setup writes
 * through the writer here and the verifier reads through the view.
 */
#ifndef PL_FORMATS_BELLPERSON_H
#define PL_FORMATS_BELLPERSON_H

#include "proofline_c2.h"
#include "blst.h"
#include "util/file.h"
#include "util/pool.h"

#define PL__BP_G1_BYTES 96u  /* uncompressed, zcash encoding */
#define PL__BP_G2_BYTES 192u
#define PL__BP_G1C_BYTES 48u /* compressed */
#define PL__BP_G2C_BYTES 96u
/* alpha_g1 beta_g1 beta_g2 gamma_g2 delta_g1 delta_g2 */
#define PL__BP_VK_POINTS_BYTES (3u * PL__BP_G1_BYTES + 3u * PL__BP_G2_BYTES)

/* The sections after the verifying key's six points, in file order; each
 * a u32 big-endian count and its points. */
enum {
    PL__BP_IC = 0,
    PL__BP_H,
    PL__BP_L,
    PL__BP_A,
    PL__BP_B_G1,
    PL__BP_B_G2,
    PL__BP_SECTIONS
};

/* "ic", "h", ... for messages. */
const char *pl__bp_section_name(unsigned section);
static inline bool pl__bp_section_is_g2(unsigned section)
{
    return section == PL__BP_B_G2;
}

struct pl_bp_params {
    char *path;
    pl__mapped map;
    bool borrowed;           /* map is the caller's memory (pl__bp_parse) */
    bool vk_only;
    /* the verifying key, decoded */
    blst_p1_affine alpha_g1, beta_g1, delta_g1;
    blst_p2_affine beta_g2, gamma_g2, delta_g2;
    /* per section: its count, its first point and its count's byte offset
     * (in place in the map; sections absent from a .vk have count 0) */
    uint32_t count[PL__BP_SECTIONS];
    const uint8_t *points[PL__BP_SECTIONS];
    uint64_t at[PL__BP_SECTIONS];
};

/* pl_bp_params_open on len bytes in memory (tests, fuzzers): `name` for the
 * path in messages; the handle borrows data. */
pl_status pl__bp_parse(pl_bp_params **out, const uint8_t *data, size_t len,
                       const char *name, pl_error *err);

/* Point i of a section, decoded as bellperson reads it: a valid
 * uncompressed encoding (compressed flag and sign bit clear; else
 * BLST_BAD_ENCODING), on the curve, not the point at infinity
 * (BLST_PK_IS_INFINITY); the subgroup is not checked (bellperson's
 * unchecked path, the one Filecoin proves with).  The view was validated,
 * so i < count is in the file.  Every reader of the queries decodes
 * through these, so it inherits those rules. */
BLST_ERROR pl__bp_g1_at(blst_p1_affine *out, const pl_bp_params *p,
                        unsigned section, uint32_t i);
BLST_ERROR pl__bp_g2_at(blst_p2_affine *out, const pl_bp_params *p,
                        uint32_t i);
/* The same rules from a slot's bytes, as the point checker's decoders
 * (formats/point_check.h: out a blst_p1_affine or blst_p2_affine; NULL or
 * what is wrong, as pl__bp_point_fail says it; ctx unused), and what it
 * says of a point outside the subgroup. */
const char *pl__bp_decode_g1(void *out, const uint8_t *bytes,
                             const void *ctx);
const char *pl__bp_decode_g2(void *out, const uint8_t *bytes,
                             const void *ctx);
extern const char *const pl__bp_not_in_group;
/* pl_bp_params_check_points over the caller's pool (bp_check.c): the
 * prover's, sized by its --threads. */
pl_status pl__bp_params_check_points(const pl_bp_params *p, pl__pool *pool,
                                     const pl_bp_check_config *cfg,
                                     pl_error *err);
/* The same, every point checked on its own (blst's exact test, no batch):
 * the baseline of bench/bench_check.c. */
pl_status pl__bp_params_check_points_alone(const pl_bp_params *p,
                                           pl__pool *pool, pl_error *err);

/* The error for point i of a section that failed with e: PL_EFORMAT
 * naming the file, the section, the index, what is wrong (the flag bit,
 * the curve, the subgroup, infinity) and the byte offset. */
pl_status pl__bp_point_fail(const pl_bp_params *p, unsigned section,
                            uint64_t i, BLST_ERROR e, pl_error *err);

/* ---- the writer ---------------------------------------------------------- */

/* The verifying key's points, as blst affine points (in memory: the zkey
 * encoding, Montgomery limbs). */
typedef struct pl__bp_vk {
    const blst_p1_affine *alpha_g1, *beta_g1, *delta_g1;
    const blst_p2_affine *beta_g2, *gamma_g2, *delta_g2;
} pl__bp_vk;

/* Writes a parameter file (or, with vk_only, a .vk) on an open output:
 * begin writes the verifying key's points; then each section in order
 * (ic, then h, l, a, b_g1, b_g2 unless vk_only): section_begin with its
 * count, points put (the a, b_g1 and b_g2 sections skip points at
 * infinity, which the count must leave out), section_end; end checks that
 * every section was written.  The first failure sticks in `status`. */
typedef struct pl__bp_writer {
    pl__output *out;
    pl_status status;
    bool vk_only;
    unsigned section;   /* the one being written, or the next */
    uint64_t left;      /* points still due in it */
    bool open;
} pl__bp_writer;

pl_status pl__bp_write_begin(pl__bp_writer *w, pl__output *out, bool vk_only,
                             const pl__bp_vk *vk, pl_error *err);
pl_status pl__bp_section_begin(pl__bp_writer *w, unsigned section,
                               uint32_t count, pl_error *err);
/* n points as blst affine bytes (96 B in G1, 192 B in G2; all zeros is
 * the point at infinity). */
pl_status pl__bp_put_points(pl__bp_writer *w, const uint8_t *points, size_t n,
                            pl_error *err);
pl_status pl__bp_section_end(pl__bp_writer *w, pl_error *err);
pl_status pl__bp_write_end(pl__bp_writer *w, pl_error *err);

/* ---- the proving assignment's buffers ------------------------------------ */
/*
 * How proofline lays out a pl_c2_assignment it builds (from an r1cs and a
 * witness, or from a circuit in assignment mode): a, b and c in one buffer
 * of 3 rows scalars (the constraints, then one input constraint per input:
 * input_i * 0 = 0, as bellperson appends them), which the early free lets
 * go of alone; the densities a over aux, b over the inputs, b over aux in
 * another, pl__c2_density_words each; the inputs (ONE first) and the
 * auxiliary variables one array of values in wire order.
 */
size_t pl__c2_density_words(size_t n_inp, size_t n_aux);
/* Fills *out over those buffers, writes the input constraints' a (the
 * inputs' values after the first rows - n_inp rows) and counts the
 * densities' bits. */
void pl__c2_assignment_over(pl_c2_assignment *out, pl_scalar *abc,
                            size_t rows, const uint64_t *density,
                            const pl_scalar *values, size_t n_inp,
                            size_t n_aux);

#endif /* PL_FORMATS_BELLPERSON_H */
