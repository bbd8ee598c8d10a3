/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The CPU backend: the engine's backend interface over the multi-threaded
 * CPU prover (src/groth16/prover.c).  The prover itself is the instance.
 */
#include "backend/backend.h"
#include "util/error.h"

static pl_status cpu_open(void **instance, pl_prover *prover, pl_error *err)
{
    *instance = prover;
    return PL_OK;
}

static void cpu_close(void *instance)
{
}

static void cpu_plan(const pl_zkey *zkey, unsigned threads,
                     pl__prove_plan *out)
{
    pl__prover_plan(zkey, threads, out);
}

static pl_status cpu_start(void *instance, void **pending, blst_fr *abc,
                           const pl_wtns *wtns, pl_error *err)
{
    return pl__prove_start_abc(instance, (pl_pending **)pending, abc, wtns,
                               err);
}

static pl_status cpu_finish(void *instance, void *pending, pl_proof *out,
                            pl_error *err)
{
    return pl_prove_finish(pending, out, err);
}

const pl__backend_ops pl__backend_cpu = {
    .name = "cpu",
    .open = cpu_open,
    .close = cpu_close,
    .plan = cpu_plan,
    .start = cpu_start,
    .finish = cpu_finish,
};
