/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What `proofline circuit` and `proofline demo` share about the PoRep-like
 * demo circuit (examples/porep): its default seed and the line that
 * describes a shape.  Defined in cmd_circuit.c.
 */
#ifndef PL_CLI_CMD_CIRCUIT_H
#define PL_CLI_CMD_CIRCUIT_H

#include "porep.h"

#include <stdio.h>

#define CLI_POREP_SEED "proofline-demo"

/* The log2 of a shape's domain: the smallest k with 2^k >= constraints +
 * publics + ONE. */
unsigned cli_porep_log2(size_t n_constraints, size_t n_public);
/* One line describing the demo circuit's shape. */
void cli_describe_porep(FILE *f, const porep_params *p, size_t nc, size_t np,
                        size_t nw);

#endif /* PL_CLI_CMD_CIRCUIT_H */
