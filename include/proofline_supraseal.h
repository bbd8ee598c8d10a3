/* SPDX-License-Identifier: Apache-2.0 */
/*
 * proofline_supraseal.h: libproofline_supraseal, SupraSeal C2's C ABI over
 * proofline's engine, so that bellperson (feature cuda-supraseal) and
 * Curio's cuzk prove with proofline unchanged: the `extern "C"` symbols of
 * the `supraseal-c2` crate (Curio's fork: filecoin-project/curio
 * extern/supraseal-c2; or supranational/supra_seal c2, the upstream form)
 * with their argument layouts, and a few calls of ours (pl_supraseal_*)
 * for the engine behind them.  docs/filecoin.md says how a Filecoin build
 * links it (contrib/rust/supraseal-c2 is the crate) and who owns what.
 *
 * Two libraries are built from one source, because the two forms of
 * generate_groth16_proofs_c share a name and differ in arguments (no
 * symbol version or run-time test can tell a 6-argument call from an
 * 8-argument one):
 *  - libproofline_supraseal (the default; this header's form): Curio's,
 *    which cuzk and Curio's bellperson call: generate_groth16_proofs_c
 *    with gpu_mtx and gpu_index, the split start/finalize calls and the
 *    GPU mutex;
 *  - libproofline_supraseal_upstream (define PL_SUPRASEAL_UPSTREAM before
 *    including this header): supra_seal's, which bellperson 0.26 from
 *    crates.io calls: the 6-argument generate_groth16_proofs_c and the
 *    SRS calls, nothing else.
 * Both export exactly their crate's symbols and the pl_supraseal_ calls
 * (tests/cli_install.sh checks it with nm -D).
 *
 * Every call is a job of one long-lived engine inside the library (made
 * on first use, from pl_supraseal_configure's settings or else the
 * environment: PROOFLINE_SUPRASEAL_BUDGET, _BACKEND, _THREADS, _LOG,
 * _CHECK_PARAMS), through proofline's public API: an SRS is a parameter
 * file opened on it (pl_engine_open_c2_params: its bytes reserved in the
 * budget, shared by path), a call's assignments one C2 job of it
 * (pl_engine_submit_c2), one partition each, admitted under the budget;
 * every proof is verified before it is handed back.  The engine's ledger
 * lines and its summary go to stderr at its log level.
 *
 * Errors come back as the crate's error struct (sppark's RustError: a
 * code and a message the caller frees with free(3), as Rust's Drop for
 * it does); code 0 is success, else a pl_status (PL_EFORMAT for an
 * assignment that does not fit the SRS, PL_EIO for a parameter file that
 * cannot be read, PL_EBUDGET, PL_EUSAGE for a null or foreign pointer...)
 * and the message is never NULL.  No call aborts the process.
 */
#ifndef PROOFLINE_SUPRASEAL_H
#define PROOFLINE_SUPRASEAL_H

#include "proofline.h"
#include "proofline_c2.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define PL_SUPRASEAL_API __attribute__((visibility("default")))
#else
#define PL_SUPRASEAL_API
#endif

/* ---- SupraSeal's types, as the crate lays them out ----------------------- */

/* sppark's RustError::by_value, Rust's `cuda::Error` (sppark::Error): the
 * code (0: success) and a malloc'd NUL-terminated message, NULL on
 * success; the receiver frees it (free(3)).  Returned by value: two
 * eightbytes, in registers on x86-64. */
typedef struct pl_supraseal_error {
    int code;
    char *message;
} pl_supraseal_error;

/* The crate's `SRS { ptr: *const c_void }`: one pointer to a
 * reference-counted SRS (create_SRS makes one reference, clone_SRS
 * another, drop_SRS gives one back).  A null ptr is no SRS. */
typedef struct pl_supraseal_srs {
    const void *ptr;
} pl_supraseal_srs;

/* The crate's `Assignment<Scalar>` is pl_c2_assignment, field for field
 * (17 eightbytes: usize is size_t, a density word uint64_t, a Scalar
 * blstrs's 32 bytes in Montgomery form); only two names differ, the
 * crate's inp_assignment_data and aux_assignment_data being
 * inp_assignment and aux_assignment.  The library checks the offsets at
 * compile time and hands the caller's array to the engine as it is. */
typedef pl_c2_assignment pl_supraseal_assignment;

/* A proof as bellperson's Proof<Bls12> lies in memory (#[repr(C)] a, b,
 * c; blstrs's G1Affine and G2Affine are blst_p1_affine and
 * blst_p2_affine): pl_proof, 384 bytes. */
typedef pl_proof pl_supraseal_proof;

/* ---- the SRS -------------------------------------------------------------- */

/* Opens a parameter file on the library's engine (made now if it is not
 * yet) and sets *ret to a new reference.  cache: the SRS is kept in a
 * cache of the last four paths opened so (the cache holds a reference of
 * its own; evict_SRS drops it), and a second create of a cached path
 * returns it again; without cache a new SRS is made, though the engine
 * still shares one open of a path among them (one read of the file, one
 * reservation).  On failure *ret is { NULL }. */
PL_SUPRASEAL_API pl_supraseal_error create_SRS(pl_supraseal_srs *ret,
                                               const char *srs_path,
                                               bool cache);
/* Drops the cache's reference to this SRS's path (the SRS itself lives
 * while references remain). */
PL_SUPRASEAL_API void evict_SRS(const pl_supraseal_srs *by_ref);
/* Gives one reference back; the last one releases the engine's circuit
 * (its bytes go back to the budget once no job holds it).  A null ptr is
 * a no-op.  The handle is not written (Rust clears it). */
PL_SUPRASEAL_API void drop_SRS(const pl_supraseal_srs *by_ref);
/* A new reference to the same SRS ({ NULL } for a null or foreign one). */
PL_SUPRASEAL_API pl_supraseal_srs clone_SRS(const pl_supraseal_srs *by_ref);

/* ---- proving -------------------------------------------------------------- */
/*
 * provers[num_circuits]: bellperson's proving assignments (scalars in
 * Montgomery form, densities of 64-bit words); r_s and s_s: one blinding
 * pair each, Montgomery form (zero: unblinded); proofs: room for
 * num_circuits proofs.
 *
 * Ownership.  The caller's buffers are read, never freed.  a, b and c of
 * every assignment, the densities, the input assignments, r_s, s_s and the
 * provers array itself are read before generate_groth16_proofs_start_c
 * returns: from then on the caller may free them (bellperson drops a, b, c
 * there).  The auxiliary assignments are read until the proofs' sums end:
 * they must stay valid until finalize_groth16_proof_c or
 * destroy_pending_proof returns.  The library's own buffers (its copy of
 * each a, b, c, the transforms', the sums') are accounted and in the
 * budget; the caller's a, b and c are counted there too while they are
 * borrowed (reserved with their proof, given back at its abc_freed).
 *
 * The GPU mutex (create_gpu_mutex; NULL: none): SupraSeal serializes the
 * calls' device work with it.  Here the engine serializes each device
 * inside, so the mutex is held around the part of a start that feeds it:
 * taken before the job is submitted, given back when start returns (its
 * a, b, c all read), never by the engine's threads; two starts sharing
 * one reach the device in the order they took it.
 *
 * gpu_index: the engine's device gpu_index % devices (the engine proves
 * on every device its backend has; the CPU is one); -1 (or any negative)
 * lets the call's proofs spread over all of them.
 */
#ifndef PL_SUPRASEAL_UPSTREAM
PL_SUPRASEAL_API pl_supraseal_error generate_groth16_proofs_c(
    const pl_supraseal_assignment provers[], size_t num_circuits,
    const pl_scalar r_s[], const pl_scalar s_s[],
    pl_supraseal_proof proofs[], const pl_supraseal_srs *srs, void *gpu_mtx,
    int gpu_index);

/* Submits the proofs and returns when every assignment's a, b and c are
 * read, with *pending_out a handle for finalize or destroy; on failure
 * the job has ended (nothing of the caller's is read any more) and
 * *pending_out is NULL. */
PL_SUPRASEAL_API pl_supraseal_error generate_groth16_proofs_start_c(
    const pl_supraseal_assignment provers[], size_t num_circuits,
    const pl_scalar r_s[], const pl_scalar s_s[],
    const pl_supraseal_srs *srs, void *gpu_mtx, int gpu_index,
    void **pending_out);
/* Waits for the job and writes its num_circuits proofs, each verified;
 * consumes the handle in every case (proofs untouched on failure). */
PL_SUPRASEAL_API pl_supraseal_error finalize_groth16_proof_c(
    void *handle, pl_supraseal_proof proofs[]);
/* An abandoned handle: its job cancelled, waited for and freed.  NULL is
 * a no-op. */
PL_SUPRASEAL_API void destroy_pending_proof(void *handle);

/* A mutex for generate_groth16_proofs_c's gpu_mtx (one per GPU, shared by
 * the workers on it); NULL when out of memory. */
PL_SUPRASEAL_API void *create_gpu_mutex(void);
/* NULL is a no-op; a mutex still held is left allocated (a holder would
 * otherwise unlock freed memory). */
PL_SUPRASEAL_API void destroy_gpu_mutex(void *mtx);
#else
PL_SUPRASEAL_API pl_supraseal_error generate_groth16_proofs_c(
    const pl_supraseal_assignment provers[], size_t num_circuits,
    const pl_scalar r_s[], const pl_scalar s_s[],
    pl_supraseal_proof proofs[], const pl_supraseal_srs *srs);
#endif

/* ---- ours: the engine behind the calls ------------------------------------ */

typedef struct pl_supraseal_config {
    /* 0: PROOFLINE_SUPRASEAL_BUDGET ("64GiB", pl_parse_size), else the
     * engine's default (80% of the memory the process may use) */
    uint64_t budget_bytes;
    /* NULL: PROOFLINE_SUPRASEAL_BACKEND, else "auto" (CUDA where a
     * device answers, else the CPU) */
    const char *backend;
    /* 0: PROOFLINE_SUPRASEAL_THREADS, else one per online core */
    unsigned threads;
    unsigned synth_workers, prover_workers; /* 0: the engine's defaults */
    /* a call's ready assignments proved up to this many together
     * (pl_engine_config.batch, with a hand-off that holds them); 0:
     * PROOFLINE_SUPRASEAL_BATCH, else 1, one at a time (batches gain
     * nothing on a few cores: bench/README.md) */
    unsigned batch;
    /* PL_LOG_QUIET unless PROOFLINE_SUPRASEAL_LOG=info (one ledger line
     * per event, and the summary at pl_supraseal_shutdown and at exit) */
    pl_log_level log_level;
    FILE *log_stream;      /* NULL: stderr */
    pl_event_fn on_event;  /* optional, as pl_engine_config's */
    void *on_event_user;
    /* every parameter file's points checked when it is opened (proofline
     * --check-params; PROOFLINE_SUPRASEAL_CHECK_PARAMS=1) */
    bool check_params;
} pl_supraseal_config;

/* Zeroes cfg: every setting from the environment or the defaults. */
PL_SUPRASEAL_API void pl_supraseal_config_init(pl_supraseal_config *cfg);
/* The settings of the engine the library makes on first use; a field
 * left 0 or NULL takes the environment's value, then the default.  The
 * backend's name is copied; a log stream must outlive the engine.
 * PL_EUSAGE once the engine exists (pl_supraseal_shutdown first). */
PL_SUPRASEAL_API pl_status pl_supraseal_configure(
    const pl_supraseal_config *cfg, pl_error *err);

typedef struct pl_supraseal_stats {
    uint64_t engine;        /* 1 while the library's engine exists */
    uint64_t budget_bytes, reserved_bytes, peak_reserved_bytes;
    uint64_t tracked_bytes, peak_tracked_bytes; /* the accounted allocator */
    uint64_t events;        /* the engine's ledger records */
    uint64_t proofs, failed;
    /* class params process-wide: allocations so far (one parameter file
     * read allocates the same number each time) and live bytes */
    uint64_t params_allocs, params_live_bytes;
    uint64_t srs_objects;   /* SRSs alive (each with its references) */
    uint64_t srs_cached;    /* entries in create_SRS's cache */
    uint64_t srs_opens;     /* parameter files opened on the engine */
    uint64_t pending;       /* started proofs not yet finalized or destroyed */
    uint64_t devices;       /* the engine's (gpu_index picks one of them) */
} pl_supraseal_stats;

/* The library's figures now (all 0 but the counters before first use). */
PL_SUPRASEAL_API void pl_supraseal_stats_read(pl_supraseal_stats *out);

/* A GPU mutex's figures: how often it was taken, how often a start found
 * it held and waited, and the most holders at once (1). */
PL_SUPRASEAL_API void pl_supraseal_gpu_mutex_stats(void *mtx,
                                                   uint64_t *acquired,
                                                   uint64_t *waited,
                                                   uint64_t *max_holders);

/* The library's engine (NULL before first use), for the public API's
 * readers (pl_engine_stats_read, pl_engine_write_summary...): the caller
 * must not destroy it nor wait for jobs it did not submit. */
PL_SUPRASEAL_API pl_engine *pl_supraseal_engine(void);

/* Empties the SRS cache, then destroys the engine (its summary written at
 * PL_LOG_INFO, its leak check run) when no SRS and no pending proof is
 * left: PL_EUSAGE naming what is; the next call makes a new engine.  A
 * no-op without one. */
PL_SUPRASEAL_API pl_status pl_supraseal_shutdown(pl_error *err);

#ifdef __cplusplus
}
#endif
#endif /* PROOFLINE_SUPRASEAL_H */
