/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pl_c2_prove (include/proofline_c2.h): the SupraSeal-C2-shaped call run
 * as a job of one partition per proof under a byte budget, with the
 * ledger's records, over groth16/c2.c's arithmetic.  The SRS's bytes are
 * reserved for the whole call (resident, as a circuit's are); each proof
 * reserves pl_c2_prove_bytes before its buffers exist and releases them
 * after they are freed, so reserved >= live at every instant and the peak
 * never passes the budget.  Events per proof, in order: admitted,
 * prove_start, abc_freed (the caller's a, b, c released through abc_done,
 * and our coset vectors freed), prove_done (the G2 sum included),
 * finalize_done, dealloc_done; failed instead when a proof fails.
 *
 * It is not the engine's pipeline: proofs run one after the other on the
 * calling thread (the pool works inside each), with no hand-off and no
 * synthesis workers -- bellperson synthesized already.  One budget and one
 * ledger per call.
 */
#include "proofline_c2.h"
#include "engine/budget.h"
#include "groth16/c2.h"
#include "ledger/ledger.h"
#include "util/error.h"

#include <inttypes.h>
#include <string.h>

typedef struct {
    pl__ledger *ledger;
    pl__budget *budget;
    uint64_t stage_now[PL_STAGE_COUNT];
    uint64_t events;
    const pl_c2_config *cfg;
    size_t proof;
} c2_job;

static void emit(c2_job *j, pl_event event, const pl__ledger_note *note)
{
    pl__ledger_state state;
    memset(&state, 0, sizeof(state));
    memcpy(state.stage_now, j->stage_now, sizeof(state.stage_now));
    pl__budget_read(j->budget, &state.reserved_bytes, NULL);
    state.budget_bytes = j->budget->limit;
    pl__ledger_record(j->ledger, event, 1, j->proof, 0, &state, note);
    j->events++;
}

static void stage(c2_job *j, int from, int to)
{
    if (from >= 0)
        j->stage_now[from]--;
    if (to >= 0)
        j->stage_now[to]++;
}

/* a, b, c read: the caller may free them now; the event says so. */
static void abc_read(void *ctx)
{
    c2_job *j = ctx;
    if (j->cfg && j->cfg->abc_done)
        j->cfg->abc_done(j->cfg->abc_done_user, j->proof);
    emit(j, PL_EV_ABC_FREED, NULL);
}

pl_status pl_c2_prove(pl_proof *proofs, const pl_c2_assignment *assignments,
                      size_t n, const pl_scalar *r, const pl_scalar *s,
                      const pl_c2_srs *srs, const pl_c2_config *cfg,
                      pl_error *err)
{
    pl_status st;
    pl__budget budget;
    pl__ledger *ledger = NULL;
    if ((st = pl__c2_check(srs, assignments, n, r, s, err)))
        return st;
    if (n && !proofs)
        return pl__error_set(err, PL_EUSAGE, "pl_c2_prove: no room for the "
                             "proofs");
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
    pl__ledger_config lcfg = {0};
    if (cfg) {
        lcfg.level = cfg->log_level;
        lcfg.log = cfg->log_stream;
        lcfg.on_event = cfg->on_event;
        lcfg.on_event_user = cfg->on_event_user;
    }
    if ((st = pl__ledger_create(&ledger, &lcfg, err)))
        return st;
    pl__budget_init(&budget, limit);
    c2_job j = {.ledger = ledger, .budget = &budget, .cfg = cfg};
    /* both fit: checked above, and nothing else reserves from this budget */
    (void)pl__budget_try_reserve(&budget, resident);
    for (size_t k = 0; k < n && st == PL_OK; k++) {
        j.proof = k;
        (void)pl__budget_try_reserve(&budget, per_proof);
        stage(&j, -1, PL_STAGE_ADMITTED);
        emit(&j, PL_EV_ADMITTED, NULL);
        stage(&j, PL_STAGE_ADMITTED, PL_STAGE_PROVING);
        emit(&j, PL_EV_PROVE_START, NULL);
        st = pl__c2_prove_one(srs, &proofs[k], &assignments[k], &r[k], &s[k],
                              cfg && cfg->montgomery, abc_read, &j, err);
        if (st == PL_OK) {
            emit(&j, PL_EV_PROVE_DONE, NULL);
            stage(&j, PL_STAGE_PROVING, PL_STAGE_FINISHING);
            emit(&j, PL_EV_FINALIZE_DONE, NULL);
            stage(&j, PL_STAGE_FINISHING, -1);
        } else {
            stage(&j, PL_STAGE_PROVING, -1);
        }
        /* the proof's buffers are freed (prove_one frees before it
         * returns): its bytes go back */
        pl__budget_release(&budget, per_proof);
        if (st == PL_OK) {
            emit(&j, PL_EV_DEALLOC_DONE, NULL);
        } else {
            pl__ledger_note note;
            const char *why = err ? err->msg : pl_strerror(st);
            pl__ledger_note_set(&note, why, strlen(why), NULL);
            emit(&j, PL_EV_FAILED, &note);
        }
    }
    pl__budget_release(&budget, resident);
    if (cfg && cfg->stats) {
        cfg->stats->budget_bytes = limit;
        pl__budget_read(&budget, NULL, &cfg->stats->peak_reserved_bytes);
        cfg->stats->events = j.events;
    }
    pl__budget_destroy(&budget);
    pl__ledger_destroy(ledger);
    return st;
}
