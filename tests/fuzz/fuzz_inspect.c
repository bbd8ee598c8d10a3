/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: pl_inspect (`proofline inspect FILE`), the input written to
 * a file: the one reader that takes any file and tells its kind from its
 * magic or its shape -- zkey, wtns, r1cs and ptau containers, bellperson's
 * proofs, parameters and .vk -- so it is where a file of one kind reaches
 * the code of another.  Its lines go to /dev/null; a refusal is a
 * bad-input one naming the file. */
#include "fuzz.h"

static FILE *sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!sink)
        PL_FUZZ_ASSERT((sink = fopen("/dev/null", "w")) != NULL,
                       "/dev/null: cannot open");
    pl_fuzz_begin();
    pl_error err = {0};
    pl_status st = pl_inspect(pl_fuzz_file(data, size), sink, &err);
    pl_fuzz_check_refusal(st, &err, PL_EINVALID);
    pl_fuzz_end(size);
    return 0;
}
