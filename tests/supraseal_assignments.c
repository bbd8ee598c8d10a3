/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The Rust crate's test helper (tests/cli_supraseal_rust.sh): what
 * bellperson's synthesis hands SupraSeal C2, for our circuits, as files
 * the crate's test reads without any dependency; and the proofs it gets
 * back turned into Filecoin's 192 bytes for the verifiers.
 *
 *   supraseal_assignments assign <circuit.r1cs> <outdir> <w0.wtns> ...
 *       outdir/p<i>.as: "PLSSAS1\0", nine u64 (little-endian): abc_size,
 *       inp_size, aux_size, then bits and popcount of the a_aux, b_inp
 *       and b_aux densities; a, b, c, the input and the auxiliary
 *       assignments as blstrs's Scalar lies in memory (Montgomery form,
 *       32 bytes each); the three densities' u64 words (bitvec's Lsb0).
 *       outdir/p<i>.inputs: its public inputs, 32-byte standard form
 *       (proofline verify --format bellperson, tests/bp_verify.mjs).
 *   supraseal_assignments proofs <raw> <out.proofs>
 *       raw: Proof<Bls12> as it lies in memory, 384 bytes each (what
 *       generate_groth16_proofs_c writes); out: 192 bytes each.
 *
 * The assignment is pl_c2_assignment_from_r1cs's (bellperson's order: a,
 * b, c per constraint, then the input constraints).
 */
#include "proofline.h"
#include "proofline_c2.h"

#include <blst.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *what, const pl_error *err)
{
    fprintf(stderr, "supraseal_assignments: %s%s%s\n", what,
            err ? ": " : "", err ? err->msg : "");
    return 1;
}

/* n scalars, standard form in, Montgomery form out */
static int put_mont(FILE *f, const pl_scalar *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        blst_fr fr;
        blst_scalar sc;
        memcpy(sc.b, v[i].b, 32);
        blst_fr_from_scalar(&fr, &sc);
        uint8_t le[32];
        for (int l = 0; l < 4; l++)
            for (int k = 0; k < 8; k++)
                le[8 * l + k] = (uint8_t)(fr.l[l] >> (8 * k));
        if (fwrite(le, 32, 1, f) != 1)
            return -1;
    }
    return 0;
}

static int put_u64(FILE *f, uint64_t v)
{
    uint8_t le[8];
    for (int k = 0; k < 8; k++)
        le[k] = (uint8_t)(v >> (8 * k));
    return fwrite(le, 8, 1, f) == 1 ? 0 : -1;
}

static int put_words(FILE *f, const uint64_t *w, size_t bits)
{
    for (size_t i = 0; i < (bits + 63) / 64; i++)
        if (put_u64(f, w[i]))
            return -1;
    return 0;
}

static int write_assignment(const char *dir, size_t i,
                            const pl_c2_assignment *as)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/p%zu.as", dir, i);
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    int bad = fwrite("PLSSAS1", 8, 1, f) != 1;
    const uint64_t head[9] = {as->abc_size,       as->inp_assignment_size,
                              as->aux_assignment_size, as->a_aux_bit_len,
                              as->a_aux_popcount, as->b_inp_bit_len,
                              as->b_inp_popcount, as->b_aux_bit_len,
                              as->b_aux_popcount};
    for (int k = 0; k < 9; k++)
        bad |= put_u64(f, head[k]);
    bad |= put_mont(f, as->a, as->abc_size);
    bad |= put_mont(f, as->b, as->abc_size);
    bad |= put_mont(f, as->c, as->abc_size);
    bad |= put_mont(f, as->inp_assignment, as->inp_assignment_size);
    bad |= put_mont(f, as->aux_assignment, as->aux_assignment_size);
    bad |= put_words(f, as->a_aux_density, as->a_aux_bit_len);
    bad |= put_words(f, as->b_inp_density, as->b_inp_bit_len);
    bad |= put_words(f, as->b_aux_density, as->b_aux_bit_len);
    bad |= fclose(f) != 0;
    if (bad)
        return -1;
    pl_error err = {0};
    snprintf(path, sizeof(path), "%s/p%zu.inputs", dir, i);
    /* the public inputs: the input assignment after ONE */
    return pl_bp_inputs_write(path, as->inp_assignment + 1,
                              as->inp_assignment_size - 1, &err) == PL_OK
               ? 0
               : -1;
}

static int assign(const char *r1cs_path, const char *dir, char **wtns,
                  int n)
{
    pl_error err = {0};
    pl_r1cs *r1cs = NULL;
    if (pl_r1cs_open(&r1cs, r1cs_path, &err))
        return fail(r1cs_path, &err);
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        pl_wtns *w = NULL;
        pl_c2_assignment as;
        if (pl_wtns_open(&w, wtns[i], &err)) {
            rc = fail(wtns[i], &err);
            break;
        }
        if (pl_c2_assignment_from_r1cs(&as, r1cs, w, &err)) {
            rc = fail(wtns[i], &err);
        } else {
            if (write_assignment(dir, (size_t)i, &as))
                rc = fail("cannot write the assignment's files", NULL);
            pl_c2_assignment_release(&as);
        }
        pl_wtns_close(w);
    }
    pl_r1cs_close(r1cs);
    return rc;
}

static int proofs(const char *raw_path, const char *out_path)
{
    FILE *f = fopen(raw_path, "rb");
    if (!f)
        return fail(raw_path, NULL);
    pl_proof buf[64];
    size_t n = fread(buf, sizeof(pl_proof), 64, f);
    int extra = fgetc(f);
    fclose(f);
    if (n == 0 || extra != EOF)
        return fail("the raw proofs: 1 to 64 proofs of 384 bytes", NULL);
    pl_error err = {0};
    if (pl_bp_proofs_write(out_path, buf, n, &err))
        return fail(out_path, &err);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 5 && strcmp(argv[1], "assign") == 0)
        return assign(argv[2], argv[3], argv + 4, argc - 4);
    if (argc == 4 && strcmp(argv[1], "proofs") == 0)
        return proofs(argv[2], argv[3]);
    fprintf(stderr, "usage: supraseal_assignments assign R1CS OUTDIR W.wtns...\n"
                    "       supraseal_assignments proofs RAW OUT.proofs\n");
    return 2;
}
