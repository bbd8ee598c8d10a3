/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fuzz target: the SupraSeal library's argument checks
 * (libproofline_supraseal, include/proofline_supraseal.h), the C ABI that
 * bellperson and cuzk call with whatever their Rust side holds.  The
 * library's engine is configured once (the CPU, one thread, 256 MiB) and
 * one SRS made from corpus/bp_params/multiplier.params, a circuit of a
 * few constraints, so that an accepted call proves in milliseconds.
 *
 * The input's first byte chooses the call:
 *  - create_SRS on a parameter file of the input's bytes (the rest of the
 *    input), on a path that does not exist, on "" or NULL, with ret NULL,
 *    cached or not; then clone, evict and drop;
 *  - generate_groth16_proofs_c (one call) or _start_c then
 *    finalize_groth16_proof_c or destroy_pending_proof (the split), with
 *    0 to 3 assignments of c2_input.c (lengths, densities, popcounts,
 *    scalars: the SRS's own, near, far off, NULL), provers, r_s, s_s or
 *    proofs NULL, an SRS that is live, NULL, empty, dropped or foreign, a
 *    GPU mutex that is real, NULL or foreign, and any gpu_index.
 *
 * Properties: no call aborts (the header's promise; the sanitizers see a
 * crash, a read past a buffer, a leak); every error has a message, which
 * the caller frees, and a code that is a refusal of the caller's
 * arguments (PL_EUSAGE, PL_EFORMAT, PL_EIO, PL_EUNSUPPORTED; PL_EINVALID
 * or PL_EUNSAT for a proof of assignments that satisfy nothing, as the
 * fuzzed ones mostly do)
 * -- never PL_EINTERNAL, never a budget; a call that succeeds had a live
 * SRS, a mutex of create_gpu_mutex or none, room for its proofs, and
 * assignments that meet every rule of the checks (c2_input.h), with its
 * proofs written; create_SRS fails with ret { NULL }; and after every
 * input, no proof is pending and only the target's own SRS lives (the
 * references all given back).  At exit pl_supraseal_shutdown must find
 * nothing left.
 */
#include "fuzz.h"
#include "c2_input.h"
#include "proofline_supraseal.h"

#include <unistd.h>

#define PARAMS PL_FUZZ_SRC "/corpus/bp_params/multiplier.params"

static struct {
    bool ready;
    pl_supraseal_srs srs;
    pl_bp_info shape;
    void *mutex;
} S;

static void shutdown_all(void)
{
    drop_SRS(&S.srs);
    destroy_gpu_mutex(S.mutex);
    pl_error err = {0};
    PL_FUZZ_ASSERT(pl_supraseal_shutdown(&err) == PL_OK, "shutdown: %s",
                   err.msg);
}

static void setup(void)
{
    pl_error err = {0};
    pl_supraseal_config cfg;
    pl_supraseal_config_init(&cfg);
    cfg.backend = "cpu";
    cfg.threads = 1;
    cfg.budget_bytes = 256u << 20;
    PL_FUZZ_ASSERT(pl_supraseal_configure(&cfg, &err) == PL_OK, "%s",
                   err.msg);
    pl_bp_params *p = NULL;
    PL_FUZZ_ASSERT(pl_bp_params_open(&p, PARAMS, &err) == PL_OK, "%s",
                   err.msg);
    pl_bp_params_get_info(p, &S.shape);
    pl_bp_params_close(p);
    pl_supraseal_error e = create_SRS(&S.srs, PARAMS, false);
    PL_FUZZ_ASSERT(e.code == 0 && S.srs.ptr, "create_SRS %s: %s", PARAMS,
                   e.message ? e.message : "");
    S.mutex = create_gpu_mutex();
    PL_FUZZ_ASSERT(S.mutex != NULL, "create_gpu_mutex");
    S.ready = true;
    atexit(shutdown_all);
}

/* An error as the caller receives it: a message, a refusal's code; freed
 * as Rust's Drop does.  Returns whether it was a success. */
static bool outcome(pl_supraseal_error e, const char *call)
{
    if (e.code == 0) {
        PL_FUZZ_ASSERT(e.message == NULL, "%s: success with a message: %s",
                       call, e.message);
        return true;
    }
    PL_FUZZ_ASSERT(e.message != NULL, "%s: error %d without a message", call,
                   e.code);
    PL_FUZZ_ASSERT(e.code == PL_EUSAGE || e.code == PL_EFORMAT ||
                       e.code == PL_EIO || e.code == PL_EUNSUPPORTED ||
                       e.code == PL_EINVALID || e.code == PL_EUNSAT,
                   "%s: %s for the caller's arguments: %s", call,
                   pl_strerror((pl_status)e.code), e.message);
    free(e.message);
    return false;
}

static void fuzz_srs(pl_fuzz_reader *r)
{
    uint8_t how = pl_fuzz_take(r);
    bool cache = how & 1;
    const char *path;
    switch ((how >> 1) & 7) {
    case 0:
        path = NULL;
        break;
    case 1:
        path = "";
        break;
    case 2:
        path = PL_FUZZ_SRC "/corpus/bp_params/no-such.params";
        break;
    case 3: { /* ret NULL */
        pl_supraseal_error e = create_SRS(NULL, PARAMS, cache);
        PL_FUZZ_ASSERT(!outcome(e, "create_SRS(NULL)"), "ret NULL taken");
        return;
    }
    default:
        path = pl_fuzz_file(r->p, (size_t)(r->end - r->p));
        break;
    }
    pl_supraseal_srs h = {(const void *)&h}; /* overwritten */
    bool made = outcome(create_SRS(&h, path, cache), "create_SRS");
    if (!made) {
        PL_FUZZ_ASSERT(h.ptr == NULL, "a failed create_SRS left ret %p",
                       h.ptr);
        return;
    }
    PL_FUZZ_ASSERT(h.ptr != NULL, "create_SRS: success, no SRS");
    pl_supraseal_srs c = clone_SRS(&h);
    PL_FUZZ_ASSERT(c.ptr == h.ptr, "clone_SRS: %p of %p", c.ptr, h.ptr);
    if (cache)
        evict_SRS(&h); /* the same path is rewritten by the next input */
    drop_SRS(&c);
    drop_SRS(&h);
}

static void fuzz_prove(pl_fuzz_reader *r, uint8_t how)
{
    uint8_t nulls = pl_fuzz_take(r); /* provers, r_s, s_s, proofs */
    uint8_t which = pl_fuzz_take(r);
    int gpu_index = (int8_t)pl_fuzz_take(r);
    size_t n = pl_fuzz_take(r) % 4;
    pl_fuzz_c2 as[3];
    pl_c2_assignment list[3];
    pl_scalar rs[3], ss[3];
    pl_proof proofs[3];
    bool fine = true;
    for (size_t k = 0; k < n; k++) {
        bool ok;
        pl_fuzz_c2_build(&as[k], r, &S.shape, &ok);
        list[k] = as[k].as;
        fine &= ok;
    }
    for (size_t k = 0; k < n; k++) {
        rs[k] = pl_fuzz_c2_blind(r, &fine);
        ss[k] = pl_fuzz_c2_blind(r, &fine);
    }
    memset(proofs, 0, sizeof(proofs));
    const pl_supraseal_assignment *pv = nulls & 1 ? NULL : list;
    const pl_scalar *pr = nulls & 2 ? NULL : rs, *ps = nulls & 4 ? NULL : ss;
    pl_proof *pp = nulls & 8 ? NULL : proofs;
    fine &= !n || (pv && pr && ps && pp);

    /* the SRS: live, none, empty, dropped (a freed one's address), or a
     * pointer that is no SRS */
    pl_supraseal_srs srs = S.srs, dead = {0}, *ps_srs = &srs;
    int x = 0;
    switch (which & 7) {
    case 4:
        ps_srs = NULL;
        break;
    case 5:
        srs.ptr = NULL;
        break;
    case 6: {
        pl_supraseal_srs c = {0};
        if (outcome(create_SRS(&c, PARAMS, false), "create_SRS")) {
            dead = c;
            drop_SRS(&c);
        }
        srs = dead;
        break;
    }
    case 7:
        srs.ptr = &x;
        break;
    default:
        break;
    }
    fine &= (which & 7) < 4;
    void *mtx = NULL;
    switch ((which >> 3) & 3) {
    case 1:
        mtx = S.mutex;
        break;
    case 2:
        mtx = &x; /* not a mutex of the library's */
        fine = false;
        break;
    default:
        break;
    }

    bool made;
    if (how & 1) {
        made = outcome(generate_groth16_proofs_c(pv, n, pr, ps, pp, ps_srs,
                                                 mtx, gpu_index),
                       "generate_groth16_proofs_c");
    } else {
        void *pending = (void *)&x;
        made = outcome(generate_groth16_proofs_start_c(pv, n, pr, ps, ps_srs,
                                                       mtx, gpu_index,
                                                       &pending),
                       "generate_groth16_proofs_start_c");
        PL_FUZZ_ASSERT(made == (pending != NULL), "start: %s, pending %p",
                       made ? "success" : "failure", pending);
        if (made && (which & 0x20)) {
            destroy_pending_proof(pending);
            made = false; /* no proofs to look at */
            fine = false;
        } else if (made) {
            made = outcome(finalize_groth16_proof_c(pending, pp),
                           "finalize_groth16_proof_c");
            /* consumed either way: a second finalize is refused */
            PL_FUZZ_ASSERT(!outcome(finalize_groth16_proof_c(pending, pp),
                                    "finalize_groth16_proof_c again"),
                           "a handle finalized twice");
        }
        if (!(which & 0x40))
            destroy_pending_proof(&x); /* not a handle: a no-op */
    }
    if (made) {
        PL_FUZZ_ASSERT(fine, "a call with a wrong argument succeeded "
                       "(nulls 0x%x, srs/mutex 0x%x, %zu circuits)", nulls,
                       which, n);
        static const pl_proof zero;
        for (size_t k = 0; k < n; k++)
            PL_FUZZ_ASSERT(memcmp(&proofs[k], &zero, sizeof(zero)) != 0,
                           "proof %zu not written", k);
    }
    for (size_t k = 0; k < n; k++)
        pl_fuzz_c2_release(&as[k]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!S.ready)
        setup();
    pl_fuzz_reader r = {data, data + size};
    uint8_t how = pl_fuzz_take(&r);
    if ((how & 6) == 6)
        fuzz_srs(&r);
    else
        fuzz_prove(&r, how);
    pl_supraseal_stats st;
    pl_supraseal_stats_read(&st);
    PL_FUZZ_ASSERT(st.pending == 0 && st.srs_objects == 1 &&
                       st.srs_cached == 0,
                   "after the input: %llu pending, %llu SRS, %llu cached",
                   (unsigned long long)st.pending,
                   (unsigned long long)st.srs_objects,
                   (unsigned long long)st.srs_cached);
    return 0;
}
