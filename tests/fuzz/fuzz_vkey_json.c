/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: verification_key.json (pl__vkey_parse_json, the code of
 * pl_vkey_read_json): the JSON parser, then the key's shape, encodings and
 * point checks. */
#include "fuzz.h"
#include "groth16/vkey.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pl_fuzz_begin();
    pl_error err = {0};
    pl_vkey *vk = NULL;
    pl_status st = pl__vkey_parse_json(&vk, (const char *)data, size,
                                       PL_FUZZ_NAME, &err);
    pl_fuzz_check_outcome(st, &err);
    PL_FUZZ_ASSERT((st == PL_OK) == (vk != NULL), "handle and status disagree");
    if (vk)
        PL_FUZZ_ASSERT(pl_vkey_n_public(vk) < size, "nPublic %zu in %zu bytes",
                       pl_vkey_n_public(vk), size);
    pl_vkey_destroy(vk);
    pl_fuzz_end(size);
    return 0;
}
