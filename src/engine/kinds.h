/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The engine's insides that its proof kinds share with it (engine.c, the
 * pipeline; kind_zkey.c, snarkjs zkeys and witnesses; kind_c2.c,
 * bellperson's parameters and assignments): the circuit, job and
 * partition records, and the small table of what differs per kind.
 *
 * Everything between a partition's synthesis and its delivery is one path
 * for every kind: the skeleton's start (groth16/prover.h) on a prover
 * worker with a/b/c's share released at their free, the skeleton's finish
 * on the finisher, the proof verified against the circuit's verification
 * key before it is delivered, the same ledger events and the same
 * reservations.  A kind says how a circuit of it is opened and how a
 * partition's proof input is made:
 *
 *   identify    what a new circuit is (its name and whatever matches
 *               reads), set before the circuit is published, under the
 *               engine's lock: a second open reads it while the first
 *               builds;
 *   matches     whether an open circuit is the one a new open asks for
 *               (it is then shared, through the one open protocol);
 *   build       opens the key and its prover (engine helpers below: the
 *               resident bytes reserved first, the backend with its
 *               fallback) and the verification key;
 *   close       frees what build made;
 *   extra_bytes a partition's bytes beyond the circuit's plan, known at
 *               admission (a witness file's size);
 *   synthesize  on a synthesis worker: the partition's proof input (its
 *               a, b, c, its sums' scalars, its blinding) and its public
 *               inputs;
 *   blame       the message for a proof that did not verify;
 *   release     at retire: frees the kind's state of the partition.
 *
 * Lock rules are engine.c's (its top comment); a kind's functions run
 * without the engine's lock unless their name ends in _locked.
 */
#ifndef PL_ENGINE_KINDS_H
#define PL_ENGINE_KINDS_H

#include "proofline.h"
#include "proofline_c2.h"
#include "engine/sched.h"
#include "groth16/c2.h"
#include "groth16/prover.h"
#include "groth16/zkey_prover.h"

#include <stdatomic.h>

typedef struct job job;
typedef struct partition partition;
typedef struct pl__kind_ops pl__kind_ops;

struct pl_circuit {
    pl_engine *engine;
    const pl__kind_ops *kind;
    char *name;                     /* the key's file, for messages */
    /* the provers the skeleton runs, one per device of the engine that
     * could take the circuit (NULL where one could not; the zkey's first
     * inside its pl_prover), on backend; skeleton: the first of them (its
     * key); the key to verify with */
    pl__groth16_prover *skeletons[PL_MAX_DEVICES];
    pl__groth16_prover *skeleton;
    const pl__backend_ops *backend;
    const pl_vkey *vkey;
    pl__prove_plan plan;            /* one partition's bytes */
    uint64_t resident_reserved;
    pl_r1cs *r1cs; /* the circuit's r1cs, when opened with one */
    /* the zkey kind's */
    pl_zkey *zkey;
    pl_prover *prover;
    pl_vkey *own_vkey;
    /* opened with an r1cs (c->r1cs: a zkey's witness checks, the C2
     * kind's assignments from witnesses) */
    bool wants_r1cs;
    /* its points checked when it was read: the C2 kind's own parameter
     * file, the zkey kind's key (pl_engine_open_circuit_checked) */
    bool points_checked;
    /* the C2 kind's: the caller's SRS, which outlives the circuit (also
     * given_srs, what matches reads), or one the circuit read from a
     * parameter file (own_srs: freed with it) */
    const pl_c2_srs *srs;
    const pl_c2_srs *given_srs;
    pl_c2_srs *own_srs;
    /* under engine->lock: */
    int refs;
    bool opening;            /* being built by the thread that published it */
    pl_status open_status;   /* its outcome, for opens that waited on it */
    pl_error open_error;
    pl_circuit *next;
};

struct partition {
    job *job;
    size_t index;
    uint64_t reserved;  /* bytes of the budget this partition still holds */
    pl__sched_reservation res; /* what it reserved, and the abc share */
    uint64_t extra_reserved;   /* the kind's extra bytes (a witness file's) */
    uint64_t extra_live;       /* of them, what its buffers hold now */
    /* what synthesis made, start consumes and finish reads */
    pl__proof_input *input;
    const pl_scalar *publics;
    size_t n_public;
    pl_pending *pending;
    /* the zkey kind's: its witness, its synthesized input */
    pl_wtns *wtns;
    pl__proof_input zkey_input;
    /* the C2 kind's: its assignment when synthesized here (and whether it
     * was, so release is owed), its input */
    pl_c2_assignment c2_as;
    bool c2_synthesized;
    pl__c2_input c2_input;
    pl_stage stage;
    partition *next;
};

struct job {
    uint64_t id;
    pl_circuit *circuit;
    /* what every kind's job says, read by the pipeline */
    size_t n_partitions;
    int priority;
    uint32_t device_mask;  /* the devices it may be proved on (0: any) */
    bool verify;
    pl_proof_fn on_proof;
    void *on_proof_user;
    /* the kind's own request */
    pl_job_spec spec;      /* the zkey kind's */
    char **paths;          /* our copies of spec.witness_paths */
    pl_c2_job_spec c2;     /* the C2 kind's */
    /* what each partition reserves: its circuit's plan, plus for a C2 job
     * that synthesizes its assignments, their bytes */
    pl__prove_plan plan;
    size_t next_to_admit;  /* under engine->lock */
    /* committed_bytes' share: each partition's planned bytes as submitted
     * (the largest witness), and how many were admitted (under lock) */
    uint64_t planned;
    size_t admitted;
    atomic_bool stopped;   /* failed or cancelled: drop what is in flight */
    pl_status status;      /* first failure; under engine->lock */
    pl_error error;
    size_t proved, verified, failed, skipped;
    /* partitions counted above whose last event is not yet recorded: the
     * job is not done before they are, so that a waiter finds every event
     * of the job in the ledger */
    unsigned retiring;
    bool done;
    job *next;
};

struct pl__kind_ops {
    const char *name;
    pl_status (*identify)(pl_circuit *c, const void *args, pl_error *err);
    bool (*matches)(const pl_circuit *c, const void *args);
    pl_status (*build)(pl_engine *e, pl_circuit *c, const void *args,
                       pl_error *err);
    void (*close)(pl_circuit *c);
    pl_status (*extra_bytes)(const job *j, size_t index, uint64_t *out,
                             pl_error *err);
    pl_status (*synthesize)(pl_engine *e, partition *p, pl_error *err);
    void (*blame)(const partition *p, pl_status *st, pl_error *err);
    void (*release)(partition *p);
};

extern const pl__kind_ops pl__kind_zkey;
extern const pl__kind_ops pl__kind_c2;

/* ---- what engine.c lends the kinds -------------------------------------- */

/* Opens a circuit of a kind through the one open protocol: an open circuit
 * the kind matches with args is shared (a second open of one being built
 * waits for the first), else a new one is published and built. */
pl_status pl__engine_open(pl_engine *e, pl_circuit **out,
                          const pl__kind_ops *kind, const void *args,
                          pl_error *err);
/* Queues a job (its fields filled, the circuit's reference not yet
 * taken); frees it when the engine is shutting down, or when none of the
 * devices its mask allows has the circuit (PL_EUSAGE). */
pl_status pl__engine_enqueue(pl_engine *e, job *j, uint64_t *job_id,
                             pl_error *err);
/* PL_EBUDGET when a partition of `bytes` can never be admitted, with the
 * numbers and the smallest budget that works (job_id 0: not queued yet). */
pl_status pl__engine_never_fits(pl_engine *e, uint64_t job_id, size_t index,
                                uint64_t bytes, pl_error *err);
bool pl__engine_can_fit(pl_engine *e, uint64_t bytes);
void pl__engine_job_free(job *j);
/* Reserves bytes the circuit keeps resident, before they are allocated
 * (PL_EBUDGET naming what and the numbers when they do not fit). */
pl_status pl__engine_reserve_resident(pl_engine *e, pl_circuit *c,
                                      uint64_t bytes, const char *what,
                                      pl_error *err);
/* The circuit's r1cs (c->r1cs), the way every kind reads one: read whole
 * (class csr: immune to later changes of the file; one that grew since it
 * was sized is refused), its bytes reserved as resident first. */
pl_status pl__engine_load_r1cs(pl_engine *e, pl_circuit *c, const char *path,
                               pl_error *err);
/* The provers of a circuit's key on the engine's backend, the way every
 * kind opens them: the plan of the backend chosen (plan(c, backend,
 * threads, out)); then for each of the engine's devices, its resident
 * bytes reserved and a prover created (create(c, backend, cfg, err), with
 * cfg->device the device, which sets c->skeletons[cfg->device]): a device
 * that cannot take it (its memory, a fault) is left out, said in one log
 * line; when none can and the engine has a fallback (it was created with
 * "auto"), the same on the fallback's one device.  c->backend, c->plan
 * and c->skeleton (the first) are set. */
pl_status pl__engine_open_prover(
    pl_engine *e, pl_circuit *c,
    void (*plan)(const pl_circuit *c, const pl__backend_ops *backend,
                 unsigned threads, pl__prove_plan *out),
    pl_status (*create)(pl_circuit *c, const pl__backend_ops *backend,
                        const pl_prover_config *cfg, pl_error *err),
    pl_error *err);
/* The engine's configuration, as a kind reads it. */
const pl_engine_config *pl__engine_config(const pl_engine *e);
/* Until the next call, the stages this thread reports (through the stage
 * sink of util/clock.h) are spans of partition p's; NULL: of none. */
void pl__engine_stage_spans_of(pl_engine *e, const partition *p);

#endif /* PL_ENGINE_KINDS_H */
