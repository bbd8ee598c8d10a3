/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Groth16 verification of real snarkjs bn128 proofs with BN254's pairing
 * (src/field/bn254/pairing.h), as `snarkjs groth16 verify` checks them:
 * every public input below r, every point on its curve and in its group,
 * vk_x = IC_0 + sum public_i IC_i, and
 *     e(-A, B) e(alpha, beta) e(vk_x, gamma) e(C, delta) = 1
 * as one multi-pairing.  The material is tests/vectors/bn254/ (circom2
 * --prime bn128 of the vectors' circuits, a 2^10 bn128 powers of tau,
 * snarkjs groth16 setup and prove: regen_bn254.sh): every vector's proof
 * verifies, in both field implementations; each tampering is refused (a
 * public input changed or equal to r, each proof point moved, A and C
 * swapped, a point off its curve, B outside G2); vk_alphabeta_12, which
 * snarkjs computes with ffjavascript's pairing, is our e(alpha, beta) to
 * the fixed power ffjavascript's final exponentiation adds (the same as
 * @noble/curves', test_bn254_curve.c).
 */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "harness.h"
#include "bn254_test.h"
#include "field/bn254/pairing.h"
#include "field/bn254/serial.h"
#include "formats/json.h"

static const char *const vectors[] = {"multiplier", "chain10",    "nopublic",
                                      "noB",        "manypublic", "edgevalues"};

typedef struct {
    pl__bn254_g1_affine alpha, *ic;
    pl__bn254_g2_affine beta, gamma, delta;
    pl__bn254_fp12 alphabeta;
    size_t n_public;
} vkey;

typedef struct {
    pl__bn254_g1_affine a, c;
    pl__bn254_g2_affine b;
} proof;

/* a JSON array's n-th element */
static const pl__json_value *nth(const pl__json_value *arr, size_t n)
{
    CHECK(arr->type == PL__JSON_ARRAY && n < arr->len);
    const pl__json_value *c = pl__json_first(arr);
    for (size_t i = 0; i < n; i++)
        c = pl__json_next(c);
    return c;
}

static const char *str(const pl__json_value *v)
{
    CHECK(v->type == PL__JSON_STRING);
    return v->text;
}

static const pl__json_value *member(const pl__json_doc *doc,
                                    const pl__json_value *obj, const char *key)
{
    pl_error err = {0};
    const pl__json_value *m;
    CHECK_OK(pl__json_member(&m, doc, obj, key, true, "", &err), &err);
    return m;
}

static bool g1_of(pl__bn254_g1_affine *p, const pl__json_value *v)
{
    const char *s[3] = {str(nth(v, 0)), str(nth(v, 1)), str(nth(v, 2))};
    return pl__bn254_g1_from_dec(p, s);
}

static bool g2_of(pl__bn254_g2_affine *q, const pl__json_value *v)
{
    const char *s[3][2];
    for (size_t i = 0; i < 3; i++)
        for (size_t j = 0; j < 2; j++)
            s[i][j] = str(nth(nth(v, i), j));
    return pl__bn254_g2_from_dec(q, s);
}

static const char *path_of(const char *vector, const char *file)
{
    static char path[4096];
    snprintf(path, sizeof(path), "%s/bn254/%s/%s", PL_TEST_VECTORS, vector,
             file);
    return path;
}

static void read_doc(pl__json_doc *doc, const char *vector, const char *file)
{
    pl_error err = {0};
    CHECK_OK(pl__json_read_file(doc, path_of(vector, file), 1 << 20, &err),
             &err);
}

static void read_vkey(vkey *vk, const char *vector)
{
    pl__json_doc doc;
    read_doc(&doc, vector, "verification_key.json");
    const pl__json_value *root = pl__json_root(&doc);
    CHECK(strcmp(str(member(&doc, root, "curve")), "bn128") == 0);
    CHECK(g1_of(&vk->alpha, member(&doc, root, "vk_alpha_1")));
    CHECK(g2_of(&vk->beta, member(&doc, root, "vk_beta_2")));
    CHECK(g2_of(&vk->gamma, member(&doc, root, "vk_gamma_2")));
    CHECK(g2_of(&vk->delta, member(&doc, root, "vk_delta_2")));
    const pl__json_value *ic = member(&doc, root, "IC");
    vk->n_public = ic->len - 1;
    vk->ic = malloc(ic->len * sizeof(*vk->ic));
    CHECK(vk->ic != NULL);
    for (size_t i = 0; i < ic->len; i++)
        CHECK(g1_of(&vk->ic[i], nth(ic, i)));
    const pl__json_value *ab = member(&doc, root, "vk_alphabeta_12");
    const char *s[2][3][2];
    for (size_t i = 0; i < 2; i++)
        for (size_t j = 0; j < 3; j++)
            for (size_t k = 0; k < 2; k++)
                s[i][j][k] = str(nth(nth(nth(ab, i), j), k));
    CHECK(pl__bn254_fp12_from_dec(&vk->alphabeta, s));
    pl__json_free(&doc);
}

static void read_proof(proof *pr, const char *vector)
{
    pl__json_doc doc;
    read_doc(&doc, vector, "proof_snarkjs.json");
    const pl__json_value *root = pl__json_root(&doc);
    CHECK(strcmp(str(member(&doc, root, "curve")), "bn128") == 0);
    CHECK(g1_of(&pr->a, member(&doc, root, "pi_a")));
    CHECK(g2_of(&pr->b, member(&doc, root, "pi_b")));
    CHECK(g1_of(&pr->c, member(&doc, root, "pi_c")));
    pl__json_free(&doc);
}

/* The public inputs as decimal text (NUL-terminated copies). */
static char **read_public(size_t *count, const char *vector)
{
    pl__json_doc doc;
    read_doc(&doc, vector, "public.json");
    const pl__json_value *root = pl__json_root(&doc);
    CHECK(root->type == PL__JSON_ARRAY);
    char **out = malloc((root->len + 1) * sizeof(char *));
    CHECK(out != NULL);
    for (size_t i = 0; i < root->len; i++) {
        out[i] = strdup(str(nth(root, i)));
        CHECK(out[i] != NULL);
    }
    *count = root->len;
    pl__json_free(&doc);
    return out;
}

/* snarkjs's checks, then the pairing equation. */
static bool verify(const vkey *vk, const proof *pr, char *const *pub,
                   size_t n_pub, pl__bn254_arith v)
{
    if (n_pub != vk->n_public)
        return false;
    if (!pl__bn254_g1_affine_in_group(&pr->a, v) ||
        !pl__bn254_g2_affine_in_group(&pr->b, v) ||
        !pl__bn254_g1_affine_in_group(&pr->c, v))
        return false;
    pl__bn254_g1 acc, t, p;
    pl__bn254_g1_from_affine(&acc, &vk->ic[0]);
    for (size_t i = 0; i < n_pub; i++) {
        pl__bn254_fr s;
        if (!pl__bn254_fr_from_dec(&s, pub[i], strlen(pub[i])))
            return false; /* not a decimal below r */
        uint8_t le[32];
        uint64_t k[4] = {0};
        pl__bn254_fr_to_le(le, &s);
        for (int b = 0; b < 32; b++)
            k[b / 8] |= (uint64_t)le[b] << (8 * (b % 8));
        pl__bn254_g1_from_affine(&p, &vk->ic[i + 1]);
        pl__bn254_g1_mul(&t, &p, k, v);
        pl__bn254_g1_add(&acc, &acc, &t, v);
    }
    pl__bn254_g1_affine ps[4];
    pl__bn254_g2_affine qs[4] = {pr->b, vk->beta, vk->gamma, vk->delta};
    pl__bn254_g1 a;
    pl__bn254_g1_from_affine(&a, &pr->a);
    pl__bn254_g1_neg(&a, &a, v);
    pl__bn254_g1_to_affine(&ps[0], &a, v);
    ps[1] = vk->alpha;
    pl__bn254_g1_to_affine(&ps[2], &acc, v);
    ps[3] = pr->c;
    return pl__bn254_pairing_is_one(ps, qs, 4, v);
}

static void free_public(char **pub, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(pub[i]);
    free(pub);
}

PL_TEST(snarkjs_proofs_verify)
{
    pl__bn254_arith vs[2];
    size_t nv = bn254_arith_list(vs);
    for (size_t i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++) {
        vkey vk;
        proof pr;
        size_t n_pub;
        read_vkey(&vk, vectors[i]);
        read_proof(&pr, vectors[i]);
        char **pub = read_public(&n_pub, vectors[i]);
        for (size_t k = 0; k < nv; k++)
            if (!verify(&vk, &pr, pub, n_pub, vs[k]))
                pl_test_fail(__FILE__, __LINE__,
                             "bn254/%s: snarkjs's proof refused (%s)",
                             vectors[i], pl__bn254_arith_name(vs[k]));
        free_public(pub, n_pub);
        free(vk.ic);
    }
}

/* 2u(6u^2 + 3u + 1): ffjavascript's (and noble's) final exponentiation
 * gives our pairing to this power. */
static const uint64_t ffjs_power[4] = {0x2e5d4e223ddedaf4, 0x1ea96b02d9d9e38d,
                                       0x3bec47df15e307c8, 0};

PL_TEST(alphabeta_as_snarkjs)
{
    pl__bn254_arith v = pl__bn254_arith_best();
    for (size_t i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++) {
        vkey vk;
        read_vkey(&vk, vectors[i]);
        pl__bn254_fp12 e;
        pl__bn254_pairing(&e, &vk.alpha, &vk.beta, 1, v);
        CHECK(!pl__bn254_fp12_eq(&e, &vk.alphabeta));
        pl__bn254_fp12_pow(&e, &e, ffjs_power, 4, v);
        CHECK(pl__bn254_fp12_eq(&e, &vk.alphabeta));
        free(vk.ic);
    }
}

/* r, the smallest public input snarkjs refuses */
static const char *const r_dec = "2188824287183927522224640574525727508854836"
                                 "4400416034343698204186575808495617";

PL_TEST(tampered_proofs_refused)
{
    pl__bn254_arith v = pl__bn254_arith_best();
    for (size_t i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++) {
        vkey vk;
        proof pr, bad;
        size_t n_pub;
        read_vkey(&vk, vectors[i]);
        read_proof(&pr, vectors[i]);
        char **pub = read_public(&n_pub, vectors[i]);
        CHECK(verify(&vk, &pr, pub, n_pub, v));
        pl__bn254_g1 g, t;
        pl__bn254_g1_from_affine(&g, &pl__bn254_g1_generator);
        /* each proof point moved by a generator */
        bad = pr;
        pl__bn254_g1_from_affine(&t, &bad.a);
        pl__bn254_g1_add(&t, &t, &g, v);
        pl__bn254_g1_to_affine(&bad.a, &t, v);
        CHECK(!verify(&vk, &bad, pub, n_pub, v));
        bad = pr;
        pl__bn254_g1_from_affine(&t, &bad.c);
        pl__bn254_g1_add(&t, &t, &g, v);
        pl__bn254_g1_to_affine(&bad.c, &t, v);
        CHECK(!verify(&vk, &bad, pub, n_pub, v));
        bad = pr;
        pl__bn254_g2 h, u;
        pl__bn254_g2_from_affine(&h, &pl__bn254_g2_generator);
        pl__bn254_g2_from_affine(&u, &bad.b);
        pl__bn254_g2_add(&u, &u, &h, v);
        pl__bn254_g2_to_affine(&bad.b, &u, v);
        CHECK(!verify(&vk, &bad, pub, n_pub, v));
        /* A and C swapped; A at infinity */
        bad = pr;
        bad.a = pr.c;
        bad.c = pr.a;
        CHECK(!verify(&vk, &bad, pub, n_pub, v));
        bad = pr;
        memset(&bad.a, 0, sizeof(bad.a));
        CHECK(!verify(&vk, &bad, pub, n_pub, v));
        /* off the curve: y + 1 */
        bad = pr;
        pl__bn254_fp one_std;
        pl__bn254_fp_from_u64(&one_std, 1);
        pl__bn254_fp_add(&bad.a.y, &bad.a.y, &one_std, v);
        CHECK(!pl__bn254_g1_affine_on_curve(&bad.a, v));
        CHECK(!verify(&vk, &bad, pub, n_pub, v));
        /* B on the twist but outside G2: B plus a point of the cofactor's
         * part (test_bn254_curve.c's) */
        static const char *const qh[3][2] = {
            {"152377687440082291485367573531605494588195640169752893678786545"
             "67569688311399",
             "196089663887495299860376061814668142430864204420415160970771117"
             "67958574179040"},
            {"833248693516226715325870600222964395796970287651555627857724739"
             "637812998090",
             "638149502944732071679628629479268571369724505195086109794381593"
             "8550607718173"},
            {"1", "0"}};
        pl__bn254_g2_affine hq;
        CHECK(pl__bn254_g2_from_dec(&hq, qh));
        pl__bn254_g2_from_affine(&u, &pr.b);
        pl__bn254_g2_add_affine(&u, &u, &hq, v);
        bad = pr;
        pl__bn254_g2_to_affine(&bad.b, &u, v);
        CHECK(pl__bn254_g2_affine_on_curve(&bad.b, v));
        CHECK(!verify(&vk, &bad, pub, n_pub, v));
        /* public inputs: each moved by one, one equal to r (refused as
         * snarkjs refuses it, though it is 0 mod r), one missing */
        for (size_t k = 0; k < n_pub; k++) {
            char *keep = pub[k];
            pl__bn254_fr s, one;
            CHECK(pl__bn254_fr_from_dec(&s, keep, strlen(keep)));
            pl__bn254_fr_from_u64(&one, 1);
            pl__bn254_fr_add(&s, &s, &one, v);
            char moved[PL__BN254_DEC_CAP];
            pl__bn254_fr_to_dec(moved, &s);
            pub[k] = moved;
            CHECK(!verify(&vk, &pr, pub, n_pub, v));
            pub[k] = (char *)r_dec;
            CHECK(!verify(&vk, &pr, pub, n_pub, v));
            pub[k] = keep;
        }
        if (n_pub > 0)
            CHECK(!verify(&vk, &pr, pub, n_pub - 1, v));
        CHECK(verify(&vk, &pr, pub, n_pub, v));
        free_public(pub, n_pub);
        free(vk.ic);
    }
}
