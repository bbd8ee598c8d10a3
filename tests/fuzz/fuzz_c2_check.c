/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: the C2 prover's checks of a caller's assignments
 * (pl__c2_check, pl__c2_check_one in groth16/c2.h): what pl_c2_prove
 * refuses before any work -- lengths, densities and their popcounts,
 * scalars below r -- against one SRS (pl_c2_srs_create on corpus/
 * bp_params/multiplier.params, made once).  The input describes one to
 * three assignments, field by field (`pick` below): each length is the
 * SRS's own, near it, or far off; each buffer holds exactly the length
 * given (a read past it is ASan's), or is NULL; scalars are small, or raw
 * bytes that may be r or more.  Thin on purpose: it calls only the two
 * checks, so that the checks may move with the C2 prover.
 *
 * Properties: a refusal is PL_EFORMAT or PL_EUSAGE with a message naming
 * the assignment or the proof; an accepted assignment has every length the
 * SRS's (abc_size at most its domain), popcounts that count its bits, the
 * a and b queries' sizes, every scalar below r (so a check that lets
 * anything else through fails here); the batch check accepts exactly when
 * each assignment's own check does; and a check allocates nothing. */
#include "fuzz.h"
#include "proofline_c2.h"
#include "field/field.h"
#include "groth16/c2.h"
#include "c2_input.h"

static pl_c2_srs *srs;
static pl_bp_info shape; /* the SRS's counts, from the same file */

static void open_srs(void)
{
    static const char *const path =
        PL_FUZZ_SRC "/corpus/bp_params/multiplier.params";
    pl_error err = {0};
    pl_bp_params *p = NULL;
    PL_FUZZ_ASSERT(pl_bp_params_open(&p, path, &err) == PL_OK, "%s", err.msg);
    pl_bp_params_get_info(p, &shape);
    pl_bp_params_close(p);
    PL_FUZZ_ASSERT(pl_c2_srs_create(&srs, path, false, 1, &err) == PL_OK,
                   "%s", err.msg);
}

static void check_refusal(pl_status st, const pl_error *err)
{
    if (st == PL_OK)
        return;
    PL_FUZZ_ASSERT(st == PL_EFORMAT || st == PL_EUSAGE, "status %s: %.256s",
                   pl_strerror(st), err->msg);
    PL_FUZZ_ASSERT(err->code == st, "err.code %d, returned %d", err->code,
                   st);
    PL_FUZZ_ASSERT(memchr(err->msg, '\0', sizeof(err->msg)) &&
                       (strstr(err->msg, "assignment ") ||
                        strstr(err->msg, "proof ")),
                   "the message names no assignment: %.256s", err->msg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!srs)
        open_srs();
    pl_fuzz_begin();
    pl_fuzz_reader r = {data, data + size};
    size_t n = 1 + pl_fuzz_take(&r) % 3;
    pl_fuzz_c2 as[3];
    pl_c2_assignment list[3];
    pl_scalar rs[3], ss[3];
    bool ok[3], rs_ok[3];
    for (size_t k = 0; k < n; k++) {
        pl_fuzz_c2_build(&as[k], &r, &shape, &ok[k]);
        list[k] = as[k].as;
    }
    for (size_t k = 0; k < n; k++) {
        rs_ok[k] = true;
        rs[k] = pl_fuzz_c2_blind(&r, &rs_ok[k]);
        ss[k] = pl_fuzz_c2_blind(&r, &rs_ok[k]);
    }
    pl_error err = {0};
    pl_status all = pl__c2_check(srs, list, n, rs, ss, &err);
    check_refusal(all, &err);
    bool each_ok = true;
    for (size_t k = 0; k < n; k++) {
        pl_error e1 = {0};
        pl_status st = pl__c2_check_one(srs, k, &list[k], &rs[k], &ss[k], &e1);
        check_refusal(st, &e1);
        if (st == PL_OK)
            PL_FUZZ_ASSERT(ok[k] && rs_ok[k], "assignment %zu accepted, "
                           "though a length, a density, a popcount or a "
                           "scalar is wrong", k);
        each_ok &= st == PL_OK;
    }
    PL_FUZZ_ASSERT((all == PL_OK) == each_ok, "the batch check %s, the "
                   "checks one by one %s", pl_strerror(all),
                   each_ok ? "accept" : "refuse");
    for (size_t k = 0; k < n; k++)
        pl_fuzz_c2_release(&as[k]);
    pl_fuzz_end(size);
    return 0;
}
