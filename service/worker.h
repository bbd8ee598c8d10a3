/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The service's worker: one thread that moves partitions from the durable
 * store into the one engine and their proofs back.  It claims (a lease
 * with its owner id and a fence) only what its engine can admit now: the
 * room the engine reports (its committed bytes, pl_engine_stats) fits the
 * partition, and no claim of it is still waiting for admission; tells the
 * store when a claim's proof starts (the engine admitted it), so that a
 * restart charges an attempt only to partitions that were proving; writes
 * each proof pair under DATA/proofs/ through the one output path, and only
 * then records the completion.  An outcome the store cannot record (a full
 * disk, a store gone read-only) is kept and recorded, or the claim given
 * back, as soon as the store writes again; meanwhile nothing new is
 * claimed.  Used by service.c (start, drain, destroy) and http/ (kick,
 * cancel, status).
 *
 * Lock order: the worker's lock, then the engine's (submit and cancel are
 * called under it, so a proof delivered at once finds its claim); the
 * store is never called under the worker's lock.
 */
#ifndef PL_SERVICE_WORKER_H
#define PL_SERVICE_WORKER_H

#include "service.h"
#include "formats/json.h"
#include "util/file.h"

/* Where a claimed partition is, from its claim to its record: each claim
 * of the worker is in exactly one of these. */
#define PL__FLIGHT_STAGE_MAP(X)                                               \
    X(PL__FLIGHT_CLAIMED, "claimed")     /* its circuit made hot */           \
    X(PL__FLIGHT_QUEUED, "queued")       /* in the engine, not admitted */    \
    X(PL__FLIGHT_ADMITTED, "admitted")                                        \
    X(PL__FLIGHT_SYNTH, "synth")                                              \
    X(PL__FLIGHT_WAITING, "waiting")                                          \
    X(PL__FLIGHT_PROVING, "proving")                                          \
    X(PL__FLIGHT_FINISHING, "finishing")                                      \
    X(PL__FLIGHT_RECORDING, "recording") /* out of the engine: its outcome    \
                                            to the store */

typedef enum {
#define PL__FLIGHT_STAGE_ENUM(name, label) name,
    PL__FLIGHT_STAGE_MAP(PL__FLIGHT_STAGE_ENUM)
#undef PL__FLIGHT_STAGE_ENUM
    PL__FLIGHT_STAGE_COUNT
} pl__flight_stage;

const char *pl__flight_stage_name(pl__flight_stage s);

/* Recovers the claims a previous run of this owner left (a crash), then
 * starts the claim loop. */
pl_status pl__worker_start(pl__worker **out, pl__service *svc, pl_error *err);
/* The engine's on_event (user: the service): the record goes to the
 * metrics and moves its claim's stage; an admission or the end of a
 * partition wakes the loop at once. */
void pl__worker_on_event(void *user, const pl_ledger_record *record);
/* Wakes the loop: a job became queued. */
void pl__worker_kick(pl__worker *w);
/* Stops the engine's work on the partitions of job_id (cancelled in the
 * store already). */
void pl__worker_cancel_job(pl__worker *w, const char *job_id);
/* Stops claiming, lets the partitions in flight finish until timeout_s,
 * then cancels the rest and gives their claims back to the queue; joins
 * the loop.  Returns how many were given back. */
size_t pl__worker_drain(pl__worker *w, double timeout_s);
void pl__worker_destroy(pl__worker *w);

/* The most partitions one worker holds in flight. */
#define PL__WORKER_MAX_FLIGHTS 32

/* One claim of the worker as the figures show it. */
typedef struct pl__worker_claim_view {
    char job[PL__STORE_JOB_ID_LEN + 1];
    uint32_t index;
    pl__flight_stage stage;
    char circuit[PL__STORE_ID_LEN + 1];
    char curve[PL__STORE_CURVE_LEN + 1]; /* "" while not known */
} pl__worker_claim_view;

/* The worker as the figures read it, all of it at one moment (one hold of
 * the worker's lock), so that a reply's stage counts and its list of
 * partitions always agree. */
typedef struct pl__worker_view {
    const char *state;            /* "idle", "busy", "draining" */
    size_t in_flight;
    uint64_t claimed, completed, failed, released;
    uint64_t stages[PL__FLIGHT_STAGE_COUNT]; /* sums to in_flight */
    size_t unrecorded;            /* outcomes waiting for the store */
    char last_error[PL__STORE_MSG_MAX];
    pl__worker_claim_view claims[PL__WORKER_MAX_FLIGHTS]; /* in_flight of them */
} pl__worker_view;
void pl__worker_view_read(pl__worker *w, pl__worker_view *out);
/* A view's claims, each with its stage, as a JSON array of
 * {"job", "index", "stage", "circuit", "curve"} (curve null while not
 * known). */
void pl__worker_partitions_json(const pl__worker_view *v, pl__jw *jw);
/* The stage of (job, index) if this worker holds its claim; NULL when it
 * does not. */
const char *pl__worker_stage_of(pl__worker *w, const char *job_id,
                                uint32_t index);

/* A proof's public.json: beside it, "x.proof.json" -> "x.public.json"
 * (false when the path does not end so, or out is too small).  Read from
 * the proof's recorded path, not from DATA: in a cluster another worker
 * wrote it, under its own DATA. */
bool pl__worker_public_path(const char *proof_path, char *out, size_t cap);
/* The paths of partition k's proof pair under DATA/proofs/. */
void pl__worker_proof_paths(const pl__service *svc, const char *job_id,
                            uint32_t index, char *proof_path,
                            char *public_path, size_t cap);

#endif /* PL_SERVICE_WORKER_H */
