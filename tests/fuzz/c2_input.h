/* SPDX-License-Identifier: Apache-2.0 */
/*
 * C2 assignments as a fuzz input describes them, for the targets that hand
 * a caller's assignments to a check: c2_check (pl__c2_check) and supraseal
 * (generate_groth16_proofs_c, the SupraSeal ABI over the same checks).
 * The input is read a byte at a time (zeros once it is spent); each length
 * is the SRS's own, near it, or far off; each buffer holds exactly the
 * length given (a read past it is ASan's), or is NULL; scalars are small,
 * or raw bytes that may be r or more.  Along with each assignment comes
 * whether it meets the rules a check must enforce, so that an accepted one
 * that does not is a finding.
 */
#ifndef PL_FUZZ_C2_INPUT_H
#define PL_FUZZ_C2_INPUT_H

#include "proofline_c2.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct pl_fuzz_reader {
    const uint8_t *p, *end;
} pl_fuzz_reader;

uint8_t pl_fuzz_take(pl_fuzz_reader *r);

/* One assignment and the buffers it points into (freed by
 * pl_fuzz_c2_release). */
typedef struct pl_fuzz_c2 {
    pl_c2_assignment as;
    uint64_t *density[3];
    pl_scalar *scalars[5]; /* a, b, c, inp, aux */
} pl_fuzz_c2;

/* One assignment for an SRS of this shape; *ok: whether it meets the
 * rules (lengths, densities and popcounts, the query sizes, scalars below
 * r). */
void pl_fuzz_c2_build(pl_fuzz_c2 *o, pl_fuzz_reader *r,
                      const pl_bp_info *shape, bool *ok);
void pl_fuzz_c2_release(pl_fuzz_c2 *o);
/* A blinding scalar r or s: small, or 32 raw bytes (*ok cleared when they
 * are r or more). */
pl_scalar pl_fuzz_c2_blind(pl_fuzz_reader *r, bool *ok);

#endif /* PL_FUZZ_C2_INPUT_H */
