/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: proof.json (pl__proof_parse_json, the code of
 * pl_proof_read_json). */
#include "fuzz.h"
#include "formats/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pl_fuzz_begin();
    pl_error err = {0};
    pl_proof proof;
    pl_status st = pl__proof_parse_json(&proof, (const char *)data, size,
                                        PL_FUZZ_NAME, &err);
    pl_fuzz_check_outcome(st, &err);
    pl_fuzz_end(size);
    return 0;
}
