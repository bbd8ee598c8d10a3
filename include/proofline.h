/* SPDX-License-Identifier: Apache-2.0 */
/*
 * proofline.h: the public header of proofline, a Groth16 proving engine
 * for BLS12-381 that reads and writes the circom/snarkjs formats.  Circuits
 * written in C have their own header beside it, proofline_circuit.h (the
 * constraint-system builder).
 *
 * Conventions (see docs/ and shared STYLE notes):
 *  - names read pl_module_verb; handles are opaque, with create/destroy
 *    (or open/close) pairs, and destroy(NULL) is a no-op;
 *  - fallible calls return pl_status and take `pl_error *err` last; err may be
 *    NULL, and on failure it names the file, the field and the offset;
 *  - argument order: handle, outputs, const inputs, err.
 *
 * Points and scalars crossing this API are plain byte arrays in the
 * representation of the snarkjs files: points affine, base-field coordinates
 * in Montgomery form, little-endian (the bytes of blst's affine points);
 * scalars little-endian, standard form.  The point at infinity is all zeros.
 */
#ifndef PROOFLINE_H
#define PROOFLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version, in one place: CMake reads these three lines for the
 * shared library's file name and soname (libproofline.so.MAJOR), the
 * pkg-config file and the Debian package, and `proofline --version` prints
 * PL_VERSION_STRING.  pl_version() is the library's own string, so a
 * program can tell the header it was compiled with from the library it
 * runs against. */
#define PL_VERSION_MAJOR 0
#define PL_VERSION_MINOR 1
#define PL_VERSION_PATCH 0
#define PL__STR(x) #x
#define PL__XSTR(x) PL__STR(x)
#define PL_VERSION_STRING                                                     \
    PL__XSTR(PL_VERSION_MAJOR) "." PL__XSTR(PL_VERSION_MINOR) "."             \
    PL__XSTR(PL_VERSION_PATCH)

/* PL_API marks the public functions: the library is compiled with hidden
 * visibility, so libproofline.so exports these and nothing else (no
 * internal pl__ function, no blst symbol); tests/cli_install.sh checks it. */
#if defined(__GNUC__) || defined(__clang__)
#define PL_API __attribute__((visibility("default")))
#else
#define PL_API
#endif

/* "MAJOR.MINOR.PATCH" of the library linked at run time. */
PL_API const char *pl_version(void);

/* ---- status codes ------------------------------------------------------ */

/* X(name, exit code of the CLI, message) */
#define PL_STATUS_MAP(X)                                                      \
    X(PL_OK,           0, "success")                                          \
    X(PL_EINVALID,     1, "proof is invalid")                                 \
    X(PL_EUSAGE,       2, "bad usage")                                        \
    X(PL_EFORMAT,      2, "malformed input")                                  \
    X(PL_EUNSUPPORTED, 2, "unsupported input")                                \
    X(PL_EIO,          2, "input/output error")                               \
    X(PL_EUNSAT,       2, "witness does not satisfy the constraints")        \
    X(PL_EBUDGET,      2, "does not fit the memory budget")                   \
    X(PL_ECANCELLED,   2, "cancelled")                                        \
    X(PL_ENOMEM,       3, "out of memory")                                    \
    X(PL_EINTERNAL,    3, "internal error")

typedef enum {
#define PL__STATUS_ENUM(name, exit_code, message) name,
    PL_STATUS_MAP(PL__STATUS_ENUM)
#undef PL__STATUS_ENUM
    PL_STATUS_COUNT
} pl_status;

typedef struct pl_error {
    pl_status code;
    int sys_errno;    /* errno at the failure, 0 if none */
    int cuda_code;    /* the cudaError_t of a failed CUDA call, 0 otherwise */
    char msg[256];    /* names the file, the section or field, the offset */
} pl_error;

PL_API const char *pl_strerror(pl_status status);
/* The process exit code the CLI uses for a status: 0, 1, 2 or 3. */
PL_API int pl_status_exit_code(pl_status status);

/* ---- buffer classes and the accounted allocator's counters ------------ */

/* Every buffer of 1 MiB or more is allocated with one of these classes. */
#define PL_BUFFER_CLASS_MAP(X)                                               \
    X(PL_BUF_PARAMS,      "params")      /* resident per circuit */          \
    X(PL_BUF_CSR,         "csr")         /* constraint matrices */           \
    X(PL_BUF_WITNESS,     "witness")                                          \
    X(PL_BUF_ABC,         "abc")         /* a, b, c evaluations */           \
    X(PL_BUF_H,           "h")           /* NTT work and h coefficients */   \
    X(PL_BUF_MSM_SCRATCH, "msm_scratch")                                      \
    X(PL_BUF_PENDING,     "pending")     /* kept from start to finish */     \
    X(PL_BUF_PINNED,      "pinned")      /* page-locked host staging */      \
    X(PL_BUF_DEVICE,      "device")      /* GPU memory, not in the RSS */

typedef enum {
#define PL__BUF_ENUM(name, label) name,
    PL_BUFFER_CLASS_MAP(PL__BUF_ENUM)
#undef PL__BUF_ENUM
    PL_BUF_CLASS_COUNT
} pl_buffer_class;

typedef struct pl_alloc_stats {
    uint64_t live_count;
    uint64_t peak_count;
    uint64_t live_bytes;
    uint64_t high_water_bytes;
    uint64_t largest_request;
    uint64_t total_allocs;
    uint64_t total_frees;
} pl_alloc_stats;

PL_API const char *pl_buffer_class_name(pl_buffer_class cls);
/*
 * The counters are process-wide: one set per class for the whole process,
 * shared by every engine, every prover used directly and every other
 * accounted allocation in it.  With one engine in a process (the CLI, the
 * service) they are that engine's.  With two or more (tests may make
 * several), each engine's view (pl_engine_stats.classes, its ledger lines,
 * its summary) includes the other engines' buffers, a reset restarts the
 * high-water marks for all of them.  pl_engine_destroy's leak check does
 * not read them: each engine also counts its own buffers apart, so one
 * engine's destroy is not failed by another's buffers.
 */
/* Reads one class's counters; with reset, the high-water mark restarts at
 * the live bytes (as sqlite3_status64 does). */
PL_API void pl_alloc_stats_read(pl_alloc_stats *out, pl_buffer_class cls,
                                bool reset);
/* True when every class has no live buffer in the process; else names
 * them in err. */
PL_API bool pl_alloc_all_freed(pl_error *err);
/* Live bytes over the host classes now (all but device: GPU memory is not
 * in the process's RSS), and their high-water mark; process-wide too. */
PL_API void pl_alloc_total(uint64_t *live_bytes, uint64_t *high_water_bytes);

/* ---- plain values ------------------------------------------------------ */

typedef struct { uint8_t b[32]; } pl_scalar;      /* LE, standard form */
typedef struct { uint8_t b[96]; } pl_g1_affine;   /* x || y, Montgomery */
typedef struct { uint8_t b[192]; } pl_g2_affine;  /* x.c0 x.c1 y.c0 y.c1 */

/* The curves proofline proves on; their names are snarkjs's ("bls12381",
 * "bn128": circom's --prime and the "curve" of snarkjs's JSON files). */
typedef enum {
    PL_CURVE_BLS12_381 = 0,
    PL_CURVE_BN254 = 1,
} pl_curve;

/* A proof's points in its curve's affine layout: BLS12-381's fill the
 * arrays; BN254's (x || y, 32-byte Montgomery coordinates: 64 and 128
 * bytes, the zkey's layout) fill their start, the rest zero.  The curve is
 * not stored: it is the key's (pl_zkey_curve, pl_vkey_curve). */
typedef struct pl_proof {
    pl_g1_affine a;
    pl_g2_affine b;
    pl_g1_affine c;
} pl_proof;

/* ---- files: .zkey, .wtns, .r1cs (memory-mapped, validated on open) ---- */

typedef struct pl_zkey pl_zkey;
typedef struct pl_wtns pl_wtns;
typedef struct pl_r1cs pl_r1cs;

typedef struct pl_zkey_info {
    uint32_t n_vars;
    uint32_t n_public;       /* outputs + public inputs, without ONE */
    uint32_t domain_size;
    uint32_t n_coefs;
    uint32_t n_constraints;  /* derived from the coefficients section */
} pl_zkey_info;

typedef struct pl_r1cs_info {
    uint32_t n_wires;
    uint32_t n_pub_out;
    uint32_t n_pub_in;
    uint32_t n_prv_in;
    uint64_t n_labels;
    uint32_t n_constraints;
} pl_r1cs_info;

PL_API pl_status pl_zkey_open(pl_zkey **out, const char *path, pl_error *err);
PL_API void pl_zkey_close(pl_zkey *zkey);
PL_API void pl_zkey_get_info(const pl_zkey *zkey, pl_zkey_info *out);
/* The curve of a file, from the prime its header declares. */
PL_API pl_curve pl_zkey_curve(const pl_zkey *zkey);
PL_API pl_curve pl_wtns_curve(const pl_wtns *wtns);

/* Checks every point of the zkey: coordinates below q, on its curve, in its
 * prime-order subgroup (alpha, beta, gamma, delta also not infinity).  Costs
 * about one proof's worth of work, so opening does not do it; PL_EFORMAT
 * naming the section, the point and its byte offset.  The subgroup checks
 * are batched (a 2^-64 chance of missing a bad point; a failed batch names
 * the first bad point), over one thread per online core; BN254's G1 has
 * cofactor 1 (on the curve is in the group). */
PL_API pl_status pl_zkey_check_points(const pl_zkey *zkey, pl_error *err);
/* Threads and progress for a key's point check (zkeys here, bellperson's
 * files too: proofline_c2.h's pl_bp_check_config is this type). */
typedef struct pl_check_config {
    unsigned threads; /* 0: one per online core */
    /* now and then (about every 1% and at the end of a stage: "G1
     * points", "G2 points", and when a batch fails the points one by
     * one: "G1 points, one by one"), the bytes of points checked of the
     * stage's total; one call at a time, on any of the check's threads;
     * NULL: none */
    void (*on_progress)(void *user, const char *stage, uint64_t done_bytes,
                        uint64_t total_bytes);
    void *on_progress_user;
} pl_check_config;
/* pl_zkey_check_points with threads and progress (cfg NULL: as it). */
PL_API pl_status pl_zkey_check_points_with(const pl_zkey *zkey,
                                           const pl_check_config *cfg,
                                           pl_error *err);

/* Reads a witness whole into accounted memory (class witness) and
 * validates it; a file that changes while it is read is refused, and
 * nothing it does afterwards reaches the values. */
PL_API pl_status pl_wtns_open(pl_wtns **out, const char *path, pl_error *err);
PL_API void pl_wtns_close(pl_wtns *wtns);
PL_API size_t pl_wtns_count(const pl_wtns *wtns);
/* The witness values, n = pl_wtns_count, in place in its copy. */
PL_API const pl_scalar *pl_wtns_values(const pl_wtns *wtns);
/* Whether the witness's file was written to, replaced or removed since it
 * was read (its inode, size, modification or change time differ; false for
 * a witness that is not a file's): a proof from it that does not verify is
 * then blamed on the file (a copy read while a writer paused mid-file),
 * not on the witness.  A stat, not a read. */
PL_API bool pl_wtns_file_changed(const pl_wtns *wtns);

/* Reads an r1cs whole into accounted memory (class csr) and validates
 * every term (wires below nWires, coefficients below r), as pl_wtns_open
 * reads a witness. */
PL_API pl_status pl_r1cs_open(pl_r1cs **out, const char *path, pl_error *err);
PL_API void pl_r1cs_close(pl_r1cs *r1cs);
PL_API void pl_r1cs_get_info(const pl_r1cs *r1cs, pl_r1cs_info *out);

/* Writes the header facts of a zkey, wtns or r1cs (chosen by its magic), or
 * of a bellperson parameter, .vk or proof file (which have none: chosen by
 * their shape, proofline_c2.h), as `key: value` lines. */
PL_API pl_status pl_inspect(const char *path, FILE *stream, pl_error *err);

/* ---- verification keys, proofs and public inputs (JSON) ---------------- */

typedef struct pl_vkey pl_vkey;

PL_API pl_status pl_vkey_from_zkey(pl_vkey **out, const pl_zkey *zkey,
                                   pl_error *err);
PL_API pl_status pl_vkey_read_json(pl_vkey **out, const char *path,
                                   pl_error *err);
PL_API pl_status pl_vkey_write_json(const pl_vkey *vkey, const char *path,
                                    pl_error *err);
PL_API size_t pl_vkey_n_public(const pl_vkey *vkey);
PL_API pl_curve pl_vkey_curve(const pl_vkey *vkey);
PL_API void pl_vkey_destroy(pl_vkey *vkey);

/* Every JSON input is read only when it is a regular file (opened
 * non-blocking: a FIFO does not hang, a device is not read) and no larger
 * than what it can hold: a proof 16 KiB, a verification key what
 * PL_VKEY_MAX_PUBLIC inputs take, public.json what max_count inputs take
 * (PL_PUBLIC_JSON_BYTES each); PL_EFORMAT naming the file otherwise. */
#define PL_VKEY_MAX_PUBLIC ((size_t)1 << 16)
#define PL_PUBLIC_JSON_BYTES 256u
PL_API pl_status pl_proof_read_json(pl_proof *out, const char *path,
                                    pl_error *err);
/* The same, with the proof's curve (its "curve" tag; none: BLS12-381). */
PL_API pl_status pl_proof_read_json_curve(pl_proof *out, pl_curve *curve,
                                          const char *path, pl_error *err);
/* The public inputs are < r (checked).  *out holds *count values (a valid
 * pointer even for none) and is released with pl_public_free; on failure
 * *out is NULL.  max_count bounds the file's size (above): the inputs the
 * verification key takes (pl_vkey_n_public); a count that differs from it
 * is pl_verify's to refuse. */
PL_API pl_status pl_public_read_json(pl_scalar **out, size_t *count,
                                     const char *path, size_t max_count,
                                     pl_error *err);
/* Releases what pl_public_read_json returned; NULL is a no-op. */
PL_API void pl_public_free(pl_scalar *publics);

/* Writes proof.json and public.json together: each is written to a
 * temporary file beside it, and both are renamed only when both are
 * complete; on failure the previous pair is left as it was.  Two paths
 * naming one file are refused (PL_EUSAGE), unless it is a device or a pipe
 * such as /dev/stdout, written in place (the proof, then the inputs).
 * public_path may be NULL. */
PL_API pl_status pl_proof_write_json(const pl_proof *proof,
                                     const char *proof_path,
                                     const pl_scalar *publics, size_t count,
                                     const char *public_path, pl_error *err);
/* pl_proof_write_json for a proof of the given curve (the call above is
 * BLS12-381's): BN254's files are snarkjs's for "bn128". */
PL_API pl_status pl_proof_write_json_curve(const pl_proof *proof,
                                           pl_curve curve,
                                           const char *proof_path,
                                           const pl_scalar *publics,
                                           size_t count,
                                           const char *public_path,
                                           pl_error *err);
/* A curve's name as snarkjs writes it ("bls12381", "bn128"). */
PL_API const char *pl_curve_name(pl_curve curve);

/* Checks the files a command will write before it starts work: each
 * output's folder exists and can be written, and no output is a folder,
 * one of the inputs (existing files compared by device and inode) or
 * another output (compared by folder and name) -- except devices and
 * pipes such as /dev/stdout, written in place, which may be named more
 * than once.  NULL entries are skipped.  PL_EUSAGE or PL_EIO naming the
 * paths. */
PL_API pl_status pl_output_check(const char *const *outputs, size_t n_outputs,
                                 const char *const *inputs, size_t n_inputs,
                                 pl_error *err);

/* ---- the prover -------------------------------------------------------- */

typedef struct pl_prover pl_prover;
typedef struct pl_pending pl_pending;

/* Called after each stage of a prove with the stage's name and seconds
 * (for progress output and timings; never given witness-derived data). */
typedef void (*pl_stage_fn)(void *user, const char *stage, double seconds);

typedef struct pl_prover_config {
    unsigned threads;     /* 0: one per online core */
    pl_stage_fn on_stage; /* optional */
    void *on_stage_user;
    /* The witness MSMs (A, B1, B2, C) skip zero scalars and add the points
     * of scalars equal to one (default, false); true runs the plain MSM
     * over every scalar, for benchmarks.  The proof is the same. */
    bool plain_msm;
    /* Where the transforms and G1 sums run: "cpu" (NULL), "cuda" (a GPU;
     * PL_EUNSUPPORTED where none answers) or "auto" (CUDA when a device
     * answers, else the CPU). */
    const char *backend;
    /* Which of the backend's devices (CUDA's device ordinal; 0, the first,
     * by default; the CPU has one). */
    int device;
} pl_prover_config;

PL_API void pl_prover_config_init(pl_prover_config *cfg);

/* The prover keeps a reference to zkey, which must outlive it. */
PL_API pl_status pl_prover_create(pl_prover **out, const pl_zkey *zkey,
                                  const pl_prover_config *cfg, pl_error *err);
PL_API void pl_prover_destroy(pl_prover *prover);

/* Everything up to the G1 MSMs; the B-in-G2 MSM runs on a background thread
 * until pl_prove_finish.  The witness must outlive the pending proof. */
PL_API pl_status pl_prove_start(pl_prover *prover, pl_pending **out,
                                const pl_wtns *wtns, pl_error *err);
/* Joins the G2 MSM, blinds, assembles.  Consumes `pending` in every case. */
PL_API pl_status pl_prove_finish(pl_pending *pending, pl_proof *out,
                                 pl_error *err);
/* Start and finish in one call. */
PL_API pl_status pl_prove(pl_prover *prover, pl_proof *out, const pl_wtns *wtns,
                          pl_error *err);

/* Checks every constraint of r1cs against the witness; on the first that
 * fails, PL_EUNSAT with its index and its A, B, C values in err. */
PL_API pl_status pl_witness_check(const pl_r1cs *r1cs, const pl_wtns *wtns,
                                  pl_error *err);
/* Checks that an r1cs and a zkey describe the same circuit shape. */
PL_API pl_status pl_r1cs_matches_zkey(const pl_r1cs *r1cs, const pl_zkey *zkey,
                                      pl_error *err);

/* ---- the verifier ------------------------------------------------------ */

/* PL_OK if the proof is valid, PL_EINVALID if not (a proof point at
 * infinity, off its curve or outside its subgroup included, as snarkjs
 * reports it invalid; docs/snarkjs.md says where the checks differ);
 * PL_EFORMAT when the public input count disagrees with the key or an input
 * is not below r.
 *
 * publics[0..count) are circom's public wires in circom's order: the
 * circuit's outputs first, then its public inputs, as declared; count is
 * pl_vkey_n_public(vkey).  They are the witness's wires 1..count (wire 0
 * is the constant ONE: pl_wtns_values(wtns) + 1) and public.json's values
 * in its order (pl_public_read_json).  examples/api/prove_verify.c shows
 * both. */
PL_API pl_status pl_verify(const pl_vkey *vkey, const pl_proof *proof,
                           const pl_scalar *publics, size_t count,
                           pl_error *err);

/* ---- the engine: partitioned jobs under a byte budget ------------------ */
/*
 * A job is N partitions (N witnesses) of one circuit.  Partitions are
 * admitted strictly in order (highest priority, then oldest job, then lowest
 * partition), each after reserving its bytes from the budget (a partition
 * waiting for room gives way to a job of higher priority that arrives); a
 * pool of synthesis workers turns witnesses into a, b, c; one bounded
 * hand-off feeds the prover workers (prove_start), which pass the pending
 * state to a finisher (prove_finish).  Bytes are released only after they are freed.
 * See docs/ARCHITECTURE.md.
 *
 * Callbacks, the threads they run on, and what they may call:
 *  - on_event (pl_event_fn): on the engine thread of the event (a
 *    synthesis worker, a prover worker, the finisher) or the caller's for
 *    records made inside an engine call; no engine lock is held.  It may
 *    read the record and call pl_engine_stats_read; it must not wait for a
 *    job or destroy the engine (the thread it runs on would wait for
 *    itself), and it delays the partition it reports on.
 *  - on_stage (pl_stage_fn): on the synthesis worker (synthesize), the
 *    prover worker (start) or the finisher (finish) of the proof it times;
 *    no lock held; the same rules.
 *  - generate (pl_witness_fn): on a synthesis worker, once per partition,
 *    concurrently for different partitions (up to synth_workers at once);
 *    no lock held; it may allocate and do any work of its own.
 *  - on_proof (pl_proof_fn): on the finisher, one proof at a time in
 *    completion order; no lock held; it may submit, poll or cancel jobs,
 *    but not wait for one (the finisher would wait for itself) nor
 *    destroy the engine.
 */

typedef struct pl_engine pl_engine;
typedef struct pl_circuit pl_circuit;

/* X(name, label): the stages a partition passes through. */
#define PL_STAGE_MAP(X)                                                       \
    X(PL_STAGE_ADMITTED,  "admitted")  /* bytes reserved, waiting to synthesize */ \
    X(PL_STAGE_SYNTH,     "synth")                                            \
    X(PL_STAGE_WAITING,   "waiting")   /* synthesized, in the hand-off */     \
    X(PL_STAGE_PROVING,   "proving")   /* prove_start */                      \
    X(PL_STAGE_FINISHING, "finishing") /* waiting for or in prove_finish */   \

typedef enum {
#define PL__STAGE_ENUM(name, label) name,
    PL_STAGE_MAP(PL__STAGE_ENUM)
#undef PL__STAGE_ENUM
    PL_STAGE_COUNT
} pl_stage;

PL_API const char *pl_stage_name(pl_stage stage);

/* X(name, label): the lifecycle events of a partition, in order (failed
 * and cancelled end a partition early). */
#define PL_EVENT_MAP(X)                                                       \
    X(PL_EV_ADMITTED,      "admitted")                                        \
    X(PL_EV_SYNTH_START,   "synth_start")                                     \
    X(PL_EV_SYNTH_DONE,    "synth_done")                                      \
    X(PL_EV_HANDED_OFF,    "handed_off")                                      \
    X(PL_EV_PROVE_START,   "prove_start")                                     \
    X(PL_EV_ABC_FREED,     "abc_freed")                                       \
    X(PL_EV_PROVE_DONE,    "prove_done")                                      \
    X(PL_EV_FINALIZE_DONE, "finalize_done")                                   \
    X(PL_EV_DEALLOC_DONE,  "dealloc_done")                                    \
    X(PL_EV_FAILED,        "failed")                                          \
    X(PL_EV_CANCELLED,     "cancelled")

typedef enum {
#define PL__EVENT_ENUM(name, label) name,
    PL_EVENT_MAP(PL__EVENT_ENUM)
#undef PL__EVENT_ENUM
    PL_EV_COUNT
} pl_event;

PL_API const char *pl_event_name(pl_event event);

/* The ledger's view at one instant: one lifecycle event, or a timer sample
 * (event = PL_EV_COUNT, job = partition = 0). */
typedef struct pl_ledger_record {
    pl_event event;
    uint64_t job;
    size_t partition;
    unsigned track;            /* the engine thread it happened on */
    double t_seconds;          /* since the engine was created */
    uint64_t stage_now[PL_STAGE_COUNT];
    uint64_t class_count[PL_BUF_CLASS_COUNT];
    uint64_t class_bytes[PL_BUF_CLASS_COUNT];
    uint64_t tracked_bytes;    /* the host classes (all but device) */
    uint64_t reserved_bytes, budget_bytes;
    uint64_t rss_anon_bytes, rss_file_bytes;
    int64_t untracked_bytes;   /* rss_anon - tracked - baseline */
    /* The GPU as its driver sees it (cudaMemGetInfo: total - free, total),
     * beside class device (what proofline allocated on it); 0 and 0 when
     * the backend has no device. */
    uint64_t device_used_bytes, device_total_bytes;
    /* used - class device - used before the backend allocated anything (the
     * CUDA context, other processes): GPU memory that grew outside our
     * accounting (0 without a device). */
    int64_t device_untracked_bytes;
    /* failed and cancelled: why (the error's message; a failing
     * constraint's values are left out) and the partition's witness file
     * when it came from one (the end of its path); "" otherwise.  Fixed
     * arrays, cut to fit, so that a record needs no allocation and stays
     * valid wherever it is copied. */
    char reason[192];
    char witness[128];
} pl_ledger_record;

typedef void (*pl_event_fn)(void *user, const pl_ledger_record *record);

typedef enum { PL_LOG_QUIET = 0, PL_LOG_INFO = 1 } pl_log_level;

/* The most devices (GPUs) one engine proves on. */
#define PL_MAX_DEVICES 8

typedef struct pl_engine_config {
    uint64_t budget_bytes;   /* 0: 80% of pl_memory_limit() (RAM, or the
                                cgroup's limit when smaller) */
    unsigned synth_workers;  /* pw; 0: 2 */
    unsigned prover_workers; /* 0: one per device (1 on the CPU); worker i
                                proves on device i % devices */
    unsigned handoff_slots;  /* bound of the hand-off queue; 0: prover_workers */
    /* How many of the backend's devices to prove on, the first ones (0:
     * every device it has; the CPU has one).  Each circuit is opened on
     * each of them, each device's memory checked on its own: a device
     * that cannot take a circuit is left out of that circuit's proofs. */
    unsigned devices;
    unsigned threads;        /* prover threads (MSM, NTT); 0: one per core */
    const char *backend;     /* "cpu" (default), "cuda", or "auto" (CUDA
                                when a device is found, else the CPU) */
    pl_stage_fn on_stage;    /* optional: each proof's stage timings */
    void *on_stage_user;
    /* the ledger */
    pl_log_level log_level;  /* one line per event at INFO (default QUIET) */
    FILE *log_stream;        /* NULL: stderr */
    pl_event_fn on_event;    /* optional, on the thread of the event */
    void *on_event_user;
    bool record_timeline;    /* keep records for trace/plot output */
    unsigned sample_ms;      /* RSS sampling period; 0: 100 ms */
    bool plain_msm;          /* see pl_prover_config (benchmarks) */
    /* Proofs a prover worker starts together: with batch >= 2 a worker
     * that takes a partition also takes up to batch - 1 more of the same
     * circuit that are ready in the hand-off (so handoff_slots bounds a
     * batch; each partition keeps the reservation it was admitted with,
     * which covers its share of the batch), and the skeleton takes each
     * G1 sum of them in one batched MSM where the backend has one (the
     * CPU's).  0 or 1: one at a time, the default: on 2 cores the batch
     * gains nothing (bench/README.md); the planner replays batch 1 only. */
    unsigned batch;
} pl_engine_config;

PL_API void pl_engine_config_init(pl_engine_config *cfg);
PL_API pl_status pl_engine_create(pl_engine **out, const pl_engine_config *cfg,
                                  pl_error *err);
/* Cancels what is left, joins every thread, closes the circuits; then
 * checks that every buffer this engine allocated is freed (PL_EINTERNAL
 * naming the classes if not).  The check counts this engine's own buffers
 * only (an accounting scope per engine): buffers another engine or a
 * direct prover holds do not fail it, though the process-wide counters
 * (pl_alloc_stats_read, the summary) include them.  NULL is a no-op. */
PL_API pl_status pl_engine_destroy(pl_engine *engine, pl_error *err);

/* Opens a circuit (cached by path: opening it again shares it) and reserves
 * its resident bytes (constraint matrices, NTT tables) from the budget.  The
 * r1cs is optional: jobs that check witnesses need it. */
PL_API pl_status pl_engine_open_circuit(pl_engine *engine, pl_circuit **out,
                                        const char *zkey_path,
                                        const char *r1cs_path, pl_error *err);
/* The same with check_points: every point of the key checked as
 * pl_zkey_check_points checks them (over the engine's threads) once it is
 * read, before the circuit is opened (--check-params); a circuit open
 * without the check is not shared with an open that asks for it. */
PL_API pl_status pl_engine_open_circuit_checked(pl_engine *engine,
                                                pl_circuit **out,
                                                const char *zkey_path,
                                                const char *r1cs_path,
                                                bool check_points,
                                                pl_error *err);
PL_API void pl_circuit_release(pl_circuit *circuit);
/* The bytes one partition of this circuit reserves (with a witness file of
 * witness_bytes, 0 for an in-memory witness), and the resident bytes. */
PL_API void pl_circuit_plan(const pl_circuit *circuit, uint64_t witness_bytes,
                            uint64_t *partition_bytes,
                            uint64_t *resident_bytes);
PL_API size_t pl_circuit_n_public(const pl_circuit *circuit);
/* The curve the circuit's key is for (its proofs' curve). */
PL_API pl_curve pl_circuit_curve(const pl_circuit *circuit);
/* The r1cs the circuit was opened with (read whole, in its resident
 * bytes), or NULL; valid while the circuit is open. */
PL_API const pl_r1cs *pl_circuit_r1cs(const pl_circuit *circuit);

/* Called on the finisher thread for each proof, in completion order. */
typedef void (*pl_proof_fn)(void *user, uint64_t job, size_t partition,
                            const pl_proof *proof, const pl_scalar *publics,
                            size_t n_public);

/* Computes partition `partition`'s witness: n values (nVars, wire order of
 * the circuit's r1cs) into out.  Runs on a synthesis worker, so it is the
 * synthesis work of circuits built in C. */
typedef pl_status (*pl_witness_fn)(void *user, size_t partition,
                                   pl_scalar *out, size_t n, pl_error *err);

/* The service's classes, as job priorities (any int works: higher first).
 * A waiting admission gives way to a job of a higher priority that arrives
 * meanwhile, so no lower partition takes room a higher one waits for: a
 * critical job goes before every waiting partition as soon as its bytes
 * can be reserved (partitions already admitted are never stopped). */
#define PL_PRIORITY_LOW 0
#define PL_PRIORITY_NORMAL 1
#define PL_PRIORITY_HIGH 2
#define PL_PRIORITY_CRITICAL 3

typedef struct pl_job_spec {
    pl_circuit *circuit;
    size_t n_partitions;
    /* the witnesses: exactly one of the three */
    const char *const *witness_paths;  /* n_partitions .wtns files */
    const pl_scalar *const *witnesses; /* n_partitions in-memory witnesses of
                                          nVars values, alive until done */
    pl_witness_fn generate;            /* or computed per partition */
    void *generate_user;
    int priority;        /* higher is admitted first; then older jobs
                            (PL_PRIORITY_*, or any int) */
    uint32_t device_mask; /* the engine's devices it may be proved on (bit
                             d: device d; 0: any) */
    bool check_witness;  /* check every constraint first (needs the r1cs) */
    bool verify;         /* verify each proof before delivering it */
    pl_proof_fn on_proof;
    void *on_proof_user;
} pl_job_spec;

typedef struct pl_job_status {
    bool done;
    pl_status status;  /* PL_OK, or the first failure (or PL_ECANCELLED) */
    pl_error error;
    size_t n_partitions;
    size_t proved, verified, failed, skipped;
} pl_job_status;

PL_API pl_status pl_engine_submit(pl_engine *engine, uint64_t *job_id,
                                  const pl_job_spec *spec, pl_error *err);
/* Blocks until the job is done, fills *out and forgets the job. */
PL_API pl_status pl_engine_wait(pl_engine *engine, uint64_t job_id,
                                pl_job_status *out, pl_error *err);
/* Non-blocking: the job's status now. */
PL_API pl_status pl_engine_poll(pl_engine *engine, uint64_t job_id,
                                pl_job_status *out, pl_error *err);
PL_API pl_status pl_engine_cancel(pl_engine *engine, uint64_t job_id,
                                  pl_error *err);

typedef struct pl_engine_stats {
    const char *backend;     /* the one in use: "cpu" or "cuda" */
    uint64_t budget_bytes;
    uint64_t rss_file_bytes;
    int64_t untracked_bytes, peak_untracked_bytes;
    uint64_t trimmed_bytes;  /* returned to the OS by the last pl_engine_trim */
    uint64_t events;
    uint64_t reserved_bytes, peak_reserved_bytes;
    /* What the engine has promised: reserved_bytes plus the planned bytes
     * of the partitions submitted and not yet admitted (each as its job's
     * plan with its witness file's size at submission), so that a caller
     * feeding the engine (the service's worker) reads its room here:
     * budget_bytes - committed_bytes is what a new partition can have
     * without waiting behind work already given. */
    uint64_t committed_bytes;
    uint64_t tracked_bytes, peak_tracked_bytes; /* accounted allocator */
    uint64_t rss_anon_bytes, peak_rss_anon_bytes, baseline_rss_anon_bytes;
    uint64_t stage_now[PL_STAGE_COUNT], stage_peak[PL_STAGE_COUNT];
    uint64_t proofs, verified, failed, skipped;
    pl_alloc_stats classes[PL_BUF_CLASS_COUNT]; /* process-wide */
    /* The GPU (all 0 without one): used and total by its driver now, and
     * the peak of used bytes outside class device (see pl_ledger_record). */
    uint64_t device_used_bytes, device_total_bytes;
    int64_t peak_device_untracked_bytes;
    /* The process's RSS in total (RssAnon + RssFile: file-backed pages
     * such as a mapped zkey count too) at its peak, and RssFile's peak. */
    uint64_t peak_rss_bytes, peak_rss_file_bytes;
    /* The devices the engine proves on, and how many proofs each started
     * (a proof's H and G1 sums ran there). */
    unsigned devices;
    uint64_t device_starts[PL_MAX_DEVICES];
    /* Each device's memory as its driver reports it now, used and total
     * (0 for a device not read, and past `devices`): the sums are
     * device_used_bytes and device_total_bytes. */
    uint64_t device_used[PL_MAX_DEVICES], device_total[PL_MAX_DEVICES];
} pl_engine_stats;

PL_API void pl_engine_stats_read(pl_engine *engine, pl_engine_stats *out);

/* Returns freed heap memory to the OS (malloc_trim) and reports how much
 * RssAnon dropped: fragmentation made visible, not guessed. */
PL_API uint64_t pl_engine_trim(pl_engine *engine);
/* The end-of-run table: per class (peak count, peak bytes, allocations,
 * frees, live now), per stage (peak partitions), budget, peak reserved,
 * peak RSS (anonymous, file-backed and their sum), peak untracked, then
 * "ledger balanced" or the classes that are not.  Returns whether the
 * ledger is balanced.  stream NULL: stderr. */
PL_API bool pl_engine_write_summary(pl_engine *engine, FILE *stream);

/* One witness of a run and what became of it, for the report. */
typedef struct pl_run_item {
    const char *name;    /* the witness file */
    pl_status status;    /* PL_OK: proved (and written); PL_ECANCELLED:
                            stopped before it finished */
    const char *message; /* why it failed; NULL or "" when it did not */
} pl_run_item;

/* What a run's report says beyond the engine's counters. */
typedef struct pl_run_facts {
    double wall_seconds;
    unsigned synth_workers, prover_workers; /* as configured (not 0) */
    unsigned threads;                       /* per prover (not 0) */
    const pl_run_item *items; /* a status per witness (NULL: none listed) */
    size_t n_items;
} pl_run_facts;

/* The run's figures as one JSON object (the format of `proofline batch
 * --report`, docs/ledger.md): the job's counts, wall time and
 * configuration, then `memory` with exact bytes: budget, peaks (reserved,
 * tracked, RssAnon, untracked, RssFile, total RSS), baseline, trimmed, RSS
 * now (anonymous, file-backed, total), per class, per stage, and
 * `balanced` (no class holds a buffer), then with items `witnesses`: each
 * one's file, status (proved, failed or cancelled), exit code, error and
 * message.  From public data alone, so it can be written from any
 * snapshot of the stats; the caller owns the stream and checks it for
 * write errors. */
PL_API void pl_engine_write_report(FILE *stream, const pl_engine_stats *stats,
                                   const pl_job_status *job,
                                   const pl_run_facts *run);
/* The same report as a file: written to a temporary file beside path,
 * then renamed into place (see pl_engine_write_trace). */
PL_API pl_status pl_engine_write_report_file(const char *path,
                                             const pl_engine_stats *stats,
                                             const pl_job_status *job,
                                             const pl_run_facts *run,
                                             pl_error *err);
/* Chrome trace event JSON (Perfetto, chrome://tracing): a span per
 * partition per stage on its thread's track, the prover's stages inside
 * them (NTT, each MSM; the G2 MSM on a pl-g2msm track), counters for every
 * class, reserved, budget and RSS.  Needs record_timeline. */
PL_API pl_status pl_engine_write_trace(pl_engine *engine, const char *path,
                                       pl_error *err);
/* A self-contained SVG of bytes over time, stacked by class, with
 * reserved and RSS as lines, the budget as a line or, when the data stays
 * far below it, a mark above the chart; events as ticks; under it a lane
 * per stage with its partitions over time.  Needs record_timeline. */
PL_API pl_status pl_engine_write_plot(pl_engine *engine, const char *path,
                                      pl_error *err);

/* The memory this process can use: the smaller of physical memory and the
 * memory limit of its cgroup (a container's: cgroup v2 memory.max, or v1
 * memory.limit_in_bytes, its ancestors' included); 0 when neither can be
 * read.  The default budget is 80% of it. */
PL_API uint64_t pl_memory_limit(void);

/* "4GiB", "512MiB", "1.5GB", "1000000": bytes.  false on anything else. */
PL_API bool pl_parse_size(const char *text, uint64_t *out);
/* Bytes for people, binary units with one decimal: "96.0MiB", "512B".
 * Returns buf. */
PL_API const char *pl_format_bytes(char *buf, size_t cap, uint64_t bytes);

/* ---- the planner (docs/plan.md) --------------------------------------- */

/* The engine's scheduler on a simulated clock: what a configuration does
 * to memory and throughput, answered before it runs.  The decisions are
 * the engine's own and the bytes the plan admission reserves, so a plan's
 * records, report, trace and plot read like a run's. */

typedef enum {
    PL_PLAN_OURS = 0,  /* the engine's: a synthesis worker holds its
                          partition until the hand-off takes it */
    PL_PLAN_RELEASE_AT_SYNTH_END, /* the story's (DESIGN.md): the worker is
                          freed when synthesis ends, so synthesized
                          partitions can pile up before the prover */
} pl_plan_policy;

/* The stages whose costs a profile gives: synthesis (one thread), the
 * prover's start (H and the G1 sums: the pool's threads, or a GPU) and
 * the finish (the G2 sum's rest, blinding, delivery). */
typedef enum {
    PL_PLAN_STAGE_SYNTH,
    PL_PLAN_STAGE_PROVE,
    PL_PLAN_STAGE_FINISH,
    PL_PLAN_STAGE_COUNT
} pl_plan_stage;

/* Seconds of each stage for one partition of a circuit whose domain is n
 * rows: fixed + per_row * n, measured on `cores` cores (`proofline
 * calibrate`) or estimated (then `estimated` is true and `source` names
 * the figures).  The file format is in docs/plan.md.
 *
 * A profile gives the stages of one curve or of both: BLS12-381's are
 * fixed and per_row (the stage lines before any `curve` line, as in every
 * file without one, or after `curve bls12381`), BN254's bn254_fixed and
 * bn254_per_row (after `curve bn128`; bn254 true).  no_bls12_381 is true
 * when a file gives BN254's alone: a negative, so that a profile filled
 * in by a caller that knows only fixed and per_row means BLS12-381. */
typedef struct pl_plan_costs {
    char profile[64];
    char source[192];
    bool estimated;
    bool gpu;          /* the start runs on a GPU, not the cores */
    unsigned cores;    /* the cores the start was measured with */
    double fixed[PL_PLAN_STAGE_COUNT];
    double per_row[PL_PLAN_STAGE_COUNT];
    bool no_bls12_381;
    bool bn254;
    double bn254_fixed[PL_PLAN_STAGE_COUNT];
    double bn254_per_row[PL_PLAN_STAGE_COUNT];
} pl_plan_costs;

/* PL_EFORMAT naming the file, the line and the field. */
PL_API pl_status pl_plan_costs_read(pl_plan_costs *out, const char *path,
                                    pl_error *err);
/* Written through a temporary file, renamed into place. */
PL_API pl_status pl_plan_costs_write(const char *path,
                                     const pl_plan_costs *costs,
                                     pl_error *err);
/* The seconds of a stage at n rows, on an otherwise idle machine
 * (BLS12-381's stages). */
PL_API double pl_plan_costs_seconds(const pl_plan_costs *costs,
                                    pl_plan_stage stage, uint64_t rows);
/* Whether the profile gives the curve's stages, and their seconds (0 for
 * a curve it does not give). */
PL_API bool pl_plan_costs_has_curve(const pl_plan_costs *costs,
                                    pl_curve curve);
PL_API double pl_plan_costs_seconds_curve(const pl_plan_costs *costs,
                                          pl_curve curve, pl_plan_stage stage,
                                          uint64_t rows);

typedef struct pl_plan_config {
    /* the circuit: a zkey (its header), or an r1cs (its header: constraints
     * and publics, with density), or constraints and publics */
    const char *zkey_path;
    const char *r1cs_path;
    uint64_t constraints, publics;
    double density;          /* A and B terms per constraint; 0: 2 */
    uint64_t witness_bytes;  /* a partition's witness; 0: nVars scalars */
    /* the machine */
    unsigned cores;          /* 0: this machine's */
    unsigned gpus;           /* 0: the CPU backend's bytes and costs */
    uint64_t memory_bytes;   /* 0: this machine's (pl_memory_limit) */
    uint64_t baseline_bytes; /* RssAnon before any work (the process) */
    /* the engine: as pl_engine_config (0: its defaults; the budget's is
     * 80% of memory_bytes) */
    unsigned synth_workers, prover_workers;
    uint64_t budget_bytes;
    bool no_budget;          /* no byte budget at all (the story's engine) */
    /* the load */
    size_t jobs, partitions; /* 0: 1 and 1 */
    double arrival_seconds;  /* between jobs; 0: all at once */
    pl_plan_policy policy;
    const pl_plan_costs *costs; /* the circuit's curve's stages are used */
    bool record_timeline;    /* keep the records for trace and plot */
    /* the curve of a circuit given by its constraints (a zkey's or an
     * r1cs's is the file's) */
    pl_curve curve;
} pl_plan_config;

PL_API void pl_plan_config_init(pl_plan_config *cfg);

#define PL_PLAN_QUEUE_BINS 64

typedef struct pl_plan_result {
    bool fits;               /* false: out of memory */
    double oom_seconds;      /* when (fits false) */
    uint64_t oom_memory_bytes;
    uint64_t oom_stage_now[PL_STAGE_COUNT]; /* partitions in each stage then */
    pl_buffer_class oom_class;              /* the largest class then */
    pl_event oom_event;      /* the allocation: synth_start or prove_start */
    double wall_seconds;
    size_t proved, jobs_done;
    unsigned synth_workers, prover_workers, cores, gpus; /* as completed */
    uint64_t budget_bytes;   /* UINT64_MAX: none */
    uint64_t memory_bytes;
    uint64_t resident_bytes, partition_bytes;
    /* per GPU (0 without): the circuit's device buffers, allocated when it
     * opens, less the MSM's sort scratch (sized by the device's CUB) and
     * the kernels' stack reservation */
    uint64_t device_bytes;
    uint64_t peak_reserved_bytes, peak_memory_bytes;
    uint64_t peak_class_bytes[PL_BUF_CLASS_COUNT];
    uint64_t peak_memory_by_stage[PL_STAGE_COUNT]; /* at the memory's peak */
    uint64_t stage_peak[PL_STAGE_COUNT];
    /* the queues over time: the most partitions waiting for a prover and
     * in flight in each of PL_PLAN_QUEUE_BINS bins of queue_bin_seconds
     * from t = 0 (bins past wall_seconds are 0) */
    double queue_bin_seconds;
    uint64_t queue_waiting[PL_PLAN_QUEUE_BINS];
    uint64_t queue_in_flight[PL_PLAN_QUEUE_BINS];
    /* how busy each stage's servers were (work / (servers x wall)) */
    double utilisation[PL_PLAN_STAGE_COUNT];
    double core_utilisation, gpu_utilisation;
    uint64_t events;
    uint64_t domain_rows;
    /* one partition's seconds in each stage, on average over the plan
     * (what the answer's sentence compares: pw / synthesis against the
     * provers / the start) */
    double stage_seconds[PL_PLAN_STAGE_COUNT];
    pl_curve curve;          /* the circuit's: whose stage costs were used */
} pl_plan_result;

typedef struct pl_plan pl_plan;

/* Runs the plan.  PL_EBUDGET when a partition can never fit the budget
 * (as pl_engine_submit would fail); an out-of-memory machine is a result
 * (fits false), not an error. */
PL_API pl_status pl_plan_run(pl_plan **out, const pl_plan_config *cfg,
                             pl_error *err);
PL_API void pl_plan_destroy(pl_plan *plan);
PL_API void pl_plan_result_read(const pl_plan *plan, pl_plan_result *out);
/* The plan's figures as an engine's stats (backend "plan"), for
 * pl_engine_write_report: a plan and a run side by side. */
PL_API void pl_plan_stats_read(const pl_plan *plan, pl_engine_stats *out);
/* The same outputs as pl_engine_write_trace and pl_engine_write_plot, on
 * the simulated clock.  Need record_timeline. */
PL_API pl_status pl_plan_write_trace(pl_plan *plan, const char *path,
                                     pl_error *err);
PL_API pl_status pl_plan_write_plot(pl_plan *plan, const char *path,
                                    pl_error *err);

/* ---- development setup (the toxic waste is known) --------------------- */

/* The seed of the reference tool (fast_zkey.mjs) when none is given. */
#define PL_SETUP_DEV_DEFAULT_SEED "snarkwork-fast-ptau"

typedef struct pl_setup_config {
    const char *seed;     /* NULL: PL_SETUP_DEV_DEFAULT_SEED */
    unsigned threads;     /* 0: one per online core */
    pl_stage_fn on_stage; /* optional */
    void *on_stage_user;
} pl_setup_config;

PL_API void pl_setup_config_init(pl_setup_config *cfg);

/* Writes a snarkjs Groth16 .zkey (sections 1-10) for an r1cs from secrets
 * derived from the seed: secret(label) = SHA-512(seed ":" label) as a
 * big-endian integer mod r, for tau, alpha, beta, delta; gamma = 1.  The
 * bytes equal those of the reference tool fast_zkey.mjs for the same seed.
 * Anyone who knows the seed can forge proofs: for tests and benchmarks
 * only.  The file appears complete or not at all. */
PL_API pl_status pl_setup_dev(const char *r1cs_path, const char *zkey_path,
                              const pl_setup_config *cfg, pl_error *err);

#ifdef __cplusplus
}
#endif
#endif /* PROOFLINE_H */
