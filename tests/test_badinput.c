/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The bad-input matrix over every committed vector, through the readers'
 * in-memory entries (pl__zkey_parse, pl__wtns_parse, pl__r1cs_parse and the
 * JSON ones), which run the same validation as the *_open and *_read_json
 * calls without a file per case.  test_formats.c and test_json.c hold the
 * field-by-field cases on multiplier with exact messages; this file widens
 * them: every vector, every kind, every truncation at a section boundary
 * and inside the headers, every count field at 0, off by one and 2^32 - 1,
 * every section size, JSON cut at every byte, and the parameter check
 * (pl_zkey_check_points): coordinates >= q, points off the curve, points
 * on the curve outside the subgroup, in every point section.  Each refusal
 * must be PL_EFORMAT or PL_EUNSUPPORTED (exit code 2) with a message naming
 * the input.  Last, the readers that take accounted memory fail each such
 * allocation in turn (PL_ENOMEM, nothing leaked).  The same cases through
 * the CLI (exit codes, no output left behind) are in cli_bad_inputs.sh.
 */
#include "harness.h"
#include "points_test.h"

#include "field/field.h"
#include "formats/formats.h"
#include "formats/json.h"
#include "groth16/vkey.h"
#include "util/alloc.h"

#include <stdio.h>

static const char *const vectors[] = {
    "multiplier", "chain10", "nopublic", "pow2exact", "pow2plus1",
    "noB", "manypublic", "edgevalues"};
#define N_VECTORS (sizeof(vectors) / sizeof(vectors[0]))

enum kind { KIND_ZKEY, KIND_WTNS, KIND_R1CS };
static const char *const kind_file[3] = {"circuit.zkey", "witness.wtns",
                                         "circuit.r1cs"};

/* ---- helpers ----------------------------------------------------------- */

static uint8_t *read_vector(const char *name, const char *file, size_t *len)
{
    char rel[256];
    snprintf(rel, sizeof(rel), "%s/%s", name, file);
    return pl_test_read_file(pl_test_vector(rel), len);
}

/* Parses len bytes as `kind` from memory; the handle is closed. */
static pl_status parse_kind(enum kind kind, const uint8_t *b, size_t len,
                            const char *name, pl_error *err)
{
    pl_status st = PL_EINTERNAL;
    if (kind == KIND_ZKEY) {
        pl_zkey *z = NULL;
        st = pl__zkey_parse(&z, b, len, name, err);
        CHECK((st == PL_OK) == (z != NULL));
        pl_zkey_close(z);
    } else if (kind == KIND_WTNS) {
        pl_wtns *w = NULL;
        st = pl__wtns_parse(&w, b, len, name, err);
        CHECK((st == PL_OK) == (w != NULL));
        pl_wtns_close(w);
    } else {
        pl_r1cs *r = NULL;
        st = pl__r1cs_parse(&r, b, len, name, err);
        CHECK((st == PL_OK) == (r != NULL));
        pl_r1cs_close(r);
    }
    return st;
}

/* A refusal as the CLI needs it: a bad-input status (exit code 2), err.code
 * set, the input named. */
static void check_refusal_at(const char *file, int line, pl_status st,
                             const pl_error *err, const char *name,
                             const char *label)
{
    if (st != PL_EFORMAT && st != PL_EUNSUPPORTED)
        pl_test_fail(file, line, "%s: %s, wanted a refusal (%s)", label,
                     pl_strerror(st), err->msg);
    if (pl_status_exit_code(st) != 2 || err->code != st)
        pl_test_fail(file, line, "%s: exit code %d, err.code %d", label,
                     pl_status_exit_code(st), err->code);
    if (!strstr(err->msg, name))
        pl_test_fail(file, line, "%s: message does not name %s: %s", label,
                     name, err->msg);
}
#define CHECK_REFUSAL(st, err, name, label)                                   \
    check_refusal_at(__FILE__, __LINE__, st, err, name, label)

/* A mutated copy must be refused. */
static void expect_refused_at(const char *file, int line, enum kind kind,
                              const uint8_t *b, size_t len, const char *label)
{
    pl_error err = {0};
    pl_status st = parse_kind(kind, b, len, label, &err);
    check_refusal_at(file, line, st, &err, label, label);
}
#define EXPECT_REFUSED(kind, b, len, label)                                   \
    expect_refused_at(__FILE__, __LINE__, kind, b, len, label)

/* Offsets where a cut is most likely to find an off-by-one: inside the
 * 12-byte file header, and around every section header and its payload. */
static size_t boundary_cuts(const uint8_t *b, size_t len, size_t *cuts,
                            size_t cap)
{
    size_t n = 0;
    for (size_t c = 0; c <= 12 && n < cap; c++)
        cuts[n++] = c;
    size_t off = 12;
    uint32_t ns = pl__le32(b + 8);
    for (uint32_t i = 0; i < ns && off + 12 <= len; i++) {
        uint64_t size = pl__le64(b + off + 4);
        size_t pay = off + 12;
        size_t mine[] = {off + 1, off + 4, off + 8, off + 11, pay, pay + 1,
                         pay + 4, pay + (size_t)size / 2,
                         pay + (size_t)size - 1, pay + (size_t)size};
        for (size_t k = 0; k < sizeof(mine) / sizeof(mine[0]) && n < cap; k++)
            if (mine[k] < len)
                cuts[n++] = mine[k];
        off = pay + (size_t)size;
    }
    return n;
}

/* ---- truncation -------------------------------------------------------- */

/* Every vector, every binary kind: each boundary cut is refused, and the
 * in-memory entry says exactly what pl_*_open says of the same bytes in a
 * file (the fuzzers test the one, the CLI uses the other). */
PL_TEST(every_vector_truncated_at_boundaries)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s", pl_test_tmp("cut.bin"));
    for (size_t v = 0; v < N_VECTORS; v++) {
        for (int kind = 0; kind < 3; kind++) {
            size_t len, cuts[256];
            uint8_t *b = read_vector(vectors[v], kind_file[kind], &len);
            size_t n = boundary_cuts(b, len, cuts, 256);
            for (size_t i = 0; i < n; i++) {
                char label[128];
                snprintf(label, sizeof(label), "%s/%s cut at %zu", vectors[v],
                         kind_file[kind], cuts[i]);
                pl_error mem = {0}, file = {0};
                pl_status st = parse_kind(kind, b, cuts[i], path, &mem);
                CHECK_REFUSAL(st, &mem, path, label);
                FILE *f = fopen(path, "wb");
                CHECK(f != NULL);
                CHECK_EQ(fwrite(b, 1, cuts[i], f), cuts[i]);
                fclose(f);
                pl_status fst = PL_EINTERNAL;
                if (kind == KIND_ZKEY) {
                    pl_zkey *z = NULL;
                    fst = pl_zkey_open(&z, path, &file);
                    pl_zkey_close(z);
                } else if (kind == KIND_WTNS) {
                    pl_wtns *w = NULL;
                    fst = pl_wtns_open(&w, path, &file);
                    pl_wtns_close(w);
                } else {
                    pl_r1cs *r = NULL;
                    fst = pl_r1cs_open(&r, path, &file);
                    pl_r1cs_close(r);
                }
                /* an empty file is refused by the map before the parser */
                if (cuts[i] == 0)
                    continue;
                if (fst != st || strcmp(file.msg, mem.msg) != 0)
                    pl_test_fail(__FILE__, __LINE__, "%s: open says %s (%s), "
                                 "memory says %s (%s)", label,
                                 pl_strerror(fst), file.msg, pl_strerror(st),
                                 mem.msg);
            }
            /* and the whole file opens */
            pl_error err = {0};
            CHECK_OK(parse_kind(kind, b, len, "whole", &err), &err);
            free(b);
        }
    }
    remove(path);
}

/* ---- count fields and section sizes ----------------------------------- */

typedef struct {
    const char *name;
    uint32_t section;
    size_t offset; /* in the section's payload */
} count_field;

/* For every vector: each u32 count set to 0, n - 1, n + 1, 2^31 and
 * 2^32 - 1 (where that differs from n).  Those that only must not be
 * believed (an r1cs may declare fewer inputs than it has wires) are handled
 * after. */
static void mutate_counts(enum kind kind, const char *vector,
                          const count_field *fields, size_t n_fields)
{
    size_t len;
    uint8_t *b = read_vector(vector, kind_file[kind], &len);
    uint8_t *m = malloc(len);
    CHECK(m != NULL);
    for (size_t f = 0; f < n_fields; f++) {
        size_t at = pl_test_section_payload(b, len, fields[f].section) + fields[f].offset;
        uint32_t n = pl__le32(b + at);
        uint32_t values[] = {0, n - 1, n + 1, 0x80000000u, 0xffffffffu};
        for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
            if (values[i] == n)
                continue;
            memcpy(m, b, len);
            pl_test_put_le32(m + at, values[i]);
            char label[128];
            snprintf(label, sizeof(label), "%s/%s %s=%u", vector,
                     kind_file[kind], fields[f].name, values[i]);
            EXPECT_REFUSED(kind, m, len, label);
        }
    }
    free(m);
    free(b);
}

PL_TEST(every_vector_count_fields)
{
    /* zkey section 2 after n8q, q, n8r, r: nVars, nPublic, domainSize;
     * section 4: nCoef */
    static const count_field zkey_fields[] = {
        {"nVars", 2, 88}, {"nPublic", 2, 92}, {"domainSize", 2, 96},
        {"nCoef", 4, 0}};
    static const count_field wtns_fields[] = {{"nWitness", 1, 36}};
    static const count_field r1cs_fields[] = {
        {"nWires", 1, 36}, {"nConstraints", 1, 60}};
    for (size_t v = 0; v < N_VECTORS; v++) {
        mutate_counts(KIND_ZKEY, vectors[v], zkey_fields, 4);
        mutate_counts(KIND_WTNS, vectors[v], wtns_fields, 1);
        mutate_counts(KIND_R1CS, vectors[v], r1cs_fields, 2);
    }
}

/* nPubOut, nPubIn, nPrvIn only split the wires: a smaller value still
 * describes a valid r1cs, but never the zkey's circuit (nPubOut + nPubIn
 * must equal nPublic), and one whose sum exceeds nWires is refused. */
PL_TEST(every_vector_r1cs_input_counts)
{
    static const char *const names[3] = {"nPubOut", "nPubIn", "nPrvIn"};
    for (size_t v = 0; v < N_VECTORS; v++) {
        size_t len;
        uint8_t *b = read_vector(vectors[v], "circuit.r1cs", &len);
        uint8_t *m = malloc(len);
        CHECK(m != NULL);
        pl_zkey *z = NULL;
        pl_error err = {0};
        char rel[256];
        snprintf(rel, sizeof(rel), "%s/circuit.zkey", vectors[v]);
        CHECK_OK(pl_zkey_open(&z, pl_test_vector(rel), &err), &err);
        size_t h = pl_test_section_payload(b, len, 1) + 36;
        uint32_t n_wires = pl__le32(b + h);
        for (unsigned f = 0; f < 3; f++) {
            size_t at = h + 4 + 4 * f;
            uint32_t n = pl__le32(b + at);
            uint32_t io = 1 + pl__le32(b + h + 4) + pl__le32(b + h + 8) +
                          pl__le32(b + h + 12);
            uint32_t values[] = {0, n - 1, n + 1, n + (n_wires - io) + 1,
                                 0x80000000u, 0xffffffffu};
            for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
                if (values[i] == n)
                    continue;
                memcpy(m, b, len);
                pl_test_put_le32(m + at, values[i]);
                char label[128];
                snprintf(label, sizeof(label), "%s/circuit.r1cs %s=%u",
                         vectors[v], names[f], values[i]);
                uint64_t sum = (uint64_t)io - n + values[i];
                pl_r1cs *r = NULL;
                pl_status st = pl__r1cs_parse(&r, m, len, label, &err);
                if (sum > n_wires) {
                    CHECK_REFUSAL(st, &err, label, label);
                    CHECK(strstr(err.msg, "exceeds nWires") != NULL);
                    continue;
                }
                CHECK_OK(st, &err);
                if (f < 2) {
                    CHECK_STATUS(pl_r1cs_matches_zkey(r, z, &err), PL_EFORMAT,
                                 &err);
                    CHECK(strstr(err.msg, label) != NULL);
                }
                pl_r1cs_close(r);
            }
        }
        pl_zkey_close(z);
        free(m);
        free(b);
    }
}

/* The section table of every kind and vector: nSections and every section
 * size at 0, +-1, 2^32 - 1, 2^63 and 2^64 - 1. */
PL_TEST(every_vector_section_sizes)
{
    for (size_t v = 0; v < N_VECTORS; v++) {
        for (int kind = 0; kind < 3; kind++) {
            size_t len;
            uint8_t *b = read_vector(vectors[v], kind_file[kind], &len);
            uint8_t *m = malloc(len);
            CHECK(m != NULL);
            uint32_t ns = pl__le32(b + 8);
            uint32_t counts[] = {0, ns + 1, 0x80000000u, 0xffffffffu};
            for (size_t i = 0; i < 4; i++) {
                memcpy(m, b, len);
                pl_test_put_le32(m + 8, counts[i]);
                char label[128];
                snprintf(label, sizeof(label), "%s/%s nSections=%u",
                         vectors[v], kind_file[kind], counts[i]);
                EXPECT_REFUSED(kind, m, len, label);
            }
            size_t off = 12;
            for (uint32_t s = 0; s < ns; s++) {
                uint32_t id = pl__le32(b + off);
                uint64_t size = pl__le64(b + off + 4);
                /* the zkey's contributions (10) are not read: a shorter one
                 * leaves trailing bytes, which snarkjs ignores too */
                bool unread = kind == KIND_ZKEY && id == 10;
                uint64_t sizes[] = {0, size - 1, size + 1, 0xffffffffull,
                                    1ull << 63, ~0ull};
                for (size_t i = unread ? 2 : 0; i < 6; i++) {
                    if (sizes[i] == size)
                        continue;
                    memcpy(m, b, len);
                    pl_test_put_le64(m + off + 4, sizes[i]);
                    char label[128];
                    snprintf(label, sizeof(label), "%s/%s section %u size=%llu",
                             vectors[v], kind_file[kind], id,
                             (unsigned long long)sizes[i]);
                    EXPECT_REFUSED(kind, m, len, label);
                }
                off += 12 + (size_t)size;
            }
            free(m);
            free(b);
        }
    }
}

/* Wrong magic (each of the three kinds' magics in the others' files),
 * version 0, +1 and 2^32 - 1, for every vector. */
PL_TEST(every_vector_magic_and_version)
{
    static const char *const magics[3] = {"zkey", "wtns", "r1cs"};
    for (size_t v = 0; v < N_VECTORS; v++) {
        for (int kind = 0; kind < 3; kind++) {
            size_t len;
            uint8_t *b = read_vector(vectors[v], kind_file[kind], &len);
            uint8_t *m = malloc(len);
            CHECK(m != NULL);
            char label[128];
            for (int other = 0; other < 3; other++) {
                if (other == kind)
                    continue;
                memcpy(m, b, len);
                memcpy(m, magics[other], 4);
                snprintf(label, sizeof(label), "%s/%s magic %s", vectors[v],
                         kind_file[kind], magics[other]);
                EXPECT_REFUSED(kind, m, len, label);
                pl_error err = {0};
                parse_kind(kind, m, len, label, &err);
                CHECK(strstr(err.msg, "magic") != NULL);
            }
            uint32_t version = pl__le32(b + 4);
            uint32_t versions[] = {0, version + 1, 0xffffffffu};
            for (size_t i = 0; i < 3; i++) {
                memcpy(m, b, len);
                pl_test_put_le32(m + 4, versions[i]);
                snprintf(label, sizeof(label), "%s/%s version %u", vectors[v],
                         kind_file[kind], versions[i]);
                pl_error err = {0};
                pl_status st = parse_kind(kind, m, len, label, &err);
                CHECK_EQ(st, PL_EUNSUPPORTED);
                CHECK_REFUSAL(st, &err, label, label);
            }
            free(m);
            free(b);
        }
    }
}

/* ---- the parameter check ----------------------------------------------- */

PL_TEST(check_points_accepts_every_vector)
{
    for (size_t v = 0; v < N_VECTORS; v++) {
        char rel[256];
        snprintf(rel, sizeof(rel), "%s/circuit.zkey", vectors[v]);
        pl_error err = {0};
        pl_zkey *z = NULL;
        CHECK_OK(pl_zkey_open(&z, pl_test_vector(rel), &err), &err);
        CHECK_OK(pl_zkey_check_points(z, &err), &err);
        pl_zkey_close(z);
    }
}

typedef struct {
    const char *label;   /* as in the message */
    uint32_t section;
    size_t offset;       /* of the first point used, in the payload */
    size_t unit;         /* 96 or 192 */
    size_t count;        /* points in the section (0: one header point) */
} point_site;

/* Runs the parameter check on a mutated copy: it must refuse, naming the
 * section, the problem and the byte offset. */
static void expect_bad_point(const uint8_t *m, size_t len, const char *label,
                             const char *want1, const char *want2,
                             size_t at)
{
    pl_error err = {0};
    pl_zkey *z = NULL;
    CHECK_OK(pl__zkey_parse(&z, m, len, label, &err), &err);
    pl_status st = pl_zkey_check_points(z, &err);
    pl_zkey_close(z);
    CHECK_REFUSAL(st, &err, label, label);
    char off[64];
    snprintf(off, sizeof(off), "(at byte offset %zu)", at);
    if (!strstr(err.msg, want1) || !strstr(err.msg, want2) ||
        !strstr(err.msg, off))
        pl_test_fail(__FILE__, __LINE__, "%s: wanted \"%s\", \"%s\" and "
                     "\"%s\" in: %s", label, want1, want2, off, err.msg);
}

PL_TEST(check_points_refuses_bad_points)
{
    size_t len;
    uint8_t *b = read_vector("multiplier", "circuit.zkey", &len);
    uint8_t *m = malloc(len);
    CHECK(m != NULL);
    size_t s2 = pl_test_section_payload(b, len, 2);
    uint32_t n_vars = pl__le32(b + s2 + 88);
    uint32_t n_public = pl__le32(b + s2 + 92);
    uint32_t domain = pl__le32(b + s2 + 96);
    const point_site sites[] = {
        {"alpha_1", 2, 100, 96, 0},
        {"beta_1", 2, 196, 96, 0},
        {"beta_2", 2, 292, 192, 0},
        {"gamma_2", 2, 484, 192, 0},
        {"delta_1", 2, 676, 96, 0},
        {"delta_2", 2, 772, 192, 0},
        {"section 3 (IC points)", 3, 0, 96, n_public + 1},
        {"section 5 (A points)", 5, 0, 96, n_vars},
        {"section 6 (B1 points)", 6, 0, 96, n_vars},
        {"section 7 (B2 points)", 7, 0, 192, n_vars},
        {"section 8 (C points)", 8, 0, 96, n_vars - n_public - 1},
        {"section 9 (H points)", 9, 0, 96, domain},
    };
    blst_p1_affine p1;
    blst_p2_affine p2;
    bls_g1_outside_subgroup(&p1);
    bls_g2_outside_subgroup(&p2);
    static const uint8_t zero[192];
    for (size_t i = 0; i < sizeof(sites) / sizeof(sites[0]); i++) {
        const point_site *s = &sites[i];
        size_t base = pl_test_section_payload(b, len, s->section) + s->offset;
        /* the last point of an array that is not infinity (wires a
         * matrix never uses have infinity there) */
        size_t k = s->count ? s->count - 1 : 0;
        while (k > 0 && memcmp(b + base + k * s->unit, zero, s->unit) == 0)
            k--;
        size_t at = base + k * s->unit;
        CHECK(memcmp(b + at, zero, s->unit) != 0);
        char index[32] = "";
        if (s->count)
            snprintf(index, sizeof(index), "point %zu ", k);
        char label[128], want[96];

        /* off the curve: the low bit of x (still below q) */
        memcpy(m, b, len);
        m[at] ^= 1;
        snprintf(label, sizeof(label), "offcurve_%zu", i);
        snprintf(want, sizeof(want), "%sis not on the curve", index);
        expect_bad_point(m, len, label, s->label, want, at);

        /* on the curve, outside the subgroup */
        memcpy(m, b, len);
        if (s->unit == 96)
            memcpy(m + at, &p1, 96);
        else
            memcpy(m + at, &p2, 192);
        snprintf(label, sizeof(label), "subgroup_%zu", i);
        snprintf(want, sizeof(want), "%sis not in the G%d subgroup", index,
                 s->unit == 96 ? 1 : 2);
        expect_bad_point(m, len, label, s->label, want, at);

        /* a coordinate not reduced mod q: y := y + q would wrap, so set
         * the last coordinate to q itself */
        memcpy(m, b, len);
        memcpy(m + at + s->unit - 48, pl__fp_modulus_le, 48);
        snprintf(label, sizeof(label), "unreduced_%zu", i);
        snprintf(want, sizeof(want), "%shas y%s not below q", index,
                 s->unit == 96 ? "" : ".c1");
        expect_bad_point(m, len, label, s->label, want, at);

        /* infinity: refused in the header, allowed in the arrays */
        memcpy(m, b, len);
        memset(m + at, 0, s->unit);
        snprintf(label, sizeof(label), "infinity_%zu", i);
        if (s->count == 0) {
            expect_bad_point(m, len, label, s->label,
                             "is the point at infinity", at);
        } else {
            pl_error err = {0};
            pl_zkey *z = NULL;
            CHECK_OK(pl__zkey_parse(&z, m, len, label, &err), &err);
            CHECK_OK(pl_zkey_check_points(z, &err), &err);
            pl_zkey_close(z);
        }
    }
    free(m);
    free(b);
}

/* ---- JSON -------------------------------------------------------------- */

/* Every proper prefix of a vector's JSON files is refused with PL_EFORMAT
 * naming the input (a prefix of a JSON value is never a JSON value, except
 * a number, which none of these files is). */
PL_TEST(json_truncated_everywhere)
{
    static const char *const files[] = {"verification_key.json",
                                        "proof_snarkjs.json", "public.json"};
    static const char *const small[] = {"multiplier", "nopublic"};
    for (size_t v = 0; v < 2; v++) {
        for (size_t f = 0; f < 3; f++) {
            size_t len;
            char *text = (char *)read_vector(small[v], files[f], &len);
            for (size_t cut = 0; cut < len; cut++) {
                /* an exact-size copy, so a read past the end is caught */
                char *t = malloc(cut ? cut : 1);
                CHECK(t != NULL);
                memcpy(t, text, cut);
                char label[128];
                snprintf(label, sizeof(label), "%s/%s cut at %zu", small[v],
                         files[f], cut);
                pl_error err = {0};
                pl_status st;
                if (f == 0) {
                    pl_vkey *vk = NULL;
                    st = pl__vkey_parse_json(&vk, t, cut, label, &err);
                    CHECK(vk == NULL);
                } else if (f == 1) {
                    pl_proof proof;
                    st = pl__proof_parse_json(&proof, t, cut, label, &err);
                } else {
                    pl_scalar *pubs = NULL;
                    size_t n = 0;
                    st = pl__public_parse_json(&pubs, &n, t, cut, label, &err);
                    CHECK(pubs == NULL && n == 0);
                }
                free(t);
                /* whitespace after the value: the cut keeps the value */
                bool rest_is_space = true;
                for (size_t k = cut; k < len; k++)
                    if (!strchr(" \t\r\n", text[k]))
                        rest_is_space = false;
                if (rest_is_space)
                    CHECK_OK(st, &err);
                else
                    CHECK_REFUSAL(st, &err, label, label);
            }
            free(text);
        }
    }
}

/* public.json: every input at r, at 2^256 - 1, with a leading zero, signed,
 * empty, or too long to be a number below r, at every position; r - 1 is
 * fine.  The message names the index. */
PL_TEST(public_inputs_not_below_r)
{
    static const char *const bad[] = {
        "52435875175126190479447740508185965837690552500527637822603658699938581184513",
        "115792089237316195423570985008687907853269984665640564039457584007913129639935",
        "052435875175126190479447740508185965837690552500527637822603658699938581184512",
        "01", "-1", "+1", "", " 1", "1e3", "0x1",
        "1000000000000000000000000000000000000000000000000000000000000000000000000000000000"};
    const char *ok = "52435875175126190479447740508185965837690552500527637822603658699938581184512";
    for (size_t pos = 0; pos < 3; pos++) {
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
            char text[512];
            const char *vals[3] = {"1", "2", "3"};
            vals[pos] = bad[i];
            snprintf(text, sizeof(text), "[\"%s\", \"%s\", \"%s\"]", vals[0],
                     vals[1], vals[2]);
            char label[64], index[16];
            snprintf(label, sizeof(label), "public_%zu_%zu.json", pos, i);
            snprintf(index, sizeof(index), "[%zu]", pos);
            pl_error err = {0};
            pl_scalar *pubs = NULL;
            size_t n = 0;
            pl_status st = pl__public_parse_json(&pubs, &n, text, strlen(text),
                                                 label, &err);
            CHECK_REFUSAL(st, &err, label, label);
            if (!strstr(err.msg, index))
                pl_test_fail(__FILE__, __LINE__, "%s: no %s in %s", text,
                             index, err.msg);
        }
        char text[512];
        snprintf(text, sizeof(text), "[\"%s\", \"%s\", \"%s\"]",
                 pos == 0 ? ok : "0", pos == 1 ? ok : "0", pos == 2 ? ok : "0");
        pl_error err = {0};
        pl_scalar *pubs = NULL;
        size_t n = 0;
        CHECK_OK(pl__public_parse_json(&pubs, &n, text, strlen(text), "ok",
                                       &err), &err);
        CHECK_EQ(n, 3);
        pl_public_free(pubs);
    }
}

/* ---- out of memory in the readers ------------------------------------- */

/* The readers that take accounted memory (a verification key, a witness
 * loaded for the engine) fail every such allocation in turn: PL_ENOMEM,
 * exit code 3, nothing left allocated. */
PL_TEST(reader_allocation_failures_leak_nothing)
{
    char vk_path[4096], zkey_path[4096], wtns_path[4096];
    snprintf(vk_path, sizeof(vk_path), "%s",
             pl_test_vector("manypublic/verification_key.json"));
    snprintf(zkey_path, sizeof(zkey_path), "%s",
             pl_test_vector("manypublic/circuit.zkey"));
    snprintf(wtns_path, sizeof(wtns_path), "%s",
             pl_test_vector("manypublic/witness.wtns"));
    pl_error err = {0};
    pl_zkey *z = NULL;
    CHECK_OK(pl_zkey_open(&z, zkey_path, &err), &err);
    for (int which = 0; which < 3; which++) {
        pl_vkey *vk = NULL;
        pl_wtns *w = NULL;
        pl__alloc_fail_at(0);
        if (which == 0)
            CHECK_OK(pl_vkey_read_json(&vk, vk_path, &err), &err);
        else if (which == 1)
            CHECK_OK(pl_vkey_from_zkey(&vk, z, &err), &err);
        else
            CHECK_OK(pl__wtns_load(&w, wtns_path, 0, &err), &err);
        pl_vkey_destroy(vk);
        pl_wtns_close(w);
        uint64_t total = pl__alloc_fail_at(0);
        CHECK(total >= 1);
        for (uint64_t k = 1; k <= total; k++) {
            pl__alloc_fail_at(k);
            pl_status st;
            vk = NULL;
            w = NULL;
            if (which == 0)
                st = pl_vkey_read_json(&vk, vk_path, &err);
            else if (which == 1)
                st = pl_vkey_from_zkey(&vk, z, &err);
            else
                st = pl__wtns_load(&w, wtns_path, 0, &err);
            pl__alloc_fail_at(0);
            CHECK_EQ(st, PL_ENOMEM);
            CHECK_EQ(pl_status_exit_code(st), 3);
            CHECK(vk == NULL && w == NULL);
            if (!pl_alloc_all_freed(&err))
                pl_test_fail(__FILE__, __LINE__, "reader %d, failing "
                             "allocation %llu: %s", which,
                             (unsigned long long)k, err.msg);
        }
    }
    pl_zkey_close(z);
}
