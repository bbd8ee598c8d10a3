/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The C2 kind of the engine's jobs (engine/kinds.h), and the calls of
 * proofline_c2.h that run on an engine: a circuit is a caller's SRS
 * (bellperson's parameters, decoded by groth16/c2.c; its bytes reserved
 * resident while it is open); a partition is one of bellperson's proving
 * assignments, given or synthesized by the job's callback on a synthesis
 * worker, prepared into the skeleton's input there.  Everything after
 * synthesis is the engine's one path: the same start and finish, the same
 * verification before delivery, the same events and reservations as a
 * zkey's partitions.
 *
 * pl_c2_prove, the SupraSeal-C2-shaped call, is a job of this kind on the
 * caller's engine or on one it makes for the call (one worker of each
 * kind, the config's budget and log), destroyed after, which checks that
 * every buffer it allocated is freed.
 */
#define _GNU_SOURCE
#include "engine/kinds.h"
#include "field/field.h"
#include "util/clock.h"
#include "util/error.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A caller's SRS, or a parameter file the circuit reads itself. */
typedef struct {
    const pl_c2_srs *srs;
    const char *params_path;
    const char *r1cs_path; /* or NULL */
    bool check_points;
} c2_args;

static pl_status c2_identify(pl_circuit *c, const void *arg, pl_error *err)
{
    const c2_args *a = arg;
    if (!(c->name = strdup(a->srs ? pl__c2_srs_path(a->srs)
                                  : a->params_path)))
        return pl__error_set(err, PL_ENOMEM, "engine: out of memory");
    c->given_srs = a->srs;
    c->points_checked = a->check_points;
    c->wants_r1cs = a->r1cs_path != NULL;
    return PL_OK;
}

static bool c2_matches(const pl_circuit *c, const void *arg)
{
    const c2_args *a = arg;
    if (a->srs)
        return c->given_srs == a->srs;
    /* a file opened once with its points checked, or with an r1cs, serves
     * either ask */
    return !c->given_srs && strcmp(c->name, a->params_path) == 0 &&
           (!a->check_points || c->points_checked) &&
           (!a->r1cs_path || c->wants_r1cs);
}

static void c2_plan(const pl_circuit *c, const pl__backend_ops *backend,
                    unsigned threads, pl__prove_plan *out)
{
    pl__c2_plan(c->srs, backend, threads, out);
}

static pl_status c2_create(pl_circuit *c, const pl__backend_ops *backend,
                           const pl_prover_config *cfg, pl_error *err)
{
    return pl__groth16_prover_create(&c->skeletons[cfg->device],
                                     pl__c2_srs_key(c->srs), backend, cfg,
                                     err);
}

/* A parameter file read by the circuit, as a zkey is: its bytes reserved
 * before they are allocated (a file that grew since is refused), then
 * the rest of the SRS's (its verifying key). */
static pl_status read_params(pl_engine *e, pl_circuit *c, const c2_args *a,
                             pl_error *err)
{
    struct stat sb;
    pl_status st;
    if (stat(a->params_path, &sb) != 0)
        return pl__error_errno(err, PL_EIO, errno, "%s: cannot open",
                               a->params_path);
    const uint64_t file = (uint64_t)sb.st_size;
    if ((st = pl__engine_reserve_resident(e, c, file, "parameters", err)) ||
        (st = pl__c2_srs_load(&c->own_srs, a->params_path, a->check_points,
                              pl__engine_config(e)->threads, file, err)))
        return st;
    c->srs = c->own_srs;
    return pl__engine_reserve_resident(e, c, pl_c2_srs_bytes(c->srs) - file,
                                       "verifying key", err);
}

/* The SRS's bytes reserved as resident (a caller's, decoded already), or
 * the parameter file read; then its prover opened on the engine's backend
 * (the SRS's G1 bases on the device with a CUDA one). */
static pl_status c2_build(pl_engine *e, pl_circuit *c, const void *arg,
                          pl_error *err)
{
    const c2_args *a = arg;
    pl_status st;
    if (a->srs) {
        c->srs = a->srs;
        st = pl__engine_reserve_resident(e, c, pl_c2_srs_bytes(a->srs),
                                         "SRS", err);
    } else {
        st = read_params(e, c, a, err);
    }
    if (st == PL_OK && a->r1cs_path)
        st = pl__engine_load_r1cs(e, c, a->r1cs_path, err);
    if (st != PL_OK ||
        (st = pl__engine_open_prover(e, c, c2_plan, c2_create, err)))
        return st;
    c->vkey = pl__c2_srs_vkey(c->srs);
    return PL_OK;
}

static void c2_close(pl_circuit *c)
{
    for (int d = 0; d < PL_MAX_DEVICES; d++)
        pl__groth16_prover_destroy(c->skeletons[d]);
    pl_c2_srs_destroy(c->own_srs); /* a caller's SRS is the caller's */
    pl_r1cs_close(c->r1cs);
}

static pl_status c2_extra_bytes(const job *j, size_t index, uint64_t *out,
                                pl_error *err)
{
    (void)j, (void)index, (void)err;
    *out = 0; /* the job's plan holds a synthesized assignment's bytes */
    return PL_OK;
}

/* The partition's assignment (given, or made now by the job's synthesize
 * and checked), its blinding, and its input: the caller's a, b and c are
 * read into the skeleton's then, so abc_done tells the caller it may free
 * them before the proof even starts. */
static pl_status c2_synthesize(pl_engine *e, partition *p, pl_error *err)
{
    job *j = p->job;
    const pl_c2_job_spec *c2 = &j->c2;
    const pl_engine_config *cfg = pl__engine_config(e);
    pl_scalar r, s;
    pl_status st;
    if (c2->r) {
        r = c2->r[p->index];
        s = c2->s[p->index];
    } else if ((st = pl__fr_random_scalar((blst_scalar *)&r, err)) ||
               (st = pl__fr_random_scalar((blst_scalar *)&s, err))) {
        return st;
    }
    if (!c2->synthesize) { /* bellperson synthesized it: checked at submit */
        p->c2_as = c2->assignments[p->index];
    } else {
        pl__stage_timer timer;
        pl__engine_stage_spans_of(e, p);
        pl__stage_timer_start(&timer, cfg->on_stage, cfg->on_stage_user);
        st = c2->synthesize(c2->synthesize_user, p->index, &p->c2_as, err);
        if (st == PL_OK) {
            p->c2_synthesized = true;
            pl__stage_lap(&timer, "synthesize");
            st = pl__c2_check_one(j->circuit->srs, p->index, &p->c2_as, &r,
                                  &s, err);
        }
        pl__engine_stage_spans_of(e, NULL);
        if (st != PL_OK)
            goto done;
    }
    /* fresh r and s are drawn in standard form; the caller's are in its
     * assignments' form */
    if ((st = pl__c2_input_prepare(&p->c2_input, j->circuit->srs, &p->c2_as,
                                   &r, &s, c2->montgomery,
                                   c2->montgomery && c2->r, err)))
        goto done;
    if (c2->abc_done)
        c2->abc_done(c2->synthesize_user, p->index);
    p->input = &p->c2_input.in;
    p->publics = p->c2_input.publics;
    p->n_public = p->c2_input.n_public;
done:
    memset(&r, 0, sizeof(r));
    memset(&s, 0, sizeof(s));
    return st;
}

static void c2_blame(const partition *p, pl_status *st, pl_error *err)
{
    if (pl__c2_srs_file_changed(p->job->circuit->srs)) {
        /* a copy read while a writer paused mid-file looked whole */
        *st = pl__error_set(err, PL_EIO, "%s: the parameter file changed on "
                            "disk after it was read: the proof of partition "
                            "%zu of job %llu, made with the bytes read, does "
                            "not verify and is not written; run again once "
                            "the file is complete", p->job->circuit->name,
                            p->index, (unsigned long long)p->job->id);
        return;
    }
    *st = pl__error_set(err, PL_EINVALID,
                        "%s: the proof of partition %zu of job %llu does not "
                        "verify with the parameters' verifying key: its "
                        "assignment does not satisfy the circuit, or the "
                        "parameters are damaged (--check-params)",
                        p->job->circuit->name, p->index,
                        (unsigned long long)p->job->id);
}

static void c2_release(partition *p)
{
    const pl_c2_job_spec *c2 = &p->job->c2;
    pl__c2_input_release(&p->c2_input);
    if (p->c2_synthesized && c2->release) /* the assignment's owner */
        c2->release(c2->synthesize_user, p->index);
    p->c2_synthesized = false;
    memset(&p->c2_as, 0, sizeof(p->c2_as));
}

const pl__kind_ops pl__kind_c2 = {
    .name = "c2",
    .identify = c2_identify,
    .matches = c2_matches,
    .build = c2_build,
    .close = c2_close,
    .extra_bytes = c2_extra_bytes,
    .synthesize = c2_synthesize,
    .blame = c2_blame,
    .release = c2_release,
};

/* ---- the public calls ----------------------------------------------------- */

pl_status pl_engine_open_c2_circuit(pl_engine *e, pl_circuit **out,
                                    const pl_c2_srs *srs, pl_error *err)
{
    *out = NULL;
    if (!srs)
        return pl__error_set(err, PL_EUSAGE, "pl_engine_open_c2_circuit: no "
                             "SRS");
    c2_args a = {srs, NULL, NULL, false};
    return pl__engine_open(e, out, &pl__kind_c2, &a, err);
}

pl_status pl_engine_open_c2_files(pl_engine *e, pl_circuit **out,
                                  const char *params_path,
                                  const char *r1cs_path, bool check_points,
                                  pl_error *err)
{
    *out = NULL;
    if (!params_path)
        return pl__error_set(err, PL_EUSAGE, "pl_engine_open_c2_files: no "
                             "parameter file");
    c2_args a = {NULL, params_path, r1cs_path, check_points};
    return pl__engine_open(e, out, &pl__kind_c2, &a, err);
}

pl_status pl_engine_open_c2_params(pl_engine *e, pl_circuit **out,
                                   const char *params_path, bool check_points,
                                   pl_error *err)
{
    return pl_engine_open_c2_files(e, out, params_path, NULL, check_points,
                                   err);
}

pl_status pl_engine_submit_c2(pl_engine *e, uint64_t *job_id,
                              const pl_c2_job_spec *spec, pl_error *err)
{
    *job_id = 0;
    pl_status st;
    if (!spec->circuit || spec->circuit->kind != &pl__kind_c2 ||
        spec->n_partitions == 0 || !spec->assignments == !spec->synthesize ||
        !spec->r != !spec->s)
        return pl__error_set(err, PL_EUSAGE, "engine: a C2 job needs a "
                             "circuit of C2 parameters, its assignments "
                             "(given or synthesized: exactly one), and r "
                             "and s both or neither");
    const pl_c2_srs *srs = spec->circuit->srs;
    if (spec->assignments && spec->r &&
        (st = pl__c2_check(srs, spec->assignments, spec->n_partitions,
                           spec->r, spec->s, err)))
        return st;
    if (spec->assignments && !spec->r)
        for (size_t i = 0; i < spec->n_partitions; i++)
            if ((st = pl__c2_check_one(srs, i, &spec->assignments[i],
                                       &(pl_scalar){{0}}, &(pl_scalar){{0}},
                                       err)))
                return st;
    pl__prove_plan plan = spec->circuit->plan;
    if (spec->synthesize) {
        plan.bytes[PL_BUF_ABC] += spec->abc_bytes;
        plan.bytes[PL_BUF_WITNESS] += spec->other_bytes;
    }
    pl__sched_reservation r;
    pl__sched_reservation_for(&r, &plan, 0);
    if (!pl__engine_can_fit(e, r.total))
        return pl__engine_never_fits(e, 0, 0, r.total, err);
    job *j = calloc(1, sizeof(*j));
    if (!j)
        return pl__error_set(err, PL_ENOMEM, "engine: out of memory");
    j->circuit = spec->circuit;
    j->n_partitions = spec->n_partitions;
    j->priority = spec->priority;
    j->device_mask = spec->device_mask;
    j->verify = spec->verify;
    j->on_proof = spec->on_proof;
    j->on_proof_user = spec->on_proof_user;
    j->c2 = *spec;
    j->plan = plan;
    j->planned = r.total;
    return pl__engine_enqueue(e, j, job_id, err);
}

/* ---- pl_c2_prove ---------------------------------------------------------- */

/* The call's own engine, when the caller gives none: its budget the
 * config's, or exactly the SRS, the prover's tables on the backend asked
 * for and one proof. */
static pl_status own_engine(pl_engine **out, const pl_c2_srs *srs,
                            const pl_c2_config *cfg, pl_error *err)
{
    const char *name = cfg && cfg->backend ? cfg->backend : "cpu";
    const pl__backend_ops *backend;
    pl_status st = pl__prover_backend(&backend, name, NULL, 0, err);
    if (st != PL_OK)
        return st;
    pl__prove_plan plan;
    pl__c2_plan(srs, backend, pl__c2_srs_threads(srs), &plan);
    const uint64_t resident = pl_c2_srs_bytes(srs) + plan.resident_bytes;
    uint64_t per_proof = 0;
    for (int c = 0; c < PL_BUF_CLASS_COUNT; c++)
        per_proof += plan.bytes[c];
    const uint64_t limit = cfg && cfg->budget_bytes ? cfg->budget_bytes
                                                    : resident + per_proof;
    if (resident + per_proof > limit)
        return pl__error_set(err, PL_EBUDGET, "pl_c2_prove: the SRS and the "
                             "prover's tables (%" PRIu64 " bytes) and one "
                             "proof's buffers (%" PRIu64 " bytes) take %"
                             PRIu64 ", the budget is %" PRIu64, resident,
                             per_proof, resident + per_proof, limit);
    pl_engine_config ec;
    pl_engine_config_init(&ec);
    ec.budget_bytes = limit;
    ec.synth_workers = 1;
    ec.prover_workers = 1;
    ec.threads = pl__c2_srs_threads(srs);
    ec.backend = name;
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
static void store_proof(void *user, uint64_t job_id, size_t index,
                        const pl_proof *proof, const pl_scalar *publics,
                        size_t n_public)
{
    (void)job_id, (void)publics, (void)n_public;
    pl_proof *proofs = user;
    proofs[index] = *proof;
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
        .verify = !(cfg && cfg->no_verify),
        .priority = cfg ? cfg->priority : 0,
        .device_mask = cfg ? cfg->device_mask : 0,
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
