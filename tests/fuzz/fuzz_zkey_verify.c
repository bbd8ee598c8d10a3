/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: `zkey verify` (pl_zkey_verify) of the input as a zkey,
 * against a circuit and a final ptau of the curve the input claims (the
 * multiplier vector and tests/fuzz/data/<curve>.final.ptau, power 3): the
 * ceremony's own zkey reader (the header, the sections, the contribution
 * records of section 10, the MPC parameters) and then the checks of each
 * contribution, of the key against the ptau and of H.  A key whose points
 * or contributions do not check out is a verification failure
 * (PL_EINVALID); anything else it refuses is a bad input naming it. */
#include "fuzz.h"
#include "formats/formats.h"
#include "proofline_ceremony.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pl_fuzz_begin();
    pl_error err = {0};
    /* the curve: the proving-key reader's, where it takes the input;
     * else one of the two by the input's hash */
    pl_zkey *z = NULL;
    bool bn254;
    if (pl__zkey_parse(&z, data, size, PL_FUZZ_NAME, &err) == PL_OK)
        bn254 = pl_zkey_curve(z) == PL_CURVE_BN254;
    else
        bn254 = pl_fuzz_hash(data, size) & 1;
    pl_zkey_close(z);
    const char *r1cs = bn254 ? PL_FUZZ_VECTORS "/bn254/multiplier/circuit.r1cs"
                             : PL_FUZZ_VECTORS "/multiplier/circuit.r1cs";
    const char *ptau = bn254 ? PL_FUZZ_SRC "/data/bn128.final.ptau"
                             : PL_FUZZ_SRC "/data/bls12381.final.ptau";
    pl_ceremony_config cfg;
    pl_ceremony_config_init(&cfg);
    cfg.threads = 1;
    cfg.max_beacon_exp = 12; /* the seeds' are 10: a file's larger
                               * beacon is refused, not replayed */
    memset(&err, 0, sizeof(err));
    pl_status st = pl_zkey_verify(r1cs, ptau, pl_fuzz_file(data, size), &cfg,
                                  &err);
    pl_fuzz_check_refusal(st, &err, PL_EINVALID);
    pl_fuzz_end(size);
    return 0;
}
