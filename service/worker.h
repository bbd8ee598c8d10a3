/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The service's worker: one thread that moves partitions from the durable
 * store into the one engine and their proofs back.  It claims (a lease
 * with its owner id and a fence) only what fits the room left under the
 * engine's budget, submits each claim as an engine job of one partition
 * naming the witness file (mapped only when the engine admits it), renews
 * its leases, writes each proof pair under DATA/proofs/ through the one
 * output path, and only then records the completion.  Used by cmd_serve.c
 * (start, drain, destroy) and server.c (kick, cancel, status).
 *
 * Lock order: the worker's lock, then the engine's (submit and cancel are
 * called under it, so a proof delivered at once finds its claim); the
 * store is never called under the worker's lock.
 */
#ifndef PL_SERVICE_WORKER_H
#define PL_SERVICE_WORKER_H

#include "service.h"
#include "util/file.h"

/* Recovers the claims a previous run of this owner left (a crash), then
 * starts the claim loop. */
pl_status pl__worker_start(pl__worker **out, pl__service *svc, pl_error *err);
/* The engine's on_event (user: the service): the record goes to the
 * metrics, and the end of a partition wakes the loop at once, so that its
 * bytes are claimed again without waiting for the loop's next tick. */
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
/* The worker as a JSON array (status: /v1/status "workers"). */
void pl__worker_status_json(pl__worker *w, pl__strbuf *sb);
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
