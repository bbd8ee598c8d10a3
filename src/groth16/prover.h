/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Internal prover hooks, for tests only: never reachable from the CLI.
 */
#ifndef PL_GROTH16_PROVER_H
#define PL_GROTH16_PROVER_H

#include "proofline.h"

/* Test-only: blind with r = s = 0, so the proof is deterministic and can be
 * compared bit for bit with a reference.  Such proofs are NOT zero-knowledge. */
void pl__prover_set_zero_blinding(pl_prover *prover, bool zero);

#endif /* PL_GROTH16_PROVER_H */
