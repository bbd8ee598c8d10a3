/* SPDX-License-Identifier: Apache-2.0 */
/*
 * proofline's trusted setup: snarkjs's powers-of-tau and Groth16 phase-2
 * ceremonies, natively, reading and writing snarkjs's .ptau and .zkey files
 * (docs/circom.md walks through a ceremony).  Every step is snarkjs's:
 *
 *   pl_ptau_new         powersoftau new CURVE POWER
 *   pl_ptau_contribute  powersoftau contribute (secrets from the OS and the
 *                       entropy text)
 *   pl_ptau_beacon      powersoftau beacon (secrets from a public beacon)
 *   pl_ptau_prepare     powersoftau prepare phase2 (the Lagrange bases)
 *   pl_ptau_verify      powersoftau verify
 *   pl_zkey_new         groth16 setup (zkey new): the circuit's first key
 *   pl_zkey_contribute  zkey contribute
 *   pl_zkey_beacon      zkey beacon
 *   pl_zkey_verify      zkey verify (from the r1cs and the ptau)
 *
 * and records its contributions as snarkjs does (the same hashes, public
 * keys and transcripts), so that snarkjs's verifiers accept every file
 * written here and these verifiers accept snarkjs's.  The deterministic
 * steps (beacon, prepare, zkey new, zkey beacon) write the same bytes as
 * snarkjs for the same input.
 *
 * Each step streams its files section by section with its large buffers
 * in the accounted allocator under cfg.budget_bytes (a step whose smallest
 * working set does not fit fails with PL_EBUDGET before it writes), writes
 * its output through a temporary file that is renamed into place only when
 * complete, and refuses an output that is one of its inputs.  The curve is
 * a parameter of pl_ptau_new: "bls12381" or "bn128" (BN254); every other
 * step reads it from its files.
 *
 * Statuses: PL_EINVALID when a verification fails (the message names the
 * file, the section and the contribution), PL_EFORMAT for a malformed file,
 * PL_EUNSUPPORTED for another curve or protocol, PL_EBUDGET, PL_EUSAGE.
 */
#ifndef PROOFLINE_CEREMONY_H
#define PROOFLINE_CEREMONY_H

#include "proofline.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Progress of a long step: `what` names the part ("tauG1 2^14", "hashing
 * the response"), done of total units. */
typedef void (*pl_ceremony_progress_fn)(void *user, const char *what,
                                        uint64_t done, uint64_t total);
/* One line of a step's report (the hashes, a verifier's findings), as
 * snarkjs logs them. */
typedef void (*pl_ceremony_line_fn)(void *user, const char *line);

typedef struct pl_ceremony_config {
    unsigned threads;          /* 0: one per online core */
    uint64_t budget_bytes;     /* 0: 80% of pl_memory_limit() */
    pl_ceremony_progress_fn on_progress;  /* optional */
    void *on_progress_user;
    pl_ceremony_line_fn on_line;          /* optional */
    void *on_line_user;
    /* optional: set to the peak of the bytes the step held in accounted
     * buffers (at most the budget) */
    uint64_t *peak_bytes;
    /* verify: the largest beacon a verifier replays, as the exponent of
     * its SHA-256 iterations (0: PL_CEREMONY_BEACON_EXP_DEFAULT; at most
     * 63).  A file's beacon of 2^e iterations costs 2^e hashes to check
     * (2^32: minutes, 2^40: days), so a larger one is refused with
     * PL_EUNSUPPORTED naming the contribution, not replayed for ever. */
    unsigned max_beacon_exp;
} pl_ceremony_config;

#define PL_CEREMONY_BEACON_EXP_DEFAULT 32u
/* A beacon's exponents, as snarkjs takes and writes them. */
#define PL_CEREMONY_BEACON_EXP_MIN 10u
#define PL_CEREMONY_BEACON_EXP_MAX 63u

PL_API void pl_ceremony_config_init(pl_ceremony_config *cfg);

PL_API pl_status pl_ptau_new(const char *curve, unsigned power,
                             const char *out_path,
                             const pl_ceremony_config *cfg, pl_error *err);
/* name: optional (snarkjs keeps 64 characters); entropy: text mixed with
 * 64 bytes from the OS (non-empty). */
PL_API pl_status pl_ptau_contribute(const char *in_path, const char *out_path,
                                    const char *name, const char *entropy,
                                    const pl_ceremony_config *cfg,
                                    pl_error *err);
/* beacon_hex: the beacon's hash in hex (1..255 bytes); iter_exp 10..63:
 * SHA-256 is iterated 2^iter_exp times. */
PL_API pl_status pl_ptau_beacon(const char *in_path, const char *out_path,
                                const char *name, const char *beacon_hex,
                                unsigned iter_exp,
                                const pl_ceremony_config *cfg, pl_error *err);
PL_API pl_status pl_ptau_prepare(const char *in_path, const char *out_path,
                                 const pl_ceremony_config *cfg, pl_error *err);
PL_API pl_status pl_ptau_verify(const char *path,
                                const pl_ceremony_config *cfg, pl_error *err);

PL_API pl_status pl_zkey_new(const char *r1cs_path, const char *ptau_path,
                             const char *out_path,
                             const pl_ceremony_config *cfg, pl_error *err);
PL_API pl_status pl_zkey_contribute(const char *in_path, const char *out_path,
                                    const char *name, const char *entropy,
                                    const pl_ceremony_config *cfg,
                                    pl_error *err);
PL_API pl_status pl_zkey_beacon(const char *in_path, const char *out_path,
                                const char *name, const char *beacon_hex,
                                unsigned iter_exp,
                                const pl_ceremony_config *cfg, pl_error *err);
PL_API pl_status pl_zkey_verify(const char *r1cs_path, const char *ptau_path,
                                const char *zkey_path,
                                const pl_ceremony_config *cfg, pl_error *err);

#ifdef __cplusplus
}
#endif

#endif /* PROOFLINE_CEREMONY_H */
