/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The C2 prover's test hook (c2.c): an SRS whose domain is snarkjs's
 * (setup/dev_setup.h writes such files), to compare its proofs with the
 * zkey path's point for point.  Tests only.
 */
#ifndef PL_GROTH16_C2_H
#define PL_GROTH16_C2_H

#include "proofline_c2.h"

pl_status pl__c2_srs_create_domain(pl_c2_srs **out, const char *params_path,
                                   bool check_points, unsigned threads,
                                   bool snarkjs_domain, pl_error *err);

#endif /* PL_GROTH16_C2_H */
