/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: the .r1cs reader (pl__r1cs_parse, the code of pl_r1cs_open).
 * An accepted r1cs is then checked against a witness of all ones, of its
 * own curve and wire count, which walks every term again: the check may
 * refuse, never crash. */
#include "fuzz.h"
#include "formats/formats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pl_fuzz_begin();
    pl_error err = {0};
    pl_r1cs *r = NULL;
    pl_status st = pl__r1cs_parse(&r, data, size, PL_FUZZ_NAME, &err);
    pl_fuzz_check_outcome(st, &err);
    PL_FUZZ_ASSERT((st == PL_OK) == (r != NULL), "handle and status disagree");
    if (r) {
        pl_r1cs_info info;
        pl_r1cs_get_info(r, &info);
        PL_FUZZ_ASSERT((uint64_t)info.n_constraints * 12 <= size,
                       "%u constraints in %zu bytes", info.n_constraints,
                       size);
        /* A witness of nWires ones, if nWires is small (it is not bounded
         * by the file: wires need not appear in any constraint). */
        if (info.n_wires <= 4096) {
            size_t n = info.n_wires;
            pl_scalar *vals = calloc(n ? n : 1, sizeof(*vals));
            PL_FUZZ_ASSERT(vals != NULL, "out of memory");
            for (size_t i = 0; i < n; i++)
                vals[i].b[0] = 1;
            pl_wtns *w = NULL;
            st = pl__wtns_wrap_curve(&w, r->curve, vals, n, PL_FUZZ_NAME,
                                     &err);
            PL_FUZZ_ASSERT(st == PL_OK, "%s", err.msg);
            st = pl_witness_check(r, w, &err);
            PL_FUZZ_ASSERT(st == PL_OK || st == PL_EUNSAT, "%s: %s",
                           pl_strerror(st), err.msg);
            pl_wtns_close(w);
            free(vals);
        }
        pl_r1cs_close(r);
    }
    pl_fuzz_end(size);
    return 0;
}
