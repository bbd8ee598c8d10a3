/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Inside the store: the table of operations every implementation fills
 * (SQLite in store_sqlite.c, PostgreSQL in store_postgres.c), and what
 * they share.  store.c checks the arguments every implementation would
 * check the same way (lengths, ranges, NULLs) before it dispatches, so an
 * implementation receives only well-formed ones: ids and paths that fit
 * the fixed arrays of store.h, a valid priority, a positive lease.
 *
 * Only store.c and the implementations include this header; the server
 * sees store.h alone.
 */
#ifndef PL_SERVICE_STORE_IMPL_H
#define PL_SERVICE_STORE_IMPL_H

#include "store.h"

/* The schema version this build writes (both implementations keep the
 * same tables, so one number).  1: circuits, jobs, partitions.  2: adds
 * attempts (every failure kept) and workers (the cluster's view), an
 * index of the live claims by owner (heartbeats), and partitions.claim_id
 * (PostgreSQL's claim token).  3: adds jobs.deadline_ms (0: none). */
#define PL__STORE_SCHEMA_VERSION 3

/* Partition and job states as they are stored: the labels of the state
 * maps ("queued", "claimed"...), so that an operator reading the tables,
 * or a program submitting straight into them, sees words. */

typedef struct pl__store_ops {
    const char *name; /* "sqlite", "postgres" */
    void (*close)(pl__store *store);
    pl_status (*circuit_put)(pl__store *store, const pl__store_circuit *c,
                             pl_error *err);
    pl_status (*circuit_get)(pl__store *store, const char *id,
                             pl__store_circuit *out, pl_error *err);
    /* Listings, a page at a time: at most PL__STORE_LIST_PAGE rows after
     * the cursor, in the listing's order, read under the store's lock (or
     * in one transaction) into rows, *n of them.  store.c walks the pages
     * and calls the caller back between them, with no lock held. */
    pl_status (*circuit_page)(pl__store *store, const char *after_id,
                              pl__store_circuit *rows, size_t *n,
                              pl_error *err);
    pl_status (*job_create)(pl__store *store, const char *circuit_id,
                            pl__priority priority, uint32_t n_partitions,
                            pl__store_job *out, pl_error *err);
    /* created NULL: the id is new (random); otherwise an existing job of
     * that id is returned as it is, *created false. */
    pl_status (*job_create_with_id)(pl__store *store, const char *id,
                                    const char *circuit_id,
                                    pl__priority priority,
                                    uint32_t n_partitions, pl__store_job *out,
                                    bool *created, pl_error *err);
    pl_status (*witness_stored)(pl__store *store, const char *job_id,
                                uint32_t index, const char *witness_path,
                                pl__store_job *job_out, pl_error *err);
    pl_status (*job_get)(pl__store *store, const char *job_id,
                         pl__store_job *out, pl_error *err);
    pl_status (*partitions)(pl__store *store, const char *job_id,
                            pl__store_partition *out, size_t cap,
                            size_t *count, pl_error *err);
    /* newest first: the jobs whose seq is below before_seq; state < 0:
     * every state */
    pl_status (*job_page)(pl__store *store, int state, int64_t before_seq,
                          pl__store_job *rows, size_t *n, pl_error *err);
    /* Cancels (fail_msg NULL) or fails the job. */
    pl_status (*job_end)(pl__store *store, const char *job_id,
                         const char *fail_msg, bool *changed, pl_error *err);
    pl_status (*job_set_deadline)(pl__store *store, const char *job_id,
                                  int64_t deadline_unix_ms, pl_error *err);
    pl_status (*claim_next)(pl__store *store, const char *owner,
                            uint64_t max_bytes, int64_t lease_ms,
                            pl__store_claim *out, bool *found,
                            pl_error *err);
    pl_status (*heartbeat)(pl__store *store, const char *owner,
                           int64_t lease_ms, pl_error *err);
    pl_status (*claim_live)(pl__store *store, const char *job_id,
                            uint32_t index, const char *owner, uint64_t fence,
                            bool *live, pl_error *err);
    /* *job_done: this completion made the job done (decided inside the
     * completion's transaction, so two workers finishing a job's last
     * partitions at once do not both say so). */
    pl_status (*complete)(pl__store *store, const char *job_id, uint32_t index,
                          const char *owner, uint64_t fence,
                          const char *proof_path, bool *job_done,
                          pl_error *err);
    /* retry: requeue unless the partition's failures reach
     * max_attempts (this one counted). */
    pl_status (*fail)(pl__store *store, const char *job_id, uint32_t index,
                      const char *owner, uint64_t fence, const char *msg,
                      bool retry, uint32_t max_attempts, bool *requeued,
                      pl_error *err);
    pl_status (*attempts)(pl__store *store, const char *job_id,
                          pl__store_attempt *out, size_t cap, size_t *count,
                          pl_error *err);
    /* register (fresh true) or heartbeat (lease_ms > 0: claims too). */
    pl_status (*worker_put)(pl__store *store, const pl__store_worker *w,
                            bool fresh, int64_t lease_ms, pl_error *err);
    pl_status (*worker_gone)(pl__store *store, const char *id,
                             pl_error *err);
    pl_status (*worker_page)(pl__store *store, const char *after_id,
                             pl__store_worker *rows, size_t *n,
                             pl_error *err);
    pl_status (*release)(pl__store *store, const char *job_id, uint32_t index,
                         const char *owner, uint64_t fence, pl_error *err);
    /* Each claim taken back is a failed attempt (see fail). */
    pl_status (*recover)(pl__store *store, const char *owner,
                         uint32_t max_attempts, uint64_t *requeued,
                         pl_error *err);
    pl_status (*counts_read)(pl__store *store, pl__store_counts *out,
                             pl_error *err);
    pl_status (*purge)(pl__store *store, int64_t cutoff_unix_ms,
                       pl__store_path_fn fn, void *user, uint64_t *removed,
                       pl_error *err);
} pl__store_ops;

/* The head of every implementation's handle. */
struct pl__store {
    const pl__store_ops *ops;
    int schema_version; /* the one the store holds, once open */
    uint32_t max_attempts;
};

/* dir: the folder (created, mode 0700, if absent); the database is
 * dir/store.sqlite.  Both opens migrate the schema up to target (1..
 * PL__STORE_SCHEMA_VERSION) and tell the version found in *before (0: a
 * new store). */
pl_status pl__store_sqlite_open(pl__store **out, const char *dir,
                                int target, int *before, pl_error *err);
/* conninfo: a libpq connection URI ("postgres://..." or
 * "postgresql://..."). */
pl_status pl__store_postgres_open(pl__store **out, const char *conninfo,
                                  int target, int *before, pl_error *err);

/* A failure's message as it is kept: cut to PL__STORE_MSG_MAX - 1 bytes
 * on a character boundary, and made valid UTF-8. */
void pl__store_message(char cut[PL__STORE_MSG_MAX], const char *msg);

/* Shared helpers. */
int64_t pl__store_now_ms(void);
/* A random version 4 UUID, 36 characters and a NUL (getrandom). */
pl_status pl__store_new_job_id(char out[PL__STORE_JOB_ID_LEN + 1],
                               pl_error *err);
/* A stored state label back to its enum; false for an unknown label. */
bool pl__job_state_parse(pl__job_state *out, const char *label);
bool pl__part_state_parse(pl__part_state *out, const char *label);
/* Copies text (NULL: "") into a fixed array, cut to fit. */
void pl__store_copy(char *dst, size_t cap, const char *text);

/* The files a purge forgets, gathered in its transaction and told to the
 * caller only after the commit (so a record never names a missing file). */
typedef struct pl__store_paths {
    char **v;
    size_t n, cap;
} pl__store_paths;
/* Adds a copy of path ("" is skipped); false when out of memory. */
bool pl__store_paths_add(pl__store_paths *l, const char *path);
/* Drops the paths after the first keep (a retried transaction: 0). */
void pl__store_paths_truncate(pl__store_paths *l, size_t keep);
void pl__store_paths_free(pl__store_paths *l);

/* How many rows a listing reads per lock (the callbacks run between
 * pages, with no lock held, so they may call the store). */
#define PL__STORE_LIST_PAGE 32

#endif
