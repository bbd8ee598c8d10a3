/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The zkey kind of the engine's jobs (engine/kinds.h): a circuit is a
 * snarkjs zkey (and its r1cs when witnesses are checked), read whole into
 * the budget; a partition is a witness (a file, in memory, or generated),
 * synthesized into a, b, c through the zkey's matrices.  Everything after
 * synthesis is the engine's one path.  With check_points
 * (pl_engine_open_circuit_checked) the key's points are checked once it is
 * read, by the point checker of pl_zkey_check_points.
 */
#define _GNU_SOURCE
#include "engine/kinds.h"
#include "formats/formats.h"
#include "groth16/vkey.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct {
    const char *zkey_path;
    const char *r1cs_path;
    bool check_points;
} zkey_args;

static pl_status zkey_identify(pl_circuit *c, const void *arg, pl_error *err)
{
    const zkey_args *a = arg;
    if (!(c->name = strdup(a->zkey_path)))
        return pl__error_set(err, PL_ENOMEM, "engine: out of memory");
    c->wants_r1cs = a->r1cs_path != NULL;
    c->points_checked = a->check_points;
    return PL_OK;
}

static bool zkey_matches(const pl_circuit *c, const void *arg)
{
    const zkey_args *a = arg;
    return strcmp(c->name, a->zkey_path) == 0 &&
           (!a->r1cs_path || c->wants_r1cs) &&
           (!a->check_points || c->points_checked);
}

static void zkey_plan(const pl_circuit *c, const pl__backend_ops *backend,
                      unsigned threads, pl__prove_plan *out)
{
    pl__prover_plan(c->zkey, backend, threads, out);
}

/* The first device's prover is a pl_prover (the matrices synthesis uses,
 * and the skeleton's); a further device's is a skeleton over its key. */
static pl_status zkey_create(pl_circuit *c, const pl__backend_ops *backend,
                             const pl_prover_config *cfg, pl_error *err)
{
    if (c->prover)
        return pl__groth16_prover_create(&c->skeletons[cfg->device],
                                         pl__prover_key(c->prover), backend,
                                         cfg, err);
    pl_status st = pl__prover_create_with_backend(&c->prover, c->zkey,
                                                  backend, cfg, err);
    if (st == PL_OK)
        c->skeletons[cfg->device] = pl__prover_skeleton(c->prover);
    return st;
}

/* Opens what a circuit holds, each part's resident bytes reserved before
 * it is allocated: the key, read whole into memory (class params: in the
 * budget and the ledger, and immune to later changes of the file), the
 * r1cs when witnesses are checked (read whole too: class csr; a file that
 * grew since it was sized is refused by the read), the prover (its matrices and its
 * backend's tables), the verification key.  No lock held. */
static pl_status zkey_build(pl_engine *e, pl_circuit *c, const void *arg,
                            pl_error *err)
{
    const zkey_args *a = arg;
    pl_status st;
    struct stat sb;
    if (stat(c->name, &sb) != 0)
        return pl__error_errno(err, PL_EIO, errno, "%s: cannot open",
                               c->name);
    uint64_t key_bytes = (uint64_t)sb.st_size;
    if ((st = pl__engine_reserve_resident(e, c, key_bytes, "key", err)) ||
        (st = pl__zkey_load(&c->zkey, c->name, key_bytes, err)))
        return st;
    /* --check-params: the copy in memory is what is proved with, so it is
     * what is checked (over the engine's threads) */
    if (a->check_points) {
        const pl_check_config cfg = {.threads =
                                         pl__engine_config(e)->threads};
        if ((st = pl_zkey_check_points_with(c->zkey, &cfg, err)))
            return st;
    }
    if (a->r1cs_path &&
        ((st = pl__engine_load_r1cs(e, c, a->r1cs_path, err)) ||
         (st = pl_r1cs_matches_zkey(c->r1cs, c->zkey, err))))
        return st;
    if ((st = pl__engine_open_prover(e, c, zkey_plan, zkey_create, err)) ||
        (st = pl__engine_reserve_resident(e, c,
                                          pl__vkey_bytes(c->zkey->n_public),
                                          "verification key", err)) ||
        (st = pl_vkey_from_zkey(&c->own_vkey, c->zkey, err)))
        return st;
    c->vkey = c->own_vkey;
    return PL_OK;
}

static void zkey_close(pl_circuit *c)
{
    for (int d = 0; d < PL_MAX_DEVICES; d++)
        if (c->skeletons[d] &&
            (!c->prover || c->skeletons[d] != pl__prover_skeleton(c->prover)))
            pl__groth16_prover_destroy(c->skeletons[d]);
    pl_vkey_destroy(c->own_vkey);
    pl_prover_destroy(c->prover);
    pl_r1cs_close(c->r1cs);
    pl_zkey_close(c->zkey);
}

/* The bytes partition `index`'s witness takes: a generated one the
 * circuit's nVars scalars (an accounted buffer), a file its size now (it is
 * read whole), an in-memory one nothing (the caller's). */
static pl_status witness_bytes(const pl_job_spec *spec, size_t index,
                               uint64_t *out, pl_error *err)
{
    struct stat sb;
    *out = 0;
    if (spec->generate)
        *out = (uint64_t)spec->circuit->zkey->n_vars * PL__FR_BYTES;
    else if (spec->witness_paths) {
        if (stat(spec->witness_paths[index], &sb) != 0)
            return pl__error_errno(err, PL_EIO, errno, "%s: cannot stat",
                                   spec->witness_paths[index]);
        *out = (uint64_t)sb.st_size;
    }
    return PL_OK;
}

static pl_status zkey_extra_bytes(const job *j, size_t index, uint64_t *out,
                                  pl_error *err)
{
    return witness_bytes(&j->spec, index, out, err);
}

/* The witness, checked if asked, then a, b, c through the matrices. */
static pl_status zkey_synthesize(pl_engine *e, partition *p, pl_error *err)
{
    job *j = p->job;
    pl_circuit *c = j->circuit;
    const pl_engine_config *cfg = pl__engine_config(e);
    pl_status st;
    char name[64];
    snprintf(name, sizeof(name), "witness %zu of job %llu", p->index,
             (unsigned long long)j->id);
    if (j->paths) {
        st = pl__wtns_load(&p->wtns, j->paths[p->index], p->extra_reserved,
                           err);
        if (st == PL_OK)
            p->extra_live = p->wtns->map.size;
    } else if (j->spec.generate) {
        size_t n = c->zkey->n_vars;
        pl_scalar *values = pl__alloc(PL_BUF_WITNESS,
                                      (uint64_t)n * PL__FR_BYTES, err);
        if (!values)
            return PL_ENOMEM;
        st = j->spec.generate(j->spec.generate_user, p->index, values, n, err);
        if (st == PL_OK)
            st = pl__wtns_adopt_curve(&p->wtns, c->zkey->curve, values, n,
                                      name, err);
        if (st != PL_OK) {
            pl__free(values);
            return st;
        }
    } else {
        st = pl__wtns_wrap_curve(&p->wtns, c->zkey->curve,
                                 j->spec.witnesses[p->index], c->zkey->n_vars,
                                 name, err);
    }
    if (st != PL_OK)
        return st;
    if (j->spec.check_witness &&
        (st = pl_witness_check(c->r1cs, p->wtns, err)) != PL_OK)
        return st;
    blst_fr *abc;
    pl__stage_timer timer;
    pl__engine_stage_spans_of(e, p);
    pl__stage_timer_start(&timer, cfg->on_stage, cfg->on_stage_user);
    st = pl__prover_synthesize(c->prover, &abc, p->wtns, NULL, err);
    if (st == PL_OK)
        pl__stage_lap(&timer, "synthesize");
    pl__engine_stage_spans_of(e, NULL);
    if (st != PL_OK)
        return st;
    pl__prover_input(c->prover, &p->zkey_input, abc, p->wtns);
    p->input = &p->zkey_input;
    p->publics = pl_wtns_values(p->wtns) + 1;
    p->n_public = c->zkey->n_public;
    return PL_OK;
}

/* A proof that does not verify: the witness, unless the key or the
 * witness file changed on disk since it was read (a copy read while a
 * writer rewrote it, or paused mid-file), which is then blamed (PL_EIO,
 * exit 2). */
static void zkey_blame(const partition *p, pl_status *st, pl_error *err)
{
    const job *j = p->job;
    const pl_circuit *c = j->circuit;
    const char *file = NULL, *what = NULL;
    if (c->zkey->heap && !pl__file_still_holds(c->name, &c->zkey->map))
        file = c->name, what = "the key";
    else if (j->paths && pl_wtns_file_changed(p->wtns))
        file = j->paths[p->index], what = "the witness";
    if (file) {
        *st = pl__error_set(err, PL_EIO, "%s: %s changed on disk after it "
                            "was read: the proof of partition %zu of job "
                            "%llu, made with the bytes read, does not verify "
                            "and is not written; run again once the file is "
                            "complete", file, what, p->index,
                            (unsigned long long)j->id);
        return;
    }
    *st = pl__error_set(err, PL_EINVALID,
                        "%s%sthe proof does not verify with the key's "
                        "verification key (partition %zu of job %llu): the "
                        "witness does not satisfy the circuit "
                        "(--check-witness names the constraint) or the key "
                        "is damaged (--check-params)",
                        j->paths ? j->paths[p->index] : "",
                        j->paths ? ": " : "", p->index,
                        (unsigned long long)j->id);
}

static void zkey_release(partition *p)
{
    pl__free(p->zkey_input.abc); /* when start did not take it */
    memset(&p->zkey_input, 0, sizeof(p->zkey_input));
    pl_wtns_close(p->wtns);
    p->wtns = NULL;
    p->extra_live = 0;
}

const pl__kind_ops pl__kind_zkey = {
    .name = "zkey",
    .identify = zkey_identify,
    .matches = zkey_matches,
    .build = zkey_build,
    .close = zkey_close,
    .extra_bytes = zkey_extra_bytes,
    .synthesize = zkey_synthesize,
    .blame = zkey_blame,
    .release = zkey_release,
};

/* ---- the public calls ----------------------------------------------------- */

pl_status pl_engine_open_circuit(pl_engine *e, pl_circuit **out,
                                 const char *zkey_path, const char *r1cs_path,
                                 pl_error *err)
{
    return pl_engine_open_circuit_checked(e, out, zkey_path, r1cs_path,
                                          false, err);
}

pl_status pl_engine_open_circuit_checked(pl_engine *e, pl_circuit **out,
                                         const char *zkey_path,
                                         const char *r1cs_path,
                                         bool check_points, pl_error *err)
{
    zkey_args a = {zkey_path, r1cs_path, check_points};
    return pl__engine_open(e, out, &pl__kind_zkey, &a, err);
}

pl_status pl_engine_submit(pl_engine *e, uint64_t *job_id,
                           const pl_job_spec *spec, pl_error *err)
{
    *job_id = 0;
    int sources = !!spec->witness_paths + !!spec->witnesses + !!spec->generate;
    if (!spec->circuit || spec->n_partitions == 0 || sources != 1)
        return pl__error_set(err, PL_EUSAGE, "engine: a job needs a circuit "
                             "and its witnesses: as files, in memory or "
                             "generated (exactly one of them)");
    if (spec->circuit->kind != &pl__kind_zkey)
        return pl__error_set(err, PL_EUSAGE, "engine: a circuit of C2 "
                             "parameters proves bellperson's assignments: "
                             "submit them with pl_engine_submit_c2");
    if (spec->check_witness && !spec->circuit->r1cs)
        return pl__error_set(err, PL_EUSAGE, "engine: checking witnesses "
                             "needs the circuit opened with its .r1cs");
    /* A partition that can never be admitted fails the job here, not in a
     * wait: each one's reservation against the budget less what the open
     * circuits hold (a witness file that cannot be read fails its
     * partition at admission, as before). */
    uint64_t planned = 0;
    for (size_t i = 0; i < spec->n_partitions; i++) {
        pl__sched_reservation r;
        uint64_t wb;
        if (witness_bytes(spec, i, &wb, NULL) != PL_OK)
            continue;
        pl__sched_reservation_for(&r, &spec->circuit->plan, wb);
        if (!pl__engine_can_fit(e, r.total))
            return pl__engine_never_fits(e, 0, i, r.total, err);
        if (r.total > planned)
            planned = r.total;
        if (!spec->witness_paths)
            break; /* the others are the same size */
    }
    job *j = calloc(1, sizeof(*j));
    if (!j)
        return pl__error_set(err, PL_ENOMEM, "engine: out of memory");
    j->spec = *spec;
    j->circuit = spec->circuit;
    j->n_partitions = spec->n_partitions;
    j->priority = spec->priority;
    j->device_mask = spec->device_mask;
    j->verify = spec->verify;
    j->on_proof = spec->on_proof;
    j->on_proof_user = spec->on_proof_user;
    j->plan = spec->circuit->plan;
    j->planned = planned;
    if (spec->witness_paths) {
        j->paths = calloc(spec->n_partitions, sizeof(char *));
        for (size_t i = 0; j->paths && i < spec->n_partitions; i++)
            if (!(j->paths[i] = strdup(spec->witness_paths[i]))) {
                pl__engine_job_free(j);
                return pl__error_set(err, PL_ENOMEM, "engine: out of memory");
            }
        if (!j->paths) {
            pl__engine_job_free(j);
            return pl__error_set(err, PL_ENOMEM, "engine: out of memory");
        }
        j->spec.witness_paths = (const char *const *)j->paths;
    }
    return pl__engine_enqueue(e, j, job_id, err);
}
