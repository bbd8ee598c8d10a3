/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pl_inspect, behind `proofline inspect`: tells the file kind by its magic,
 * opens it with the full validating reader (so what it prints can be
 * trusted, and a bad file fails here with the reader's message), and writes
 * its header facts as flat `key: value` lines, one fact a line, for people
 * and for grep.  A .ptau gets its header (the curve, the powers) and its
 * sections by name; `proofline ptau verify` checks its points.  It prints
 * counts and layout, never witness values.
 *
 * bellperson's files have no magic: a file that starts with no known magic
 * is read as a bellperson parameter or .vk file (formats/bellperson.c,
 * which knows one by its shape), or as 192-byte proofs when its length is
 * a multiple of 192 and its first byte has the compressed flag (a
 * parameter file's first byte, an uncompressed point's, never has).
 */
#include "formats/bellperson.h"
#include "formats/formats.h"
#include "util/error.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const char *const zkey_section_names[] = {
    "", "header", "groth16_header", "ic", "coefficients", "a", "b1", "b2",
    "c", "h", "contributions"};
static const char *const wtns_section_names[] = {"", "header", "values"};
static const char *const r1cs_section_names[] = {
    "", "header", "constraints", "wire_labels", "custom_gates",
    "custom_gate_uses"};

/* In file order, which is how a reader of a hex dump meets them. */
static void print_sections(FILE *f, const pl__container *c,
                           const char *const *names, size_t n_names)
{
    unsigned ids[PL__MAX_SECTION_ID], n = 0;
    for (unsigned id = 1; id <= PL__MAX_SECTION_ID; id++) {
        if (c->offset[id] == 0)
            continue;
        unsigned j = n++;
        for (; j > 0 && c->offset[ids[j - 1]] > c->offset[id]; j--)
            ids[j] = ids[j - 1];
        ids[j] = id;
    }
    fprintf(f, "sections: %u\n", n);
    for (unsigned i = 0; i < n; i++) {
        unsigned id = ids[i];
        fprintf(f, "section_%u: offset=%" PRIu64 " size=%" PRIu64 " name=%s\n",
                id, c->offset[id], c->size[id],
                id < n_names && names[id][0] ? names[id] : "unknown");
    }
}

static void print_common(FILE *f, const char *path, const pl__container *c,
                         const pl__mapped *m)
{
    fprintf(f, "file: %s\n", path);
    fprintf(f, "format: %s\n", c->magic);
    fprintf(f, "version: %" PRIu32 "\n", c->version);
    fprintf(f, "file_bytes: %" PRIu64 "\n", m->size);
}

/* The curve as inspect has always named BLS12-381; BN254 by snarkjs's
 * name too, which is what circom and snarkjs users search for. */
static const char *inspect_curve(pl__curve curve)
{
    return curve == PL__CURVE_BN254 ? "bn254 (bn128)" : "bls12-381";
}

static pl_status inspect_zkey(FILE *f, const char *path, pl_error *err)
{
    pl_zkey *z = NULL;
    pl__container c;
    pl_status st = pl_zkey_open(&z, path, err);
    if (st != PL_OK)
        goto fail;
    /* Cannot fail: pl_zkey_open parsed the same map. */
    if ((st = pl__container_parse(&c, &z->map, path, "zkey", err)) != PL_OK)
        goto fail;
    print_common(f, path, &c, &z->map);
    fprintf(f, "protocol: groth16\n");
    fprintf(f, "curve: %s\n", inspect_curve(z->curve));
    fprintf(f, "n_vars: %" PRIu32 "\n", z->n_vars);
    fprintf(f, "n_public: %" PRIu32 "\n", z->n_public);
    fprintf(f, "n_constraints: %" PRIu32 "\n", z->n_constraints);
    fprintf(f, "domain_size: %" PRIu32 "\n", z->domain_size);
    fprintf(f, "log2_domain: %" PRIu32 "\n", z->log2_domain);
    fprintf(f, "n_coefs: %" PRIu32 "\n", z->n_coefs);
    print_sections(f, &c, zkey_section_names,
                   sizeof(zkey_section_names) / sizeof(zkey_section_names[0]));
fail:
    pl_zkey_close(z);
    return st;
}

static pl_status inspect_wtns(FILE *f, const char *path, pl_error *err)
{
    pl_wtns *w = NULL;
    pl__container c;
    pl_status st = pl_wtns_open(&w, path, err);
    if (st != PL_OK)
        goto fail;
    if ((st = pl__container_parse(&c, &w->map, path, "wtns", err)) != PL_OK)
        goto fail;
    print_common(f, path, &c, &w->map);
    fprintf(f, "curve: %s\n", inspect_curve(w->curve));
    fprintf(f, "n_values: %" PRIu64 "\n", w->n_values);
    print_sections(f, &c, wtns_section_names,
                   sizeof(wtns_section_names) / sizeof(wtns_section_names[0]));
fail:
    pl_wtns_close(w);
    return st;
}

static pl_status inspect_r1cs(FILE *f, const char *path, pl_error *err)
{
    pl_r1cs *r = NULL;
    pl__container c;
    pl_status st = pl_r1cs_open(&r, path, err);
    if (st != PL_OK)
        goto fail;
    if ((st = pl__container_parse(&c, &r->map, path, "r1cs", err)) != PL_OK)
        goto fail;
    print_common(f, path, &c, &r->map);
    fprintf(f, "curve: %s\n", inspect_curve(r->curve));
    fprintf(f, "n_wires: %" PRIu32 "\n", r->info.n_wires);
    fprintf(f, "n_pub_out: %" PRIu32 "\n", r->info.n_pub_out);
    fprintf(f, "n_pub_in: %" PRIu32 "\n", r->info.n_pub_in);
    fprintf(f, "n_prv_in: %" PRIu32 "\n", r->info.n_prv_in);
    fprintf(f, "n_labels: %" PRIu64 "\n", r->info.n_labels);
    fprintf(f, "n_constraints: %" PRIu32 "\n", r->info.n_constraints);
    print_sections(f, &c, r1cs_section_names,
                   sizeof(r1cs_section_names) / sizeof(r1cs_section_names[0]));
fail:
    pl_r1cs_close(r);
    return st;
}

static pl_status inspect_ptau(FILE *f, const char *path, const pl__mapped *m,
                              pl_error *err)
{
    pl__container c;
    pl_status st = pl__container_parse(&c, m, path, "ptau", err);
    if (st != PL_OK)
        goto fail;
    pl__ptau_header h;
    pl__curve curve;
    if ((st = pl__ptau_header_read(&c, m, path, &h, err)) ||
        (st = pl__file_curve(path, "section 1 (header): q", "ptau", false,
                             h.n8q, h.q, c.size[1] - 4, h.at + 4, &curve,
                             err)))
        goto fail;
    print_common(f, path, &c, m);
    fprintf(f, "curve: %s\n", inspect_curve(curve));
    fprintf(f, "power: %" PRIu32 "\n", h.power);
    fprintf(f, "ceremony_power: %" PRIu32 "\n", h.ceremony_power);
    fprintf(f, "prepared: %s\n", c.offset[12] ? "yes" : "no");
    print_sections(f, &c, pl__ptau_section_names, PL__PTAU_SECTIONS);
fail:
    return st;
}

static pl_status inspect_bp_proofs(FILE *f, const char *path,
                                   const pl__mapped *m, pl_error *err)
{
    pl_proof proof;
    const uint64_t n = m->size / PL_BP_PROOF_BYTES;
    for (uint64_t i = 0; i < n; i++) {
        pl_status st = pl_proof_from_bp_bytes(&proof, m->data + i *
                                              PL_BP_PROOF_BYTES, err);
        if (st != PL_OK) {
            pl__error_set(err, st, "%s: proof %" PRIu64 ": %s (at byte "
                          "offset %" PRIu64 ")", path, i, err ? err->msg : "",
                          i * PL_BP_PROOF_BYTES);
            return st;
        }
    }
    fprintf(f, "file: %s\n", path);
    fprintf(f, "format: bellperson-proofs\n");
    fprintf(f, "curve: bls12-381\n");
    fprintf(f, "file_bytes: %" PRIu64 "\n", m->size);
    fprintf(f, "proof_bytes: %u\n", PL_BP_PROOF_BYTES);
    fprintf(f, "proofs: %" PRIu64 "\n", n);
    return PL_OK;
}

static pl_status inspect_bp_params(FILE *f, const char *path,
                                   const pl__mapped *m, pl_error *err)
{
    pl_bp_params *p = NULL;
    pl_status st = pl__bp_parse(&p, m->data, m->size, path, err);
    if (st != PL_OK)
        return st;
    fprintf(f, "file: %s\n", path);
    fprintf(f, "format: %s\n", p->vk_only ? "bellperson-vk"
                                          : "bellperson-params");
    fprintf(f, "curve: bls12-381\n");
    fprintf(f, "file_bytes: %" PRIu64 "\n", m->size);
    fprintf(f, "n_public: %" PRIu32 "\n", p->count[PL__BP_IC] - 1);
    for (unsigned s = 0; s < PL__BP_SECTIONS; s++) {
        if (p->vk_only && s != PL__BP_IC)
            break;
        fprintf(f, "section_%s: offset=%" PRIu64 " count=%" PRIu32
                " point_bytes=%u\n", pl__bp_section_name(s), p->at[s],
                p->count[s],
                pl__bp_section_is_g2(s) ? PL__BP_G2_BYTES : PL__BP_G1_BYTES);
    }
    if (!p->vk_only)
        fprintf(f, "domain_size: %" PRIu64 "\n",
                (uint64_t)p->count[PL__BP_H] + 1);
    pl_bp_params_close(p);
    return PL_OK;
}

pl_status pl_inspect(const char *path, FILE *file_stream, pl_error *err)
{
    FILE *f = file_stream;
    pl__mapped m = {0};
    pl_status st = pl__file_map(&m, path, err);
    if (st != PL_OK)
        goto fail;
    if (m.size < 4) {
        st = pl__error_set(err, PL_EFORMAT,
                           "%s: file is %" PRIu64 " bytes, too short for a "
                           "magic (at byte offset 0)", path, m.size);
        goto fail;
    }
    if (memcmp(m.data, "zkey", 4) == 0) {
        st = inspect_zkey(f, path, err);
    } else if (memcmp(m.data, "wtns", 4) == 0) {
        st = inspect_wtns(f, path, err);
    } else if (memcmp(m.data, "r1cs", 4) == 0) {
        st = inspect_r1cs(f, path, err);
    } else if (memcmp(m.data, "ptau", 4) == 0) {
        st = inspect_ptau(f, path, &m, err);
    } else if (m.size % PL_BP_PROOF_BYTES == 0 && (m.data[0] & 0x80)) {
        st = inspect_bp_proofs(f, path, &m, err);
    } else if ((m.data[0] & 0x80) == 0) {
        /* no magic: maybe bellperson's; if not, both answers, its saying
         * which section does not fit */
        pl_error bp = {0};
        st = inspect_bp_params(f, path, &m, &bp);
        if (st != PL_OK) {
            char seen[17];
            const size_t skip = strlen(path) + 2; /* "<path>: " */
            pl__magic_text(seen, m.data);
            st = pl__error_set(err, PL_EFORMAT,
                               "%s: unknown magic \"%s\": not a zkey, wtns, "
                               "r1cs or ptau file; as a bellperson file: %s",
                               path, seen,
                               strlen(bp.msg) > skip ? bp.msg + skip : bp.msg);
        }
    } else {
        char seen[17];
        pl__magic_text(seen, m.data);
        st = pl__error_set(err, PL_EFORMAT,
                           "%s: unknown magic \"%s\": not a zkey, wtns, r1cs "
                           "or ptau file (at byte offset 0)", path, seen);
    }
    if (st != PL_OK)
        goto fail;
    if (fflush(f) != 0 || ferror(f)) {
        st = pl__error_errno(err, PL_EIO, errno, "%s: cannot write the "
                             "inspection output", path);
        goto fail;
    }
fail:
    pl__file_unmap(&m);
    return st;
}
