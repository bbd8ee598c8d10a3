/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pl_c2_prove (include/proofline_c2.h): the SupraSeal-C2-shaped call as a
 * job of the engine (pl_engine_submit_c2, engine.c).  Each assignment is a partition of one job over a C2
 * circuit (the SRS opened on the engine, its bytes resident in the
 * budget), so the proofs go through the engine's pipeline like any other:
 * admission under the budget (pl__c2_plan's bytes per proof), the ledger's
 * events, a prover worker for H and the G1 sums with the G2 sum beside,
 * the finisher for the G2 join and the assembly, overlapping the next
 * proof's start.  Synthesis has nothing to do: bellperson did it.
 *
 * Without an engine in the config, the call makes one of its own for the
 * job (one worker of each kind, the config's budget and log) and destroys
 * it after, which checks that every buffer it allocated is freed.
 */
#include "proofline_c2.h"
#include "groth16/c2.h"
#include "util/error.h"

#include <inttypes.h>
#include <string.h>

/* The call's own engine, when the caller gives none. */
static pl_status own_engine(pl_engine **out, const pl_c2_srs *srs,
                            const pl_c2_config *cfg, pl_error *err)
{
    const uint64_t resident = pl_c2_srs_bytes(srs);
    const uint64_t per_proof = pl_c2_prove_bytes(srs);
    const uint64_t limit = cfg && cfg->budget_bytes ? cfg->budget_bytes
                                                    : resident + per_proof;
    if (resident + per_proof > limit)
        return pl__error_set(err, PL_EBUDGET, "pl_c2_prove: the SRS (class "
                             "params, %" PRIu64 " bytes) and one proof's "
                             "buffers (%" PRIu64 " bytes) take %" PRIu64
                             ", the budget is %" PRIu64, resident, per_proof,
                             resident + per_proof, limit);
    pl_engine_config ec;
    pl_engine_config_init(&ec);
    ec.budget_bytes = limit;
    ec.synth_workers = 1;
    ec.prover_workers = 1;
    ec.backend = cfg && cfg->backend ? cfg->backend : "cpu";
    if (cfg) {
        ec.log_level = cfg->log_level;
        ec.log_stream = cfg->log_stream;
        ec.on_event = cfg->on_event;
        ec.on_event_user = cfg->on_event_user;
    }
    return pl_engine_create(out, &ec, err);
}

/* on_proof: proofs[i] of the call's room (the finisher writes, the caller
 * reads after the wait) */
static void store_proof(void *user, uint64_t job, size_t partition,
                        const pl_proof *proof, const pl_scalar *publics,
                        size_t n_public)
{
    (void)job, (void)publics, (void)n_public;
    pl_proof *proofs = user;
    proofs[partition] = *proof;
}

pl_status pl_c2_prove(pl_proof *proofs, const pl_c2_assignment *assignments,
                      size_t n, const pl_scalar *r, const pl_scalar *s,
                      const pl_c2_srs *srs, const pl_c2_config *cfg,
                      pl_error *err)
{
    pl_status st;
    if ((st = pl__c2_check(srs, assignments, n, r, s, err)))
        return st;
    if (n && !proofs)
        return pl__error_set(err, PL_EUSAGE, "pl_c2_prove: no room for the "
                             "proofs");
    if (n == 0)
        return PL_OK;
    pl_engine *engine = cfg ? cfg->engine : NULL;
    if (!engine && (st = own_engine(&engine, srs, cfg, err)))
        return st;
    pl_c2_job_spec spec = {
        .n_partitions = n,
        .assignments = assignments,
        .synthesize_user = cfg ? cfg->abc_done_user : NULL,
        .abc_done = cfg ? cfg->abc_done : NULL,
        .r = r,
        .s = s,
        .montgomery = cfg && cfg->montgomery,
        .priority = cfg ? cfg->priority : 0,
        .on_proof = store_proof,
        .on_proof_user = proofs,
    };
    uint64_t job_id = 0;
    pl_job_status status;
    if ((st = pl_engine_open_c2_circuit(engine, &spec.circuit, srs, err)) ||
        (st = pl_engine_submit_c2(engine, &job_id, &spec, err)) ||
        (st = pl_engine_wait(engine, job_id, &status, err)))
        goto out;
    if ((st = status.status) != PL_OK && err)
        *err = status.error;
out:
    pl_circuit_release(spec.circuit);
    if (cfg && cfg->stats) {
        pl_engine_stats es;
        pl_engine_stats_read(engine, &es);
        cfg->stats->budget_bytes = es.budget_bytes;
        cfg->stats->peak_reserved_bytes = es.peak_reserved_bytes;
        cfg->stats->events = es.events;
    }
    if (engine != (cfg ? cfg->engine : NULL)) {
        pl_error derr;
        pl_status dst = pl_engine_destroy(engine, &derr);
        if (st == PL_OK && dst != PL_OK) {
            st = dst;
            if (err)
                *err = derr;
        }
    }
    return st;
}
