/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Internal engine entry points, for tests: an engine over a given backend
 * (a slow fake one, say) instead of one chosen by name, with the backend
 * that takes over when its device faults (NULL: none; pl_engine_create
 * gives "auto" the CPU).
 */
#ifndef PL_ENGINE_ENGINE_H
#define PL_ENGINE_ENGINE_H

#include "proofline.h"
#include "groth16/prover.h"

pl_status pl__engine_create_with_backend(pl_engine **out,
                                         const pl_engine_config *cfg,
                                         const pl__backend_ops *backend,
                                         const pl__backend_ops *fallback,
                                         pl_error *err);

#endif /* PL_ENGINE_ENGINE_H */
