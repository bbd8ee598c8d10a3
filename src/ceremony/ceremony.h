/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ceremony's internals, shared by its steps (include/proofline_ceremony.h
 * is the public face):
 *  - pl__cer_run: one step's run: its curve, its pool, its budget (every
 *    large buffer of a step is allocated, or reserved when another module
 *    allocates it, through the run, which refuses what would pass the
 *    budget), progress and report lines (common.c);
 *  - the .ptau file: its view (sections, header, contributions) and its
 *    contribution records and keys, as snarkjs's powersoftau_utils.js and
 *    keypair.js define them (ptau.c);
 *  - the .zkey's phase-2 records (zkey_mpc.c) and the circuit's key as
 *    zkey new computes it, section by section, for writing and for
 *    verifying (zkey_new.c).
 * Layouts are in FORMATS.md and snarkjs's sources named at each function.
 */
#ifndef PL_CEREMONY_CEREMONY_H
#define PL_CEREMONY_CEREMONY_H

#include "proofline_ceremony.h"
#include "ceremony/blake2b.h"
#include "ceremony/curve.h"
#include "ceremony/rng.h"
#include "formats/container.h"
#include "util/file.h"
#include "util/pool.h"

#define PL__CER_G1_MAX (PL__CER_MAX_AFF / 2)
#define PL__CER_G2_MAX PL__CER_MAX_AFF
#define PL__CER_HASH PL__BLAKE2B_BYTES
#define PL__CER_NAME_MAX 255u   /* a name's byte length is one byte */
#define PL__CER_BEACON_MAX 255u

/* ---- a step's run ---------------------------------------------------------- */

typedef struct pl__cer_run {
    const char *step;             /* "ptau prepare", for messages */
    pl_ceremony_config cfg;
    const pl__cer_curve *curve;   /* set by the step once known */
    pl__pool *pool;
    unsigned threads;
    uint64_t budget, live, peak;  /* accounted bytes of this run */
    double progress_at;           /* when progress was last reported */
} pl__cer_run;

/* Starts a run: the pool, the budget (cfg's, or 80% of pl_memory_limit). */
pl_status pl__cer_run_begin(pl__cer_run *run, const char *step,
                            const pl_ceremony_config *cfg, pl_error *err);
/* Ends it: the pool joined, the peak reported to cfg.peak_bytes. */
void pl__cer_run_end(pl__cer_run *run);

/* *out: bytes of class cls for `what`, within the budget: PL_EBUDGET
 * naming the step, what, the bytes, those held and the budget when they
 * do not fit; PL_ENOMEM.  *out is NULL on failure. */
pl_status pl__cer_alloc(pl__cer_run *run, void *out, pl_buffer_class cls,
                        uint64_t bytes, const char *what, pl_error *err);
void pl__cer_free(pl__cer_run *run, void *p, uint64_t bytes);
/* For buffers another module allocates (an MSM's scratch): reserve before
 * the call, release after. */
pl_status pl__cer_reserve(pl__cer_run *run, uint64_t bytes, const char *what,
                          pl_error *err);
void pl__cer_release(pl__cer_run *run, uint64_t bytes);
/* Bytes left under the budget. */
uint64_t pl__cer_room(const pl__cer_run *run);

/* Progress: passed on at most every second (and at done == total). */
void pl__cer_progress(pl__cer_run *run, const char *what, uint64_t done,
                      uint64_t total);
/* A report line (printf format). */
void pl__cer_line(pl__cer_run *run, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* A hash as snarkjs prints it (misc.js formatHash): four lines of four
 * 8-digit groups, after a title line. */
void pl__cer_line_hash(pl__cer_run *run, const char *title,
                       const uint8_t hash[PL__CER_HASH]);

/* The pool's worker count and a pl__pool_run over n items in chunks of
 * `chunk`: fn(ctx, first, count, worker). */
typedef void (*pl__cer_range_fn)(void *ctx, size_t first, size_t count,
                                 unsigned worker);
void pl__cer_parallel(pl__cer_run *run, size_t n, size_t chunk,
                      pl__cer_range_fn fn, void *ctx);

/* ---- small helpers (common.c) ---------------------------------------------- */

/* A hex string (optionally 0x-prefixed) into bytes, as snarkjs's
 * hex2ByteArray with its checks (beacon commands): 1..max bytes, an even
 * number of hex digits; false otherwise. */
bool pl__cer_hex(uint8_t *out, size_t *len, size_t max, const char *hex);
/* snarkjs's name as written (name.substring(0, 64) then UTF-8): the
 * first 64 UTF-16 code units of the UTF-8 text; a malformed byte reads
 * as U+FFFD, as TextDecoder reads it.  Returns the byte length (<= 192). */
size_t pl__cer_name_bytes(uint8_t *out, const uint8_t *name, size_t len);
/* The written output read back (the challenge hash reads the points a
 * step has just written): len bytes at offset `at` of o's temporary file,
 * after flushing it.  PL_EUSAGE when o is written in place (a pipe). */
pl_status pl__cer_output_read(pl__output *o, uint64_t at, void *buf,
                              size_t len, pl_error *err);
/* Copies section `id` of a mapped input through the writer (begun with
 * its size), in pieces. */
pl_status pl__cer_copy_section(pl__container_writer *w, const pl__mapped *m,
                               const pl__container *c, unsigned id,
                               pl_error *err);

/* ---- contributions, in both files (common.c) ----------------------------- */

/* What a record holds after its points in both files: its type (0 a
 * contribution, 1 a beacon) and snarkjs's parameters (a name; a beacon's
 * iteration exponent and hash). */
typedef struct pl__cer_params {
    uint32_t type;
    uint8_t name[PL__CER_NAME_MAX];
    size_t name_len;               /* 0: none */
    unsigned iter_exp;
    uint8_t beacon[PL__CER_BEACON_MAX];
    size_t beacon_len;
} pl__cer_params;

/* The parameters as written after the type (sorted types: 1 name, 2
 * iterations, 3 beacon hash): parsed from len bytes at p (false with *why
 * when malformed), or encoded into out (returns the bytes, at most
 * PL__CER_PARAMS_MAX), each field as snarkjs rewrites it. */
#define PL__CER_PARAMS_MAX (2 + 4 * 64 + 2 + 2 + PL__CER_BEACON_MAX)
bool pl__cer_params_parse(pl__cer_params *out, const uint8_t *p, size_t len,
                          const char **why);
size_t pl__cer_params_encode(uint8_t *out, const pl__cer_params *in);

/* Where a new contribution's secrets come from. */
typedef struct pl__cer_kind {
    const char *name;               /* the record's, or NULL */
    bool beacon;
    const char *entropy;            /* a contribution's text */
    uint8_t hash[PL__CER_BEACON_MAX];  /* a beacon's */
    size_t hash_len;
    unsigned iter_exp;
} pl__cer_kind;

/* The entry points' arguments checked into a kind: non-empty entropy;
 * a beacon's hash (hex, 1..255 bytes) and exponent (10..63) as snarkjs
 * checks them.  PL_EUSAGE naming step. */
pl_status pl__cer_kind_contribution(pl__cer_kind *k, const char *step,
                                    const char *name, const char *entropy,
                                    pl_error *err);
pl_status pl__cer_kind_beacon(pl__cer_kind *k, const char *step,
                              const char *name, const char *beacon_hex,
                              unsigned iter_exp, pl_error *err);
/* The kind's stream: the beacon's iterated SHA-256 (with progress), or the
 * OS's randomness and the entropy text. */
pl_status pl__cer_kind_stream(pl__cer_run *run, const pl__cer_kind *k,
                              pl__chacha *rng, pl_error *err);
/* A beacon record's stream replayed by a verifier: its exponent checked
 * (10..63, as snarkjs writes them, and at most cfg.max_beacon_exp), then
 * its iterated SHA-256 with progress.  PL_OK, or the status and *why
 * (for the caller's message naming the file and the contribution):
 * PL_EFORMAT for an exponent snarkjs never writes, PL_EUNSUPPORTED for one
 * above the limit. */
pl_status pl__cer_beacon_replay(pl__cer_run *run, const pl__cer_params *p,
                                pl__chacha *rng, char *why, size_t cap);
/* The new record's type and parameters from the kind. */
void pl__cer_kind_params(const pl__cer_kind *k, pl__cer_params *out);
/* " 'name'" of a record for messages (empty without a name). */
const char *pl__cer_quoted_name(char *buf, size_t cap,
                                const pl__cer_params *p);

/* Points read from a file, named for messages: the first that is not a
 * point of its group (curve.h's check) is described in `what` ("its
 * <name> <problem>") and returned; NULL when all are. */
typedef struct pl__cer_named {
    const uint8_t *p;
    unsigned g;          /* 0 G1, 1 G2 */
    const char *name;
} pl__cer_named;
const pl__cer_named *pl__cer_check_named(const pl__cer_curve *c,
                                         const pl__cer_named *pts, size_t n,
                                         char *what, size_t cap);

/* A run begun and its output checked against itself and its inputs before
 * any work (pl_output_check): the start of every step that writes. */
pl_status pl__cer_run_begin_io(pl__cer_run *run, const char *step,
                               const pl_ceremony_config *cfg,
                               const char *out_path, const char *const *ins,
                               size_t n_ins, pl_error *err);

/* ---- the .ptau file (ptau.c) ------------------------------------------------ */

/* One contribution record (powersoftau_utils.js readContribution). */
typedef struct pl__ptau_contrib {
    uint8_t tau_g1[PL__CER_G1_MAX], tau_g2[PL__CER_G2_MAX];
    uint8_t alpha_g1[PL__CER_G1_MAX], beta_g1[PL__CER_G1_MAX];
    uint8_t beta_g2[PL__CER_G2_MAX];
    /* the public key: for tau, alpha, beta (k = 0, 1, 2) g1_s, g1_sx and
     * g2_spx */
    uint8_t g1_s[3][PL__CER_G1_MAX], g1_sx[3][PL__CER_G1_MAX];
    uint8_t g2_spx[3][PL__CER_G2_MAX];
    uint8_t partial[PL__BLAKE2B_PARTIAL_BYTES];
    uint8_t next_challenge[PL__CER_HASH];
    pl__cer_params p;
    uint64_t at;                   /* the record's byte offset */
} pl__ptau_contrib;

/* A mapped .ptau, checked: the header, the sizes of sections 2-7 (and of
 * 12-15 when present), the contribution records. */
typedef struct pl__ptau {
    const char *path;
    pl__mapped map;
    pl__container c;
    const pl__cer_curve *curve;
    unsigned power, ceremony_power;
    bool prepared;                 /* sections 12-15 present */
    pl__ptau_contrib *contribs;    /* n_contribs (malloc'd) */
    size_t n_contribs;
} pl__ptau;

pl_status pl__ptau_open(pl__ptau *p, const char *path, pl_error *err);
void pl__ptau_close(pl__ptau *p);
/* Point i of section id (2-6, 12-15) in the map. */
const uint8_t *pl__ptau_point(const pl__ptau *p, unsigned id, uint64_t i);
/* The group of a section's points and its point count (sections 2-6,
 * 12-15) for a file of `power`. */
const pl__cer_group *pl__ptau_section_group(const pl__cer_curve *c,
                                            unsigned id);
uint64_t pl__ptau_section_points(unsigned id, unsigned power);
/* snarkjs's name of a section ("tauG1", ..., "lagrange tauG1"). */
const char *pl__ptau_section_name(unsigned id);

/* Section 1: n8q, q, power, ceremonyPower (powersoftau_utils.js
 * writePTauHeader), as one section of the writer. */
pl_status pl__ptau_write_header(pl__container_writer *w,
                                const pl__cer_curve *c, unsigned power,
                                unsigned ceremony_power, pl_error *err);
/* Section 7 from the records (writeContributions): every record is
 * written again from its fields, as snarkjs does. */
pl_status pl__ptau_write_contribs(pl__container_writer *w,
                                  const pl__cer_curve *c,
                                  const pl__ptau_contrib *cs, size_t n,
                                  pl_error *err);

/* The first challenge (calculateFirstChallengeHash): the hash of the
 * empty hash and of a fresh file's points, uncompressed. */
void pl__ptau_first_challenge(const pl__cer_curve *c, unsigned power,
                              uint8_t out[PL__CER_HASH]);

/* A contribution's secrets and public key (keypair.js createPTauKey). */
typedef struct pl__ptau_key {
    pl__cer_fr prv[3];             /* tau, alpha, beta */
    uint8_t g1_s[3][PL__CER_G1_MAX], g1_sx[3][PL__CER_G1_MAX];
    uint8_t g2_sp[3][PL__CER_G2_MAX], g2_spx[3][PL__CER_G2_MAX];
} pl__ptau_key;

void pl__ptau_key_create(const pl__cer_curve *c, pl__ptau_key *key,
                         const uint8_t challenge[PL__CER_HASH],
                         pl__chacha *rng);
/* g2_sp of keypair.js getG2sp: hashToG2 of BLAKE2b(personalization ||
 * challenge || g1_s || g1_sx, uncompressed). */
void pl__ptau_g2sp(const pl__cer_curve *c, uint8_t *g2_sp,
                   unsigned personalization,
                   const uint8_t challenge[PL__CER_HASH],
                   const uint8_t *g1_s, const uint8_t *g1_sx);
/* keypair.js hashToG2: G2.fromRng of the hash's stream. */
void pl__cer_hash_to_g2(const pl__cer_curve *c, uint8_t *g2,
                        const uint8_t hash[PL__CER_HASH]);
/* The public key uncompressed in snarkjs's order (toPtauPubKeyRpr):
 * tau g1_s, g1_sx, alpha g1_s, g1_sx, beta g1_s, g1_sx, tau g2_spx, alpha
 * g2_spx, beta g2_spx; returns the bytes (6 G1 + 3 G2). */
size_t pl__ptau_pubkey_u(const pl__cer_curve *c, uint8_t *out,
                         const uint8_t g1_s[3][PL__CER_G1_MAX],
                         const uint8_t g1_sx[3][PL__CER_G1_MAX],
                         const uint8_t g2_spx[3][PL__CER_G2_MAX]);
/* A record's response hash: its partial hash continued with its public
 * key, uncompressed (readContribution's responseHash). */
void pl__ptau_response_hash(const pl__cer_curve *c, const pl__ptau_contrib *r,
                            uint8_t out[PL__CER_HASH]);

/* ---- the zkey's phase 2 (zkey_mpc.c) ----------------------------------------- */

/* One record of a zkey's section 10 (zkey_utils.js readContribution). */
typedef struct pl__zkey_contrib {
    uint8_t delta_after[PL__CER_G1_MAX];
    uint8_t g1_s[PL__CER_G1_MAX], g1_sx[PL__CER_G1_MAX];
    uint8_t g2_spx[PL__CER_G2_MAX];
    uint8_t transcript[PL__CER_HASH];
    pl__cer_params p;
    uint64_t at;
} pl__zkey_contrib;

/* snarkjs's a - b over G1 as its WebAssembly computes it for any bytes
 * (wasm_sub.c): the Jacobian result's coordinates, Montgomery
 * representations below q, into xyz (3 n8q bytes). */
void pl__cer_wasm_sub_affine(const pl__cer_curve *c, uint8_t *xyz,
                             const uint8_t *a, const uint8_t *b);

/* ---- zkey new, section by section (zkey_new.c) -------------------------------- */

typedef struct pl__zkey_builder pl__zkey_builder;

/* What zkey new makes of an r1cs and a prepared ptau: the header, then
 * each section's bytes in order through `put` (sections 4, 3, 9, 8, 5, 6,
 * 7, as snarkjs writes them), and the circuit hash.  zkey new puts them in
 * a file; zkey verify compares them with the key it checks. */
typedef struct pl__zkey_sink {
    void *user;
    /* a section begins: its id and size */
    pl_status (*begin)(void *user, unsigned id, uint64_t size, pl_error *err);
    pl_status (*put)(void *user, const uint8_t *data, size_t len,
                     pl_error *err);
    pl_status (*end)(void *user, unsigned id, pl_error *err);
} pl__zkey_sink;

/* The zkey's header values (section 2) as zkey new writes them. */
typedef struct pl__zkey_shape {
    uint32_t n_vars, n_public, domain_size, log2_domain;
    uint32_t n_constraints;
    uint64_t n_coefs;
} pl__zkey_shape;

pl_status pl__zkey_build(pl__cer_run *run, const char *r1cs_path,
                         const pl__ptau *ptau, pl__zkey_shape *shape,
                         const pl__zkey_sink *sink,
                         uint8_t cs_hash[PL__CER_HASH], pl_error *err);

#endif /* PL_CEREMONY_CEREMONY_H */
