/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The dev setup's test hook (dev_setup.c): bellperson's layout over the
 * domain snarkjs uses (its root of unity, 5^((r-1)/2^32)) instead of
 * blstrs's, so that a proof through the C2 prover can be compared point
 * for point with one from the zkey of the same seed (tests only: no
 * bellperson prover would agree with such a file).
 */
#ifndef PL_SETUP_DEV_SETUP_H
#define PL_SETUP_DEV_SETUP_H

#include "proofline_c2.h"

pl_status pl__setup_dev_bellperson_domain(const char *r1cs_path,
                                          const char *params_path,
                                          const char *vk_path,
                                          const pl_setup_config *cfg,
                                          bool snarkjs_domain, pl_error *err);

#endif /* PL_SETUP_DEV_SETUP_H */
