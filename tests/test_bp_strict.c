/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bellperson's strictness (issue 26, docs/filecoin.md "What bellperson
 * refuses"): each rule with a crafted file, refused with the file, the
 * section and the index, wherever the point is read (the open, the C2
 * SRS's decoding, the point check, the proof reader and writer); and the
 * point check at scale: batched, yet it names the first bad point, catches
 * a point whose only flaw is a component of order 3 in the cofactor group,
 * runs on the threads asked for and reports its progress.
 */
#include "harness.h"
#include "points_test.h"
#include "proofline_c2.h"
#include "formats/bellperson.h"
#include "field/field.h"
#include "setup/dev_setup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool msg_has(const pl_error *err, const char *what)
{
    if (strstr(err->msg, what))
        return true;
    fprintf(stderr, "message lacks '%s': %s\n", what, err->msg);
    return false;
}

/* The multiplier's dev parameter file, its bytes and its parsed shape. */
static uint8_t *params_bytes(const char *circuit, size_t *len,
                             pl_bp_params **shape)
{
    pl_error err = {0};
    char r1cs[256], params[512], vk[512], name[128];
    snprintf(r1cs, sizeof(r1cs), "%s/circuit.r1cs", circuit);
    snprintf(name, sizeof(name), "strict_%s.params", circuit);
    snprintf(params, sizeof(params), "%s", pl_test_tmp(name));
    snprintf(name, sizeof(name), "strict_%s.vk", circuit);
    snprintf(vk, sizeof(vk), "%s", pl_test_tmp(name));
    pl_setup_config cfg;
    pl_setup_config_init(&cfg);
    cfg.threads = 2;
    CHECK_OK(pl_setup_dev_bellperson(pl_test_vector(r1cs), params, vk, &cfg,
                                     &err),
             &err);
    uint8_t *b = pl_test_read_file(params, len);
    CHECK_OK(pl__bp_parse(shape, b, *len, "m.params", &err), &err);
    return b;
}

static uint8_t *slot(uint8_t *file, const pl_bp_params *shape, unsigned s,
                     uint32_t i)
{
    return file + shape->at[s] + 4 +
           (uint64_t)i * (pl__bp_section_is_g2(s) ? PL__BP_G2_BYTES
                                                  : PL__BP_G1_BYTES);
}

/* The point at infinity, uncompressed: the infinity flag, all else 0. */
static void put_infinity(uint8_t *at, bool g2)
{
    memset(at, 0, g2 ? PL__BP_G2_BYTES : PL__BP_G1_BYTES);
    at[0] = 0x40;
}

/* A dev parameter file to damage: its bytes, a copy to change and its
 * parsed shape. */
typedef struct {
    uint8_t *orig, *c;
    size_t len;
    pl_bp_params *shape;
    blst_p1_affine off1; /* on the curves, outside the subgroups */
    blst_p2_affine off2;
} crafted;

static void crafted_reset(crafted *f)
{
    memcpy(f->c, f->orig, f->len);
}

static void crafted_open(crafted *f, const char *circuit)
{
    f->orig = params_bytes(circuit, &f->len, &f->shape);
    f->c = malloc(f->len);
    crafted_reset(f);
    bls_g1_outside_subgroup(&f->off1);
    bls_g2_outside_subgroup(&f->off2);
}

static void crafted_close(crafted *f)
{
    free(f->c);
    pl_bp_params_close(f->shape);
    free(f->orig);
}

/* c's bytes as a parameter file on disk, for the C2 SRS's decoder; named
 * by the process, since ctest runs this file's cases side by side and one
 * case must not read another's file. */
static const char *on_disk(const uint8_t *c, size_t len)
{
    char name[64];
    snprintf(name, sizeof(name), "strict_crafted.%ld.params", (long)getpid());
    const char *path = pl_test_tmp(name);
    pl_test_write_file(path, c, len);
    return path;
}

/* A crafted file whose query point is refused everywhere it is read: by
 * the C2 SRS's decoding (the prover's path, no --check-params) and by the
 * point check, both naming the section and the index. */
static void refused_by_readers(const uint8_t *c, size_t len, const char *where,
                               const char *why)
{
    pl_error err = {0};
    pl_bp_params *p = NULL;
    pl_c2_srs *srs = NULL;
    CHECK_OK(pl__bp_parse(&p, c, len, "crafted.params", &err), &err);
    CHECK_STATUS(pl_bp_params_check_points(p, &err), PL_EFORMAT, &err);
    CHECK(msg_has(&err, "crafted.params"));
    CHECK(msg_has(&err, where));
    CHECK(msg_has(&err, why));
    pl_bp_params_close(p);
    memset(&err, 0, sizeof(err));
    const char *path = on_disk(c, len);
    CHECK_STATUS(pl_c2_srs_create(&srs, path, false, 2, &err), PL_EFORMAT,
                 &err);
    CHECK(srs == NULL);
    unlink(path);
    CHECK(msg_has(&err, where));
}

/* bellperson's read_g1/read_g2 refuse a query point at infinity on the
 * unchecked path too: so does every reader of ours, in every section. */
PL_TEST(query_point_at_infinity_refused)
{
    crafted f;
    crafted_open(&f, "multiplier");
    for (unsigned s = PL__BP_H; s < PL__BP_SECTIONS; s++) {
        if (!f.shape->count[s])
            continue;
        crafted_reset(&f);
        uint32_t last = f.shape->count[s] - 1;
        put_infinity(slot(f.c, f.shape, s, last), pl__bp_section_is_g2(s));
        char where[64];
        snprintf(where, sizeof(where), "section %s: point %u",
                 pl__bp_section_name(s), last);
        refused_by_readers(f.c, f.len, where, "point at infinity");
    }
    crafted_close(&f);
}

/* A slot whose compressed flag is set: blst (and blstrs's
 * from_uncompressed over it) would read a compressed point from its first
 * half and ignore the rest; refused, in a query, the IC and the verifying
 * key. */
PL_TEST(compressed_flag_in_an_uncompressed_slot_refused)
{
    pl_error err = {0};
    crafted f;
    crafted_open(&f, "multiplier");
    pl_bp_params *p = NULL;
    blst_p1_affine q;
    blst_p2_affine q2;

    /* h's point 0, compressed into its slot's first half; the second half
     * garbage: today's reader took the point from the first half */
    crafted_reset(&f);
    CHECK_EQ(pl__bp_g1_at(&q, f.shape, PL__BP_H, 0), BLST_SUCCESS);
    memset(slot(f.c, f.shape, PL__BP_H, 0), 0x5a, PL__BP_G1_BYTES);
    blst_p1_affine_compress(slot(f.c, f.shape, PL__BP_H, 0), &q);
    refused_by_readers(f.c, f.len, "section h: point 0", "compressed flag");

    /* b_g2's point 0 likewise */
    crafted_reset(&f);
    CHECK_EQ(pl__bp_g2_at(&q2, f.shape, 0), BLST_SUCCESS);
    blst_p2_affine_compress(slot(f.c, f.shape, PL__BP_B_G2, 0), &q2);
    refused_by_readers(f.c, f.len, "section b_g2: point 0", "compressed flag");

    /* the IC and the verifying key: at open */
    crafted_reset(&f);
    CHECK_EQ(pl__bp_g1_at(&q, f.shape, PL__BP_IC, 0), BLST_SUCCESS);
    blst_p1_affine_compress(slot(f.c, f.shape, PL__BP_IC, 0), &q);
    CHECK_STATUS(pl__bp_parse(&p, f.c, f.len, "ic.params", &err), PL_EFORMAT,
                 &err);
    CHECK(msg_has(&err, "section ic: point 0 has the compressed flag"));
    crafted_reset(&f);
    blst_p1_affine_compress(f.c, &f.shape->alpha_g1);
    CHECK_STATUS(pl__bp_parse(&p, f.c, f.len, "vk.params", &err), PL_EFORMAT,
                 &err);
    CHECK(msg_has(&err, "verifying key: alpha_g1 has the compressed flag"));
    crafted_close(&f);
}

/* The sign bit means nothing on an uncompressed point: refused, named. */
PL_TEST(sign_bit_on_an_uncompressed_point_refused)
{
    pl_error err = {0};
    crafted f;
    crafted_open(&f, "multiplier");
    pl_bp_params *p = NULL;
    crafted_reset(&f);
    slot(f.c, f.shape, PL__BP_L, 0)[0] |= 0x20;
    refused_by_readers(f.c, f.len, "section l: point 0", "sign bit");
    crafted_reset(&f);
    f.c[2 * PL__BP_G1_BYTES] |= 0x20; /* beta_g2 */
    CHECK_STATUS(pl__bp_parse(&p, f.c, f.len, "vk.params", &err), PL_EFORMAT,
                 &err);
    CHECK(msg_has(&err, "verifying key: beta_g2 has the sign bit"));
    crafted_close(&f);
}

/* bellperson reads the verifying key checked (from_uncompressed: the
 * subgroup) and refuses an IC point at infinity: so does our open, for
 * the parameter file and the .vk alike, before anything is proved or
 * verified with it. */
PL_TEST(verifying_key_outside_subgroup_and_ic_at_infinity_refused_at_open)
{
    pl_error err = {0};
    crafted f;
    crafted_open(&f, "multiplier");
    pl_bp_params *p = NULL;
    static const struct {
        uint64_t at;
        bool g2;
        const char *name;
    } vk[6] = {{0, false, "alpha_g1"},
               {PL__BP_G1_BYTES, false, "beta_g1"},
               {2 * PL__BP_G1_BYTES, true, "beta_g2"},
               {2 * PL__BP_G1_BYTES + PL__BP_G2_BYTES, true, "gamma_g2"},
               {2 * PL__BP_G1_BYTES + 2 * PL__BP_G2_BYTES, false, "delta_g1"},
               {3 * PL__BP_G1_BYTES + 2 * PL__BP_G2_BYTES, true, "delta_g2"}};
    for (unsigned i = 0; i < 6; i++) {
        crafted_reset(&f);
        if (vk[i].g2)
            blst_p2_affine_serialize(f.c + vk[i].at, &f.off2);
        else
            blst_p1_affine_serialize(f.c + vk[i].at, &f.off1);
        CHECK_STATUS(pl__bp_parse(&p, f.c, f.len, "vk.params", &err),
                     PL_EFORMAT, &err);
        CHECK(p == NULL);
        CHECK(msg_has(&err, vk[i].name));
        CHECK(msg_has(&err, "not in the prime-order subgroup"));
    }
    for (uint32_t i = 0; i < f.shape->count[PL__BP_IC]; i++) {
        crafted_reset(&f);
        put_infinity(slot(f.c, f.shape, PL__BP_IC, i), false);
        CHECK_STATUS(pl__bp_parse(&p, f.c, f.len, "ic.params", &err),
                     PL_EFORMAT, &err);
        char where[64];
        snprintf(where, sizeof(where), "section ic: point %u is the point at "
                 "infinity", i);
        CHECK(msg_has(&err, where));
        crafted_reset(&f);
        blst_p1_affine_serialize(slot(f.c, f.shape, PL__BP_IC, i), &f.off1);
        CHECK_STATUS(pl__bp_parse(&p, f.c, f.len, "ic.params", &err),
                     PL_EFORMAT, &err);
        snprintf(where, sizeof(where), "section ic: point %u is not in the "
                 "prime-order subgroup", i);
        CHECK(msg_has(&err, where));
    }
    /* the .vk itself: the IC is where it ends */
    size_t vk_len = f.shape->at[PL__BP_H];
    crafted_reset(&f);
    put_infinity(slot(f.c, f.shape, PL__BP_IC, 0), false);
    CHECK_STATUS(pl__bp_parse(&p, f.c, vk_len, "k.vk", &err), PL_EFORMAT,
                 &err);
    CHECK(msg_has(&err, "k.vk: section ic: point 0 is the point at infinity"));
    crafted_close(&f);
}

/* A valid proof of the multiplier, as 192 bytes. */
static void valid_proof_bytes(uint8_t out[PL_BP_PROOF_BYTES])
{
    pl_error err = {0};
    pl_proof proof;
    const char *path = pl_test_vector("multiplier/proof_snarkjs.json");
    CHECK_OK(pl_proof_read_json(&proof, path, &err), &err);
    pl_proof_to_bp_bytes(out, &proof);
}

/* Proof::read_many decodes with from_bytes (checked) and refuses the point
 * at infinity: a proof read here is refused for the same, naming the
 * point, as an invalid proof. */
PL_TEST(proof_points_at_infinity_or_outside_subgroup_refused_on_read)
{
    pl_error err = {0};
    uint8_t good[PL_BP_PROOF_BYTES], bad[PL_BP_PROOF_BYTES];
    pl_proof proof;
    valid_proof_bytes(good);
    CHECK_OK(pl_proof_from_bp_bytes(&proof, good, &err), &err);
    static const struct {
        size_t at, bytes;
        const char *name;
    } pts[3] = {{0, 48, "A (bytes 0-47)"}, {48, 96, "B (bytes 48-143)"},
                {144, 48, "C (bytes 144-191)"}};
    blst_p1_affine q1;
    blst_p2_affine q2;
    bls_g1_outside_subgroup(&q1);
    bls_g2_outside_subgroup(&q2);
    for (unsigned k = 0; k < 3; k++) {
        memcpy(bad, good, sizeof(bad));
        memset(bad + pts[k].at, 0, pts[k].bytes);
        bad[pts[k].at] = 0xc0; /* compressed, infinity */
        CHECK_STATUS(pl_proof_from_bp_bytes(&proof, bad, &err), PL_EINVALID,
                     &err);
        CHECK(msg_has(&err, pts[k].name));
        CHECK(msg_has(&err, "point at infinity"));
        memcpy(bad, good, sizeof(bad));
        if (k == 1)
            blst_p2_affine_compress(bad + pts[k].at, &q2);
        else
            blst_p1_affine_compress(bad + pts[k].at, &q1);
        CHECK_STATUS(pl_proof_from_bp_bytes(&proof, bad, &err), PL_EINVALID,
                     &err);
        CHECK(msg_has(&err, pts[k].name));
        CHECK(msg_has(&err, "subgroup"));
    }
    /* in a file: the proof's index and its offset */
    const char *path = pl_test_tmp("strict_inf.proofs");
    uint8_t two[2 * PL_BP_PROOF_BYTES];
    memcpy(two, good, PL_BP_PROOF_BYTES);
    memcpy(two + PL_BP_PROOF_BYTES, good, PL_BP_PROOF_BYTES);
    memset(two + PL_BP_PROOF_BYTES + 144, 0, 48);
    two[PL_BP_PROOF_BYTES + 144] = 0xc0;
    pl_test_write_file(path, two, sizeof(two));
    pl_proof *proofs = NULL;
    size_t n = 0;
    CHECK_STATUS(pl_bp_proofs_read(&proofs, &n, path, 0, &err), PL_EINVALID,
                 &err);
    CHECK(proofs == NULL);
    CHECK(msg_has(&err, "proof 1: proof point C (bytes 144-191) is the point "
                        "at infinity"));
}

/* convert (and every writer of proofs) refuses points the encoding cannot
 * carry or bellperson would refuse, instead of writing them: off the
 * curve (a compressed x decodes to another point, or none), outside the
 * subgroup, at infinity.  Nothing is written. */
PL_TEST(proof_writer_refuses_bad_points)
{
    pl_error err = {0};
    pl_proof good, bad;
    const char *json = pl_test_vector("multiplier/proof_snarkjs.json");
    CHECK_OK(pl_proof_read_json(&good, json, &err), &err);
    const char *path = pl_test_tmp("strict_written.proofs");
    remove(path);
    blst_p1_affine a;
    blst_p2_affine q2;
    /* off the curve: A's y changed */
    bad = good;
    memcpy(&a, bad.a.b, sizeof(a));
    blst_fp_add(&a.y, &a.y, &a.x);
    memcpy(bad.a.b, &a, sizeof(a));
    CHECK_STATUS(pl_bp_proofs_write(path, &bad, 1, &err), PL_EINVALID, &err);
    CHECK(msg_has(&err, "proof 0: point A is not on the curve: not written"));
    /* outside the subgroup: B */
    bad = good;
    bls_g2_outside_subgroup(&q2);
    memcpy(bad.b.b, &q2, sizeof(q2));
    CHECK_STATUS(pl_bp_proofs_write(path, &bad, 1, &err), PL_EINVALID, &err);
    CHECK(msg_has(&err, "point B is not in the prime-order subgroup"));
    /* at infinity: C, in the second proof of two */
    pl_proof two[2] = {good, good};
    memset(two[1].c.b, 0, sizeof(two[1].c.b));
    CHECK_STATUS(pl_bp_proofs_write(path, two, 2, &err), PL_EINVALID, &err);
    CHECK(msg_has(&err, "proof 1: point C is the point at infinity"));
    FILE *f = fopen(path, "rb"); /* nothing written by any of them */
    CHECK(f == NULL);
    if (f)
        fclose(f);
    CHECK_OK(pl_bp_proofs_write(path, two, 1, &err), &err);
}

/* ---- the point check at scale ------------------------------------------- */

/* The check passes a good file on any number of threads, telling its
 * progress to the end of each stage. */
PL_TEST(check_passes_good_files_with_progress)
{
    pl_error err = {0};
    size_t len;
    pl_bp_params *p = NULL;
    uint8_t *b = params_bytes("chain10", &len, &p);
    for (unsigned threads = 1; threads <= 3; threads++) {
        progress_seen seen = {0};
        pl_bp_check_config cfg = {.threads = threads,
                                  .on_progress = progress_record,
                                  .on_progress_user = &seen};
        CHECK_OK(pl_bp_params_check_points_with(p, &cfg, &err), &err);
        CHECK(seen.ended_g1 && seen.ended_g2);
        CHECK(seen.calls >= 2);
    }
    CHECK_OK(pl_bp_params_check_points(p, &err), &err);
    pl_bp_params_close(p);
    free(b);
}

/* q + T: a point of G1 moved by T = (0, 2), a point of order 3 (y^2 = x^3
 * + 4 at x = 0 is an inflection point), the smallest order the cofactor
 * group has: the case a batched check with one random combination misses
 * one time in three. */
static void plus_order_three(blst_p1_affine *out, const blst_p1_affine *q)
{
    const uint64_t l2[6] = {2, 0, 0, 0, 0, 0};
    blst_p1_affine t;
    memset(&t.x, 0, sizeof(t.x));
    blst_fp_from_uint64(&t.y, l2);
    CHECK(blst_p1_affine_on_curve(&t));
    blst_p1 j, sum;
    blst_p1_from_affine(&j, q);
    blst_p1_add_or_double_affine(&sum, &j, &t);
    blst_p1_to_affine(out, &sum);
    blst_p1 three;
    blst_p1_from_affine(&three, &t);
    blst_p1_double(&three, &three);
    blst_p1_add_or_double_affine(&three, &three, &t);
    CHECK(blst_p1_is_inf(&three)); /* T has order 3 */
    CHECK(blst_p1_affine_on_curve(out) && !blst_p1_affine_in_g1(out));
}

/* A point with a component of order 3, alone in the file: the batched
 * check finds it every time (each run draws new coefficients), and the
 * second pass names it. */
PL_TEST(check_catches_a_component_of_order_three)
{
    pl_error err = {0};
    crafted f;
    crafted_open(&f, "chain10");
    pl_bp_params *p = NULL;
    crafted_reset(&f);
    const uint32_t at = f.shape->count[PL__BP_L] / 2;
    blst_p1_affine q, moved;
    CHECK_EQ(pl__bp_g1_at(&q, f.shape, PL__BP_L, at), BLST_SUCCESS);
    plus_order_three(&moved, &q);
    blst_p1_affine_serialize(slot(f.c, f.shape, PL__BP_L, at), &moved);
    CHECK_OK(pl__bp_parse(&p, f.c, f.len, "t3.params", &err), &err);
    char where[64];
    snprintf(where, sizeof(where), "section l: point %u is not in the "
             "prime-order subgroup", at);
    for (unsigned run = 0; run < 8; run++) {
        pl_bp_check_config cfg = {.threads = 1 + run % 3};
        CHECK_STATUS(pl_bp_params_check_points_with(p, &cfg, &err),
                     PL_EFORMAT, &err);
        CHECK(msg_has(&err, where));
    }
    pl_bp_params_close(p);
    crafted_close(&f);
}

/* The rounds add the points in pairs (P + Q and P - Q looked up): a pair
 * of equal points (a doubling) or of opposite ones (the point at infinity)
 * is summed exactly, so a good file with them passes; a component of
 * order 3 is caught in either place of a pair and in the odd point a
 * section's last task may end with (h has 2^10 - 1 points here). */
PL_TEST(check_sums_pairs_exactly)
{
    pl_error err = {0};
    crafted f;
    crafted_open(&f, "chain10");
    pl_bp_params *p = NULL;
    blst_p1_affine q, moved;
    crafted_reset(&f);
    for (uint32_t i = 0; i + 1 < 64; i += 4) {
        /* l[i+1] = l[i]; l[i+3] = -l[i+2] */
        memcpy(slot(f.c, f.shape, PL__BP_L, i + 1),
               slot(f.c, f.shape, PL__BP_L, i), PL__BP_G1_BYTES);
        CHECK_EQ(pl__bp_g1_at(&q, f.shape, PL__BP_L, i + 2), BLST_SUCCESS);
        blst_fp_cneg(&q.y, &q.y, true);
        blst_p1_affine_serialize(slot(f.c, f.shape, PL__BP_L, i + 3), &q);
    }
    blst_p2_affine q2;
    CHECK_EQ(pl__bp_g2_at(&q2, f.shape, 0), BLST_SUCCESS);
    blst_p2_affine_serialize(slot(f.c, f.shape, PL__BP_B_G2, 1), &q2);
    blst_fp2_cneg(&q2.y, &q2.y, true);
    blst_p2_affine_serialize(slot(f.c, f.shape, PL__BP_B_G2, 3), &q2);
    memcpy(slot(f.c, f.shape, PL__BP_B_G2, 2),
           slot(f.c, f.shape, PL__BP_B_G2, 0), PL__BP_G2_BYTES);
    CHECK_OK(pl__bp_parse(&p, f.c, f.len, "pairs.params", &err), &err);
    for (unsigned run = 0; run < 4; run++)
        CHECK_OK(pl_bp_params_check_points(p, &err), &err);
    pl_bp_params_close(p);
    const struct {
        unsigned s;
        uint32_t i;
    } at[4] = {{PL__BP_A, 10}, {PL__BP_A, 11}, {PL__BP_H, 1022},
               {PL__BP_L, 5}};
    for (unsigned k = 0; k < 4; k++) {
        crafted_reset(&f);
        if (at[k].s == PL__BP_L) /* next to its double */
            memcpy(slot(f.c, f.shape, PL__BP_L, 4),
                   slot(f.c, f.shape, PL__BP_L, 5), PL__BP_G1_BYTES);
        CHECK_EQ(pl__bp_g1_at(&q, f.shape, at[k].s, at[k].i), BLST_SUCCESS);
        plus_order_three(&moved, &q);
        blst_p1_affine_serialize(slot(f.c, f.shape, at[k].s, at[k].i), &moved);
        CHECK_OK(pl__bp_parse(&p, f.c, f.len, "t3.params", &err), &err);
        char where[64];
        snprintf(where, sizeof(where), "section %s: point %u is not in",
                 pl__bp_section_name(at[k].s), at[k].i);
        for (unsigned run = 0; run < 3; run++) {
            CHECK_STATUS(pl_bp_params_check_points(p, &err), PL_EFORMAT,
                         &err);
            CHECK(msg_has(&err, where));
        }
        pl_bp_params_close(p);
    }
    crafted_close(&f);
}

/* Several bad points over several sections and threads: the first in
 * file order is named, whichever thread finds which; a point that does
 * not decode is named by the first pass. */
PL_TEST(check_names_the_first_bad_point)
{
    pl_error err = {0};
    crafted f;
    crafted_open(&f, "chain10");
    pl_bp_params *p = NULL;
    crafted_reset(&f);
    blst_p1_affine_serialize(slot(f.c, f.shape, PL__BP_B_G1, 3), &f.off1);
    blst_p1_affine_serialize(slot(f.c, f.shape, PL__BP_A, 7), &f.off1);
    blst_p1_affine_serialize(slot(f.c, f.shape, PL__BP_A, 9), &f.off1);
    blst_p1_affine_serialize(slot(f.c, f.shape, PL__BP_H, 900), &f.off1);
    blst_p2_affine_serialize(slot(f.c, f.shape, PL__BP_B_G2, 1), &f.off2);
    CHECK_OK(pl__bp_parse(&p, f.c, f.len, "many.params", &err), &err);
    for (unsigned threads = 1; threads <= 3; threads++) {
        pl_bp_check_config cfg = {.threads = threads};
        CHECK_STATUS(pl_bp_params_check_points_with(p, &cfg, &err),
                     PL_EFORMAT, &err);
        CHECK(msg_has(&err, "many.params: section h: point 900 is not in the "
                            "prime-order subgroup"));
    }
    pl_bp_params_close(p);
    /* G1 all good: the G2 one is named */
    crafted_reset(&f);
    blst_p2_affine_serialize(slot(f.c, f.shape, PL__BP_B_G2, 5), &f.off2);
    CHECK_OK(pl__bp_parse(&p, f.c, f.len, "g2.params", &err), &err);
    CHECK_STATUS(pl_bp_params_check_points(p, &err), PL_EFORMAT, &err);
    CHECK(msg_has(&err, "section b_g2: point 5 is not in the prime-order "
                        "subgroup"));
    pl_bp_params_close(p);
    /* one that does not decode, after one outside the subgroup and before
     * another: the decoding failure is what the first pass finds */
    crafted_reset(&f);
    blst_p1_affine_serialize(slot(f.c, f.shape, PL__BP_H, 1), &f.off1);
    /* off the curve */
    slot(f.c, f.shape, PL__BP_L, 2)[PL__BP_G1_BYTES - 1] ^= 1;
    blst_p1_affine_serialize(slot(f.c, f.shape, PL__BP_A, 0), &f.off1);
    CHECK_OK(pl__bp_parse(&p, f.c, f.len, "dec.params", &err), &err);
    CHECK_STATUS(pl_bp_params_check_points(p, &err), PL_EFORMAT, &err);
    CHECK(msg_has(&err, "section l: point 2 is not on the curve"));
    pl_bp_params_close(p);
    crafted_close(&f);
}
