/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: bellperson's parameter and .vk reader (pl__bp_parse, the
 * code of pl_bp_params_open), its point check and the verification key
 * made from it.  An accepted file's sections fit in its size, end exactly
 * at its end, and its ic is not empty.  (The 192-byte proofs are
 * fuzz_bp_proofs.c's.) */
#include "fuzz.h"
#include "formats/bellperson.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pl_fuzz_begin();
    pl_error err = {0};
    pl_bp_params *p = NULL;
    pl_status st = pl__bp_parse(&p, data, size, PL_FUZZ_NAME, &err);
    pl_fuzz_check_outcome(st, &err);
    PL_FUZZ_ASSERT((st == PL_OK) == (p != NULL), "handle and status disagree");
    if (p) {
        uint64_t total = PL__BP_VK_POINTS_BYTES;
        for (unsigned s = 0; s < PL__BP_SECTIONS; s++) {
            if (p->vk_only && s != PL__BP_IC)
                break;
            total += 4 + (uint64_t)p->count[s] *
                             (pl__bp_section_is_g2(s) ? PL__BP_G2_BYTES
                                                      : PL__BP_G1_BYTES);
        }
        PL_FUZZ_ASSERT(total == size, "sections take %llu of %zu bytes",
                       (unsigned long long)total, size);
        PL_FUZZ_ASSERT(p->count[PL__BP_IC] > 0, "empty ic accepted");
        err = (pl_error){0};
        pl_fuzz_check_outcome(pl_bp_params_check_points(p, &err), &err);
        pl_vkey *vk = NULL;
        err = (pl_error){0};
        st = pl_vkey_from_bp_params(&vk, p, &err);
        pl_fuzz_check_outcome(st, &err);
        pl_vkey_destroy(vk);
        pl_bp_params_close(p);
    }
    pl_fuzz_end(size);
    return 0;
}
