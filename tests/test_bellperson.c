/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bellperson's files and the SupraSeal-C2-shaped prover
 * (include/proofline_c2.h, src/formats/bellperson.c, src/groth16/c2.c):
 *  - blstrs's root of unity is 7^((r-1)/2^32), the constant bellperson's
 *    domains start from;
 *  - round trip for three circuits (multiplier; noB, whose public inputs
 *    never occur in B; nopublic, with no input besides ONE): setup --dev
 *    in bellperson's layout, the files read back (every point checked),
 *    their points rewritten through the writer give the same bytes, the
 *    .vk's key equals the parameter file's; proofs through the C API from
 *    a bellperson-style assignment (a, b, c evaluated per constraint, the
 *    input constraints appended, densities from the r1cs), verified by our
 *    verifier, through 192 bytes and back; the same proof from blstrs's
 *    Montgomery-form scalars (pl_c2_config.montgomery); a tampered proof
 *    and a wrong input rejected;
 *  - bad files: truncated in each section, a count larger than the file,
 *    a point off the curve, a point outside the subgroup (found only by
 *    the point check): PL_EFORMAT naming the file and the section;
 *  - bad assignments: lengths that disagree with the SRS, popcounts that
 *    disagree with their bits: PL_EFORMAT naming the field, no proof
 *    written;
 *  - the same witness through the zkey path and through the C API, r = s
 *    = 0, over the same domain (the test hooks): the same A, B and C,
 *    though H is summed in another basis;
 *  - the C API's abc_done comes before the proof is done, and its buffers
 *    are all freed after (the harness checks every class at zero);
 *  - every accounted allocation failing in turn, in the bellperson setup
 *    (no file left, neither the .params nor the .vk), in building an
 *    assignment, opening the SRS and proving: PL_ENOMEM, nothing leaked.
 */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"
#include "proofline_c2.h"
#include "engine/engine.h"
#include "field/field.h"
#include "backend/cuda/gpu.h"
#include "formats/bellperson.h"
#include "formats/formats.h"
#include "groth16/c2.h"
#include "groth16/zkey_prover.h"
#include "groth16/vkey.h"
#include "setup/dev_setup.h"
#include "util/alloc.h"

#include <dirent.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

/* ---- a bellperson-style assignment from an r1cs and a witness ----------- */

typedef struct {
    pl_c2_assignment as;
    const pl_scalar *abc; /* a, b, c: abc_size each, one buffer */
} built;

/* What bellperson's synthesis leaves (pl_c2_assignment_from_r1cs). */
static void build_assignment(built *out, const pl_r1cs *r1cs,
                             const pl_wtns *wtns)
{
    pl_error err = {0};
    CHECK_OK(pl_c2_assignment_from_r1cs(&out->as, r1cs, wtns, &err), &err);
    out->abc = out->as.a;
    CHECK(out->as.b == out->as.a + out->as.abc_size);
    CHECK(out->as.c == out->as.b + out->as.abc_size);
}

static void built_free(built *b)
{
    pl_c2_assignment_release(&b->as);
    pl_c2_assignment_release(&b->as); /* a second release is a no-op */
}

/* ---- helpers ------------------------------------------------------------- */

/* A circuit's parameter file and .vk, named by the case too: every case
 * writes them in its setup, and ctest runs cases side by side (one case
 * rewriting another's parameters mid-proof made that proof refused as
 * "changed on disk"). */
static void paths(char *params, char *vk, size_t cap, const char *name)
{
    char f[256];
    snprintf(f, sizeof(f), "bp_%s.%s.params", name, pl_test_case());
    snprintf(params, cap, "%s", pl_test_tmp(f));
    snprintf(f, sizeof(f), "bp_%s.%s.vk", name, pl_test_case());
    snprintf(vk, cap, "%s", pl_test_tmp(f));
}

static void setup(const char *circuit, char *params, char *vk, size_t cap)
{
    pl_error err = {0};
    char r1cs[512];
    snprintf(r1cs, sizeof(r1cs), "%s/circuit.r1cs", circuit);
    paths(params, vk, cap, circuit);
    pl_setup_config cfg;
    pl_setup_config_init(&cfg);
    cfg.threads = 2;
    CHECK_OK(pl_setup_dev_bellperson(pl_test_vector(r1cs), params, vk, &cfg,
                                     &err),
             &err);
}

/* A circuit of the vectors with its dev parameter file and .vk, its
 * witness, the assignment built from them and the SRS read. */
typedef struct {
    char params[512], vk[512];
    pl_r1cs *r1cs;
    pl_wtns *wtns;
    built bt;
    pl_c2_srs *srs;
} c2_fixture;

static void fixture_open(c2_fixture *f, const char *circuit)
{
    pl_error err = {0};
    char rel[256];
    memset(f, 0, sizeof(*f));
    setup(circuit, f->params, f->vk, sizeof(f->params));
    snprintf(rel, sizeof(rel), "%s/circuit.r1cs", circuit);
    CHECK_OK(pl_r1cs_open(&f->r1cs, pl_test_vector(rel), &err), &err);
    snprintf(rel, sizeof(rel), "%s/witness.wtns", circuit);
    CHECK_OK(pl_wtns_open(&f->wtns, pl_test_vector(rel), &err), &err);
    build_assignment(&f->bt, f->r1cs, f->wtns);
    CHECK_OK(pl_c2_srs_create(&f->srs, f->params, false, 2, &err), &err);
}

/* Every proof verifies with the fixture's .vk and its witness's inputs. */
static void fixture_verify(const c2_fixture *f, const pl_proof *proofs,
                           size_t n)
{
    pl_error err = {0};
    pl_bp_params *v = NULL;
    pl_vkey *vkey = NULL;
    CHECK_OK(pl_bp_params_open(&v, f->vk, &err), &err);
    CHECK_OK(pl_vkey_from_bp_params(&vkey, v, &err), &err);
    for (size_t i = 0; i < n; i++)
        CHECK_OK(pl_verify(vkey, &proofs[i], pl_wtns_values(f->wtns) + 1,
                           vkey->n_public, &err),
                 &err);
    pl_vkey_destroy(vkey);
    pl_bp_params_close(v);
}

static void fixture_close(c2_fixture *f)
{
    pl_c2_srs_destroy(f->srs);
    built_free(&f->bt);
    pl_wtns_close(f->wtns);
    pl_r1cs_close(f->r1cs);
}

static bool msg_has(const pl_error *err, const char *what)
{
    if (strstr(err->msg, what))
        return true;
    fprintf(stderr, "message lacks '%s': %s\n", what, err->msg);
    return false;
}

/* Every point of p decoded and written again through the writer: the same
 * bytes as the file. */
static void rewrite_same(const pl_bp_params *p, const char *path)
{
    pl_error err = {0};
    pl__output out;
    pl__bp_writer w;
    memset(&out, 0, sizeof(out));
    const pl__bp_vk vk = {&p->alpha_g1, &p->beta_g1, &p->delta_g1,
                          &p->beta_g2,  &p->gamma_g2, &p->delta_g2};
    CHECK_OK(pl__output_open(&out, path, &err), &err);
    CHECK_OK(pl__bp_write_begin(&w, &out, p->vk_only, &vk, &err), &err);
    for (unsigned s = 0; s < PL__BP_SECTIONS; s++) {
        if (p->vk_only && s != PL__BP_IC)
            break;
        CHECK_OK(pl__bp_section_begin(&w, s, p->count[s], &err), &err);
        for (uint32_t i = 0; i < p->count[s]; i++) {
            if (pl__bp_section_is_g2(s)) {
                blst_p2_affine q;
                CHECK_EQ(pl__bp_g2_at(&q, p, i), BLST_SUCCESS);
                CHECK_OK(pl__bp_put_points(&w, (const uint8_t *)&q, 1, &err),
                         &err);
            } else {
                blst_p1_affine q;
                CHECK_EQ(pl__bp_g1_at(&q, p, s, i), BLST_SUCCESS);
                CHECK_OK(pl__bp_put_points(&w, (const uint8_t *)&q, 1, &err),
                         &err);
            }
        }
        CHECK_OK(pl__bp_section_end(&w, &err), &err);
    }
    CHECK_OK(pl__bp_write_end(&w, &err), &err);
    CHECK_OK(pl__output_commit(&out, &err), &err);
    pl__output_abort(&out);
    size_t a_len, b_len;
    uint8_t *a = pl_test_read_file(p->path, &a_len);
    uint8_t *b = pl_test_read_file(path, &b_len);
    CHECK_EQ(a_len, b_len);
    CHECK_MEM(a, b, a_len);
    free(a);
    free(b);
}

static void random_scalar(uint64_t *state, pl_scalar *out)
{
    pl_test_random_bytes(state, out->b, sizeof(out->b));
    out->b[31] &= 0x3f; /* < 2^254 < r */
}

static int abc_done_calls;
static void on_abc_done(void *user, size_t proof)
{
    (void)user;
    CHECK_EQ(proof, (size_t)abc_done_calls);
    abc_done_calls++;
}

/* The whole round trip for one circuit of tests/vectors. */
static void round_trip(const char *circuit, bool expect_b_inputs_absent)
{
    pl_error err = {0};
    char params[512], vk_path[512], again[600], rel[512];
    setup(circuit, params, vk_path, sizeof(params));

    pl_bp_params *p = NULL, *v = NULL;
    pl_bp_info pi, vi;
    CHECK_OK(pl_bp_params_open(&p, params, &err), &err);
    CHECK_OK(pl_bp_params_check_points(p, &err), &err);
    CHECK_OK(pl_bp_params_open(&v, vk_path, &err), &err);
    CHECK_OK(pl_bp_params_check_points(v, &err), &err);
    pl_bp_params_get_info(p, &pi);
    pl_bp_params_get_info(v, &vi);
    CHECK(!pi.vk_only);
    CHECK(vi.vk_only);
    CHECK_EQ(pi.n_ic, vi.n_ic);
    CHECK_EQ(pi.n_b_g1, pi.n_b_g2);
    CHECK(pi.n_a >= pi.n_ic);
    if (expect_b_inputs_absent)
        CHECK(pi.n_b_g1 < pi.n_ic + pi.n_l);
    snprintf(again, sizeof(again), "%s.again", params);
    rewrite_same(p, again);
    snprintf(again, sizeof(again), "%s.again", vk_path);
    rewrite_same(v, again);

    pl_vkey *vk_a = NULL, *vk_b = NULL;
    CHECK_OK(pl_vkey_from_bp_params(&vk_a, p, &err), &err);
    CHECK_OK(pl_vkey_from_bp_params(&vk_b, v, &err), &err);
    CHECK_EQ(vk_a->n_public, vk_b->n_public);
    CHECK_MEM(vk_a->ic, vk_b->ic, (vk_a->n_public + 1) * sizeof(*vk_a->ic));
    CHECK_MEM(&vk_a->delta2, &vk_b->delta2, sizeof(vk_a->delta2));

    /* two proofs of the same witness, with different r and s */
    pl_r1cs *r1cs = NULL;
    pl_wtns *wtns = NULL;
    snprintf(rel, sizeof(rel), "%s/circuit.r1cs", circuit);
    CHECK_OK(pl_r1cs_open(&r1cs, pl_test_vector(rel), &err), &err);
    snprintf(rel, sizeof(rel), "%s/witness.wtns", circuit);
    CHECK_OK(pl_wtns_open(&wtns, pl_test_vector(rel), &err), &err);
    built bt;
    build_assignment(&bt, r1cs, wtns);
    pl_c2_srs *srs = NULL;
    CHECK_OK(pl_c2_srs_create(&srs, params, true, 2, &err), &err);
    pl_c2_assignment as[2] = {bt.as, bt.as};
    pl_scalar r[2], s[2];
    uint64_t state = 42;
    for (int i = 0; i < 2; i++) {
        random_scalar(&state, &r[i]);
        random_scalar(&state, &s[i]);
    }
    pl_proof proofs[2];
    pl_c2_config cfg = {.abc_done = on_abc_done};
    abc_done_calls = 0;
    CHECK_OK(pl_c2_prove(proofs, as, 2, r, s, srs, &cfg, &err), &err);
    CHECK_EQ(abc_done_calls, 2);
    const size_t n_pub = vk_b->n_public;
    const pl_scalar *publics = pl_wtns_values(wtns) + 1;
    for (int i = 0; i < 2; i++)
        CHECK_OK(pl_verify(vk_b, &proofs[i], publics, n_pub, &err), &err);
    CHECK(memcmp(&proofs[0], &proofs[1], sizeof(proofs[0])) != 0);

    /* the same proof from blstrs's in-memory (Montgomery) scalars */
    {
        const size_t rows = bt.as.abc_size;
        const size_t nv = bt.as.inp_assignment_size +
                          bt.as.aux_assignment_size;
        pl_scalar *mont = malloc((3 * rows + nv + 2) * sizeof(pl_scalar));
        CHECK(mont);
        const pl_scalar *src[4] = {bt.as.a, bt.as.b, bt.as.c, NULL};
        size_t at = 0;
        for (int m = 0; m < 3; m++)
            for (size_t i = 0; i < rows; i++, at++) {
                blst_fr f;
                pl__fr_from_le(&f, src[m][i].b);
                memcpy(mont[at].b, &f, 32);
            }
        for (size_t i = 0; i < nv; i++, at++) {
            blst_fr f;
            pl__fr_from_le(&f, pl_wtns_values(wtns)[i].b);
            memcpy(mont[at].b, &f, 32);
        }
        blst_fr f;
        pl__fr_from_le(&f, r[0].b);
        memcpy(mont[at].b, &f, 32);
        pl__fr_from_le(&f, s[0].b);
        memcpy(mont[at + 1].b, &f, 32);
        pl_c2_assignment m = bt.as;
        m.a = mont;
        m.b = mont + rows;
        m.c = mont + 2 * rows;
        m.inp_assignment = mont + 3 * rows;
        m.aux_assignment = m.inp_assignment + bt.as.inp_assignment_size;
        pl_c2_config mcfg = {.montgomery = true};
        pl_proof via_mont;
        CHECK_OK(pl_c2_prove(&via_mont, &m, 1, &mont[at], &mont[at + 1], srs,
                             &mcfg, &err),
                 &err);
        CHECK_MEM(&via_mont, &proofs[0], sizeof(via_mont));
        free(mont);
    }

    /* r = s = 0 verifies too (bellperson without randomization) */
    pl_scalar zero[1];
    memset(zero, 0, sizeof(zero));
    pl_proof plain;
    CHECK_OK(pl_c2_prove(&plain, as, 1, zero, zero, srs, NULL, &err), &err);
    CHECK_OK(pl_verify(vk_b, &plain, publics, n_pub, &err), &err);

    /* through 192 bytes and back */
    char bin[600];
    snprintf(bin, sizeof(bin), "%s.proofs", params);
    CHECK_OK(pl_bp_proofs_write(bin, proofs, 2, &err), &err);
    pl_proof *back = NULL;
    size_t n_back = 0;
    CHECK_OK(pl_bp_proofs_read(&back, &n_back, bin, 0, &err), &err);
    CHECK_EQ(n_back, 2);
    CHECK_MEM(back, proofs, sizeof(proofs));
    pl_bp_proofs_free(back);

    /* tampered: C swapped for A; a wrong public input (when there is one) */
    pl_proof bad = proofs[0];
    memcpy(bad.c.b, proofs[0].a.b, sizeof(bad.c.b));
    CHECK_STATUS(pl_verify(vk_b, &bad, publics, n_pub, &err), PL_EINVALID,
                 &err);
    if (n_pub) {
        pl_scalar wrong[64];
        CHECK(n_pub <= 64);
        memcpy(wrong, publics, n_pub * sizeof(pl_scalar));
        wrong[0].b[0] ^= 1;
        CHECK_STATUS(pl_verify(vk_b, &proofs[0], wrong, n_pub, &err),
                     PL_EINVALID, &err);
    }

    pl_c2_srs_destroy(srs);
    built_free(&bt);
    pl_wtns_close(wtns);
    pl_r1cs_close(r1cs);
    pl_vkey_destroy(vk_a);
    pl_vkey_destroy(vk_b);
    pl_bp_params_close(v);
    pl_bp_params_close(p);
}

/* ---- tests --------------------------------------------------------------- */

PL_TEST(blstrs_root_of_unity)
{
    /* bls12_381's / blstrs's Scalar::ROOT_OF_UNITY, 0x16a2a19e...0d2b */
    static const uint8_t want[32] = {
        0x2b, 0x0d, 0x9f, 0x43, 0x1f, 0x97, 0x29, 0x38, 0xb9, 0x80, 0x22,
        0x8c, 0x50, 0x83, 0x36, 0xb6, 0xb4, 0x13, 0xc8, 0x22, 0x19, 0x68,
        0x9b, 0xd0, 0x20, 0x1f, 0xe8, 0xdf, 0x9e, 0xa1, 0xa2, 0x16};
    blst_fr w;
    uint8_t le[32];
    pl__fr_root_of_unity_blstrs(&w, 32);
    pl__fr_to_le(le, &w);
    CHECK_MEM(le, want, 32);
    /* primitive: w^(2^31) = -1 */
    for (int i = 0; i < 31; i++)
        blst_fr_sqr(&w, &w);
    blst_fr one, sum;
    const uint64_t l1[4] = {1, 0, 0, 0};
    blst_fr_from_uint64(&one, l1);
    blst_fr_add(&sum, &w, &one);
    pl__fr_to_le(le, &sum);
    static const uint8_t zero[32];
    CHECK_MEM(le, zero, 32);
}

PL_TEST(round_trip_multiplier)
{
    round_trip("multiplier", false);
}

PL_TEST(round_trip_inputs_not_in_b)
{
    round_trip("noB", true);
}

PL_TEST(round_trip_no_public_input)
{
    round_trip("nopublic", false);
}

/* The multiplier's parameter file's bytes (malloc'd) and its shape. */
static uint8_t *multiplier_bytes(size_t *len, pl_bp_params **shape)
{
    pl_error err = {0};
    char params[512], vk[512];
    setup("multiplier", params, vk, sizeof(params));
    uint8_t *b = pl_test_read_file(params, len);
    CHECK_OK(pl__bp_parse(shape, b, *len, "m.params", &err), &err);
    return b;
}

PL_TEST(truncated_in_each_section)
{
    pl_error err = {0};
    size_t len;
    pl_bp_params *shape = NULL;
    uint8_t *b = multiplier_bytes(&len, &shape);
    /* in the vk's points; then in each section's count and in its points */
    struct {
        size_t cut;
        const char *what;
    } cuts[2 * PL__BP_SECTIONS + 1];
    size_t n = 0;
    cuts[n].cut = 100;
    cuts[n++].what = "verifying key";
    for (unsigned s = 0; s < PL__BP_SECTIONS; s++) {
        cuts[n].cut = shape->at[s] + 2;
        cuts[n++].what = pl__bp_section_name(s);
        if (shape->count[s]) {
            cuts[n].cut = shape->at[s] + 4 + 10;
            cuts[n++].what = pl__bp_section_name(s);
        }
    }
    for (size_t i = 0; i < n; i++) {
        pl_bp_params *p = NULL;
        CHECK_STATUS(pl__bp_parse(&p, b, cuts[i].cut, "cut.params", &err),
                     PL_EFORMAT, &err);
        CHECK(p == NULL);
        CHECK(msg_has(&err, "cut.params"));
        CHECK(msg_has(&err, cuts[i].what));
    }
    /* the ic section cut at its end: a .vk, not an error */
    pl_bp_params *p = NULL;
    CHECK_OK(pl__bp_parse(&p, b, shape->at[PL__BP_H], "vk", &err), &err);
    CHECK(p->vk_only);
    pl_bp_params_close(p);
    /* a byte more than the file holds */
    uint8_t *longer = malloc(len + 1);
    memcpy(longer, b, len);
    longer[len] = 0;
    CHECK_STATUS(pl__bp_parse(&p, longer, len + 1, "long.params", &err),
                 PL_EFORMAT, &err);
    CHECK(msg_has(&err, "after section b_g2"));
    free(longer);
    pl_bp_params_close(shape);
    free(b);
}

PL_TEST(count_larger_than_the_file)
{
    pl_error err = {0};
    size_t len;
    pl_bp_params *shape = NULL, *p = NULL;
    uint8_t *b = multiplier_bytes(&len, &shape);
    for (unsigned s = 0; s < PL__BP_SECTIONS; s++) {
        uint8_t *c = malloc(len);
        memcpy(c, b, len);
        uint8_t *at = c + shape->at[s];
        at[0] = 0x7f; /* count 0x7f...: far more than the file */
        CHECK_STATUS(pl__bp_parse(&p, c, len, "big.params", &err), PL_EFORMAT,
                     &err);
        CHECK(msg_has(&err, pl__bp_section_name(s)));
        CHECK(msg_has(&err, "count"));
        free(c);
    }
    pl_bp_params_close(shape);
    free(b);
}

/* A point on E(Fp) outside G1: x = 0, 1, 2, ... until x^3 + 4 is a square
 * (the cofactor is about 2^126, so it is not in the subgroup). */
static void off_subgroup_g1(blst_p1_affine *out)
{
    for (uint64_t x = 1;; x++) {
        const uint64_t lx[6] = {x, 0, 0, 0, 0, 0};
        blst_fp fx, rhs, four;
        const uint64_t l4[6] = {4, 0, 0, 0, 0, 0};
        blst_fp_from_uint64(&fx, lx);
        blst_fp_from_uint64(&four, l4);
        blst_fp_sqr(&rhs, &fx);
        blst_fp_mul(&rhs, &rhs, &fx);
        blst_fp_add(&rhs, &rhs, &four);
        if (blst_fp_sqrt(&out->y, &rhs)) {
            out->x = fx;
            CHECK(blst_p1_affine_on_curve(out));
            if (!blst_p1_affine_in_g1(out))
                return;
        }
    }
}

PL_TEST(bad_points)
{
    pl_error err = {0};
    size_t len;
    pl_bp_params *shape = NULL, *p = NULL;
    uint8_t *b = multiplier_bytes(&len, &shape);
    uint8_t *c = malloc(len);

    /* off the curve: the last byte of h's first point (its y) changed;
     * opening does not decode the queries, the point check does */
    memcpy(c, b, len);
    c[shape->at[PL__BP_H] + 4 + 95] ^= 1;
    CHECK_OK(pl__bp_parse(&p, c, len, "oc.params", &err), &err);
    CHECK_STATUS(pl_bp_params_check_points(p, &err), PL_EFORMAT, &err);
    CHECK(msg_has(&err, "section h: point 0"));
    CHECK(msg_has(&err, "not on the curve"));
    pl_bp_params_close(p);
    /* the C2 SRS decodes it (no point check asked) and refuses it too */
    const char *oc = pl_test_tmp("bp_offcurve.params");
    pl_test_write_file(oc, c, len);
    pl_c2_srs *srs = NULL;
    CHECK_STATUS(pl_c2_srs_create(&srs, oc, false, 2, &err), PL_EFORMAT,
                 &err);
    CHECK(srs == NULL);
    CHECK(msg_has(&err, "bp_offcurve.params: section h: point 0"));

    /* not in the subgroup, in the a query */
    memcpy(c, b, len);
    blst_p1_affine q;
    off_subgroup_g1(&q);
    blst_p1_affine_serialize(c + shape->at[PL__BP_A] + 4 + PL__BP_G1_BYTES,
                             &q);
    CHECK_OK(pl__bp_parse(&p, c, len, "sg.params", &err), &err);
    CHECK_STATUS(pl_bp_params_check_points(p, &err), PL_EFORMAT, &err);
    CHECK(msg_has(&err, "sg.params"));
    CHECK(msg_has(&err, "section a: point 1"));
    CHECK(msg_has(&err, "subgroup"));
    pl_bp_params_close(p);

    /* off the curve in the verifying key: refused at open */
    memcpy(c, b, len);
    c[95] ^= 1;
    CHECK_STATUS(pl__bp_parse(&p, c, len, "vk.params", &err), PL_EFORMAT,
                 &err);
    CHECK(msg_has(&err, "alpha_g1"));
    free(c);
    pl_bp_params_close(shape);
    free(b);
}

PL_TEST(bad_assignments)
{
    pl_error err = {0};
    char params[512], vk[512];
    setup("multiplier", params, vk, sizeof(params));
    pl_r1cs *r1cs = NULL;
    pl_wtns *wtns = NULL;
    CHECK_OK(pl_r1cs_open(&r1cs, pl_test_vector("multiplier/circuit.r1cs"),
                          &err),
             &err);
    CHECK_OK(pl_wtns_open(&wtns, pl_test_vector("multiplier/witness.wtns"),
                          &err),
             &err);
    built bt;
    build_assignment(&bt, r1cs, wtns);
    pl_c2_srs *srs = NULL;
    CHECK_OK(pl_c2_srs_create(&srs, params, false, 1, &err), &err);
    pl_scalar zero;
    memset(&zero, 0, sizeof(zero));
    pl_c2_assignment as;
    pl_proof proof, untouched;
    memset(&untouched, 0xa5, sizeof(untouched));
#define BAD(mutation, field)                                                  \
    do {                                                                      \
        as = bt.as;                                                           \
        mutation;                                                             \
        proof = untouched;                                                    \
        CHECK_STATUS(pl_c2_prove(&proof, &as, 1, &zero, &zero, srs, NULL,     \
                                 &err),                                       \
                     PL_EFORMAT, &err);                                       \
        CHECK(msg_has(&err, field));                                          \
        CHECK_MEM(&proof, &untouched, sizeof(proof));                         \
    } while (0)
    BAD(as.abc_size = 1000, "abc_size");
    BAD(as.inp_assignment_size--, "inp_assignment_size");
    BAD(as.aux_assignment_size++, "aux_assignment_size");
    BAD(as.a_aux_popcount++, "a_aux_popcount");
    BAD(as.b_inp_popcount++, "b_inp_popcount");
    BAD(as.b_aux_bit_len--, "b_aux_bit_len");
#undef BAD
    /* a budget smaller than the SRS and one proof: refused first */
    pl_c2_config cfg = {.budget_bytes = 1024};
    as = bt.as;
    CHECK_STATUS(pl_c2_prove(&proof, &as, 1, &zero, &zero, srs, &cfg, &err),
                 PL_EBUDGET, &err);
    /* a .vk is not an SRS */
    pl_c2_srs *none = NULL;
    CHECK_STATUS(pl_c2_srs_create(&none, vk, false, 1, &err), PL_EUSAGE,
                 &err);
    CHECK(none == NULL);
    pl_c2_srs_destroy(srs);
    built_free(&bt);
    pl_wtns_close(wtns);
    pl_r1cs_close(r1cs);
}

PL_TEST(proof_bytes_and_inputs_files)
{
    pl_error err = {0};
    /* a proof's points survive the 192 bytes; a length that is not a
     * multiple of 192 or of 32 is refused naming the file */
    const char *bin = pl_test_tmp("bp_odd.proofs");
    uint8_t junk[100] = {0x80};
    pl_test_write_file(bin, junk, sizeof(junk));
    pl_proof *proofs = NULL;
    size_t n = 0;
    CHECK_STATUS(pl_bp_proofs_read(&proofs, &n, bin, 0, &err), PL_EFORMAT,
                 &err);
    CHECK(msg_has(&err, "bp_odd.proofs"));
    const char *in = pl_test_tmp("bp_odd.inputs");
    pl_test_write_file(in, junk, 33);
    pl_scalar *v = NULL;
    CHECK_STATUS(pl_bp_inputs_read(&v, &n, in, 0, &err), PL_EFORMAT, &err);
    CHECK(msg_has(&err, "bp_odd.inputs"));
    /* r itself is not below r */
    static const uint8_t r_le[32] = {
        0x01, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xfe, 0x5b, 0xfe,
        0xff, 0x02, 0xa4, 0xbd, 0x53, 0x05, 0xd8, 0xa1, 0x09, 0x08, 0xd8,
        0x39, 0x33, 0x48, 0x7d, 0x9d, 0x29, 0x53, 0xa7, 0xed, 0x73};
    pl_test_write_file(in, r_le, 32);
    CHECK_STATUS(pl_bp_inputs_read(&v, &n, in, 0, &err), PL_EFORMAT, &err);
    CHECK(msg_has(&err, "input 0"));
    /* an empty file is no inputs */
    pl_test_write_file(in, junk, 0);
    CHECK_OK(pl_bp_inputs_read(&v, &n, in, 0, &err), &err);
    CHECK_EQ(n, 0);
    pl_public_free(v);
}

/* The zkey path's prover and the C API, unblinded, from one seed and one
 * domain, on the CPU and on the CUDA backend's emulation: the same
 * witness through both key decoders and both backends gives the same A,
 * B, C, point for point (one skeleton). */
static void same_points(const char *circuit)
{
    pl_error err = {0};
    char r1cs_rel[256], wtns_rel[256], zkey[512], params[512], vk[512];
    char name[128];
    snprintf(r1cs_rel, sizeof(r1cs_rel), "%s/circuit.r1cs", circuit);
    snprintf(wtns_rel, sizeof(wtns_rel), "%s/witness.wtns", circuit);
    snprintf(name, sizeof(name), "same_%s.zkey", circuit);
    snprintf(zkey, sizeof(zkey), "%s", pl_test_tmp(name));
    snprintf(name, sizeof(name), "same_%s", circuit);
    paths(params, vk, sizeof(params), name);
    pl_setup_config cfg;
    pl_setup_config_init(&cfg);
    cfg.threads = 2;
    CHECK_OK(pl_setup_dev(pl_test_vector(r1cs_rel), zkey, &cfg, &err), &err);
    CHECK_OK(pl__setup_dev_bellperson_domain(pl_test_vector(r1cs_rel), params,
                                             vk, &cfg, true, &err),
             &err);

    pl_zkey *zk = NULL;
    pl_wtns *wtns = NULL;
    pl_r1cs *r1cs = NULL;
    CHECK_OK(pl_zkey_open(&zk, zkey, &err), &err);
    CHECK_OK(pl_wtns_open(&wtns, pl_test_vector(wtns_rel), &err), &err);
    CHECK_OK(pl_r1cs_open(&r1cs, pl_test_vector(r1cs_rel), &err), &err);
    built bt;
    build_assignment(&bt, r1cs, wtns);
    pl_c2_srs *srs = NULL;
    CHECK_OK(pl__c2_srs_create_domain(&srs, params, true, 2, true, &err),
             &err);
    pl_scalar zero;
    memset(&zero, 0, sizeof(zero));

    static const char *const backends[2] = {"cpu", "cuda-emulated"};
    pl_proof first;
    for (int k = 0; k < 2; k++) {
        pl_prover_config pc;
        pl_prover_config_init(&pc);
        pc.threads = 2;
        pc.backend = backends[k];
        pl_prover *prover = NULL;
        CHECK_OK(pl_prover_create(&prover, zk, &pc, &err), &err);
        pl__prover_set_zero_blinding(prover, true);
        pl_proof via_zkey, via_c2;
        CHECK_OK(pl_prove(prover, &via_zkey, wtns, &err), &err);
        pl_prover_destroy(prover);
        pl_c2_config c2cfg = {.backend = backends[k]};
        CHECK_OK(pl_c2_prove(&via_c2, &bt.as, 1, &zero, &zero, srs, &c2cfg,
                             &err), &err);
        if (k == 0)
            first = via_zkey;
        printf("%s: %s, the zkey's and the parameters' proofs\n", circuit,
               backends[k]);
        CHECK_MEM(via_c2.a.b, via_zkey.a.b, sizeof(via_c2.a.b));
        CHECK_MEM(via_c2.b.b, via_zkey.b.b, sizeof(via_c2.b.b));
        CHECK_MEM(via_c2.c.b, via_zkey.c.b, sizeof(via_c2.c.b));
        CHECK_MEM(&via_zkey, &first, sizeof(first));
    }

    pl_c2_srs_destroy(srs);
    built_free(&bt);
    pl_r1cs_close(r1cs);
    pl_wtns_close(wtns);
    pl_zkey_close(zk);
}

PL_TEST(same_points_as_the_zkey_path)
{
    same_points("multiplier");
    same_points("noB");
    same_points("nopublic");
}

/* Each proof's a, b, c in their own buffer, freed by abc_done. */
typedef struct {
    pl_scalar *abc[4];
    int freed;
} abc_owner;

static void free_abc(void *user, size_t proof)
{
    abc_owner *o = user;
    free(o->abc[proof]);
    o->abc[proof] = NULL;
    o->freed++;
}

/* The ledger's records of a C2 call, checked as they come (on the engine's
 * threads: under a lock). */
typedef struct {
    pthread_mutex_t lock;
    uint64_t budget;
    int n;
    int abc_freed[4], prove_done[4], dealloc[4];
    int failed;
    uint64_t abc_at_last_dealloc, msm_at_last_dealloc;
} ledger_seen;

static void on_record(void *user, const pl_ledger_record *rec)
{
    ledger_seen *l = user;
    pthread_mutex_lock(&l->lock);
    int order = ++l->n;
    CHECK(rec->reserved_bytes <= rec->budget_bytes);
    CHECK_EQ(rec->budget_bytes, l->budget);
    CHECK(rec->partition < 4);
    switch (rec->event) {
    case PL_EV_ABC_FREED:
        l->abc_freed[rec->partition] = order;
        break;
    case PL_EV_PROVE_DONE:
        l->prove_done[rec->partition] = order;
        break;
    case PL_EV_DEALLOC_DONE:
        l->dealloc[rec->partition] = order;
        l->abc_at_last_dealloc = rec->class_bytes[PL_BUF_ABC];
        l->msm_at_last_dealloc = rec->class_bytes[PL_BUF_MSM_SCRATCH];
        break;
    case PL_EV_FAILED:
        l->failed++;
        break;
    default:
        break;
    }
    pthread_mutex_unlock(&l->lock);
}

PL_TEST(memory_four_proofs_in_one_call)
{
    pl_error err = {0};
    char params[512], vk[512];
    setup("noB", params, vk, sizeof(params));
    pl_r1cs *r1cs = NULL;
    pl_wtns *wtns = NULL;
    CHECK_OK(pl_r1cs_open(&r1cs, pl_test_vector("noB/circuit.r1cs"), &err),
             &err);
    CHECK_OK(pl_wtns_open(&wtns, pl_test_vector("noB/witness.wtns"), &err),
             &err);
    built bt;
    build_assignment(&bt, r1cs, wtns);

    pl_c2_srs *srs = NULL;
    CHECK_OK(pl_c2_srs_create(&srs, params, false, 2, &err), &err);
    /* the budget of one partition: the SRS and one proof */
    const uint64_t budget = pl_c2_srs_bytes(srs) + pl_c2_prove_bytes(srs);
    pl_c2_assignment as[4];
    abc_owner owner = {{NULL}, 0};
    pl_scalar r[4], s[4];
    uint64_t state = 7;
    const size_t rows = bt.as.abc_size;
    for (int i = 0; i < 4; i++) {
        as[i] = bt.as;
        owner.abc[i] = malloc(3 * rows * sizeof(pl_scalar));
        CHECK(owner.abc[i]);
        memcpy(owner.abc[i], bt.abc, 3 * rows * sizeof(pl_scalar));
        as[i].a = owner.abc[i];
        as[i].b = owner.abc[i] + rows;
        as[i].c = owner.abc[i] + 2 * rows;
        random_scalar(&state, &r[i]);
        random_scalar(&state, &s[i]);
    }
    pl_alloc_stats st;
    const pl_buffer_class ours[] = {PL_BUF_ABC, PL_BUF_MSM_SCRATCH};
    for (size_t c = 0; c < 2; c++)
        pl_alloc_stats_read(&st, ours[c], true);
    /* the built assignment's a, b, c (class abc) stay live throughout */
    pl_alloc_stats_read(&st, PL_BUF_ABC, false);
    const uint64_t abc_before = st.live_bytes;
    ledger_seen seen = {.lock = PTHREAD_MUTEX_INITIALIZER, .budget = budget};
    pl_c2_stats stats;
    pl_c2_config cfg = {.budget_bytes = budget, .abc_done = free_abc,
                        .abc_done_user = &owner, .on_event = on_record,
                        .on_event_user = &seen, .stats = &stats};
    pl_proof proofs[4];
    CHECK_OK(pl_c2_prove(proofs, as, 4, r, s, srs, &cfg, &err), &err);
    CHECK_EQ(owner.freed, 4);

    /* peak reserved within the budget; the per-proof classes' peaks
     * within one proof's share (one proof at a time) */
    CHECK_EQ(stats.budget_bytes, budget);
    CHECK(stats.peak_reserved_bytes <= budget);
    CHECK_EQ(stats.peak_reserved_bytes, budget);
    /* nine events per proof: admitted, synth_start, synth_done,
     * handed_off, prove_start, abc_freed, prove_done, finalize_done,
     * dealloc_done */
    CHECK_EQ(stats.events, 4 * 9);
    for (size_t c = 0; c < 2; c++) {
        pl_alloc_stats_read(&st, ours[c], false);
        if (ours[c] == PL_BUF_ABC)
            st.high_water_bytes -= abc_before;
        if (st.high_water_bytes > pl_c2_prove_bytes(srs))
            fprintf(stderr, "class %s peak %" PRIu64 " > a proof's %" PRIu64
                    "\n", pl_buffer_class_name(ours[c]), st.high_water_bytes,
                    pl_c2_prove_bytes(srs));
        CHECK(st.high_water_bytes <= pl_c2_prove_bytes(srs));
    }
    /* each proof's a, b, c freed (abc_freed, at the free: after H's
     * transforms, before the G1 sums) before its proof was done
     * (prove_done), its buffers back after */
    CHECK_EQ(seen.n, 36);
    CHECK_EQ(seen.failed, 0);
    for (int i = 0; i < 4; i++) {
        CHECK(seen.abc_freed[i] > 0);
        CHECK(seen.abc_freed[i] < seen.prove_done[i]);
        CHECK(seen.prove_done[i] < seen.dealloc[i]);
    }
    CHECK_EQ(seen.abc_at_last_dealloc, abc_before);
    CHECK_EQ(seen.msm_at_last_dealloc, 0);

    pl_bp_params *v = NULL;
    pl_vkey *vkey = NULL;
    CHECK_OK(pl_bp_params_open(&v, vk, &err), &err);
    CHECK_OK(pl_vkey_from_bp_params(&vkey, v, &err), &err);
    for (int i = 0; i < 4; i++)
        CHECK_OK(pl_verify(vkey, &proofs[i], pl_wtns_values(wtns) + 1,
                           vkey->n_public, &err),
                 &err);
    pl_vkey_destroy(vkey);
    pl_bp_params_close(v);
    pl_c2_srs_destroy(srs);
    built_free(&bt);
    pl_wtns_close(wtns);
    pl_r1cs_close(r1cs);
    /* the ledger is zero: nothing is left (the harness checks it too) */
    uint64_t live, hw;
    pl_alloc_total(&live, &hw);
    CHECK_EQ(live, 0);
}

/* A zkey job and pl_c2_prove's job on one engine: one budget, one ledger,
 * the C2 SRS opened as a circuit beside the zkey's.  Both sets of proofs
 * verify, the peak stays within the budget, and the engine's buffers are
 * all freed when it is destroyed. */
typedef struct {
    pthread_mutex_t lock;
    size_t proved;
    uint64_t c2_job, zkey_job; /* ids seen in the ledger, 0: none */
} shared_seen;

static void on_shared_record(void *user, const pl_ledger_record *rec)
{
    shared_seen *l = user;
    pthread_mutex_lock(&l->lock);
    CHECK(rec->reserved_bytes <= rec->budget_bytes);
    if (rec->job && rec->job != l->zkey_job)
        l->c2_job = rec->job;
    pthread_mutex_unlock(&l->lock);
}

static void count_proof(void *user, uint64_t job, size_t partition,
                        const pl_proof *proof, const pl_scalar *publics,
                        size_t n_public)
{
    (void)job, (void)partition, (void)proof, (void)publics, (void)n_public;
    shared_seen *l = user;
    pthread_mutex_lock(&l->lock);
    l->proved++;
    pthread_mutex_unlock(&l->lock);
}

PL_TEST(c2_job_beside_a_zkey_job_on_one_engine)
{
    pl_error err = {0};
    c2_fixture f;
    fixture_open(&f, "multiplier");
    pl_c2_srs *srs = f.srs;

    shared_seen seen = {.lock = PTHREAD_MUTEX_INITIALIZER};
    pl_engine_config ec;
    pl_engine_config_init(&ec);
    ec.budget_bytes = 256ull << 20;
    ec.threads = 2;
    ec.on_event = on_shared_record;
    ec.on_event_user = &seen;
    pl_engine *engine = NULL;
    CHECK_OK(pl_engine_create(&engine, &ec, &err), &err);
    pl_circuit *zkey_circuit = NULL, *c2_circuit = NULL;
    CHECK_OK(pl_engine_open_circuit(engine, &zkey_circuit,
                                    pl_test_vector("multiplier/circuit.zkey"),
                                    NULL, &err),
             &err);
    /* opened by the caller: the SRS stays resident between calls, and
     * pl_c2_prove shares this circuit */
    CHECK_OK(pl_engine_open_c2_circuit(engine, &c2_circuit, srs, &err), &err);
    /* resident: the SRS and the prover's tables (the CPU's NTT plan) */
    uint64_t resident;
    pl__prove_plan cpu_plan;
    pl__c2_plan(srs, pl__backend_find("cpu", NULL, 0), ec.threads, &cpu_plan);
    pl_circuit_plan(c2_circuit, 0, NULL, &resident);
    CHECK_EQ(resident, pl_c2_srs_bytes(srs) + cpu_plan.resident_bytes);
    CHECK_EQ(pl_circuit_n_public(c2_circuit), f.bt.as.inp_assignment_size - 1);

    /* a C2 circuit takes no witnesses */
    const char *paths[1] = {pl_test_vector("multiplier/witness.wtns")};
    pl_job_spec wrong = {.circuit = c2_circuit, .n_partitions = 1,
                         .witness_paths = paths};
    uint64_t id;
    CHECK_EQ(pl_engine_submit(engine, &id, &wrong, &err), PL_EUSAGE);

    const char *many[6];
    for (int i = 0; i < 6; i++)
        many[i] = paths[0];
    pl_job_spec spec = {.circuit = zkey_circuit, .n_partitions = 6,
                        .witness_paths = many, .verify = true,
                        .on_proof = count_proof, .on_proof_user = &seen};
    uint64_t zkey_job;
    pthread_mutex_lock(&seen.lock);
    CHECK_OK(pl_engine_submit(engine, &zkey_job, &spec, &err), &err);
    seen.zkey_job = zkey_job;
    pthread_mutex_unlock(&seen.lock);

    enum { N = 3 };
    pl_c2_assignment as[N];
    pl_scalar r[N], s[N];
    pl_proof proofs[N];
    uint64_t state = 11;
    for (int i = 0; i < N; i++) {
        as[i] = f.bt.as;
        random_scalar(&state, &r[i]);
        random_scalar(&state, &s[i]);
    }
    pl_c2_stats stats;
    pl_c2_config cfg = {.engine = engine, .stats = &stats,
                        .priority = PL_PRIORITY_HIGH};
    CHECK_OK(pl_c2_prove(proofs, as, N, r, s, srs, &cfg, &err), &err);
    pl_job_status js;
    CHECK_OK(pl_engine_wait(engine, zkey_job, &js, &err), &err);
    CHECK_OK(js.status, &js.error);
    CHECK_EQ(js.proved, 6);
    CHECK_EQ(seen.proved, 6);
    CHECK(seen.c2_job != 0);
    CHECK_EQ(stats.budget_bytes, ec.budget_bytes);
    CHECK(stats.peak_reserved_bytes <= ec.budget_bytes);

    fixture_verify(&f, proofs, N);
    pl_circuit_release(c2_circuit);
    pl_circuit_release(zkey_circuit);
    CHECK_OK(pl_engine_destroy(engine, &err), &err);
    fixture_close(&f);
}

/* The same assignments and blinding on an engine over the CUDA backend
 * (H's transforms and the G1 sums on the device, class device), on its
 * emulation or on device 0, give the CPU engine's proofs byte for byte;
 * the device's bytes come back when the circuit is released.  The
 * on-device case skips (77) where no device answers; bench/gpu_check.sh
 * runs it where one does. */
static void c2_proofs_equal_cpu(bool on_device)
{
    pl_error err = {0};
    c2_fixture f;
    fixture_open(&f, "noB");
    pl_c2_srs *srs = f.srs;
    enum { N = 2 };
    pl_c2_assignment as[N] = {f.bt.as, f.bt.as};
    pl_scalar r[N], s[N];
    uint64_t state = 5;
    for (int i = 0; i < N; i++) {
        random_scalar(&state, &r[i]);
        random_scalar(&state, &s[i]);
    }
    pl_proof proofs[2][N];
    const pl__backend_ops *backends[2] = {&pl__backend_cpu,
                                          &pl__backend_cuda_emulated};
    if (on_device) {
        char why[320] = "";
        if (!pl__backend_cuda_usable(why, sizeof(why))) {
            printf("skipped: no usable CUDA device (%s)\n", why);
            fixture_close(&f);
            exit(77);
        }
        backends[1] = pl__backend_cuda;
    }
    for (int b = 0; b < 2; b++) {
        pl_engine_config ec;
        pl_engine_config_init(&ec);
        ec.budget_bytes = 256ull << 20;
        ec.threads = 2;
        pl_engine *engine = NULL;
        CHECK_OK(pl__engine_create_with_backend(&engine, &ec, backends[b],
                                                NULL, &err),
                 &err);
        pl_c2_config cfg = {.engine = engine};
        CHECK_OK(pl_c2_prove(proofs[b], as, N, r, s, srs, &cfg, &err), &err);
        pl_alloc_stats dev;
        pl_alloc_stats_read(&dev, PL_BUF_DEVICE, false);
        CHECK_EQ(dev.live_bytes, 0); /* released with the circuit */
        if (b == 1)
            CHECK(dev.high_water_bytes > 0);
        CHECK_OK(pl_engine_destroy(engine, &err), &err);
    }
    CHECK_MEM(proofs[0], proofs[1], sizeof(proofs[0]));
    fixture_verify(&f, proofs[1], N);
    fixture_close(&f);
}

PL_TEST(c2_proofs_equal_cpu_emulated)
{
    c2_proofs_equal_cpu(false);
}

PL_TEST(c2_proofs_equal_cpu_on_device)
{
    c2_proofs_equal_cpu(true);
}

/* A budget that cannot hold the SRS beside what is open: refused when the
 * SRS is opened, naming what it needs; one that holds the SRS but not a
 * proof: refused at submission with the smallest budget that works. */
PL_TEST(c2_budget_refused_on_an_engine)
{
    pl_error err = {0};
    c2_fixture f;
    fixture_open(&f, "multiplier");
    pl_c2_srs *srs = f.srs;
    const uint64_t need = pl_c2_srs_bytes(srs) + pl_c2_prove_bytes(srs);
    const uint64_t budgets[] = {pl_c2_srs_bytes(srs) - 1, need - 1, need};
    for (int k = 0; k < 3; k++) {
        pl_engine_config ec;
        pl_engine_config_init(&ec);
        ec.budget_bytes = budgets[k];
        pl_engine *engine = NULL;
        CHECK_OK(pl_engine_create(&engine, &ec, &err), &err);
        pl_scalar zero;
        memset(&zero, 0, sizeof(zero));
        pl_proof proof;
        memset(&proof, 0, sizeof(proof));
        pl_c2_config cfg = {.engine = engine};
        pl_status st = pl_c2_prove(&proof, &f.bt.as, 1, &zero, &zero, srs,
                                   &cfg, &err);
        if (k == 0) {
            CHECK_EQ(st, PL_EBUDGET);
            CHECK(strstr(err.msg, "SRS"));
        } else if (k == 1) {
            CHECK_EQ(st, PL_EBUDGET);
            CHECK(strstr(err.msg, "smallest budget"));
            pl_proof none;
            memset(&none, 0, sizeof(none));
            CHECK_MEM(proof.a.b, none.a.b, sizeof(none.a.b));
        } else {
            CHECK_OK(st, &err);
        }
        CHECK_OK(pl_engine_destroy(engine, &err), &err);
    }
    fixture_close(&f);
}

/* No file of the test's scratch folder starts with name. */
static void check_no_file(const char *name)
{
    char dir[512];
    snprintf(dir, sizeof(dir), "%s", pl_test_tmp(""));
    DIR *d = opendir(dir);
    CHECK(d);
    struct dirent *e;
    while ((e = readdir(d)))
        if (strncmp(e->d_name, name, strlen(name)) == 0)
            pl_test_fail(__FILE__, __LINE__, "%s%s was left behind", dir,
                         e->d_name);
    closedir(d);
}

/* held: what the test itself holds (its open files, read whole). */
static void expect_enomem(pl_status st, uint64_t k, uint64_t total,
                          const pl_test_live *held)
{
    pl_error err = {0};
    if (st != PL_ENOMEM)
        pl_test_fail(__FILE__, __LINE__, "failing allocation %llu of %llu "
                     "gave %s", (unsigned long long)k,
                     (unsigned long long)total, pl_strerror(st));
    if (!pl_test_live_as_before(held, &err))
        pl_test_fail(__FILE__, __LINE__, "failing allocation %llu: %s",
                     (unsigned long long)k, err.msg);
}

PL_TEST(setup_every_allocation_failing)
{
    pl_error err = {0};
    pl_setup_config cfg;
    pl_setup_config_init(&cfg);
    cfg.threads = 2;
    const char *r1cs = pl_test_vector("noB/circuit.r1cs");
    char params[512], vk[512];
    snprintf(params, sizeof(params), "%s", pl_test_tmp("bpfault.params"));
    snprintf(vk, sizeof(vk), "%s", pl_test_tmp("bpfault.vk"));
    pl__alloc_fail_at(0);
    CHECK_OK(pl_setup_dev_bellperson(r1cs, params, vk, &cfg, &err), &err);
    const uint64_t total = pl__alloc_fail_at(0);
    CHECK(total >= 3);
    unlink(params);
    unlink(vk);
    pl_test_live held;
    pl_test_live_read(&held);
    for (uint64_t k = 1; k <= total; k++) {
        pl__alloc_fail_at(k);
        pl_status st = pl_setup_dev_bellperson(r1cs, params, vk, &cfg, &err);
        pl__alloc_fail_at(0);
        expect_enomem(st, k, total, &held);
        check_no_file("bpfault.");
    }
}

/* Builds the assignment, opens the SRS and proves one proof, in each
 * scalar form (0 is 0 in both, and the witness is read as Montgomery form
 * as it is: other values for the sums, enough for the paths, but not a
 * satisfying assignment, so that proof is not verified). */
static pl_status c2_once(const char *params, const pl_r1cs *r1cs,
                         const pl_wtns *wtns, pl_error *err)
{
    pl_c2_assignment as;
    pl_c2_srs *srs = NULL;
    pl_scalar zero;
    pl_proof proof;
    memset(&zero, 0, sizeof(zero));
    pl_status st = pl_c2_assignment_from_r1cs(&as, r1cs, wtns, err);
    if (st)
        return st;
    pl_c2_config mont = {.montgomery = true, .no_verify = true};
    if ((st = pl_c2_srs_create(&srs, params, false, 2, err)) == PL_OK &&
        (st = pl_c2_prove(&proof, &as, 1, &zero, &zero, srs, NULL, err)) ==
            PL_OK)
        st = pl_c2_prove(&proof, &as, 1, &zero, &zero, srs, &mont, err);
    pl_c2_srs_destroy(srs);
    pl_c2_assignment_release(&as);
    return st;
}

PL_TEST(c2_every_allocation_failing)
{
    pl_error err = {0};
    char params[512], vk[512];
    setup("noB", params, vk, sizeof(params));
    pl_r1cs *r1cs = NULL;
    pl_wtns *wtns = NULL;
    CHECK_OK(pl_r1cs_open(&r1cs, pl_test_vector("noB/circuit.r1cs"), &err),
             &err);
    CHECK_OK(pl_wtns_open(&wtns, pl_test_vector("noB/witness.wtns"), &err),
             &err);
    pl__alloc_fail_at(0);
    CHECK_OK(c2_once(params, r1cs, wtns, &err), &err);
    const uint64_t total = pl__alloc_fail_at(0);
    CHECK(total >= 5);
    pl_test_live held; /* the r1cs and the witness, read whole */
    pl_test_live_read(&held);
    for (uint64_t k = 1; k <= total; k++) {
        pl__alloc_fail_at(k);
        pl_status st = c2_once(params, r1cs, wtns, &err);
        pl__alloc_fail_at(0);
        expect_enomem(st, k, total, &held);
    }
    pl_wtns_close(wtns);
    pl_r1cs_close(r1cs);
}

/* ---- the safeguards every path has (issue 26) ----------------------------- */

/* A file rewritten with other bytes, or cut short, while the SRS is read:
 * refused, naming the file (before: read through a map, a torn file gave
 * proofs valid under neither key, a truncated one SIGBUS).  Once read, the
 * file can change as it likes: the proofs are the SRS's. */
typedef struct {
    const char *path, *other;
    bool truncate;
} tear;

static void tear_now(void *user)
{
    const tear *t = user;
    if (t->truncate) {
        CHECK(truncate(t->path, 100) == 0);
        return;
    }
    size_t len = 0;
    uint8_t *bytes = pl_test_read_file(t->other, &len);
    pl_test_write_file(t->path, bytes, len);
    free(bytes);
}

PL_TEST(c2_params_changed_while_read_refused)
{
    pl_error err = {0};
    c2_fixture f;
    fixture_open(&f, "multiplier");
    char other[512], other_vk[512], copy[512];
    paths(other, other_vk, sizeof(other), "multiplier_seed_b");
    pl_setup_config cfg;
    pl_setup_config_init(&cfg);
    cfg.threads = 2;
    cfg.seed = "b";
    CHECK_OK(pl_setup_dev_bellperson(pl_test_vector("multiplier/circuit.r1cs"),
                                     other, other_vk, &cfg, &err), &err);
    snprintf(copy, sizeof(copy), "%s", pl_test_tmp("bp_torn.params"));
    for (int k = 0; k < 2; k++) {
        size_t len = 0;
        uint8_t *bytes = pl_test_read_file(f.params, &len);
        pl_test_write_file(copy, bytes, len);
        free(bytes);
        tear t = {copy, other, k == 1};
        pl__file_load_after_read_hook(tear_now, &t);
        pl_c2_srs *srs = (pl_c2_srs *)&err;
        CHECK_STATUS(pl_c2_srs_create(&srs, copy, false, 2, &err), PL_EIO,
                     &err);
        pl__file_load_after_read_hook(NULL, NULL);
        CHECK(srs == NULL);
        CHECK(msg_has(&err, copy));
        printf("%s: %s\n", k ? "truncated" : "rewritten", err.msg);
    }
    /* read whole: later changes do not reach the proofs */
    pl_c2_srs *srs = NULL;
    size_t len = 0;
    uint8_t *bytes = pl_test_read_file(f.params, &len);
    pl_test_write_file(copy, bytes, len);
    free(bytes);
    CHECK_OK(pl_c2_srs_create(&srs, copy, false, 2, &err), &err);
    CHECK(truncate(copy, 10) == 0);
    pl_proof proof;
    pl_scalar r, s;
    uint64_t state = 3;
    random_scalar(&state, &r);
    random_scalar(&state, &s);
    CHECK_OK(pl_c2_prove(&proof, &f.bt.as, 1, &r, &s, srs, NULL, &err), &err);
    fixture_verify(&f, &proof, 1);
    pl_c2_srs_destroy(srs);
    fixture_close(&f);
}

/* An assignment that does not satisfy the circuit (a private value
 * changed, ONE = 2, a public input changed) is never turned into a
 * proof: PL_EINVALID naming the partition (before: a proof that does not
 * verify).  With no_verify the proof is made, and does not verify. */
PL_TEST(c2_unsatisfied_assignment_refused)
{
    pl_error err = {0};
    c2_fixture f;
    fixture_open(&f, "multiplier");
    pl_scalar zero;
    memset(&zero, 0, sizeof(zero));
    const size_t n_inp = f.bt.as.inp_assignment_size;
    const size_t n_aux = f.bt.as.aux_assignment_size;
    pl_scalar *inp = malloc(n_inp * sizeof(*inp));
    pl_scalar *aux = malloc(n_aux * sizeof(*aux));
    CHECK(inp && aux);
    for (int k = 0; k < 3; k++) {
        memcpy(inp, f.bt.as.inp_assignment, n_inp * sizeof(*inp));
        memcpy(aux, f.bt.as.aux_assignment, n_aux * sizeof(*aux));
        if (k == 0)
            aux[n_aux - 1].b[0] ^= 1;
        else if (k == 1)
            inp[0].b[0] = 2; /* ONE */
        else
            inp[1].b[0] ^= 1;
        pl_c2_assignment as = f.bt.as;
        as.inp_assignment = inp;
        as.aux_assignment = aux;
        pl_proof proof;
        CHECK_STATUS(pl_c2_prove(&proof, &as, 1, &zero, &zero, f.srs, NULL,
                                 &err), PL_EINVALID, &err);
        CHECK(msg_has(&err, "partition 0"));
        pl_c2_config unverified = {.no_verify = true};
        CHECK_OK(pl_c2_prove(&proof, &as, 1, &zero, &zero, f.srs, &unverified,
                             &err), &err);
        pl_bp_params *v = NULL;
        pl_vkey *vkey = NULL;
        CHECK_OK(pl_bp_params_open(&v, f.vk, &err), &err);
        CHECK_OK(pl_vkey_from_bp_params(&vkey, v, &err), &err);
        CHECK_EQ(pl_verify(vkey, &proof, pl_wtns_values(f.wtns) + 1,
                           vkey->n_public, &err), PL_EINVALID);
        pl_vkey_destroy(vkey);
        pl_bp_params_close(v);
    }
    free(inp);
    free(aux);
    fixture_close(&f);
}

/* A wire index that is not below nWires, in an r1cs whose bytes changed
 * after they were validated (a caller's buffer: files are read whole, so
 * theirs cannot): refused naming the constraint and the wire, never read
 * or written out of bounds (before: an invalid proof, or SIGSEGV for
 * 2^32 - 1, also through the density bitmap). */
PL_TEST(c2_wire_index_checked)
{
    pl_error err = {0};
    size_t len = 0;
    uint8_t *bytes = pl_test_read_file(pl_test_vector("multiplier/circuit.r1cs"),
                                       &len);
    pl_r1cs *r1cs = NULL;
    CHECK_OK(pl__r1cs_parse(&r1cs, bytes, len, "poked.r1cs", &err), &err);
    pl_wtns *wtns = NULL;
    CHECK_OK(pl_wtns_open(&wtns, pl_test_vector("multiplier/witness.wtns"),
                          &err), &err);
    /* the first term of the first constraint's A: after its nTerms */
    uint8_t *wire = (uint8_t *)r1cs->constraints + 4;
    const uint32_t bad[2] = {r1cs->info.n_wires, UINT32_MAX};
    for (int k = 0; k < 2; k++) {
        pl_test_put_le32(wire, bad[k]);
        pl_c2_assignment as;
        CHECK_STATUS(pl_c2_assignment_from_r1cs(&as, r1cs, wtns, &err),
                     PL_EFORMAT, &err);
        CHECK(msg_has(&err, "constraint 0"));
        CHECK(msg_has(&err, "nWires"));
        printf("refused: %s\n", err.msg);
    }
    pl_wtns_close(wtns);
    pl_r1cs_close(r1cs);
    free(bytes);
}

/* ---- several devices (the emulation presenting two cards) ----------------- */

typedef struct {
    pl_proof proofs[16];
    size_t delivered;
} proof_sink;

static void keep_proof(void *user, uint64_t job, size_t partition,
                       const pl_proof *proof, const pl_scalar *publics,
                       size_t n_public)
{
    (void)job, (void)publics, (void)n_public;
    proof_sink *k = user;
    k->proofs[partition] = *proof; /* the finisher is one thread */
    k->delivered++;
}

/* 10 proofs of one job on an engine over two emulated cards: one prover
 * worker per card by default, every proof equal to the CPU's with
 * r = s = 0, both cards used; a job limited to card 1 runs there alone;
 * a card another process has filled is left out of the circuit (its
 * memory refused alone, said in the log), the other proves everything;
 * a job asking only for a card the circuit is not on is refused at
 * submission.  Every byte, host and device, comes back. */
static pl_status c2_job_on(pl_engine *e, pl_circuit *c,
                           const pl_c2_assignment *as, size_t n,
                           uint32_t device_mask, proof_sink *sink,
                           pl_error *err)
{
    pl_c2_assignment many[16];
    pl_scalar zero[16];
    memset(zero, 0, sizeof(zero));
    for (size_t i = 0; i < n; i++)
        many[i] = *as;
    pl_c2_job_spec spec = {.circuit = c, .n_partitions = n,
                           .assignments = many, .r = zero, .s = zero,
                           .verify = true, .device_mask = device_mask,
                           .on_proof = keep_proof, .on_proof_user = sink};
    uint64_t id;
    pl_job_status js;
    pl_status st = pl_engine_submit_c2(e, &id, &spec, err);
    if (st == PL_OK && (st = pl_engine_wait(e, id, &js, err)) == PL_OK &&
        (st = js.status) != PL_OK)
        *err = js.error;
    return st;
}

PL_TEST(c2_two_devices_emulated)
{
    pl_error err = {0};
    pl__gpu_emu_set_devices(2);
    c2_fixture f;
    fixture_open(&f, "noB");
    pl_proof want;
    pl_scalar zero;
    memset(&zero, 0, sizeof(zero));
    pl_c2_config cpu = {.backend = "cpu"};
    CHECK_OK(pl_c2_prove(&want, &f.bt.as, 1, &zero, &zero, f.srs, &cpu, &err),
             &err);
    for (int round = 0; round < 2; round++) {
        char *log_text = NULL;
        size_t log_len = 0;
        pl_engine_config ec;
        pl_engine_config_init(&ec);
        ec.budget_bytes = 512ull << 20;
        ec.threads = 2;
        ec.log_level = PL_LOG_INFO;
        ec.log_stream = open_memstream(&log_text, &log_len);
        if (round == 1) /* card 1 all but full */
            pl__gpu_emu_foreign_on(1, ((uint64_t)4 << 30) - (16u << 20), 0);
        pl_engine *e = NULL;
        CHECK_OK(pl__engine_create_with_backend(&e, &ec,
                                                &pl__backend_cuda_emulated,
                                                NULL, &err), &err);
        pl_circuit *c = NULL;
        CHECK_OK(pl_engine_open_c2_params(e, &c, f.params, false, &err), &err);
        proof_sink sink = {.delivered = 0};
        CHECK_OK(c2_job_on(e, c, &f.bt.as, 10, 0, &sink, &err), &err);
        CHECK_EQ(sink.delivered, 10);
        for (int i = 0; i < 10; i++)
            CHECK_MEM(&sink.proofs[i], &want, sizeof(want));
        pl_engine_stats es;
        pl_engine_stats_read(e, &es);
        CHECK_EQ(es.devices, 2);
        printf("round %d: device 0 started %llu, device 1 %llu\n", round,
               (unsigned long long)es.device_starts[0],
               (unsigned long long)es.device_starts[1]);
        CHECK_EQ(es.device_starts[0] + es.device_starts[1], 10);
        if (round == 0) {
            CHECK(es.device_starts[0] > 0);
            CHECK(es.device_starts[1] > 0);
            /* limited to card 1 */
            sink.delivered = 0;
            CHECK_OK(c2_job_on(e, c, &f.bt.as, 4, 1u << 1, &sink, &err),
                     &err);
            pl_engine_stats after;
            pl_engine_stats_read(e, &after);
            CHECK_EQ(after.device_starts[1], es.device_starts[1] + 4);
            CHECK_EQ(after.device_starts[0], es.device_starts[0]);
        } else {
            CHECK_EQ(es.device_starts[1], 0);
            CHECK_STATUS(c2_job_on(e, c, &f.bt.as, 1, 1u << 1, &sink, &err),
                         PL_EUSAGE, &err);
            printf("refused: %s\n", err.msg);
        }
        pl_circuit_release(c);
        CHECK_OK(pl_engine_destroy(e, &err), &err);
        fclose(ec.log_stream);
        if (round == 1) {
            CHECK(strstr(log_text, "device 1") != NULL);
            CHECK(strstr(log_text, "proved on the others") != NULL);
            pl__gpu_emu_foreign_on(1, 0, 0);
        }
        free(log_text);
        pl_alloc_stats dev;
        pl_alloc_stats_read(&dev, PL_BUF_DEVICE, false);
        CHECK_EQ(dev.live_bytes, 0);
    }
    /* more devices than the backend has: refused */
    pl_engine_config ec;
    pl_engine_config_init(&ec);
    ec.devices = 3;
    pl_engine *e = NULL;
    CHECK_STATUS(pl__engine_create_with_backend(&e, &ec,
                                                &pl__backend_cuda_emulated,
                                                NULL, &err),
                 PL_EUSAGE, &err);
    fixture_close(&f);
}
