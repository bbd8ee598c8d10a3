/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The layout of snarkjs's .ptau (powers of tau) that more than one reader
 * needs: the names of its sections and section 1, the header (n8q, q,
 * power, ceremonyPower: powersoftau_utils.js writePTauHeader).  The
 * ceremony (ceremony/ptau.c) reads and writes the whole file on top of
 * this; `proofline inspect` shows the header and the sections by name.
 */
#include "formats/formats.h"
#include "util/error.h"

#include <inttypes.h>

const char *const pl__ptau_section_names[PL__PTAU_SECTIONS] = {
    "", "header", "tauG1", "tauG2", "alphaTauG1", "betaTauG1", "betaG2",
    "contributions", "", "", "", "", "lagrange tauG1", "lagrange tauG2",
    "lagrange alphaTauG1", "lagrange betaTauG1"};

pl_status pl__ptau_header_read(const pl__container *c, const pl__mapped *m,
                               const char *path, pl__ptau_header *out,
                               pl_error *err)
{
    const uint64_t at = c->offset[1], size = c->size[1];
    if (at == 0)
        return pl__error_set(err, PL_EFORMAT, "%s: section 1 (header) is "
                             "missing", path);
    const uint8_t *h = m->data + at;
    uint32_t n8 = size >= 4 ? pl__le32(h) : 0;
    if (size < 4 || n8 > 64 || size != 4 + (uint64_t)n8 + 8)
        return pl__error_set(err, PL_EFORMAT, "%s: section 1 (header) is %"
                             PRIu64 " bytes, not n8q, q, power and ceremony "
                             "power (at byte offset %" PRIu64 ")", path, size,
                             at);
    out->n8q = n8;
    out->q = h + 4;
    out->power = pl__le32(h + 4 + n8);
    out->ceremony_power = pl__le32(h + 8 + n8);
    out->at = at;
    return PL_OK;
}
