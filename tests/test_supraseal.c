/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libproofline_supraseal (supraseal/, include/proofline_supraseal.h) driven
 * as bellperson's supraseal.rs and Curio's cuzk drive SupraSeal C2: through
 * its C ABI only, with assignments laid out as bellperson hands them
 * (scalars in Montgomery form in the caller's own buffers, densities of
 * 64-bit words, shared by every circuit of a call as generate_groth16_proof
 * shares them), for a small circuit of ours built with the circuit
 * builder's assignment mode:
 *  - the SRS: created twice from one path (one read: class params'
 *    allocations do not move, the cache answers), without the cache (the
 *    engine's one open shared), cloned, evicted, dropped; the cache keeps
 *    the last four paths; every byte back when the last reference goes;
 *  - 1, 3 and 10 assignments in one call, r and s random, every proof
 *    verified by our verifier with the .vk, a proof under another's
 *    inputs refused; with r = s = 0, the proofs of pl_c2_prove from the
 *    same assignments in standard form, byte for byte (Proof<Bls12>'s
 *    layout and the Montgomery scalars read right);
 *  - the split form: the caller's a, b, c, densities, input assignments,
 *    r, s and provers array freed (poisoned first) once start returns,
 *    finalize on another thread; an abandoned handle destroyed (its job
 *    cancelled and waited for): the ledger back to zero;
 *  - two workers sharing one GPU mutex, their handles finalized by a
 *    third thread, as cuzk's engine does: every proof valid, the mutex
 *    taken once per start and by one holder at a time;
 *  - gpu_index on the emulation presenting two cards: -1 spreads the
 *    proofs over both, an index keeps them on card index % 2, the proofs
 *    are the CPU's;
 *  - errors as the error struct, never a crash: a bad path, a wrong
 *    assignment size, null and foreign pointers, a bad environment
 *    variable, a budget too small for one proof;
 *  - memory: ten assignments in one call under a budget for two: every
 *    ledger record within the budget, each proof's a, b, c released
 *    (abc_freed) before its G2 sum is joined (prove_done);
 *  - the engine's ledger lines and summary on its log stream.
 * Each case runs in its own process (the library's one engine is made on
 * first use), so each configures it first.
 */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"
#include "proofline_c2.h"
#include "proofline_circuit.h"
#include "proofline_supraseal.h"

#include <blst.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the circuit: t_0 = x; t_i = t_{i-1}^2 + i; y = t_m ------------------ */

#define STEPS 200

typedef struct {
    uint64_t x;
} chain_in;

static void fr_of_u64(blst_fr *out, uint64_t v)
{
    uint64_t l[4] = {v, 0, 0, 0};
    blst_fr_from_uint64(out, l);
}

static void scalar_of_fr(pl_scalar *out, const blst_fr *v)
{
    blst_scalar s;
    blst_scalar_from_fr(&s, v);
    memcpy(out->b, s.b, 32);
}

static pl_status chain(pl_cs *cs, const void *arg, pl_error *err)
{
    const chain_in *in = arg;
    pl_scalar t[STEPS + 1];
    blst_fr v, k;
    fr_of_u64(&v, in->x);
    scalar_of_fr(&t[0], &v);
    for (int i = 1; i <= STEPS; i++) {
        blst_fr_sqr(&v, &v);
        fr_of_u64(&k, (uint64_t)i);
        blst_fr_add(&v, &v, &k);
        scalar_of_fr(&t[i], &v);
    }
    pl_var x, y, prev, cur;
    pl_lc *a = NULL, *b = NULL, *c = NULL;
    pl_status st;
    if ((st = pl_cs_alloc_public(cs, &x, &t[0], err)) ||
        (st = pl_cs_alloc_public(cs, &y, &t[STEPS], err)) ||
        (st = pl_lc_create(cs, &a, err)) || (st = pl_lc_create(cs, &b, err)) ||
        (st = pl_lc_create(cs, &c, err)))
        goto out;
    prev = x;
    for (int i = 1; i <= STEPS && st == PL_OK; i++) {
        if ((st = pl_cs_alloc_private(cs, &cur, &t[i], err)))
            break;
        pl_lc_clear(a), pl_lc_clear(b), pl_lc_clear(c);
        pl_lc_add(a, prev, NULL);
        pl_lc_add(b, prev, NULL);
        pl_lc_add(c, cur, NULL);
        pl_lc_add_i64(c, pl_cs_one(), -i);
        st = pl_cs_enforce(cs, a, b, c, err);
        prev = cur;
    }
    if (st == PL_OK) { /* y = t_m */
        pl_lc_clear(a), pl_lc_clear(b), pl_lc_clear(c);
        pl_lc_add(a, prev, NULL);
        pl_lc_add(b, pl_cs_one(), NULL);
        pl_lc_add(c, y, NULL);
        st = pl_cs_enforce(cs, a, b, c, err);
    }
out:
    pl_lc_destroy(a), pl_lc_destroy(b), pl_lc_destroy(c);
    return st;
}

/* ---- fixtures ------------------------------------------------------------- */

typedef struct {
    char params[512], vk[512];
    size_t np, nw, nc;
    pl_vkey *vkey;
} fixture;

/* The circuit recorded, its bellperson parameters and .vk written under a
 * name of the case's, the verifying key read back. */
static void fixture_open(fixture *f, const char *name)
{
    pl_error err = {0};
    memset(f, 0, sizeof(*f));
    pl_cs *rec;
    chain_in in = {3};
    CHECK_OK(pl_cs_create_recording(&rec, &err), &err);
    CHECK_OK(pl_cs_run(rec, chain, &in, &err), &err);
    f->np = pl_cs_n_public(rec);
    f->nw = pl_cs_n_wires(rec);
    f->nc = pl_cs_n_constraints(rec);
    char r1cs[512], file[128];
    snprintf(file, sizeof(file), "ss_%s.r1cs", name);
    snprintf(r1cs, sizeof(r1cs), "%s", pl_test_tmp(file));
    CHECK_OK(pl_cs_write_r1cs(rec, r1cs, &err), &err);
    pl_cs_destroy(rec);
    snprintf(file, sizeof(file), "ss_%s.params", name);
    snprintf(f->params, sizeof(f->params), "%s", pl_test_tmp(file));
    snprintf(file, sizeof(file), "ss_%s.vk", name);
    snprintf(f->vk, sizeof(f->vk), "%s", pl_test_tmp(file));
    pl_setup_config scfg;
    pl_setup_config_init(&scfg);
    scfg.threads = 2;
    CHECK_OK(pl_setup_dev_bellperson(r1cs, f->params, f->vk, &scfg, &err),
             &err);
    pl_bp_params *v;
    CHECK_OK(pl_bp_params_open(&v, f->vk, &err), &err);
    CHECK_OK(pl_vkey_from_bp_params(&f->vkey, v, &err), &err);
    pl_bp_params_close(v);
}

static void fixture_close(fixture *f)
{
    pl_vkey_destroy(f->vkey);
}

/* The library's engine: the CPU, two threads, a budget (0: the default). */
static void configure(uint64_t budget, pl_event_fn on_event, void *user)
{
    pl_error err = {0};
    pl_supraseal_config cfg;
    pl_supraseal_config_init(&cfg);
    cfg.budget_bytes = budget;
    cfg.backend = "cpu";
    cfg.threads = 2;
    cfg.on_event = on_event;
    cfg.on_event_user = user;
    CHECK_OK(pl_supraseal_configure(&cfg, &err), &err);
}

static void shutdown_clean(void)
{
    pl_error err = {0};
    pl_supraseal_stats st;
    pl_supraseal_stats_read(&st);
    CHECK_EQ(st.pending, 0);
    CHECK_OK(pl_supraseal_shutdown(&err), &err);
    pl_supraseal_stats_read(&st);
    CHECK_EQ(st.engine, 0);
    CHECK_EQ(st.srs_objects, 0);
}

/* An SRS that must be created. */
static pl_supraseal_srs srs_make(const char *path, bool cache)
{
    pl_supraseal_srs s = {(void *)1};
    pl_supraseal_error e = create_SRS(&s, path, cache);
    if (e.code)
        pl_test_fail(__FILE__, __LINE__, "create_SRS(%s): %d %s", path,
                     e.code, e.message);
    CHECK(s.ptr != NULL);
    return s;
}

/* An error struct that must be a failure with code (-1: any) and a
 * message holding what; freed as Rust's Drop frees it. */
static void expect_error(pl_supraseal_error e, int code, const char *what)
{
    if (e.code == 0 || (code >= 0 && e.code != code) || !e.message ||
        !strstr(e.message, what))
        pl_test_fail(__FILE__, __LINE__, "wanted code %d with '%s', got %d "
                     "'%s'", code, what, e.code,
                     e.message ? e.message : "(null)");
    printf("error %d: %s\n", e.code, e.message);
    free(e.message);
}

/* ---- assignments as bellperson holds them --------------------------------- */

typedef struct {
    pl_supraseal_assignment as; /* pointing into the buffers below */
    pl_scalar *abc;             /* a, b, c: Montgomery, one buffer */
    pl_scalar *inp, *aux;       /* Montgomery */
    uint64_t *dens;             /* a_aux, b_inp, b_aux words */
    pl_scalar publics[2];       /* standard form, for the verifier */
    pl_c2_assignment std;       /* the same in standard form (kept when
                                   asked, for pl_c2_prove) */
    pl_cs *cs;
} bp_assignment;

static pl_scalar *mont_copy(const pl_scalar *v, size_t n)
{
    pl_scalar *out = malloc((n ? n : 1) * sizeof(pl_scalar));
    CHECK(out);
    for (size_t i = 0; i < n; i++) {
        blst_scalar s;
        blst_fr fr;
        memcpy(s.b, v[i].b, 32);
        blst_fr_from_scalar(&fr, &s);
        memcpy(out[i].b, &fr, 32); /* little-endian limbs: the host's */
    }
    return out;
}

static size_t words(size_t bits)
{
    return (bits + 63) / 64;
}

/* Synthesized by the circuit in assignment mode, then held in the
 * caller's buffers in blstrs's form.  keep_std: the standard-form
 * assignment (and its cs) kept too. */
static void bp_make(bp_assignment *out, const fixture *f, uint64_t x,
                    bool keep_std)
{
    pl_error err = {0};
    memset(out, 0, sizeof(*out));
    chain_in in = {x};
    CHECK_OK(pl_cs_create_assignment(&out->cs, f->np, f->nw, f->nc, NULL,
                                     &err),
             &err);
    pl_cs_set_check(out->cs, true);
    CHECK_OK(pl_cs_run(out->cs, chain, &in, &err), &err);
    pl_c2_assignment *s = &out->std;
    CHECK_OK(pl_cs_take_assignment(out->cs, s, &err), &err);
    const size_t rows = s->abc_size;
    out->abc = malloc(3 * rows * sizeof(pl_scalar));
    CHECK(out->abc);
    pl_scalar *m = mont_copy(s->a, rows);
    memcpy(out->abc, m, rows * sizeof(pl_scalar));
    free(m);
    m = mont_copy(s->b, rows);
    memcpy(out->abc + rows, m, rows * sizeof(pl_scalar));
    free(m);
    m = mont_copy(s->c, rows);
    memcpy(out->abc + 2 * rows, m, rows * sizeof(pl_scalar));
    free(m);
    out->inp = mont_copy(s->inp_assignment, s->inp_assignment_size);
    out->aux = mont_copy(s->aux_assignment, s->aux_assignment_size);
    const size_t wa = words(s->a_aux_bit_len), wi = words(s->b_inp_bit_len),
                 wb = words(s->b_aux_bit_len);
    out->dens = malloc((wa + wi + wb) * sizeof(uint64_t));
    CHECK(out->dens);
    memcpy(out->dens, s->a_aux_density, wa * 8);
    memcpy(out->dens + wa, s->b_inp_density, wi * 8);
    memcpy(out->dens + wa + wi, s->b_aux_density, wb * 8);
    CHECK_EQ(s->inp_assignment_size, 3); /* ONE, x, y */
    out->publics[0] = s->inp_assignment[1];
    out->publics[1] = s->inp_assignment[2];
    out->as = (pl_supraseal_assignment){
        .a_aux_density = out->dens,
        .a_aux_bit_len = s->a_aux_bit_len,
        .a_aux_popcount = s->a_aux_popcount,
        .b_inp_density = out->dens + wa,
        .b_inp_bit_len = s->b_inp_bit_len,
        .b_inp_popcount = s->b_inp_popcount,
        .b_aux_density = out->dens + wa + wi,
        .b_aux_bit_len = s->b_aux_bit_len,
        .b_aux_popcount = s->b_aux_popcount,
        .a = out->abc,
        .b = out->abc + rows,
        .c = out->abc + 2 * rows,
        .abc_size = rows,
        .inp_assignment = out->inp,
        .inp_assignment_size = s->inp_assignment_size,
        .aux_assignment = out->aux,
        .aux_assignment_size = s->aux_assignment_size,
    };
    if (!keep_std) {
        pl_c2_assignment_release(s);
        pl_cs_destroy(out->cs);
        out->cs = NULL;
    }
}

static void bp_free_abc(bp_assignment *b)
{
    if (b->abc) /* poisoned first: a read after this is visible */
        memset(b->abc, 0xa5, 3 * b->as.abc_size * sizeof(pl_scalar));
    free(b->abc);
    b->abc = NULL;
}

static void bp_free(bp_assignment *b)
{
    bp_free_abc(b);
    free(b->inp);
    free(b->aux);
    free(b->dens);
    if (b->cs) {
        pl_c2_assignment_release(&b->std);
        pl_cs_destroy(b->cs);
    }
    memset(b, 0, sizeof(*b));
}

/* n assignments of distinct inputs; share: every one's densities are the
 * first's, as bellperson's generate_groth16_proof passes them. */
static bp_assignment *bp_make_n(const fixture *f, size_t n, bool share,
                                bool keep_std)
{
    bp_assignment *b = calloc(n, sizeof(*b));
    CHECK(b);
    for (size_t i = 0; i < n; i++) {
        bp_make(&b[i], f, 5 + 7 * i, keep_std);
        if (share && i > 0) {
            b[i].as.a_aux_density = b[0].as.a_aux_density;
            b[i].as.b_inp_density = b[0].as.b_inp_density;
            b[i].as.b_aux_density = b[0].as.b_aux_density;
        }
    }
    return b;
}

static void bp_free_n(bp_assignment *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        bp_free(&b[i]);
    free(b);
}

/* The provers array the crate builds, in a buffer of its own. */
static pl_supraseal_assignment *provers_of(const bp_assignment *b, size_t n)
{
    pl_supraseal_assignment *p = malloc(n * sizeof(*p));
    CHECK(p);
    for (size_t i = 0; i < n; i++)
        p[i] = b[i].as;
    return p;
}

/* Random blinding below r, in Montgomery form (bellperson's Fr::random). */
static void random_mont(uint64_t *state, pl_scalar *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        blst_scalar s;
        pl_test_random_bytes(state, s.b, 32);
        s.b[31] &= 0x3f; /* < 2^254 < r */
        blst_fr fr;
        blst_fr_from_scalar(&fr, &s);
        memcpy(out[i].b, &fr, 32);
    }
}

static void verify_all(const fixture *f, const bp_assignment *b,
                       const pl_proof *proofs, size_t n)
{
    pl_error err = {0};
    for (size_t i = 0; i < n; i++)
        CHECK_OK(pl_verify(f->vkey, &proofs[i], b[i].publics, 2, &err), &err);
    if (n > 1) /* a proof under another's inputs */
        CHECK_STATUS(pl_verify(f->vkey, &proofs[0], b[1].publics, 2, &err),
                     PL_EINVALID, &err);
}

/* ---- the SRS ---------------------------------------------------------------- */

PL_TEST(srs_cached_cloned_evicted_dropped)
{
    fixture f;
    fixture_open(&f, "srs");
    configure(0, NULL, NULL);
    pl_supraseal_stats st0, st;
    pl_supraseal_stats_read(&st0);
    CHECK_EQ(st0.engine, 0);

    pl_supraseal_srs a = srs_make(f.params, true);
    pl_supraseal_stats_read(&st);
    CHECK_EQ(st.engine, 1);
    CHECK_EQ(st.srs_opens, 1);
    CHECK_EQ(st.srs_cached, 1);
    CHECK_EQ(st.srs_objects, 1);
    /* (the fixture holds a verifying key, class params too) */
    const uint64_t loads = st.params_allocs,
                   live = st.params_live_bytes - st0.params_live_bytes;
    CHECK(loads > st0.params_allocs);
    CHECK(live > 0);
    /* the resident reservation: the file and the prover's tables */
    CHECK(st.reserved_bytes >= live);

    /* from the cache: the same SRS, nothing read */
    pl_supraseal_srs b = srs_make(f.params, true);
    CHECK(b.ptr == a.ptr);
    pl_supraseal_stats_read(&st);
    CHECK_EQ(st.srs_opens, 1);
    CHECK_EQ(st.params_allocs, loads);
    CHECK_EQ(st.params_live_bytes - st0.params_live_bytes, live);
    /* without the cache: an SRS of its own over the engine's one open */
    pl_supraseal_srs c = srs_make(f.params, false);
    CHECK(c.ptr != a.ptr);
    pl_supraseal_stats_read(&st);
    CHECK_EQ(st.srs_opens, 2);
    CHECK_EQ(st.srs_objects, 2);
    CHECK_EQ(st.params_allocs, loads);
    CHECK_EQ(st.params_live_bytes - st0.params_live_bytes, live);

    pl_supraseal_srs d = clone_SRS(&a);
    CHECK(d.ptr == a.ptr);
    evict_SRS(&a);
    pl_supraseal_stats_read(&st);
    CHECK_EQ(st.srs_cached, 0);
    CHECK_EQ(st.srs_objects, 2);
    /* a second evict, and a cached create again: opened anew */
    evict_SRS(&a);
    drop_SRS(&b);
    drop_SRS(&d);
    pl_supraseal_stats_read(&st);
    CHECK_EQ(st.srs_objects, 2); /* a's last reference remains */
    drop_SRS(&a);
    pl_supraseal_stats_read(&st);
    CHECK_EQ(st.srs_objects, 1);
    /* c holds the engine's open */
    CHECK_EQ(st.params_live_bytes - st0.params_live_bytes, live);

    /* c proves */
    bp_assignment *bp = bp_make_n(&f, 1, false, false);
    pl_supraseal_assignment *pv = provers_of(bp, 1);
    pl_scalar r, s;
    uint64_t seed = 11;
    random_mont(&seed, &r, 1);
    random_mont(&seed, &s, 1);
    pl_proof proof;
    pl_supraseal_error e =
        generate_groth16_proofs_c(pv, 1, &r, &s, &proof, &c, NULL, -1);
    CHECK_EQ(e.code, 0);
    CHECK(e.message == NULL);
    verify_all(&f, bp, &proof, 1);
    drop_SRS(&c);
    pl_supraseal_stats_read(&st);
    CHECK_EQ(st.srs_objects, 0);
    CHECK_EQ(st.params_live_bytes, st0.params_live_bytes);
    drop_SRS(&c); /* a dropped SRS again: looked up, not read */
    pl_supraseal_srs none = {NULL};
    drop_SRS(&none);
    drop_SRS(NULL);
    free(pv);
    bp_free_n(bp, 1);

    /* the cache keeps the four paths used last */
    char paths[5][600];
    uint8_t *bytes;
    size_t len;
    bytes = pl_test_read_file(f.params, &len);
    pl_supraseal_srs h[5];
    for (int i = 0; i < 5; i++) {
        snprintf(paths[i], sizeof(paths[i]), "%s.%d", f.params, i);
        pl_test_write_file(paths[i], bytes, len);
        h[i] = srs_make(paths[i], true);
        drop_SRS(&h[i]);
    }
    free(bytes);
    pl_supraseal_stats_read(&st);
    CHECK_EQ(st.srs_cached, 4);
    CHECK_EQ(st.srs_objects, 4);
    CHECK_EQ(st.srs_opens, 2 + 5);
    pl_supraseal_srs again = srs_make(paths[4], true); /* cached */
    pl_supraseal_stats_read(&st);
    CHECK_EQ(st.srs_opens, 7);
    drop_SRS(&again);
    again = srs_make(paths[0], true); /* pushed out: opened again */
    pl_supraseal_stats_read(&st);
    CHECK_EQ(st.srs_opens, 8);
    CHECK_EQ(st.srs_cached, 4);
    drop_SRS(&again);
    for (int i = 0; i < 5; i++)
        unlink(paths[i]);
    shutdown_clean(); /* the cache emptied, the engine destroyed */
    fixture_close(&f);
}

/* ---- proving ------------------------------------------------------------------ */

PL_TEST(one_three_ten_in_one_call)
{
    fixture f;
    fixture_open(&f, "n");
    configure(0, NULL, NULL);
    pl_supraseal_srs srs = srs_make(f.params, true);
    const size_t ns[] = {1, 3, 10};
    uint64_t seed = 29;
    for (size_t k = 0; k < 3; k++) {
        const size_t n = ns[k];
        bp_assignment *bp = bp_make_n(&f, n, n == 10, false);
        pl_supraseal_assignment *pv = provers_of(bp, n);
        pl_scalar r[10], s[10];
        pl_proof proofs[10];
        random_mont(&seed, r, n);
        random_mont(&seed, s, n);
        pl_supraseal_error e = generate_groth16_proofs_c(pv, n, r, s, proofs,
                                                         &srs, NULL, -1);
        if (e.code)
            pl_test_fail(__FILE__, __LINE__, "%zu proofs: %s", n, e.message);
        verify_all(&f, bp, proofs, n);
        free(pv);
        bp_free_n(bp, n);
    }
    pl_supraseal_stats st;
    pl_supraseal_stats_read(&st);
    CHECK_EQ(st.proofs, 14);
    CHECK_EQ(st.failed, 0);
    drop_SRS(&srs);
    shutdown_clean();
    fixture_close(&f);
}

/* r = s = 0: the unblinded proofs, which pl_c2_prove makes from the same
 * assignments in standard form; the bytes the crate reads as Proof<Bls12>
 * are proofline's affine points. */
PL_TEST(same_proofs_as_pl_c2_prove)
{
    pl_error err = {0};
    fixture f;
    fixture_open(&f, "same");
    configure(0, NULL, NULL);
    pl_supraseal_srs srs = srs_make(f.params, false);
    bp_assignment *bp = bp_make_n(&f, 3, false, true);
    pl_supraseal_assignment *pv = provers_of(bp, 3);
    pl_scalar zero[3];
    memset(zero, 0, sizeof(zero));
    pl_proof got[3], want[3];
    pl_supraseal_error e =
        generate_groth16_proofs_c(pv, 3, zero, zero, got, &srs, NULL, -1);
    CHECK_EQ(e.code, 0);
    pl_c2_srs *c2;
    CHECK_OK(pl_c2_srs_create(&c2, f.params, false, 2, &err), &err);
    pl_c2_assignment std[3];
    for (int i = 0; i < 3; i++)
        std[i] = bp[i].std;
    pl_c2_config cfg = {.backend = "cpu"};
    CHECK_OK(pl_c2_prove(want, std, 3, zero, zero, c2, &cfg, &err), &err);
    for (int i = 0; i < 3; i++)
        CHECK_MEM(&got[i], &want[i], sizeof(pl_proof));
    verify_all(&f, bp, got, 3);
    pl_c2_srs_destroy(c2);
    free(pv);
    bp_free_n(bp, 3);
    drop_SRS(&srs);
    shutdown_clean();
    fixture_close(&f);
}

/* ---- the split form ----------------------------------------------------------- */

typedef struct {
    void *handle;
    pl_proof proofs[10];
    pl_supraseal_error e;
} finish_arg;

static void *finish_main(void *arg)
{
    finish_arg *a = arg;
    a->e = finalize_groth16_proof_c(a->handle, a->proofs);
    return NULL;
}

PL_TEST(split_finalize_on_another_thread)
{
    fixture f;
    fixture_open(&f, "split");
    configure(0, NULL, NULL);
    pl_supraseal_srs srs = srs_make(f.params, true);
    bp_assignment *bp = bp_make_n(&f, 3, true, false);
    pl_supraseal_assignment *pv = provers_of(bp, 3);
    pl_scalar *r = malloc(3 * sizeof(pl_scalar)), *s = malloc(3 * sizeof(*s));
    CHECK(r && s);
    uint64_t seed = 5;
    random_mont(&seed, r, 3);
    random_mont(&seed, s, 3);
    void *handle = NULL;
    pl_supraseal_error e = generate_groth16_proofs_start_c(pv, 3, r, s, &srs,
                                                           NULL, -1, &handle);
    CHECK_EQ(e.code, 0);
    CHECK(handle != NULL);
    /* what the caller may free once start returns (bellperson's prove_start
     * drops a, b, c; the crate's provers Vec and r_s, s_s go too): all
     * poisoned first; the auxiliary assignments stay */
    for (int i = 0; i < 3; i++)
        bp_free_abc(&bp[i]);
    memset(bp[0].dens, 0xff, 8); /* the shared densities */
    memset(pv, 0xa5, 3 * sizeof(*pv));
    memset(r, 0xa5, 3 * sizeof(*r));
    memset(s, 0xa5, 3 * sizeof(*s));
    free(pv);
    free(r);
    free(s);
    for (int i = 0; i < 3; i++) {
        memset(bp[i].inp, 0xa5, 3 * sizeof(pl_scalar));
        free(bp[i].inp);
        bp[i].inp = NULL;
    }
    finish_arg fa = {.handle = handle};
    pthread_t t;
    CHECK_EQ(pthread_create(&t, NULL, finish_main, &fa), 0);
    CHECK_EQ(pthread_join(t, NULL), 0);
    if (fa.e.code)
        pl_test_fail(__FILE__, __LINE__, "finalize: %s", fa.e.message);
    verify_all(&f, bp, fa.proofs, 3);
    /* a handle is consumed by finalize */
    expect_error(finalize_groth16_proof_c(handle, fa.proofs), PL_EUSAGE,
                 "not a pending proof");
    destroy_pending_proof(handle); /* a no-op now */
    bp_free_n(bp, 3);
    drop_SRS(&srs);
    shutdown_clean();
    fixture_close(&f);
}

PL_TEST(destroy_abandoned_pending)
{
    fixture f;
    fixture_open(&f, "abandon");
    configure(0, NULL, NULL);
    uint64_t before, hw;
    pl_alloc_total(&before, &hw); /* the fixture's verifying key */
    pl_supraseal_srs srs = srs_make(f.params, true);
    bp_assignment *bp = bp_make_n(&f, 10, true, false);
    pl_supraseal_assignment *pv = provers_of(bp, 10);
    pl_scalar r[10], s[10];
    uint64_t seed = 3;
    random_mont(&seed, r, 10);
    random_mont(&seed, s, 10);
    for (int round = 0; round < 2; round++) {
        void *handle = NULL;
        pl_supraseal_error e = generate_groth16_proofs_start_c(
            pv, 10, r, s, &srs, NULL, -1, &handle);
        CHECK_EQ(e.code, 0);
        pl_supraseal_stats st;
        pl_supraseal_stats_read(&st);
        CHECK_EQ(st.pending, 1);
        destroy_pending_proof(handle);
        pl_supraseal_stats_read(&st);
        CHECK_EQ(st.pending, 0);
    }
    drop_SRS(&srs);
    evict_SRS(&srs); /* dropped: the cache's reference goes too */
    pl_supraseal_stats st;
    pl_supraseal_stats_read(&st);
    CHECK_EQ(st.srs_objects, 0);
    /* no leak: nothing reserved, nothing accounted, on a live engine */
    CHECK_EQ(st.engine, 1);
    CHECK_EQ(st.reserved_bytes, 0);
    CHECK_EQ(st.tracked_bytes, before);
    free(pv);
    bp_free_n(bp, 10);
    shutdown_clean();
    fixture_close(&f);
}

/* ---- the GPU mutex ---------------------------------------------------------- */

/* cuzk's engine: GPU workers share their device's mutex and start proofs;
 * their pending handles go to a finalizer thread. */
#define WORKERS 2
#define ROUNDS 3

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    void *handles[WORKERS * ROUNDS];
    size_t pushed, finalized;
    pl_proof proofs[WORKERS * ROUNDS][2];
    size_t owner[WORKERS * ROUNDS];
    int errors;
} gpu_queue;

typedef struct {
    gpu_queue *q;
    void *mtx;
    pl_supraseal_srs srs;
    bp_assignment *bp;
    int index;
} gpu_worker;

static void *worker_main(void *arg)
{
    gpu_worker *w = arg;
    uint64_t seed = 100 + (uint64_t)w->index;
    for (int round = 0; round < ROUNDS; round++) {
        pl_supraseal_assignment pv[2] = {w->bp[0].as, w->bp[1].as};
        pl_scalar r[2], s[2];
        random_mont(&seed, r, 2);
        random_mont(&seed, s, 2);
        void *h = NULL;
        pl_supraseal_error e = generate_groth16_proofs_start_c(
            pv, 2, r, s, &w->srs, w->mtx, w->index, &h);
        pthread_mutex_lock(&w->q->lock);
        if (e.code) {
            fprintf(stderr, "worker %d: %s\n", w->index, e.message);
            w->q->errors++;
            free(e.message);
        } else {
            w->q->owner[w->q->pushed] = (size_t)w->index;
            w->q->handles[w->q->pushed++] = h;
            pthread_cond_broadcast(&w->q->cond);
        }
        pthread_mutex_unlock(&w->q->lock);
    }
    return NULL;
}

static void *finalizer_main(void *arg)
{
    gpu_queue *q = arg;
    pthread_mutex_lock(&q->lock);
    while (q->finalized + (size_t)q->errors < WORKERS * ROUNDS) {
        while (q->finalized == q->pushed &&
               q->finalized + (size_t)q->errors < WORKERS * ROUNDS)
            pthread_cond_wait(&q->cond, &q->lock);
        if (q->finalized == q->pushed)
            break;
        size_t i = q->finalized;
        void *h = q->handles[i];
        pthread_mutex_unlock(&q->lock);
        pl_supraseal_error e = finalize_groth16_proof_c(h, q->proofs[i]);
        pthread_mutex_lock(&q->lock);
        if (e.code) {
            fprintf(stderr, "finalize %zu: %s\n", i, e.message);
            q->errors++;
            free(e.message);
        }
        q->finalized++;
    }
    pthread_mutex_unlock(&q->lock);
    return NULL;
}

PL_TEST(two_workers_share_one_gpu_mutex)
{
    fixture f;
    fixture_open(&f, "mutex");
    configure(0, NULL, NULL);
    pl_supraseal_srs srs = srs_make(f.params, true);
    void *mtx = create_gpu_mutex();
    CHECK(mtx != NULL);
    gpu_queue q = {.lock = PTHREAD_MUTEX_INITIALIZER,
                   .cond = PTHREAD_COND_INITIALIZER};
    gpu_worker w[WORKERS];
    pthread_t t[WORKERS], fin;
    for (int i = 0; i < WORKERS; i++) {
        w[i] = (gpu_worker){&q, mtx, clone_SRS(&srs), NULL, i};
        CHECK(w[i].srs.ptr == srs.ptr);
        w[i].bp = bp_make_n(&f, 2, false, false);
    }
    CHECK_EQ(pthread_create(&fin, NULL, finalizer_main, &q), 0);
    for (int i = 0; i < WORKERS; i++)
        CHECK_EQ(pthread_create(&t[i], NULL, worker_main, &w[i]), 0);
    for (int i = 0; i < WORKERS; i++)
        CHECK_EQ(pthread_join(t[i], NULL), 0);
    CHECK_EQ(pthread_join(fin, NULL), 0);
    CHECK_EQ(q.errors, 0);
    CHECK_EQ(q.finalized, WORKERS * ROUNDS);
    for (size_t i = 0; i < WORKERS * ROUNDS; i++)
        verify_all(&f, w[q.owner[i]].bp, q.proofs[i], 2);
    uint64_t acquired, waited, holders;
    pl_supraseal_gpu_mutex_stats(mtx, &acquired, &waited, &holders);
    CHECK_EQ(acquired, WORKERS * ROUNDS);
    CHECK_EQ(holders, 1);
    printf("gpu mutex: taken %" PRIu64 " times, %" PRIu64 " after a wait\n",
           acquired, waited);
    destroy_gpu_mutex(mtx);
    destroy_gpu_mutex(NULL);
    /* freed: no longer a mutex of the library */
    pl_supraseal_gpu_mutex_stats(mtx, &acquired, NULL, NULL);
    CHECK_EQ(acquired, 0);
    for (int i = 0; i < WORKERS; i++) {
        drop_SRS(&w[i].srs);
        bp_free_n(w[i].bp, 2);
    }
    drop_SRS(&srs);
    shutdown_clean();
    fixture_close(&f);
}

/* ---- gpu_index ------------------------------------------------------------------ */

/* On the emulation presenting two cards: -1 spreads a call's proofs over
 * both, an index limits them to card index % 2; the proofs (r = s = 0)
 * are the CPU's. */
PL_TEST(gpu_index_picks_a_device_emulated)
{
    pl_error err = {0};
    setenv("PL_GPU_EMULATED_DEVICES", "2", 1);
    fixture f;
    fixture_open(&f, "devices");
    pl_supraseal_config cfg;
    pl_supraseal_config_init(&cfg);
    cfg.backend = "cuda-emulated";
    cfg.threads = 2;
    CHECK_OK(pl_supraseal_configure(&cfg, &err), &err);
    pl_supraseal_srs srs = srs_make(f.params, true);
    pl_supraseal_stats st;
    pl_supraseal_stats_read(&st);
    CHECK_EQ(st.devices, 2);

    bp_assignment *bp = bp_make_n(&f, 10, true, true);
    pl_supraseal_assignment *pv = provers_of(bp, 10);
    pl_scalar zero[10];
    memset(zero, 0, sizeof(zero));
    pl_proof want[10], got[10];
    pl_c2_srs *c2;
    CHECK_OK(pl_c2_srs_create(&c2, f.params, false, 2, &err), &err);
    pl_c2_assignment std[10];
    for (int i = 0; i < 10; i++)
        std[i] = bp[i].std;
    pl_c2_config cpu = {.backend = "cpu"};
    CHECK_OK(pl_c2_prove(want, std, 10, zero, zero, c2, &cpu, &err), &err);
    pl_c2_srs_destroy(c2);

    const struct {
        int gpu_index, device; /* -1: both */
    } cases[] = {{-1, -1}, {1, 1}, {0, 0}, {3, 1}};
    pl_engine_stats before, after;
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        pl_engine_stats_read(pl_supraseal_engine(), &before);
        pl_supraseal_error e = generate_groth16_proofs_c(
            pv, 10, zero, zero, got, &srs, NULL, cases[k].gpu_index);
        if (e.code)
            pl_test_fail(__FILE__, __LINE__, "gpu_index %d: %s",
                         cases[k].gpu_index, e.message);
        for (int i = 0; i < 10; i++)
            CHECK_MEM(&got[i], &want[i], sizeof(pl_proof));
        pl_engine_stats_read(pl_supraseal_engine(), &after);
        const uint64_t d0 = after.device_starts[0] - before.device_starts[0],
                       d1 = after.device_starts[1] - before.device_starts[1];
        printf("gpu_index %d: card 0 started %" PRIu64 ", card 1 %" PRIu64
               "\n", cases[k].gpu_index, d0, d1);
        CHECK_EQ(d0 + d1, 10);
        if (cases[k].device < 0) {
            CHECK(d0 > 0);
            CHECK(d1 > 0);
        } else {
            CHECK_EQ(cases[k].device == 0 ? d0 : d1, 10);
        }
    }
    verify_all(&f, bp, got, 10);
    free(pv);
    bp_free_n(bp, 10);
    drop_SRS(&srs);
    shutdown_clean();
    fixture_close(&f);
}

/* ---- errors ---------------------------------------------------------------------- */

PL_TEST(errors_as_the_error_struct)
{
    pl_error err = {0};
    fixture f;
    fixture_open(&f, "errors");
    configure(0, NULL, NULL);
    pl_supraseal_srs srs = {(void *)1};
    expect_error(create_SRS(&srs, pl_test_tmp("ss_no_such.params"), true),
                 PL_EIO, "ss_no_such.params");
    CHECK(srs.ptr == NULL);
    drop_SRS(&srs); /* what Rust's Err path does with the default SRS */
    expect_error(create_SRS(NULL, f.params, true), PL_EUSAGE, "ret is NULL");
    expect_error(create_SRS(&srs, NULL, true), PL_EUSAGE, "path");
    /* not a parameter file: the engine's reader names it */
    expect_error(create_SRS(&srs, f.vk, false), -1, "ss_errors.vk");

    srs = srs_make(f.params, true);
    bp_assignment *bp = bp_make_n(&f, 2, false, false);
    pl_supraseal_assignment pv[2] = {bp[0].as, bp[1].as};
    pl_scalar r[2], s[2];
    uint64_t seed = 1;
    random_mont(&seed, r, 2);
    random_mont(&seed, s, 2);
    pl_proof proofs[2];
    memset(proofs, 0x5a, sizeof(proofs));
    pl_proof untouched[2];
    memcpy(untouched, proofs, sizeof(proofs));

    /* a wrong assignment size: more rows than the domain, an auxiliary
     * assignment one short */
    pl_supraseal_assignment bad[2] = {pv[0], pv[1]};
    bad[1].abc_size = 1u << 20;
    expect_error(generate_groth16_proofs_c(bad, 2, r, s, proofs, &srs, NULL,
                                           -1),
                 PL_EFORMAT, "abc_size");
    bad[1] = pv[1];
    bad[0].aux_assignment_size--;
    expect_error(generate_groth16_proofs_c(bad, 2, r, s, proofs, &srs, NULL,
                                           -1),
                 PL_EFORMAT, "aux");
    void *h = (void *)1;
    expect_error(generate_groth16_proofs_start_c(bad, 2, r, s, &srs, NULL, -1,
                                                 &h),
                 PL_EFORMAT, "aux");
    CHECK(h == NULL);
    CHECK_MEM(proofs, untouched, sizeof(proofs));
    /* a blinding value not below r */
    pl_scalar big[2] = {r[0], r[1]};
    memset(big[1].b, 0xff, 32);
    expect_error(generate_groth16_proofs_c(pv, 2, big, s, proofs, &srs, NULL,
                                           -1),
                 PL_EFORMAT, "");

    /* null and foreign pointers */
    pl_supraseal_srs none = {NULL}, foreign = {&none};
    expect_error(generate_groth16_proofs_c(pv, 2, r, s, proofs, NULL, NULL,
                                           -1),
                 PL_EUSAGE, "SRS is NULL");
    expect_error(generate_groth16_proofs_c(pv, 2, r, s, proofs, &none, NULL,
                                           -1),
                 PL_EUSAGE, "empty");
    expect_error(generate_groth16_proofs_c(pv, 2, r, s, proofs, &foreign,
                                           NULL, -1),
                 PL_EUSAGE, "not a live SRS");
    expect_error(generate_groth16_proofs_c(NULL, 2, r, s, proofs, &srs, NULL,
                                           -1),
                 PL_EUSAGE, "provers is NULL");
    expect_error(generate_groth16_proofs_c(pv, 2, NULL, s, proofs, &srs, NULL,
                                           -1),
                 PL_EUSAGE, "r_s is NULL");
    expect_error(generate_groth16_proofs_c(pv, 2, r, s, NULL, &srs, NULL, -1),
                 PL_EUSAGE, "proofs is NULL");
    expect_error(generate_groth16_proofs_c(pv, 2, r, s, proofs, &srs, &none,
                                           -1),
                 PL_EUSAGE, "not a mutex");
    expect_error(generate_groth16_proofs_start_c(pv, 2, r, s, &srs, NULL, -1,
                                                 NULL),
                 PL_EUSAGE, "pending_out is NULL");
    expect_error(finalize_groth16_proof_c(NULL, proofs), PL_EUSAGE,
                 "not a pending proof");
    expect_error(finalize_groth16_proof_c(&none, proofs), PL_EUSAGE,
                 "not a pending proof");
    destroy_pending_proof(NULL);
    destroy_pending_proof(&none);
    destroy_gpu_mutex(&none);
    pl_supraseal_srs cl = clone_SRS(&foreign);
    CHECK(cl.ptr == NULL);
    evict_SRS(&foreign);
    evict_SRS(NULL);
    /* finalize without room: the job cancelled, the handle consumed */
    CHECK_EQ(generate_groth16_proofs_start_c(pv, 2, r, s, &srs, NULL, -1, &h)
                 .code,
             0);
    expect_error(finalize_groth16_proof_c(h, NULL), PL_EUSAGE,
                 "proofs is NULL");
    /* no circuits: nothing to do */
    CHECK_EQ(generate_groth16_proofs_c(pv, 0, r, s, proofs, &srs, NULL, -1)
                 .code,
             0);
    /* the engine exists: no configuring now */
    pl_supraseal_config cfg;
    pl_supraseal_config_init(&cfg);
    CHECK_STATUS(pl_supraseal_configure(&cfg, &err), PL_EUSAGE, &err);
    /* shutdown refused while an SRS lives */
    CHECK_STATUS(pl_supraseal_shutdown(&err), PL_EUSAGE, &err);
    CHECK(strstr(err.msg, "1 SRS"));

    /* after all that, the SRS still proves */
    pl_supraseal_error e =
        generate_groth16_proofs_c(pv, 2, r, s, proofs, &srs, NULL, 1);
    CHECK_EQ(e.code, 0);
    verify_all(&f, bp, proofs, 2);
    pl_supraseal_stats st;
    pl_supraseal_stats_read(&st);
    CHECK_EQ(st.pending, 0);
    bp_free_n(bp, 2);
    drop_SRS(&srs);
    shutdown_clean();
    fixture_close(&f);
}

PL_TEST(bad_environment_refused)
{
    fixture f;
    fixture_open(&f, "env");
    setenv("PROOFLINE_SUPRASEAL_BUDGET", "lots", 1);
    pl_supraseal_srs srs;
    expect_error(create_SRS(&srs, f.params, true), PL_EUSAGE,
                 "PROOFLINE_SUPRASEAL_BUDGET");
    setenv("PROOFLINE_SUPRASEAL_BUDGET", "1GiB", 1);
    setenv("PROOFLINE_SUPRASEAL_LOG", "loud", 1);
    expect_error(create_SRS(&srs, f.params, true), PL_EUSAGE,
                 "PROOFLINE_SUPRASEAL_LOG");
    setenv("PROOFLINE_SUPRASEAL_LOG", "quiet", 1);
    setenv("PROOFLINE_SUPRASEAL_BATCH", "many", 1);
    expect_error(create_SRS(&srs, f.params, true), PL_EUSAGE,
                 "PROOFLINE_SUPRASEAL_BATCH");
    setenv("PROOFLINE_SUPRASEAL_BATCH", "2", 1);
    setenv("PROOFLINE_SUPRASEAL_BACKEND", "cpu", 1);
    srs = srs_make(f.params, true);
    pl_supraseal_stats st;
    pl_supraseal_stats_read(&st);
    CHECK_EQ(st.budget_bytes, 1ull << 30);
    drop_SRS(&srs);
    shutdown_clean();
    fixture_close(&f);
}

/* ---- memory ---------------------------------------------------------------------- */

typedef struct {
    pthread_mutex_t lock;
    uint64_t budget;
    int order;
    int abc_freed[10], prove_done[10], dealloc[10], admitted;
    uint64_t max_reserved, over;
} seen;

static void on_event(void *user, const pl_ledger_record *rec)
{
    seen *l = user;
    pthread_mutex_lock(&l->lock);
    int order = ++l->order;
    if (rec->reserved_bytes > l->max_reserved)
        l->max_reserved = rec->reserved_bytes;
    if (rec->reserved_bytes > rec->budget_bytes ||
        rec->budget_bytes != l->budget)
        l->over++;
    if (rec->partition < 10) {
        switch (rec->event) {
        case PL_EV_ADMITTED:
            l->admitted++;
            break;
        case PL_EV_ABC_FREED:
            l->abc_freed[rec->partition] = order;
            break;
        case PL_EV_PROVE_DONE:
            l->prove_done[rec->partition] = order;
            break;
        case PL_EV_DEALLOC_DONE:
            l->dealloc[rec->partition] = order;
            break;
        default:
            break;
        }
    }
    pthread_mutex_unlock(&l->lock);
}

/* What the library's engine reserves for the SRS (resident) and for one
 * proof of it, measured on an engine of our own (the same backend and
 * threads): the plan's bytes and the borrowed a, b, c. */
static void sizes(const fixture *f, uint64_t *resident, uint64_t *per_proof)
{
    pl_error err = {0};
    pl_engine_config ec;
    pl_engine_config_init(&ec);
    ec.budget_bytes = 1ull << 32;
    ec.backend = "cpu";
    ec.threads = 2;
    pl_engine *e;
    pl_circuit *c;
    CHECK_OK(pl_engine_create(&e, &ec, &err), &err);
    CHECK_OK(pl_engine_open_c2_params(e, &c, f->params, false, &err), &err);
    uint64_t part;
    pl_circuit_plan(c, 0, &part, resident);
    pl_engine_stats es;
    pl_engine_stats_read(e, &es);
    *resident = es.reserved_bytes; /* the file, its key, the tables */
    pl_bp_params *p;
    CHECK_OK(pl_bp_params_open(&p, f->params, &err), &err);
    pl_bp_info info;
    pl_bp_params_get_info(p, &info);
    pl_bp_params_close(p);
    const uint64_t rows = f->nc + f->np + 1; /* with the input constraints */
    CHECK(rows <= (uint64_t)info.n_h + 1);
    *per_proof = part + 3 * 32 * rows;
    pl_circuit_release(c);
    CHECK_OK(pl_engine_destroy(e, &err), &err);
}

/* Ten in one call under a budget for two, proved one at a time or (batch
 * > 1, through PROOFLINE_SUPRASEAL_BATCH) in batches of the ready ones:
 * the same rules either way. */
static void ten_under_a_budget_for_two_batched(const char *batch)
{
    fixture f;
    fixture_open(&f, "budget");
    if (batch)
        setenv("PROOFLINE_SUPRASEAL_BATCH", batch, 1);
    uint64_t resident, per;
    sizes(&f, &resident, &per);
    seen l = {.lock = PTHREAD_MUTEX_INITIALIZER};
    l.budget = resident + 2 * per + per / 2; /* room for two, not three */
    configure(l.budget, on_event, &l);
    pl_supraseal_srs srs = srs_make(f.params, true);
    bp_assignment *bp = bp_make_n(&f, 10, true, false);
    pl_supraseal_assignment *pv = provers_of(bp, 10);
    pl_scalar r[10], s[10];
    pl_proof proofs[10];
    uint64_t seed = 77;
    random_mont(&seed, r, 10);
    random_mont(&seed, s, 10);
    void *h = NULL;
    pl_supraseal_error e =
        generate_groth16_proofs_start_c(pv, 10, r, s, &srs, NULL, -1, &h);
    if (e.code)
        pl_test_fail(__FILE__, __LINE__, "start: %s", e.message);
    /* start returned: every a, b, c read; the caller drops them */
    for (int i = 0; i < 10; i++)
        bp_free_abc(&bp[i]);
    e = finalize_groth16_proof_c(h, proofs);
    if (e.code)
        pl_test_fail(__FILE__, __LINE__, "finalize: %s", e.message);
    verify_all(&f, bp, proofs, 10);
    pl_supraseal_stats st;
    pl_supraseal_stats_read(&st);
    pthread_mutex_lock(&l.lock);
    CHECK_EQ(l.over, 0);
    CHECK(l.max_reserved <= l.budget);
    CHECK(st.peak_reserved_bytes <= l.budget);
    /* more than one proof's bytes at once: the pipeline overlapped */
    CHECK(st.peak_reserved_bytes > resident + per);
    CHECK_EQ(l.admitted, 10);
    for (int i = 0; i < 10; i++) {
        CHECK(l.abc_freed[i] > 0);
        CHECK(l.abc_freed[i] < l.prove_done[i]);
        CHECK(l.prove_done[i] < l.dealloc[i]);
    }
    pthread_mutex_unlock(&l.lock);
    printf("budget %" PRIu64 " (resident %" PRIu64 ", a proof %" PRIu64
           "), peak reserved %" PRIu64 "\n", l.budget, resident, per,
           st.peak_reserved_bytes);
    free(pv);
    bp_free_n(bp, 10);
    drop_SRS(&srs);
    shutdown_clean();
    fixture_close(&f);
}

PL_TEST(ten_under_a_budget_for_two)
{
    ten_under_a_budget_for_two_batched(NULL);
}

PL_TEST(ten_in_batches_under_a_budget_for_two)
{
    ten_under_a_budget_for_two_batched("10");
}

PL_TEST(budget_too_small_for_one_refused)
{
    fixture f;
    fixture_open(&f, "small");
    uint64_t resident, per;
    sizes(&f, &resident, &per);
    configure(resident + per - 1, NULL, NULL);
    pl_supraseal_srs srs = srs_make(f.params, true);
    bp_assignment *bp = bp_make_n(&f, 2, true, false);
    pl_supraseal_assignment pv[2] = {bp[0].as, bp[1].as};
    pl_scalar r[2], s[2];
    pl_proof proofs[2];
    uint64_t seed = 8;
    random_mont(&seed, r, 2);
    random_mont(&seed, s, 2);
    expect_error(generate_groth16_proofs_c(pv, 2, r, s, proofs, &srs, NULL,
                                           -1),
                 PL_EBUDGET, "budget");
    pl_supraseal_stats st;
    pl_supraseal_stats_read(&st);
    CHECK_EQ(st.reserved_bytes, resident); /* the SRS alone */
    CHECK_EQ(st.pending, 0);
    bp_free_n(bp, 2);
    drop_SRS(&srs);
    shutdown_clean();
    fixture_close(&f);
}

/* ---- the ledger's lines --------------------------------------------------------- */

PL_TEST(ledger_lines_and_summary)
{
    fixture f;
    fixture_open(&f, "log");
    char path[600];
    snprintf(path, sizeof(path), "%s", pl_test_tmp("ss_log.txt"));
    FILE *log = fopen(path, "w+");
    CHECK(log);
    pl_error err = {0};
    pl_supraseal_config cfg;
    pl_supraseal_config_init(&cfg);
    cfg.backend = "cpu";
    cfg.threads = 2;
    cfg.log_level = PL_LOG_INFO;
    cfg.log_stream = log;
    CHECK_OK(pl_supraseal_configure(&cfg, &err), &err);
    pl_supraseal_srs srs = srs_make(f.params, true);
    bp_assignment *bp = bp_make_n(&f, 1, false, false);
    pl_scalar r, s;
    uint64_t seed = 2;
    random_mont(&seed, &r, 1);
    random_mont(&seed, &s, 1);
    pl_proof proof;
    CHECK_EQ(generate_groth16_proofs_c(&bp[0].as, 1, &r, &s, &proof, &srs,
                                       NULL, -1)
                 .code,
             0);
    drop_SRS(&srs);
    fixture_close(&f); /* its key too: the summary sees every buffer */
    shutdown_clean();
    fflush(log);
    size_t len;
    char *text = (char *)pl_test_read_file(path, &len);
    fclose(log);
    const char *want[] = {"supraseal: engine made", "supraseal: SRS ",
                          "supraseal: job ", "abc_freed", "dealloc_done",
                          "ledger balanced"};
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
        if (!strstr(text, want[i]))
            pl_test_fail(__FILE__, __LINE__, "the log lacks '%s':\n%s",
                         want[i], text);
    free(text);
    unlink(path);
    bp_free_n(bp, 1);
}
