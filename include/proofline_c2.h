/* SPDX-License-Identifier: Apache-2.0 */
/*
 * proofline_c2.h: the Filecoin stack's files, beside proofline.h.  The
 * formats bellperson (Rust) and SupraSeal C2 read and write, so that a
 * Filecoin prover can hand its parameters and proofs to proofline:
 *
 *  - parameter files (`.params`): the verifying key, then the h, l, a,
 *    b_g1 and b_g2 queries, each a u32 big-endian count and that many
 *    uncompressed points in the zcash encoding (G1 96 bytes, G2 192,
 *    big-endian coordinates, flags in the top three bits of the first
 *    byte); docs/filecoin.md has the byte map;
 *  - verifying key files (`.vk`): the same verifying key alone (alpha_g1,
 *    beta_g1, beta_g2, gamma_g2, delta_g1, delta_g2, a u32 big-endian count
 *    and the ic points);
 *  - proofs of 192 bytes: A (G1 compressed, 48) || B (G2 compressed, 96) ||
 *    C (G1 compressed, 48), zcash flags; a batch (a multi-partition proof)
 *    is their concatenation;
 *  - public inputs as a file of 32-byte little-endian field elements (each
 *    < r, the representation of ff's to_repr for BLS12-381's Fr),
 *    concatenated: n_public per proof, proof after proof.
 *
 * Points and scalars crossing this API are proofline.h's (pl_proof,
 * pl_scalar): the zcash encodings stay inside the library.
 *
 * And a prover shaped like SupraSeal C2's generate_groth16_proofs_c:
 * bellperson's proving assignments (a, b, c evaluated during synthesis,
 * the input and auxiliary assignments, the density bit vectors) in,
 * proofs out, against an SRS read from a parameter file.
 */
#ifndef PROOFLINE_C2_H
#define PROOFLINE_C2_H

#include "proofline.h"
#include "proofline_circuit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- parameter and verifying key files --------------------------------- */

typedef struct pl_bp_params pl_bp_params;

typedef struct pl_bp_info {
    bool vk_only;         /* a `.vk` file: the verifying key and nothing else */
    uint64_t file_bytes;
    uint32_t n_ic;        /* the public inputs + 1 (ONE) */
    /* the queries' counts (0 in a .vk) */
    uint32_t n_h, n_l, n_a, n_b_g1, n_b_g2;
} pl_bp_info;

/* Maps a parameter file or a verifying key file (told apart by where the
 * file ends: a .vk ends after its ic points) and validates its structure:
 * every count against the bytes left before anything is read past it, no
 * trailing bytes, b_g1 and b_g2 of one count, and the verifying key's
 * points decoded (on their curves).  The queries' points are not decoded:
 * pl_bp_params_check_points does that.  PL_EFORMAT naming the file, the
 * section and the byte offset. */
PL_API pl_status pl_bp_params_open(pl_bp_params **out, const char *path,
                                   pl_error *err);
PL_API void pl_bp_params_close(pl_bp_params *params);
PL_API void pl_bp_params_get_info(const pl_bp_params *params,
                                  pl_bp_info *out);
/* Every point of every section: a valid encoding, on its curve, in its
 * prime-order subgroup, not the point at infinity (bellperson's checked
 * read refuses it too).  More work than a proof, so opening does not do
 * it; the subgroup checks are batched (a 2^-64 chance of missing a bad
 * point; a failed batch names the first bad point), over one thread per
 * online core.  PL_EFORMAT naming the section, the point and its byte
 * offset. */
PL_API pl_status pl_bp_params_check_points(const pl_bp_params *params,
                                           pl_error *err);
/* The same with threads and progress: pl_check_config (proofline.h),
 * the one configuration of every key's point check. */
typedef pl_check_config pl_bp_check_config;
PL_API pl_status pl_bp_params_check_points_with(const pl_bp_params *params,
                                                const pl_bp_check_config *cfg,
                                                pl_error *err);
/* The verification key of a parameter or .vk file (gamma_g2 may be any
 * point: bellperson's keys do not fix it to the generator). */
PL_API pl_status pl_vkey_from_bp_params(pl_vkey **out,
                                        const pl_bp_params *params,
                                        pl_error *err);

/* A zkey's verification key as a bellperson .vk (alpha, beta and delta in
 * both groups are in the zkey's header): proofs from the snarkjs path,
 * converted to 192 bytes, verify against it in a bellperson verifier.
 * Complete or not at all. */
PL_API pl_status pl_bp_vk_write_from_zkey(const pl_zkey *zkey,
                                          const char *vk_path, pl_error *err);

/* ---- 192-byte proofs ---------------------------------------------------- */

#define PL_BP_PROOF_BYTES 192u

/* Decodes one proof as bellperson reads it (Proof::read_many).  A point
 * that is not a valid compressed encoding (flags, a coordinate >= q) is
 * PL_EFORMAT; one whose x has no point on the curve, one outside its
 * subgroup or at infinity is PL_EINVALID (a tampered proof). */
PL_API pl_status pl_proof_from_bp_bytes(pl_proof *out, const uint8_t *in,
                                        pl_error *err);
PL_API void pl_proof_to_bp_bytes(uint8_t *out, const pl_proof *proof);

/* A file of proofs: a non-empty multiple of 192 bytes, at most max_count
 * proofs (0: no limit).  *out is released with pl_bp_proofs_free. */
PL_API pl_status pl_bp_proofs_read(pl_proof **out, size_t *count,
                                   const char *path, size_t max_count,
                                   pl_error *err);
PL_API void pl_bp_proofs_free(pl_proof *proofs);
/* Writes count proofs, concatenated, complete or not at all; a point off
 * its curve (which the encoding cannot carry), outside its subgroup or at
 * infinity (which bellperson refuses to read) is PL_EINVALID, nothing
 * written. */
PL_API pl_status pl_bp_proofs_write(const char *path, const pl_proof *proofs,
                                    size_t count, pl_error *err);
/* Writes count proofs and their public inputs (n_inputs values, each < r:
 * n_public per proof, proof after proof) as a pair, as
 * pl_proof_write_json writes proof.json and public.json: both complete
 * before either is renamed into place, renamed together, and on failure
 * the previous pair left as it was; two paths naming one file are refused
 * (PL_EUSAGE) unless it is a device or a pipe.  inputs_path NULL: the
 * proofs alone. */
PL_API pl_status pl_bp_proofs_write_with_inputs(const char *proofs_path,
                                                const pl_proof *proofs,
                                                size_t count,
                                                const char *inputs_path,
                                                const pl_scalar *inputs,
                                                size_t n_inputs,
                                                pl_error *err);

/* A file of public inputs: 32-byte little-endian values, each < r, at most
 * max_count of them (0: 2^21, 64 MiB); an empty file is no inputs.  *out
 * is released with pl_public_free. */
PL_API pl_status pl_bp_inputs_read(pl_scalar **out, size_t *count,
                                   const char *path, size_t max_count,
                                   pl_error *err);

/* Writes count public inputs as such a file (each < r, checked), complete
 * or not at all. */
PL_API pl_status pl_bp_inputs_write(const char *path, const pl_scalar *inputs,
                                    size_t count, pl_error *err);

/* ---- the development setup in bellperson's layout ----------------------- */

/* pl_setup_dev's secrets (the same seed gives the same tau, alpha, beta,
 * delta; gamma = 1), written as a bellperson parameter file and its .vk:
 * the a, b_g1, b_g2 queries without their points at infinity, l and ic as
 * the zkey's C and IC, h as tau^i t(tau) / delta for i < n - 1 (the
 * monomial basis bellperson's prover uses, not the zkey's Lagrange H), and
 * the domain generated by blstrs's root of unity (7^((r-1)/2^32), where
 * snarkjs takes 5^(...)): row k of the constraints sits at omega^k as a
 * bellperson prover puts it, so its A, B, l points differ from the zkey's.
 * The two files are renamed into place as a pair.  The toxic waste is
 * known: tests and benchmarks only. */
PL_API pl_status pl_setup_dev_bellperson(const char *r1cs_path,
                                         const char *params_path,
                                         const char *vk_path,
                                         const pl_setup_config *cfg,
                                         pl_error *err);

/* ---- the SupraSeal-C2-shaped prover ------------------------------------- */
/*
 * What bellperson's ProvingAssignment holds after synthesis, as SupraSeal
 * C2's Assignment takes it (field for field).  Scalars are 32 bytes each:
 * pl_scalar's standard form (ff's to_repr), or with pl_c2_config.montgomery
 * blstrs's Scalar as it lies in memory, as SupraSeal takes them; density
 * words are uint64_t where SupraSeal takes usize (the same on 64-bit
 * targets).
 *
 * Buffer ownership: every pointer in an assignment is the caller's, read
 * only, and must stay valid until pl_c2_prove returns -- except a, b and c,
 * which proofline reads once, when that proof is prepared (copied into
 * its own a/b/c, class abc, before the proof starts), and then reports
 * through `abc_done`: from that call on the caller may free that
 * assignment's a, b and c (bellperson drops them there; they are the
 * largest per-proof buffers, 3 x 32 bytes per constraint), while the proof
 * runs.  The densities and the input assignment are read then too; the
 * auxiliary assignment until the proof's MSMs end.  proofline frees
 * nothing of the caller's; its own buffers (the parameter file: class
 * params; a/b/c: class abc; the NTT's vectors: class h; gathered scalars
 * and MSM scratch: class msm_scratch) go through the accounted allocator
 * and are freed before it returns.
 */
typedef struct pl_c2_assignment {
    /* density bit vectors: bit i is word i / 64, bit i % 64 (bitvec's Lsb0
     * order); a set bit means the variable occurs in that matrix */
    const uint64_t *a_aux_density;
    size_t a_aux_bit_len, a_aux_popcount;
    const uint64_t *b_inp_density;
    size_t b_inp_bit_len, b_inp_popcount;
    const uint64_t *b_aux_density;
    size_t b_aux_bit_len, b_aux_popcount;
    /* the constraints' evaluations, one per constraint (the input
     * constraints bellperson adds included), at most the domain's size */
    const pl_scalar *a, *b, *c;
    size_t abc_size;
    /* ONE first, then the public inputs; then the auxiliary variables */
    const pl_scalar *inp_assignment;
    size_t inp_assignment_size;
    const pl_scalar *aux_assignment;
    size_t aux_assignment_size;
} pl_c2_assignment;

typedef struct pl_c2_srs pl_c2_srs;

/* Reads a bellperson parameter file for proving: read whole into one
 * accounted buffer (class params, the SRS's bytes in the ledger as a
 * zkey's are; a file that changes while it is read is refused, and
 * nothing it does after reaches a proof), validated, and every query point
 * decoded there in place (a point at infinity or off its curve is refused,
 * naming the section and the point).  With check_points, each point is
 * also checked for its subgroup first (--check-params).  threads: the
 * decoding's, and what pl_c2_prove's own engine uses; 0 is one per online
 * core. */
PL_API pl_status pl_c2_srs_create(pl_c2_srs **out, const char *params_path,
                                  bool check_points, unsigned threads,
                                  pl_error *err);
PL_API void pl_c2_srs_destroy(pl_c2_srs *srs);
/* Bytes pl_c2_prove takes beyond the SRS on the CPU for one proof at a
 * time (a/b/c, the NTT's vectors, the gathered scalars, the MSMs' scratch)
 * and for the prover's tables (the NTT's): what a budget reserves beside
 * pl_c2_srs_bytes. */
PL_API uint64_t pl_c2_prove_bytes(const pl_c2_srs *srs);
/* The SRS's own bytes (class params: the file's, its verifying key's). */
PL_API uint64_t pl_c2_srs_bytes(const pl_c2_srs *srs);

/* Called once per proof when its a, b and c have been read (see above). */
typedef void (*pl_c2_abc_done_fn)(void *user, size_t proof);

/* The engine's budget, the peak of its reservations and the events its
 * ledger recorded: the call's own when it made the engine, else the
 * engine's since it was made. */
typedef struct pl_c2_stats {
    uint64_t budget_bytes, peak_reserved_bytes;
    uint64_t events;
} pl_c2_stats;

typedef struct pl_c2_config {
    /* The engine to prove on (NULL: one of the call's own, made and
     * destroyed by the call with budget_bytes, the log settings below and
     * one worker of each kind).  The proofs are a job of it: its budget,
     * its ledger, its prover and finisher threads, beside its other jobs.
     * The SRS is opened on it as a circuit (pl_engine_open_c2_circuit; a
     * caller that keeps it open there keeps its bytes reserved between
     * calls), and each proof is a partition: admitted when its bytes
     * (pl_c2_prove_bytes) fit, its a/b/c share given back at abc_freed, the
     * rest after it is freed.  One proof's G2 sum and assembly overlap the
     * next one's H and G1 sums where the budget holds both. */
    pl_engine *engine;
    /* The own engine's byte budget (0: exactly the SRS's bytes and one
     * proof's, pl_c2_srs_bytes + pl_c2_prove_bytes); not read with an
     * engine.  A budget that cannot hold the SRS and one proof is refused
     * (PL_EBUDGET) before any work. */
    uint64_t budget_bytes;
    /* The own engine's backend, as pl_engine_config's ("cpu" when NULL;
     * "cuda"; "auto"): on CUDA, H's transforms and the G1 sums run on the
     * device; not read with an engine. */
    const char *backend;
    pl_c2_abc_done_fn abc_done; /* optional; on one of the engine's threads */
    void *abc_done_user;
    int priority;           /* the job's, as pl_job_spec's (PL_PRIORITY_*) */
    /* The own engine's ledger (pl_engine_config): one record per event of
     * each proof -- admitted, synth_start and synth_done (bellperson
     * synthesized: the assignment is read into the proof's input, and
     * abc_done called), handed_off, prove_start, abc_freed (proofline's
     * copy of a, b, c freed), prove_done, finalize_done, dealloc_done, or
     * failed -- with
     * the job's id and partition = the proof's index; a line per event at
     * PL_LOG_INFO.  With an engine, its own settings hold. */
    pl_log_level log_level;
    FILE *log_stream;       /* NULL: stderr */
    pl_event_fn on_event;   /* optional, on the thread of the event */
    void *on_event_user;
    pl_c2_stats *stats;     /* optional: filled before return */
    /* The engine's devices the proofs may run on (bit d: device d; 0:
     * any, spread over them), as pl_job_spec's. */
    uint32_t device_mask;
    /* Every proof is verified with the parameter file's verifying key
     * before it is handed back (a proof that does not verify fails the
     * call, PL_EINVALID naming it: its assignment does not satisfy the
     * circuit, or the parameters are damaged); true skips that (one
     * pairing check per proof). */
    bool no_verify;
    /* The assignments' scalars (a, b, c, the input and auxiliary
     * assignments) and r and s as blstrs's Scalar lies in memory --
     * Montgomery form, four little-endian 64-bit limbs, each value < r --
     * which is what bellperson hands SupraSeal C2: its vectors can be
     * passed as they are, with no conversion on the Rust side.  false:
     * pl_scalar's standard form.  (r and s drawn by proofline when none
     * are given are uniform below r either way.) */
    bool montgomery;
} pl_c2_config;

/* Proves n assignments, proofs[i] from assignments[i] with blinding r[i]
 * and s[i] (r = s = 0 gives the unblinded proof, as bellperson does
 * without randomization), as one job of an engine (cfg->engine, or the
 * call's own) under its budget: H's transforms and the G1 sums on its
 * backend (the SRS's pool on the CPU, the device on CUDA), the G2 sum on
 * the CPU.  It returns when every proof is made, or with the job's first
 * failure.  Every assignment is checked against the SRS first (its
 * lengths, its densities' lengths and popcounts against their bits and
 * the queries' counts, its scalars < r): PL_EFORMAT naming the assignment
 * and the field, and no proof is written.  cfg may be NULL. */
PL_API pl_status pl_c2_prove(pl_proof *proofs,
                             const pl_c2_assignment *assignments, size_t n,
                             const pl_scalar *r, const pl_scalar *s,
                             const pl_c2_srs *srs, const pl_c2_config *cfg,
                             pl_error *err);

/* Opens srs on an engine as a circuit: its bytes (pl_c2_srs_bytes)
 * reserved from the budget as resident for as long as the circuit is open
 * (opening it again shares it); release with pl_circuit_release, before
 * pl_c2_srs_destroy.  pl_c2_prove opens and releases it around its job
 * when the caller has not. */
PL_API pl_status pl_engine_open_c2_circuit(pl_engine *engine,
                                           pl_circuit **out,
                                           const pl_c2_srs *srs,
                                           pl_error *err);

/* Opens a bellperson parameter file on an engine as a circuit that owns
 * its SRS, as pl_engine_open_circuit opens a zkey: its bytes reserved from
 * the budget before the file is read whole (pl_c2_srs_create's reading;
 * check_points: --check-params), resident for as long as the circuit is
 * open; a second open of the same path shares it (one with check_points
 * shares only one opened so).  Release with pl_circuit_release. */
PL_API pl_status pl_engine_open_c2_params(pl_engine *engine,
                                          pl_circuit **out,
                                          const char *params_path,
                                          bool check_points, pl_error *err);
/* The same with the circuit's r1cs (circom's, for witnesses made into
 * assignments with pl_c2_assignment_from_r1cs, as `proofline c2` does):
 * read whole into the circuit's resident bytes, reserved before it is
 * read, as a zkey circuit's r1cs is; pl_circuit_r1cs gives it.  A circuit
 * opened with an r1cs also serves opens without one. */
PL_API pl_status pl_engine_open_c2_files(pl_engine *engine, pl_circuit **out,
                                         const char *params_path,
                                         const char *r1cs_path,
                                         bool check_points, pl_error *err);

/* A job of C2 proofs on an engine, for callers that keep one: the SRS's
 * circuit (pl_engine_open_c2_circuit), one partition per proof.  The
 * assignments are either given (n_partitions of them, read as
 * pl_c2_prove reads them) or synthesized inside the engine: synthesize
 * fills partition i's on a synthesis worker once the partition's bytes
 * are reserved -- bellperson's synthesis, or a circuit of ours
 * (pl_cs_create_assignment) -- so no more assignments exist at once than
 * the pipeline holds (the synthesis workers, the hand-off's slots, the
 * provers), and synthesis overlaps proving.
 *
 * A synthesized assignment's buffers are the callbacks': abc_done(user, i)
 * may free its a, b and c (they are read), release(user, i) whatever is
 * left once partition i is done with it (proved, failed or cancelled; a,
 * b and c too when abc_done was not called).  A synthesize that fails
 * frees what it made itself: release is not called for it.  Every
 * callback runs on one of the engine's threads.  An assignment's bytes
 * are reserved with its proof's: abc_bytes (a, b, c: given back at
 * abc_freed) and other_bytes (its variables and densities: given back
 * when the partition is retired); a synthesize that allocates more breaks
 * the budget's promise.
 *
 * r and s: n_partitions each, the caller's until the job is done (NULL:
 * fresh random ones for each proof, from the OS).  on_proof is called on
 * the finisher for each proof, with its public inputs (standard form,
 * ONE not included) as pl_job_spec's. */
typedef pl_status (*pl_c2_synthesize_fn)(void *user, size_t partition,
                                         pl_c2_assignment *out,
                                         pl_error *err);
typedef void (*pl_c2_release_fn)(void *user, size_t partition);

typedef struct pl_c2_job_spec {
    pl_circuit *circuit;
    size_t n_partitions;
    const pl_c2_assignment *assignments;  /* given, or: */
    pl_c2_synthesize_fn synthesize;
    void *synthesize_user;   /* for synthesize, abc_done and release */
    uint64_t abc_bytes, other_bytes;
    pl_c2_abc_done_fn abc_done;
    pl_c2_release_fn release;
    const pl_scalar *r, *s;
    bool montgomery;         /* as pl_c2_config's (r and s too) */
    bool verify;             /* as pl_job_spec's */
    int priority;            /* as pl_job_spec's */
    uint32_t device_mask;    /* as pl_job_spec's (SupraSeal's gpu_index i:
                                1 << i; -1: 0, any) */
    pl_proof_fn on_proof;
    void *on_proof_user;
} pl_c2_job_spec;

/* Queues the job; pl_engine_wait, _poll and _cancel take its id.  Given
 * assignments are checked first as pl_c2_prove checks them; a synthesized
 * one is checked when it is made (its partition fails, naming the field).
 * PL_EBUDGET, with the numbers and the smallest budget that works, when a
 * partition can never be admitted. */
PL_API pl_status pl_engine_submit_c2(pl_engine *engine, uint64_t *job_id,
                                     const pl_c2_job_spec *spec,
                                     pl_error *err);

/* What bellperson's synthesis would leave for a circuit given as an r1cs
 * and a witness (our circuits, for tests, the CLI's `c2` and benchmarks):
 * a, b, c per constraint, then one input constraint per input (input * 0 =
 * 0, as bellperson appends them), densities by occurrence in A and B.  The
 * input and auxiliary assignments point into the witness, which must
 * outlive *out; a, b, c are one accounted buffer (class abc) and the
 * density words another: pl_c2_assignment_release_abc frees the first (the
 * early free a caller does from abc_done), pl_c2_assignment_release
 * both. */
PL_API pl_status pl_c2_assignment_from_r1cs(pl_c2_assignment *out,
                                            const pl_r1cs *r1cs,
                                            const pl_wtns *wtns,
                                            pl_error *err);
/* The same from n witness values in memory (nWires, the r1cs's wire
 * order, each < r, checked; name for messages), which must outlive *out. */
PL_API pl_status pl_c2_assignment_from_values(pl_c2_assignment *out,
                                              const pl_r1cs *r1cs,
                                              const pl_scalar *values,
                                              size_t n, const char *name,
                                              pl_error *err);
/* A circuit of ours synthesized as bellperson synthesizes: a witness-only
 * constraint system (pl_cs_create_witness_only: values in wire order,
 * into `values` or its own buffer, class witness) of a known shape --
 * n_public, n_wires and n_constraints, from the recorded circuit -- that
 * also evaluates each constraint's A, B and C as it is enforced, into a,
 * b, c (class abc), and tracks which variables occur in A and in B (the
 * densities), keeping none of the constraints.  Run the circuit on it
 * (pl_cs_run), then take the assignment: the input constraints appended,
 * a, b, c and the densities handed over (free them with
 * pl_c2_assignment_release_abc and pl_c2_assignment_release), the input
 * and auxiliary assignments pointing into the cs's values, so the cs must
 * outlive the assignment's use.  A circuit that enforces more or fewer
 * constraints, or allocates other variables, than its shape fails
 * (PL_EFORMAT, naming the counts).  With pl_cs_set_check each constraint
 * is also checked as it is evaluated. */
PL_API pl_status pl_cs_create_assignment(pl_cs **out, size_t n_public,
                                         size_t n_wires, size_t n_constraints,
                                         pl_scalar *values, pl_error *err);
PL_API pl_status pl_cs_take_assignment(pl_cs *cs, pl_c2_assignment *out,
                                       pl_error *err);
/* What one such assignment holds, for pl_c2_job_spec's abc_bytes and
 * other_bytes: a, b, c; and the values (when the cs keeps its own), the
 * densities and the cs's coefficient table as it starts. */
PL_API uint64_t pl_cs_assignment_abc_bytes(size_t n_public,
                                           size_t n_constraints);
PL_API uint64_t pl_cs_assignment_other_bytes(size_t n_public,
                                             size_t n_wires);

/* Frees what pl_c2_assignment_from_r1cs allocated and clears its
 * pointers (a second call is a no-op); _abc: a, b and c only. */
PL_API void pl_c2_assignment_release_abc(pl_c2_assignment *as);
PL_API void pl_c2_assignment_release(pl_c2_assignment *as);

#ifdef __cplusplus
}
#endif
#endif /* PROOFLINE_C2_H */
