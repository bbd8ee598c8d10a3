/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The planner: the engine's pipeline (admission under the byte budget,
 * pw synthesis workers, the bounded hand-off, prover workers, the
 * finisher) run as a discrete-event simulation on a simulated clock, at
 * any scale, allocating nothing but its own small records.  Every decision
 * is one of the engine's own (src/engine/sched.h: admission order, a
 * partition's reservation and when it comes back, can-fit, hand-off and
 * finishing room, when a synthesis worker is free), and the bytes are the
 * plan that admission reserves (pl__prover_plan), so a plan and a run can
 * be compared record by record: the planner emits the ledger's records
 * (pl__ledger_record_given, with simulated times), and the ledger's
 * report, trace and plot render a plan as they render a run.
 *
 * What is modelled rather than decided: stage durations (a caller's
 * function: a costs profile, or fixed values in the exactness test) and
 * host memory (baseline + the live bytes of each class as the prover
 * allocates and frees them at its stages; the buffers start allocates and
 * frees inside itself are counted from prove_start to abc_freed, so the
 * model's peak is an upper bound of the sampled one).
 *
 * Called by `proofline plan` (cli/cmd_plan.c) and the tests.  It never
 * runs a proof and never touches the engine's threads.
 */
#ifndef PL_PLAN_H
#define PL_PLAN_H

#include "proofline.h"
#include "engine/sched.h"
#include "groth16/prover.h"
#include "ledger/ledger.h"

/* What a plan needs of a circuit: the zkey's header. */
typedef struct pl__plan_shape {
    uint32_t n_vars, n_public, domain_size, n_coefs;
    pl__curve curve; /* the points' sizes (0: BLS12-381) */
} pl__plan_shape;

/* The shape of constraints, publics and A+B terms per constraint (the
 * density); wires = constraints (one per constraint, about what circom's
 * and bellperson's circuits have).  PL_EUSAGE naming the field when it is
 * out of the zkey format's range (domain above 2^28). */
pl_status pl__plan_shape_of(pl__plan_shape *out, uint64_t constraints,
                            uint64_t publics, double density, pl_error *err);
/* A zkey's shape, from its header. */
void pl__plan_shape_of_zkey(pl__plan_shape *out, const pl_zkey *zkey);
/* The size of a snarkjs zkey of this shape (its sections, as the writer
 * lays them out; a few hundred bytes of headers are estimated). */
uint64_t pl__plan_zkey_file_bytes(const pl__plan_shape *shape);

/* A circuit's bytes as the engine reserves them. */
typedef struct pl__plan_bytes {
    pl__prove_plan prove; /* one proof's, by class, and the prover's resident */
    uint64_t witness;     /* one partition's witness */
    uint64_t key;         /* the key, read whole at open (class params) */
    uint64_t csr;         /* the matrices: part of prove.resident_bytes */
    uint64_t vkey;        /* the verification key (class params) */
    /* the backend's share of prove.bytes[msm_scratch] (the G1 sums, after
     * a/b/c are freed); the rest is the G2 sum's, from the start on */
    uint64_t msm_g1_scratch;
    /* per GPU, with a backend that proves on one: its buffers less the
     * MSM's sort scratch (the backend's device_bytes); 0 on the CPU */
    uint64_t device;
} pl__plan_bytes;

/* key_bytes: the key file's size (0: the shape's, pl__plan_zkey_file_bytes);
 * witness_bytes: a partition's witness (0: nVars scalars, a generated one). */
void pl__plan_bytes_for(pl__plan_bytes *out, const pl__plan_shape *shape,
                        const pl__backend_ops *backend, unsigned threads,
                        uint64_t key_bytes, uint64_t witness_bytes);
/* What the engine reserves when it opens the circuit (key, the prover's
 * tables, the verification key). */
uint64_t pl__plan_resident(const pl__plan_bytes *bytes);
/* One partition's reservation (pl__sched_reservation_for). */
void pl__plan_reservation(pl__sched_reservation *out,
                          const pl__plan_bytes *bytes);

/* The stages whose durations a caller gives. */
typedef enum {
    PL__PLAN_SYNTH,  /* admitted -> synth_done: witness, a/b/c */
    PL__PLAN_PROVE,  /* prove_start -> abc_freed: H, the G1 sums */
    PL__PLAN_FINISH, /* the finisher: G2 joined, blinded, delivered */
    PL__PLAN_STAGES
} pl__plan_stage;

/* What is running when a stage starts (it included), for cost models that
 * share the cores: counts, and for each other running stage its kind and
 * the seconds it still has to run. */
#define PL__PLAN_MAX_RUNNING 256
typedef struct pl__plan_load {
    unsigned synthesizing, proving, finishing;
    size_t n_running;
    pl__plan_stage running[PL__PLAN_MAX_RUNNING];
    double remaining[PL__PLAN_MAX_RUNNING];
} pl__plan_load;

/* Seconds of `stage` for partition `partition` of job `job` (1-based). */
typedef double (*pl__plan_duration_fn)(void *user, pl__plan_stage stage,
                                       uint64_t job, size_t partition,
                                       const pl__plan_load *load);

typedef struct pl__plan_config {
    pl__plan_bytes bytes;
    /* budget_bytes, synth_workers, prover_workers, handoff_slots; 0s are
     * the engine's defaults (pl__sched_config_complete, with memory_bytes
     * as the memory limit) */
    pl_engine_config engine;
    pl__sched_policy policy;
    uint64_t memory_bytes;   /* the machine's: beyond it, out of memory (0: no limit) */
    uint64_t baseline_bytes; /* RssAnon before any work (the process itself) */
    size_t jobs, partitions; /* jobs of `partitions` each */
    double arrival_seconds;  /* between two jobs' arrivals; 0: all at once */
    pl__plan_duration_fn duration;
    void *duration_user;
    pl__ledger *ledger;      /* the records go here; NULL: none */
} pl__plan_config;

typedef struct pl__plan_result {
    bool out_of_memory;
    double oom_seconds;                /* when */
    uint64_t oom_memory_bytes;         /* what the allocation would have made */
    uint64_t oom_stage_now[PL_STAGE_COUNT];
    pl_buffer_class oom_class;         /* the largest class then */
    pl_event oom_event;                /* the allocation's stage: synth_start
                                          or prove_start */
    double wall_seconds;               /* the last event (or the OOM) */
    size_t proved, jobs_done;
    uint64_t budget_bytes;             /* as completed */
    uint64_t resident_bytes, partition_bytes;
    uint64_t peak_reserved_bytes;
    uint64_t peak_memory_bytes;        /* host: baseline + the classes */
    uint64_t peak_class_bytes[PL_BUF_CLASS_COUNT];
    /* at the memory's peak: bytes held by the partitions in each stage */
    uint64_t peak_memory_by_stage[PL_STAGE_COUNT];
    uint64_t stage_peak[PL_STAGE_COUNT];
    /* the queues over time: the most partitions waiting (synthesized, not
     * yet taken by a prover) and in flight in each of PL_PLAN_QUEUE_BINS
     * bins of queue_bin_seconds from t = 0 (the bins widen, two merged into
     * one, as the plan runs longer) */
    double queue_bin_seconds;
    uint64_t queue_waiting[PL_PLAN_QUEUE_BINS];
    uint64_t queue_in_flight[PL_PLAN_QUEUE_BINS];
    double busy_seconds[PL__PLAN_STAGES]; /* work done, summed */
    uint64_t runs[PL__PLAN_STAGES];       /* stages started */
    unsigned servers[PL__PLAN_STAGES];    /* pw, prover workers, 1 */
    uint64_t events;
} pl__plan_result;

/* Runs the plan.  PL_EBUDGET (naming the bytes) when a partition, or the
 * circuit's resident bytes, can never fit the budget, as the engine's
 * submission would fail; PL_ENOMEM when the simulation's own records
 * cannot be allocated.  An out-of-memory machine is a result, not an
 * error. */
pl_status pl__plan_run(pl__plan_result *out, const pl__plan_config *cfg,
                       pl_error *err);

#endif /* PL_PLAN_H */
