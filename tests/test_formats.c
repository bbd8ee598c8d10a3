/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tests of the binary format readers (src/formats: container, zkey, wtns,
 * r1cs, inspect, witness check).  Good files: every committed vector opens,
 * its counts agree across zkey, r1cs and wtns, its witness satisfies its
 * r1cs.  Bad files, written at test time into the scratch folder from the
 * committed ones: truncation at every byte, each count field set to 0, off
 * by one and 2^32 - 1, wrong magic, version, primes, protocol, section table
 * damage, bad coefficient records and terms.  Each must fail with
 * PL_EFORMAT or PL_EUNSUPPORTED and a message naming the file, never crash
 * (run under -DPL_SANITIZE=address,undefined to see out-of-bounds reads).
 * Also the output side: pl__output (util/file.c), through which every file
 * is written (commit, abort, failed writes, planted symlinks, a FIFO).
 */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"

#include "field/field.h"
#include "formats/formats.h"
#include "util/alloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const vectors[] = {
    "multiplier", "chain10", "nopublic", "pow2exact", "pow2plus1",
    "noB", "manypublic", "edgevalues"};
#define N_VECTORS (sizeof(vectors) / sizeof(vectors[0]))

enum kind { KIND_ZKEY, KIND_WTNS, KIND_R1CS };

/* ---- helpers ----------------------------------------------------------- */

static const char *vec(const char *name, const char *file)
{
    static char rel[256];
    snprintf(rel, sizeof(rel), "%s/%s", name, file);
    return pl_test_vector(rel);
}

static uint8_t *read_vector(const char *name, const char *file, size_t *len)
{
    return pl_test_read_file(vec(name, file), len);
}

static pl_status open_kind(enum kind kind, const char *path, pl_error *err)
{
    pl_status st = PL_EINTERNAL;
    switch (kind) {
    case KIND_ZKEY: {
        pl_zkey *z = NULL;
        st = pl_zkey_open(&z, path, err);
        CHECK((st == PL_OK) == (z != NULL));
        pl_zkey_close(z);
        break;
    }
    case KIND_WTNS: {
        pl_wtns *w = NULL;
        st = pl_wtns_open(&w, path, err);
        CHECK((st == PL_OK) == (w != NULL));
        pl_wtns_close(w);
        break;
    }
    case KIND_R1CS: {
        pl_r1cs *r = NULL;
        st = pl_r1cs_open(&r, path, err);
        CHECK((st == PL_OK) == (r != NULL));
        pl_r1cs_close(r);
        break;
    }
    }
    return st;
}

static const char *kind_ext(enum kind kind)
{
    return kind == KIND_ZKEY ? "zkey" : kind == KIND_WTNS ? "wtns" : "r1cs";
}

/* Writes buf as a scratch file and opens it: it must fail with `want` (or,
 * with want = PL_OK, with either PL_EFORMAT or PL_EUNSUPPORTED), the
 * message must name the file and contain `substr` if given. */
static void expect_refused_at(const char *file, int line, enum kind kind,
                              const uint8_t *buf, size_t len, const char *label,
                              pl_status want, const char *substr)
{
    char name[128], path[4096];
    snprintf(name, sizeof(name), "bad_%s.%s", label, kind_ext(kind));
    snprintf(path, sizeof(path), "%s", pl_test_tmp(name));
    pl_test_write_file(path, buf, len);
    pl_error err = {0};
    pl_status st = open_kind(kind, path, &err);
    if (want == PL_OK ? (st != PL_EFORMAT && st != PL_EUNSUPPORTED)
                      : st != want)
        pl_test_fail(file, line, "%s: %s, wanted %s (%s)", label,
                     pl_strerror(st),
                     want == PL_OK ? "malformed/unsupported" : pl_strerror(want),
                     err.msg);
    if (err.code != st)
        pl_test_fail(file, line, "%s: err.code %d but returned %d", label,
                     err.code, st);
    if (!strstr(err.msg, name))
        pl_test_fail(file, line, "%s: message does not name %s: %s", label,
                     name, err.msg);
    if (substr && !strstr(err.msg, substr))
        pl_test_fail(file, line, "%s: message lacks \"%s\": %s", label, substr,
                     err.msg);
    remove(path);
}
#define EXPECT_REFUSED(kind, buf, len, label, want, substr)                   \
    expect_refused_at(__FILE__, __LINE__, kind, buf, len, label, want, substr)

static void expect_opens_at(const char *file, int line, enum kind kind,
                            const uint8_t *buf, size_t len, const char *label)
{
    char name[128], path[4096];
    snprintf(name, sizeof(name), "ok_%s.%s", label, kind_ext(kind));
    snprintf(path, sizeof(path), "%s", pl_test_tmp(name));
    pl_test_write_file(path, buf, len);
    pl_error err = {0};
    pl_status st = open_kind(kind, path, &err);
    if (st != PL_OK)
        pl_test_fail(file, line, "%s: %s (%s)", label, pl_strerror(st),
                     err.msg);
    remove(path);
}
#define EXPECT_OPENS(kind, buf, len, label)                                   \
    expect_opens_at(__FILE__, __LINE__, kind, buf, len, label)

/* A u32 field set to a value in a copy of `orig`; must be refused. */
static void mutate32(enum kind kind, const uint8_t *orig, size_t len,
                     size_t at, uint32_t value, const char *label,
                     pl_status want, const char *substr)
{
    uint8_t *b = malloc(len);
    CHECK(b != NULL);
    memcpy(b, orig, len);
    pl_test_put_le32(b + at, value);
    char full[128];
    snprintf(full, sizeof(full), "%s_%u", label, value);
    EXPECT_REFUSED(kind, b, len, full, want, substr);
    free(b);
}

/* The usual suspects for a count field holding n. */
static void mutate_count(enum kind kind, const uint8_t *orig, size_t len,
                         size_t at, const char *label)
{
    uint32_t n = pl__le32(orig + at);
    uint32_t values[] = {0, n - 1, n + 1, 0xffffffffu, 0x80000000u};
    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++)
        if (values[i] != n)
            mutate32(kind, orig, len, at, values[i], label, PL_OK, NULL);
}

/* Every proper prefix of a file is refused with PL_EFORMAT: the header still
 * declares all the sections, even where the cut falls between two of them. */
static void truncate_everywhere(enum kind kind, const uint8_t *orig,
                                size_t len)
{
    for (size_t cut = 0; cut < len; cut++) {
        char label[64];
        snprintf(label, sizeof(label), "cut%zu", cut);
        EXPECT_REFUSED(kind, orig, cut, label, PL_EFORMAT, NULL);
    }
}

/* ---- good files -------------------------------------------------------- */

static uint32_t next_pow2(uint64_t n)
{
    uint32_t p = 1;
    while (p < n)
        p <<= 1;
    return p;
}

PL_TEST(vectors_open_and_agree)
{
    for (size_t i = 0; i < N_VECTORS; i++) {
        pl_error err = {0};
        pl_zkey *z = NULL;
        pl_wtns *w = NULL;
        pl_r1cs *r = NULL;
        CHECK_OK(pl_zkey_open(&z, vec(vectors[i], "circuit.zkey"), &err),
                 &err);
        CHECK_OK(pl_wtns_open(&w, vec(vectors[i], "witness.wtns"), &err),
                 &err);
        CHECK_OK(pl_r1cs_open(&r, vec(vectors[i], "circuit.r1cs"), &err),
                 &err);
        pl_zkey_info zi;
        pl_r1cs_info ri;
        pl_zkey_get_info(z, &zi);
        pl_r1cs_get_info(r, &ri);
        CHECK_EQ(zi.n_vars, ri.n_wires);
        CHECK_EQ(zi.n_public, ri.n_pub_out + ri.n_pub_in);
        CHECK_EQ(zi.n_constraints, ri.n_constraints);
        CHECK_EQ(zi.domain_size,
                 next_pow2((uint64_t)ri.n_constraints + zi.n_public + 1));
        CHECK_EQ(1u << z->log2_domain, zi.domain_size);
        CHECK(zi.n_coefs >= zi.n_public + 1);
        CHECK_EQ(pl_wtns_count(w), ri.n_wires);
        /* wire 0 is the constant one */
        static const uint8_t one[32] = {1};
        CHECK_MEM(pl_wtns_values(w)[0].b, one, 32);
        CHECK_OK(pl_r1cs_matches_zkey(r, z, &err), &err);
        CHECK_OK(pl_witness_check(r, w, &err), &err);
        /* The pointers lie inside the map and in file order. */
        CHECK(z->ic > z->alpha1 && z->h + (uint64_t)zi.domain_size * 96 <=
                                       z->map.data + z->map.size);
        pl_zkey_close(z);
        pl_wtns_close(w);
        pl_r1cs_close(r);
    }
}

PL_TEST(multiplier_known_counts)
{
    pl_error err = {0};
    pl_zkey *z = NULL;
    pl_r1cs *r = NULL;
    CHECK_OK(pl_zkey_open(&z, vec("multiplier", "circuit.zkey"), &err), &err);
    CHECK_OK(pl_r1cs_open(&r, vec("multiplier", "circuit.r1cs"), &err), &err);
    pl_zkey_info zi;
    pl_zkey_get_info(z, &zi);
    /* c = a * b: wires ONE, c, a, b; one constraint; domain 2^2. */
    CHECK_EQ(zi.n_vars, 4);
    CHECK_EQ(zi.n_public, 1);
    CHECK_EQ(zi.n_constraints, 1);
    CHECK_EQ(zi.domain_size, 4);
    CHECK_EQ(z->log2_domain, 2);
    pl_r1cs_info ri;
    pl_r1cs_get_info(r, &ri);
    CHECK_EQ(ri.n_wires, 4);
    CHECK_EQ(ri.n_pub_out, 1);
    CHECK_EQ(ri.n_pub_in, 0);
    CHECK_EQ(ri.n_prv_in, 2);
    CHECK_EQ(ri.n_constraints, 1);
    pl_zkey_close(z);
    pl_r1cs_close(r);
}

PL_TEST(domain_edges)
{
    /* pow2exact: nConstraints + nPublic + 1 is exactly a power of two;
     * pow2plus1: one more, so the domain doubles. */
    pl_error err = {0};
    pl_zkey *z = NULL;
    CHECK_OK(pl_zkey_open(&z, vec("pow2exact", "circuit.zkey"), &err), &err);
    CHECK_EQ(z->n_constraints + z->n_public + 1, z->domain_size);
    pl_zkey_close(z);
    CHECK_OK(pl_zkey_open(&z, vec("pow2plus1", "circuit.zkey"), &err), &err);
    CHECK_EQ(z->n_constraints + z->n_public + 1, z->domain_size / 2 + 1);
    pl_zkey_close(z);
    CHECK_OK(pl_zkey_open(&z, vec("nopublic", "circuit.zkey"), &err), &err);
    CHECK_EQ(z->n_public, 0);
    CHECK_EQ(z->n_vars - z->n_public - 1, z->n_vars - 1); /* C for all but ONE */
    pl_zkey_close(z);
}

PL_TEST(close_null_is_noop)
{
    pl_zkey_close(NULL);
    pl_wtns_close(NULL);
    pl_r1cs_close(NULL);
}

/* ---- refused vectors --------------------------------------------------- */

PL_TEST(bn254_read_and_plonk_refused)
{
    pl_error err = {0};
    pl_zkey *z = NULL;
    pl_wtns *w = NULL;
    /* BN254 files are read, their curve recognised from the primes */
    CHECK_OK(pl_zkey_open(&z, pl_test_vector("bad/bn254.zkey"), &err), &err);
    CHECK_EQ(z->curve, PL__CURVE_BN254);
    CHECK_EQ(z->g1_bytes, 64);
    CHECK_EQ(z->g2_bytes, 128);
    pl_zkey_close(z);
    z = NULL;
    CHECK_STATUS(pl_zkey_open(&z, pl_test_vector("bad/plonk.zkey"), &err),
                 PL_EUNSUPPORTED, &err);
    CHECK(strstr(err.msg, "plonk.zkey") && strstr(err.msg, "PLONK") &&
          strstr(err.msg, "Groth16"));
    CHECK_OK(pl_wtns_open(&w, pl_test_vector("bad/bn254.wtns"), &err), &err);
    CHECK_EQ(w->curve, PL__CURVE_BN254);
    pl_wtns_close(w);
    CHECK_OK(pl_wtns_open(&w, vec("multiplier", "witness.wtns"), &err), &err);
    CHECK_EQ(w->curve, PL__CURVE_BLS12_381);
    pl_wtns_close(w);
}

PL_TEST(missing_and_empty_files)
{
    pl_error err = {0};
    pl_zkey *z = NULL;
    CHECK_STATUS(pl_zkey_open(&z, pl_test_tmp("does_not_exist.zkey"), &err),
                 PL_EIO, &err);
    CHECK(strstr(err.msg, "does_not_exist.zkey"));
    static const uint8_t nothing[1];
    EXPECT_REFUSED(KIND_ZKEY, nothing, 0, "empty", PL_EFORMAT, NULL);
    EXPECT_REFUSED(KIND_WTNS, nothing, 0, "empty", PL_EFORMAT, NULL);
    EXPECT_REFUSED(KIND_R1CS, nothing, 0, "empty", PL_EFORMAT, NULL);
}

/* ---- witness check ----------------------------------------------------- */

PL_TEST(witness_check_unsat_names_constraint)
{
    pl_error err = {0};
    pl_r1cs *r = NULL;
    pl_wtns *w = NULL;
    CHECK_OK(pl_r1cs_open(&r, vec("multiplier", "circuit.r1cs"), &err), &err);
    CHECK_OK(pl_wtns_open(&w, pl_test_vector("bad/unsat.wtns"), &err), &err);
    CHECK_STATUS(pl_witness_check(r, w, &err), PL_EUNSAT, &err);
    CHECK(strstr(err.msg, "unsat.wtns"));
    CHECK(strstr(err.msg, "constraint 0 is not satisfied: A = "));
    CHECK(strstr(err.msg, ", B = ") && strstr(err.msg, ", C = "));
    pl_wtns_close(w);
    pl_r1cs_close(r);
}

/* A witness with one internal wire changed fails at a constraint that uses
 * it, and the message's A, B, C are the decimal values of that row. */
PL_TEST(witness_check_tampered)
{
    size_t len;
    uint8_t *b = read_vector("multiplier", "witness.wtns", &len);
    size_t vals = pl_test_section_payload(b, len, 2);
    /* multiplier: c = a * b with a = 3, b = 11 (input.json): set c = 34 */
    CHECK_EQ(b[vals + 32], 33);
    b[vals + 32] = 34;
    char path[4096];
    snprintf(path, sizeof(path), "%s", pl_test_tmp("tampered.wtns"));
    pl_test_write_file(path, b, len);
    pl_error err = {0};
    pl_r1cs *r = NULL;
    pl_wtns *w = NULL;
    CHECK_OK(pl_r1cs_open(&r, vec("multiplier", "circuit.r1cs"), &err), &err);
    CHECK_OK(pl_wtns_open(&w, path, &err), &err);
    CHECK_STATUS(pl_witness_check(r, w, &err), PL_EUNSAT, &err);
    CHECK(strstr(err.msg, "tampered.wtns: constraint 0 is not satisfied"));
    /* circom writes c <== a * b as (-a) * b = (-c); values above r/2
     * print as negatives, so the row reads plainly. */
    CHECK(strstr(err.msg, "A = -3, B = 11, C = -34"));
    pl_wtns_close(w);
    pl_r1cs_close(r);
    remove(path);
    free(b);

    /* chain10: change the last (internal) wire. */
    b = read_vector("chain10", "witness.wtns", &len);
    vals = pl_test_section_payload(b, len, 2);
    size_t n = (len - vals) / 32;
    b[vals + (n - 1) * 32] ^= 1;
    pl_test_write_file(path, b, len);
    CHECK_OK(pl_r1cs_open(&r, vec("chain10", "circuit.r1cs"), &err), &err);
    CHECK_OK(pl_wtns_open(&w, path, &err), &err);
    CHECK_STATUS(pl_witness_check(r, w, &err), PL_EUNSAT, &err);
    CHECK(strstr(err.msg, "is not satisfied: A = "));
    pl_wtns_close(w);
    pl_r1cs_close(r);
    remove(path);
    free(b);
}

PL_TEST(witness_check_wrong_count)
{
    pl_error err = {0};
    pl_r1cs *r = NULL;
    pl_wtns *w = NULL;
    CHECK_OK(pl_r1cs_open(&r, vec("multiplier", "circuit.r1cs"), &err), &err);
    CHECK_OK(pl_wtns_open(&w, vec("chain10", "witness.wtns"), &err), &err);
    CHECK_STATUS(pl_witness_check(r, w, &err), PL_EFORMAT, &err);
    CHECK(strstr(err.msg, "chain10/witness.wtns") &&
          strstr(err.msg, "multiplier/circuit.r1cs"));
    pl_wtns_close(w);
    pl_r1cs_close(r);
}

PL_TEST(r1cs_zkey_mismatch)
{
    pl_error err = {0};
    pl_r1cs *r = NULL;
    pl_zkey *z = NULL;
    CHECK_OK(pl_r1cs_open(&r, vec("multiplier", "circuit.r1cs"), &err), &err);
    CHECK_OK(pl_zkey_open(&z, vec("chain10", "circuit.zkey"), &err), &err);
    CHECK_STATUS(pl_r1cs_matches_zkey(r, z, &err), PL_EFORMAT, &err);
    CHECK(strstr(err.msg, "multiplier/circuit.r1cs") &&
          strstr(err.msg, "chain10/circuit.zkey"));
    pl_zkey_close(z);
    /* same wire count and publics, different constraints: noB and nopublic
     * both have 8 wires; compare every pair that differs in some count. */
    for (size_t i = 0; i < N_VECTORS; i++) {
        CHECK_OK(pl_zkey_open(&z, vec(vectors[i], "circuit.zkey"), &err),
                 &err);
        pl_status want = strcmp(vectors[i], "multiplier") ? PL_EFORMAT : PL_OK;
        CHECK_STATUS(pl_r1cs_matches_zkey(r, z, &err), want, &err);
        pl_zkey_close(z);
    }
    pl_r1cs_close(r);
}

/* ---- truncation -------------------------------------------------------- */

PL_TEST(zkey_truncated_everywhere)
{
    size_t len;
    uint8_t *b = read_vector("multiplier", "circuit.zkey", &len);
    truncate_everywhere(KIND_ZKEY, b, len);
    free(b);
}

PL_TEST(zkey_truncated_at_boundaries_large)
{
    /* chain10 is too large to cut at every byte: cut at each section's
     * header, payload start, middle and end, and around them. */
    size_t len;
    uint8_t *b = read_vector("chain10", "circuit.zkey", &len);
    for (uint32_t id = 1; id <= 10; id++) {
        uint64_t size;
        size_t off = pl_test_find_section(b, len, id, &size);
        CHECK(off != 0);
        size_t cuts[] = {off - 1, off, off + 1, off + 4, off + 11, off + 12,
                         off + 13, off + 12 + (size_t)size / 2,
                         off + 12 + (size_t)size - 1};
        for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
            char label[64];
            snprintf(label, sizeof(label), "c10cut%zu", cuts[i]);
            EXPECT_REFUSED(KIND_ZKEY, b, cuts[i], label, PL_EFORMAT, NULL);
        }
    }
    free(b);
}

PL_TEST(wtns_truncated_everywhere)
{
    size_t len;
    uint8_t *b = read_vector("multiplier", "witness.wtns", &len);
    truncate_everywhere(KIND_WTNS, b, len);
    free(b);
}

PL_TEST(r1cs_truncated_everywhere)
{
    size_t len;
    uint8_t *b = read_vector("multiplier", "circuit.r1cs", &len);
    truncate_everywhere(KIND_R1CS, b, len);
    free(b);
}

/* ---- the container ----------------------------------------------------- */

PL_TEST(container_damage)
{
    size_t len;
    uint8_t *b = read_vector("multiplier", "circuit.zkey", &len);
    EXPECT_OPENS(KIND_ZKEY, b, len, "original");
    mutate32(KIND_ZKEY, b, len, 0, 0x7a656b7a /* "zkez" */, "magic",
             PL_EFORMAT, "magic is \"zkez\", expected \"zkey\"");
    mutate32(KIND_ZKEY, b, len, 0, 0x0001ff00, "binmagic", PL_EFORMAT,
             "\\x00\\xff\\x01\\x00");
    mutate32(KIND_ZKEY, b, len, 4, 0, "version", PL_EUNSUPPORTED, "version");
    mutate32(KIND_ZKEY, b, len, 4, 2, "version", PL_EUNSUPPORTED, "version");
    mutate32(KIND_ZKEY, b, len, 4, 0xffffffffu, "version", PL_EUNSUPPORTED,
             NULL);
    /* nSections: 9 drops section 10 (optional), so it still opens */
    uint32_t values[] = {0, 1, 8, 11, 0xffffffffu};
    for (size_t i = 0; i < 5; i++)
        mutate32(KIND_ZKEY, b, len, 8, values[i], "nsections", PL_EFORMAT,
                 NULL);
    uint8_t *m = malloc(len);
    CHECK(m != NULL);
    memcpy(m, b, len);
    pl_test_put_le32(m + 8, 9);
    EXPECT_OPENS(KIND_ZKEY, m, len, "nsections9");

    /* every section's size field: 0, +-1, huge (overflow-safe), 2^63 */
    for (uint32_t id = 1; id <= 9; id++) {
        uint64_t size;
        size_t off = pl_test_find_section(b, len, id, &size);
        uint64_t sizes[] = {0, size - 1, size + 1, ~0ull, ~0ull - 11,
                            1ull << 63, (uint64_t)len};
        for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
            if (sizes[i] == size)
                continue;
            memcpy(m, b, len);
            pl_test_put_le64(m + off + 4, sizes[i]);
            char label[64];
            snprintf(label, sizeof(label), "sec%u_size%zu", id, i);
            EXPECT_REFUSED(KIND_ZKEY, m, len, label, PL_OK, NULL);
        }
    }

    /* Section ids: a duplicate is an error; an id past PL__MAX_SECTION_ID
     * is skipped (but still bounds-checked); a missing one is named. */
    size_t off10 = pl_test_find_section(b, len, 10, NULL);
    memcpy(m, b, len);
    pl_test_put_le32(m + off10, 3);
    EXPECT_REFUSED(KIND_ZKEY, m, len, "dup3", PL_EFORMAT,
                   "section 3 appears twice");
    memcpy(m, b, len);
    pl_test_put_le32(m + off10, 200);
    EXPECT_OPENS(KIND_ZKEY, m, len, "id200");
    pl_test_put_le64(m + off10 + 4, ~0ull);
    EXPECT_REFUSED(KIND_ZKEY, m, len, "id200huge", PL_EFORMAT,
                   "section 200");
    for (uint32_t id = 1; id <= 9; id++) {
        memcpy(m, b, len);
        pl_test_put_le32(m + pl_test_find_section(b, len, id, NULL), 77);
        char label[64], want[64];
        snprintf(label, sizeof(label), "missing%u", id);
        snprintf(want, sizeof(want), "section %u (", id);
        EXPECT_REFUSED(KIND_ZKEY, m, len, label, PL_EFORMAT, want);
    }
    /* Trailing bytes after the last section are ignored, as snarkjs does. */
    uint8_t *longer = malloc(len + 7);
    CHECK(longer != NULL);
    memcpy(longer, b, len);
    memset(longer + len, 0xee, 7);
    EXPECT_OPENS(KIND_ZKEY, longer, len + 7, "trailing");
    free(longer);
    free(m);
    free(b);
}

PL_TEST(container_parse_direct)
{
    /* A section table whose sizes sum past 2^64 must not wrap around. */
    uint8_t f[12 + 12 + 12 + 8] = {'w', 't', 'n', 's'};
    pl_test_put_le32(f + 4, 2);
    pl_test_put_le32(f + 8, 2);
    pl_test_put_le32(f + 12, 1);
    pl_test_put_le64(f + 16, 0);
    pl_test_put_le32(f + 24, 2);
    pl_test_put_le64(f + 28, ~0ull - 10);
    pl__mapped m = {.data = f, .size = sizeof(f)};
    pl__container c;
    pl_error err = {0};
    CHECK_STATUS(pl__container_parse(&c, &m, "x.wtns", "wtns", &err),
                 PL_EFORMAT, &err);
    CHECK(strstr(err.msg, "x.wtns: section 2: size") &&
          strstr(err.msg, "at byte offset 24"));
    pl_test_put_le64(f + 28, 8);
    CHECK_OK(pl__container_parse(&c, &m, "x.wtns", "wtns", &err), &err);
    CHECK_EQ(c.version, 2);
    CHECK_EQ(c.n_sections, 2);
    CHECK_EQ(c.offset[1], 24);
    CHECK_EQ(c.size[1], 0);
    CHECK_EQ(c.offset[2], 36);
    CHECK_EQ(c.size[2], 8);
    CHECK_EQ(c.offset[3], 0);
    CHECK(strcmp(c.magic, "wtns") == 0);
    /* id 0 and ids above the table are skipped */
    pl_test_put_le32(f + 12, 0);
    pl_test_put_le32(f + 24, PL__MAX_SECTION_ID + 1);
    CHECK_OK(pl__container_parse(&c, &m, "x.wtns", "wtns", &err), &err);
    for (int id = 0; id <= PL__MAX_SECTION_ID; id++)
        CHECK_EQ(c.offset[id], 0);
    pl_test_put_le32(f + 8, 3);
    CHECK_STATUS(pl__container_parse(&c, &m, "x.wtns", "wtns", &err),
                 PL_EFORMAT, &err);
    CHECK(strstr(err.msg, "entry 3 of 3: truncated"));
}

/* ---- zkey fields ------------------------------------------------------- */

PL_TEST(zkey_header_fields)
{
    size_t len;
    uint8_t *b = read_vector("multiplier", "circuit.zkey", &len);
    size_t s1 = pl_test_section_payload(b, len, 1), s2 = pl_test_section_payload(b, len, 2);
    size_t s4 = pl_test_section_payload(b, len, 4);

    mutate32(KIND_ZKEY, b, len, s1, 2, "protocol", PL_EUNSUPPORTED, "PLONK");
    mutate32(KIND_ZKEY, b, len, s1, 10, "protocol", PL_EUNSUPPORTED, "FFLONK");
    mutate32(KIND_ZKEY, b, len, s1, 0, "protocol", PL_EUNSUPPORTED, "protocol");
    mutate32(KIND_ZKEY, b, len, s1, 3, "protocol", PL_EUNSUPPORTED, "protocol");

    uint32_t n8s[] = {0, 1, 32, 47, 49, 64, 1000, 0xffffffffu};
    for (size_t i = 0; i < sizeof(n8s) / sizeof(n8s[0]); i++) {
        if (n8s[i] != 48)
            mutate32(KIND_ZKEY, b, len, s2, n8s[i], "n8q", PL_OK, "q");
        if (n8s[i] != 32)
            mutate32(KIND_ZKEY, b, len, s2 + 52, n8s[i], "n8r", PL_OK, "r");
    }
    /* q or r itself off by one */
    uint8_t *m = malloc(len);
    CHECK(m != NULL);
    memcpy(m, b, len);
    m[s2 + 4] ^= 2;
    EXPECT_REFUSED(KIND_ZKEY, m, len, "q", PL_EUNSUPPORTED,
                   "neither the BLS12-381 nor the BN254 (bn128) base field");
    memcpy(m, b, len);
    m[s2 + 56] ^= 1;
    EXPECT_REFUSED(KIND_ZKEY, m, len, "r", PL_EUNSUPPORTED,
                   "neither the BLS12-381 nor the BN254 (bn128) scalar field");

    mutate_count(KIND_ZKEY, b, len, s2 + 88, "nvars");
    mutate_count(KIND_ZKEY, b, len, s2 + 92, "npublic");
    mutate32(KIND_ZKEY, b, len, s2 + 92, pl__le32(b + s2 + 88), "npublic",
             PL_EFORMAT, "exceeds nVars");
    mutate_count(KIND_ZKEY, b, len, s2 + 96, "domain");
    mutate32(KIND_ZKEY, b, len, s2 + 96, 2, "domain", PL_EFORMAT, NULL);
    mutate32(KIND_ZKEY, b, len, s2 + 96, 8, "domain", PL_EFORMAT,
             "section 9 (H points): size 384, but 8 G1 points of 96 bytes "
             "need 768");
    mutate32(KIND_ZKEY, b, len, s2 + 96, 6, "domain", PL_EFORMAT,
             "not a power of two");
    mutate32(KIND_ZKEY, b, len, s2 + 96, 1u << 29, "domain", PL_EUNSUPPORTED,
             "2^28");
    mutate32(KIND_ZKEY, b, len, s2 + 96, 1u << 31, "domain", PL_EUNSUPPORTED,
             NULL);
    mutate_count(KIND_ZKEY, b, len, s4, "ncoef");
    free(m);
    free(b);
}

PL_TEST(zkey_coefficient_records)
{
    size_t len;
    uint8_t *b = read_vector("multiplier", "circuit.zkey", &len);
    size_t s2 = pl_test_section_payload(b, len, 2), s4 = pl_test_section_payload(b, len, 4);
    uint32_t n_vars = pl__le32(b + s2 + 88), domain = pl__le32(b + s2 + 96);
    uint32_t n_coef = pl__le32(b + s4);
    size_t rec0 = s4 + 4, last = s4 + 4 + (size_t)(n_coef - 1) * 44;

    mutate32(KIND_ZKEY, b, len, rec0, 2, "matrix", PL_EFORMAT,
             "record 0: matrix 2 is neither 0 (A) nor 1 (B)");
    mutate32(KIND_ZKEY, b, len, rec0 + 4, domain, "constraint", PL_EFORMAT,
             "record 0: constraint 4 is not below domainSize 4");
    mutate32(KIND_ZKEY, b, len, rec0 + 8, n_vars, "signal", PL_EFORMAT,
             "record 0: signal 4 is not below nVars 4");
    uint8_t *m = malloc(len);
    CHECK(m != NULL);
    memcpy(m, b, len);
    memcpy(m + rec0 + 12, pl__fr_modulus_le, 32);
    EXPECT_REFUSED(KIND_ZKEY, m, len, "value_r", PL_EFORMAT,
                   "record 0: value is not below r");
    memset(m + rec0 + 12, 0xff, 32);
    EXPECT_REFUSED(KIND_ZKEY, m, len, "value_ff", PL_EFORMAT, "not below r");
    /* The input-consistency rows must close the section. */
    mutate32(KIND_ZKEY, b, len, last + 8, 0, "lastsignal", PL_EFORMAT,
             "input rows");
    mutate32(KIND_ZKEY, b, len, last, 1, "lastmatrix", PL_EFORMAT,
             "input rows");
    mutate32(KIND_ZKEY, b, len, last + 4, domain - 1, "lastconstraint",
             PL_EFORMAT, "input rows");
    free(m);
    free(b);
}

/* Every byte of the headers and of the first records, randomised: the
 * reader may accept or refuse, but must never read out of bounds (run
 * under the sanitizers) and must name the file when it refuses. */
PL_TEST(zkey_random_damage)
{
    size_t len;
    uint8_t *b = read_vector("multiplier", "circuit.zkey", &len);
    uint8_t *m = malloc(len);
    CHECK(m != NULL);
    size_t s4 = pl_test_section_payload(b, len, 4);
    size_t span = s4 + 4 + 44 * 2; /* headers, tables, two records */
    uint64_t rng = 12345;
    char path[4096];
    snprintf(path, sizeof(path), "%s", pl_test_tmp("random.zkey"));
    for (int iter = 0; iter < 400; iter++) {
        memcpy(m, b, len);
        uint8_t pick[4];
        pl_test_random_bytes(&rng, pick, sizeof(pick));
        size_t at = ((size_t)pick[0] << 8 | pick[1]) % span;
        m[at] = pick[2];
        size_t cut = pick[3] < 32 ? len - (size_t)pick[3] * 17 : len;
        pl_test_write_file(path, m, cut);
        pl_error err = {0};
        pl_status st = open_kind(KIND_ZKEY, path, &err);
        if (st != PL_OK && !strstr(err.msg, "random.zkey"))
            pl_test_fail(__FILE__, __LINE__, "byte %zu: %s", at, err.msg);
    }
    remove(path);
    free(m);
    free(b);
}

/* ---- wtns fields ------------------------------------------------------- */

PL_TEST(wtns_fields)
{
    size_t len;
    uint8_t *b = read_vector("multiplier", "witness.wtns", &len);
    size_t s1 = pl_test_section_payload(b, len, 1), s2 = pl_test_section_payload(b, len, 2);
    EXPECT_OPENS(KIND_WTNS, b, len, "original");
    mutate32(KIND_WTNS, b, len, 0, 0x736e7478 /* "xtns" */,
             "magic", PL_EFORMAT, "magic");
    mutate32(KIND_WTNS, b, len, 4, 1, "version", PL_EUNSUPPORTED, "version 1");
    mutate32(KIND_WTNS, b, len, 4, 3, "version", PL_EUNSUPPORTED, "version 3");
    uint32_t n8s[] = {0, 31, 33, 48, 0xffffffffu};
    for (size_t i = 0; i < sizeof(n8s) / sizeof(n8s[0]); i++)
        mutate32(KIND_WTNS, b, len, s1, n8s[i], "n8", PL_OK, "prime");
    mutate_count(KIND_WTNS, b, len, s1 + 36, "nwitness");
    mutate32(KIND_WTNS, b, len, s1 + 36, 5, "nwitness", PL_EFORMAT,
             "section 2 (values): size 128, but nWitness 5 values of 32 "
             "bytes need 160");
    uint8_t *m = malloc(len);
    CHECK(m != NULL);
    memcpy(m, b, len);
    m[s1 + 4 + 31] ^= 0x40;
    EXPECT_REFUSED(KIND_WTNS, m, len, "prime", PL_EUNSUPPORTED, "another curve");
    memcpy(m, b, len);
    memcpy(m + s2 + 2 * 32, pl__fr_modulus_le, 32);
    char want[64];
    snprintf(want, sizeof(want), "value 2 is not below r (at byte offset %zu)",
             s2 + 64);
    EXPECT_REFUSED(KIND_WTNS, m, len, "value_r", PL_EFORMAT, want);
    memcpy(m, b, len);
    memset(m + s2 + 3 * 32, 0xff, 32);
    EXPECT_REFUSED(KIND_WTNS, m, len, "value_ff", PL_EFORMAT, "value 3");
    /* r - 1 is a fine value */
    memcpy(m, b, len);
    memcpy(m + s2 + 3 * 32, pl__fr_modulus_le, 32);
    m[s2 + 3 * 32] -= 1;
    EXPECT_OPENS(KIND_WTNS, m, len, "value_r_minus_1");
    free(m);
    free(b);
}

/* ---- r1cs fields ------------------------------------------------------- */

PL_TEST(r1cs_fields)
{
    size_t len;
    uint8_t *b = read_vector("multiplier", "circuit.r1cs", &len);
    size_t s1 = pl_test_section_payload(b, len, 1), s2 = pl_test_section_payload(b, len, 2);
    EXPECT_OPENS(KIND_R1CS, b, len, "original");
    mutate32(KIND_R1CS, b, len, 0, 0x73633171, "magic", PL_EFORMAT, "magic");
    mutate32(KIND_R1CS, b, len, 4, 2, "version", PL_EUNSUPPORTED, "version 2");
    uint32_t n8s[] = {0, 31, 33, 48, 0xffffffffu};
    for (size_t i = 0; i < sizeof(n8s) / sizeof(n8s[0]); i++)
        mutate32(KIND_R1CS, b, len, s1, n8s[i], "n8", PL_OK, "prime");
    size_t h = s1 + 4 + 32;
    mutate_count(KIND_R1CS, b, len, h, "nwires");
    mutate32(KIND_R1CS, b, len, h, 3, "nwires", PL_EFORMAT,
             "1 + nPubOut 1 + nPubIn 0 + nPrvIn 2 exceeds nWires 3");
    mutate32(KIND_R1CS, b, len, h + 4, 0xffffffffu, "npubout", PL_EFORMAT,
             "exceeds nWires");
    mutate32(KIND_R1CS, b, len, h + 8, 2, "npubin", PL_EFORMAT,
             "exceeds nWires");
    mutate32(KIND_R1CS, b, len, h + 12, 0x80000000u, "nprvin", PL_EFORMAT,
             "exceeds nWires");
    mutate_count(KIND_R1CS, b, len, h + 24, "nconstraints");
    mutate32(KIND_R1CS, b, len, h + 24, 0, "nconstraints", PL_EFORMAT,
             "120 bytes left after nConstraints 0");
    /* the first constraint's A: nTerms, wire, coefficient */
    /* (nTerms 0 or 2 reparse multiplier's bytes as another valid r1cs:
     * the format does not resynchronise, so only huge counts must fail) */
    mutate32(KIND_R1CS, b, len, s2, 0x80000000u, "nterms", PL_EFORMAT,
             "terms of 36 bytes");
    mutate32(KIND_R1CS, b, len, s2, 0xffffffffu, "nterms", PL_EFORMAT,
             "constraint 0 A: 4294967295 terms");
    CHECK(pl__le32(b + s2) >= 1);
    mutate32(KIND_R1CS, b, len, s2 + 4, 4, "wire", PL_EFORMAT,
             "constraint 0 A term 0: wire 4 is not below nWires 4");
    uint8_t *m = malloc(len + 12);
    CHECK(m != NULL);
    memcpy(m, b, len);
    memcpy(m + s2 + 8, pl__fr_modulus_le, 32);
    EXPECT_REFUSED(KIND_R1CS, m, len, "coef_r", PL_EFORMAT,
                   "constraint 0 A term 0: coefficient is not below r");
    memcpy(m, b, len);
    m[s1 + 4] ^= 4;
    EXPECT_REFUSED(KIND_R1CS, m, len, "prime", PL_EUNSUPPORTED, "another curve");
    /* labels: one u64 per wire */
    uint64_t s3size;
    size_t s3 = pl_test_find_section(b, len, 3, &s3size);
    CHECK(s3 != 0);
    CHECK_EQ(s3size, 4 * 8);
    memcpy(m, b, len);
    pl_test_put_le64(m + s3 + 4, s3size - 8);
    EXPECT_REFUSED(KIND_R1CS, m, len - 8, "labels", PL_EFORMAT,
                   "section 3 (wire labels): size 24");
    /* custom gates: append an empty section 4, then 5 */
    for (uint32_t id = 4; id <= 5; id++) {
        memcpy(m, b, len);
        pl_test_put_le32(m + 8, pl__le32(b + 8) + 1);
        pl_test_put_le32(m + len, id);
        pl_test_put_le64(m + len + 4, 0);
        char label[32];
        snprintf(label, sizeof(label), "custom%u", id);
        EXPECT_REFUSED(KIND_R1CS, m, len + 12, label, PL_EUNSUPPORTED,
                       "custom gates are not supported");
    }
    free(m);
    free(b);
}

/* ---- inspect ----------------------------------------------------------- */

static char *inspect_to_string(const char *path, pl_status want)
{
    char out_path[4096];
    snprintf(out_path, sizeof(out_path), "%s", pl_test_tmp("inspect.txt"));
    FILE *f = fopen(out_path, "w");
    CHECK(f != NULL);
    pl_error err = {0};
    CHECK_STATUS(pl_inspect(path, f, &err), want, &err);
    fclose(f);
    size_t len;
    char *text = (char *)pl_test_read_file(out_path, &len);
    text[len] = '\0';
    remove(out_path);
    if (want != PL_OK) {
        free(text);
        text = malloc(sizeof(err.msg));
        CHECK(text != NULL);
        memcpy(text, err.msg, sizeof(err.msg));
    }
    return text;
}

#define CHECK_HAS(text, line)                                                 \
    do {                                                                      \
        if (!strstr((text), (line)))                                          \
            pl_test_fail(__FILE__, __LINE__, "no \"%s\" in:\n%s", (line),     \
                         (text));                                             \
    } while (0)

PL_TEST(inspect_prints_facts)
{
    char *t = inspect_to_string(vec("multiplier", "circuit.zkey"), PL_OK);
    CHECK_HAS(t, "format: zkey\n");
    CHECK_HAS(t, "version: 1\n");
    CHECK_HAS(t, "protocol: groth16\n");
    CHECK_HAS(t, "curve: bls12-381\n");
    CHECK_HAS(t, "n_vars: 4\n");
    CHECK_HAS(t, "n_public: 1\n");
    CHECK_HAS(t, "n_constraints: 1\n");
    CHECK_HAS(t, "domain_size: 4\n");
    CHECK_HAS(t, "file_bytes: 4258\n");
    CHECK_HAS(t, "sections: 10\n");
    CHECK_HAS(t, "section_1: offset=24 size=4 name=header\n");
    CHECK_HAS(t, "section_9: offset=");
    free(t);

    t = inspect_to_string(vec("multiplier", "witness.wtns"), PL_OK);
    CHECK_HAS(t, "format: wtns\n");
    CHECK_HAS(t, "version: 2\n");
    CHECK_HAS(t, "n_values: 4\n");
    free(t);

    t = inspect_to_string(vec("multiplier", "circuit.r1cs"), PL_OK);
    CHECK_HAS(t, "format: r1cs\n");
    CHECK_HAS(t, "n_wires: 4\n");
    CHECK_HAS(t, "n_pub_out: 1\n");
    CHECK_HAS(t, "n_pub_in: 0\n");
    CHECK_HAS(t, "n_prv_in: 2\n");
    CHECK_HAS(t, "n_labels: 4\n");
    CHECK_HAS(t, "n_constraints: 1\n");
    free(t);
}

PL_TEST(inspect_refuses)
{
    static const uint8_t junk[] = "PK\x03\x04 not a proofline file";
    char path[4096];
    snprintf(path, sizeof(path), "%s", pl_test_tmp("junk.bin"));
    pl_test_write_file(path, junk, sizeof(junk));
    char *t = inspect_to_string(path, PL_EFORMAT);
    CHECK_HAS(t, "junk.bin: unknown magic \"PK\\x03\\x04\"");
    free(t);
    pl_test_write_file(path, junk, 3);
    t = inspect_to_string(path, PL_EFORMAT);
    CHECK_HAS(t, "junk.bin");
    free(t);
    remove(path);
    /* a bad zkey fails with the reader's own message */
    t = inspect_to_string(pl_test_vector("bad/plonk.zkey"), PL_EUNSUPPORTED);
    CHECK_HAS(t, "PLONK");
    free(t);
}

/* ---- output: pl__output (util/file.c), the one way files are written -- */

/* A fresh, empty folder of the scratch area for one case. */
static const char *fresh_dir(const char *name)
{
    static char dir[4096];
    snprintf(dir, sizeof(dir), "%s", pl_test_tmp(name));
    char cmd[4200];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
    CHECK(mkdir(dir, 0777) == 0);
    return dir;
}

/* path = <fresh folder dir_name>/file; returns the folder. */
static const char *fresh_path(char path[4200], const char *dir_name,
                              const char *file)
{
    const char *dir = fresh_dir(dir_name);
    snprintf(path, 4200, "%s/%s", dir, file);
    return dir;
}

/* The names in a folder, sorted, joined by spaces ("" when empty). */
static void dir_listing(char *out, size_t cap, const char *dir)
{
    char *names[64];
    size_t n = 0;
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            CHECK(n < 64);
            names[n++] = strdup(e->d_name);
        }
    closedir(d);
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            char *t = names[j];
            names[j] = names[j - 1];
            names[j - 1] = t;
        }
    out[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        snprintf(out + strlen(out), cap - strlen(out), "%s%s", i ? " " : "",
                 names[i]);
        free(names[i]);
    }
}

#define CHECK_LISTING(dir, want)                                              \
    do {                                                                      \
        char got_[4096];                                                      \
        dir_listing(got_, sizeof(got_), (dir));                               \
        if (strcmp(got_, (want)) != 0)                                        \
            pl_test_fail(__FILE__, __LINE__, "%s holds \"%s\", wanted "       \
                         "\"%s\"", (dir), got_, (want));                      \
    } while (0)

static void check_file_text(const char *path, const char *want)
{
    size_t len;
    char *got = (char *)pl_test_read_file(path, &len);
    if (len != strlen(want) || memcmp(got, want, len) != 0)
        pl_test_fail(__FILE__, __LINE__, "%s holds \"%.*s\", wanted \"%s\"",
                     path, (int)len, got, want);
    free(got);
}

PL_TEST(output_commit_publishes)
{
    char path[4200];
    const char *dir = fresh_path(path, "out_commit", "a.json");
    pl_error err = {0};
    pl__output o;
    umask(022);
    CHECK_OK(pl__output_open(&o, path, &err), &err);
    CHECK(!o.in_place);
    CHECK(strncmp(o.tmp_path, path, strlen(path)) == 0);
    CHECK(strncmp(o.tmp_path + strlen(path), ".tmp", 4) == 0);
    fprintf(o.f, "{\"n\": %d", 1);
    CHECK_OK(pl__output_write(&o, "}\n", 2, &err), &err);
    CHECK_EQ(o.written, 2);
    /* nothing at the target until the commit */
    CHECK(access(path, F_OK) != 0);
    CHECK_OK(pl__output_commit(&o, &err), &err);
    pl__output_abort(&o); /* after a commit: nothing to do */
    check_file_text(path, "{\"n\": 1}\n");
    CHECK_LISTING(dir, "a.json");
    struct stat st;
    CHECK(stat(path, &st) == 0);
    CHECK_EQ(st.st_mode & 0777, 0644); /* 0666 less the umask */

    /* over an existing file, in one call */
    CHECK_OK(pl__file_write_atomic(path, "new", 3, &err), &err);
    check_file_text(path, "new");
    CHECK_LISTING(dir, "a.json");
}

/* What the hook below does to the file being loaded: overwrite it in place
 * with other bytes of the same size and put its time back, as a writer in
 * the same tick of the kernel's coarse file clock leaves it. */
typedef struct {
    const char *path;
    const char *bytes;
    struct timespec mtime;
} in_place_write;

static void overwrite_keeping_time(void *user)
{
    in_place_write *w = user;
    int fd = open(w->path, O_WRONLY);
    CHECK(fd >= 0);
    CHECK_EQ(pwrite(fd, w->bytes, strlen(w->bytes), 0),
             (ssize_t)strlen(w->bytes));
    struct timespec times[2] = {w->mtime, w->mtime};
    CHECK_EQ(futimens(fd, times), 0);
    close(fd);
}

/* A file overwritten in place while it is read, its size and time left as
 * they were (the tick of a coarse clock): the read is refused, not handed
 * out as one version of the file (before, it was: a key read that way was
 * a mix of two keys, and its proofs failed to verify with exit 1).  One
 * read again unchanged still loads. */
PL_TEST(load_refuses_a_change_its_time_does_not_show)
{
    char path[4200];
    fresh_path(path, "load_torn", "k.zkey");
    pl_test_write_file(path, "version one", 11);
    struct stat sb;
    CHECK_EQ(stat(path, &sb), 0);
    in_place_write w = {path, "version two", sb.st_mtim};
    pl__mapped m;
    pl_error err = {0};
    pl__file_load_after_read_hook(overwrite_keeping_time, &w);
    pl_status st = pl__file_load(&m, path, PL_BUF_PARAMS, 0, &err);
    pl__file_load_after_read_hook(NULL, NULL);
    CHECK_STATUS(st, PL_EIO, &err);
    CHECK(strstr(err.msg, "changed while it was being read") != NULL);
    CHECK_EQ(stat(path, &sb), 0);
    CHECK(sb.st_mtim.tv_sec == w.mtime.tv_sec &&
          sb.st_mtim.tv_nsec == w.mtime.tv_nsec); /* the time told nothing */

    CHECK_OK(pl__file_load(&m, path, PL_BUF_PARAMS, 0, &err), &err);
    CHECK_EQ(m.size, 11);
    CHECK(memcmp(m.data, "version two", 11) == 0);
    pl__free((void *)m.data);
    CHECK(pl_alloc_all_freed(&err));
}

PL_TEST(output_abort_leaves_nothing)
{
    char path[4200];
    const char *dir = fresh_path(path, "out_abort", "k.zkey");
    pl_test_write_file(path, "old", 3);
    pl_error err = {0};
    pl__output o;
    CHECK_OK(pl__output_open(&o, path, &err), &err);
    CHECK_OK(pl__output_write(&o, "partial", 7, &err), &err);
    CHECK(access(o.tmp_path, F_OK) == 0);
    pl__output_abort(&o);
    pl__output_abort(&o); /* twice is harmless */
    check_file_text(path, "old");
    CHECK_LISTING(dir, "k.zkey");
    /* staged (written and synced), then abandoned */
    CHECK_OK(pl__output_stage(&o, path, "staged", 6, &err), &err);
    CHECK(access(o.tmp_path, F_OK) == 0);
    pl__output_abort(&o);
    check_file_text(path, "old");
    CHECK_LISTING(dir, "k.zkey");
    /* a folder that does not exist: an error naming the target */
    char missing[4300];
    snprintf(missing, sizeof(missing), "%s/no_such_dir/x.json", dir);
    CHECK_STATUS(pl__file_write_atomic(missing, "x", 1, &err), PL_EIO, &err);
    CHECK(strstr(err.msg, "no_such_dir/x.json: cannot create a temporary "
                          "file") != NULL);
    CHECK_LISTING(dir, "k.zkey");
}

/* A write that fails (the file size limit, EFBIG) fails the commit, keeps
 * the old target and leaves no temporary. */
PL_TEST(output_failed_write_leaves_nothing)
{
    char path[4200];
    const char *dir = fresh_path(path, "out_fail", "big.bin");
    pl_test_write_file(path, "old", 3);
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit lim = {4096, 4096};
    CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0);
    static uint8_t block[1 << 16];
    pl_error err = {0};
    pl__output o;
    CHECK_OK(pl__output_open(&o, path, &err), &err);
    /* through the stream: the error shows at the latest when it is flushed */
    pl_status st = PL_OK;
    for (int i = 0; i < 4 && st == PL_OK; i++)
        st = pl__output_write(&o, block, sizeof(block), &err);
    if (st == PL_OK)
        st = pl__output_commit(&o, &err);
    pl__output_abort(&o);
    CHECK_EQ(st, PL_EIO);
    CHECK_EQ(err.sys_errno, EFBIG);
    CHECK(strstr(err.msg, "big.bin.tmp") != NULL);
    /* through fprintf: the error shows at the commit */
    CHECK_OK(pl__output_open(&o, path, &err), &err);
    for (int i = 0; i < 1000; i++)
        fprintf(o.f, "%0100d\n", i);
    CHECK_STATUS(pl__output_commit(&o, &err), PL_EIO, &err);
    CHECK(strstr(err.msg, "cannot finish writing") != NULL);
    check_file_text(path, "old");
    CHECK_LISTING(dir, "big.bin");
}

/* Names an attacker could predict (the target's, and the fixed temporary
 * names earlier writers used) hold symlinks to a victim: none is
 * followed, the victim keeps its bytes, the target becomes a plain file. */
PL_TEST(output_does_not_follow_planted_symlinks)
{
    const char *dir = fresh_dir("out_symlink");
    char victim[4200], path[4200], link1[4300], link2[4300];
    snprintf(victim, sizeof(victim), "%s/victim", dir);
    snprintf(path, sizeof(path), "%s/p.json", dir);
    snprintf(link1, sizeof(link1), "%s.tmp", path);
    snprintf(link2, sizeof(link2), "%s.tmp.%ld", path, (long)getpid());
    pl_test_write_file(victim, "precious", 8);
    CHECK(symlink(victim, link1) == 0);
    CHECK(symlink(victim, link2) == 0);
    CHECK(symlink(victim, path) == 0);
    pl_error err = {0};
    CHECK_OK(pl__file_write_atomic(path, "proof", 5, &err), &err);
    check_file_text(victim, "precious");
    check_file_text(path, "proof");
    struct stat st;
    CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode));
    CHECK(lstat(link1, &st) == 0 && S_ISLNK(st.st_mode));
    CHECK(lstat(link2, &st) == 0 && S_ISLNK(st.st_mode));
    char want[256];
    snprintf(want, sizeof(want), "p.json p.json.tmp p.json.tmp.%ld victim",
             (long)getpid());
    CHECK_LISTING(dir, want);
}

typedef struct {
    const char *path;
    char got[256];
    size_t len;
} fifo_reader;

static void *read_fifo(void *arg)
{
    fifo_reader *r = arg;
    int fd = open(r->path, O_RDONLY);
    if (fd < 0)
        return NULL;
    ssize_t n;
    while (r->len < sizeof(r->got) &&
           (n = read(fd, r->got + r->len, sizeof(r->got) - r->len)) > 0)
        r->len += (size_t)n;
    close(fd);
    return NULL;
}

/* A target that is not a regular file (here a FIFO, as /dev/stdout often
 * is) is written in place: never renamed over, never removed. */
PL_TEST(output_fifo_written_in_place)
{
    char path[4200];
    const char *dir = fresh_path(path, "out_fifo", "pipe");
    CHECK(mkfifo(path, 0600) == 0);
    for (int round = 0; round < 2; round++) {
        fifo_reader r = {path, {0}, 0};
        pthread_t t;
        CHECK(pthread_create(&t, NULL, read_fifo, &r) == 0);
        pl_error err = {0};
        pl__output o;
        CHECK_OK(pl__output_open(&o, path, &err), &err);
        CHECK(o.in_place);
        fprintf(o.f, "line %d\n", round);
        if (round == 0) {
            CHECK_OK(pl__output_commit(&o, &err), &err);
        } else {
            /* an abort closes it and removes nothing */
            pl__output_abort(&o);
        }
        pthread_join(t, NULL);
        if (round == 0)
            CHECK(r.len == 7 && memcmp(r.got, "line 0\n", 7) == 0);
        struct stat st;
        CHECK(lstat(path, &st) == 0 && S_ISFIFO(st.st_mode));
        CHECK_LISTING(dir, "pipe");
    }
}

/* Two outputs committed as a pair (proof.json and public.json): when the
 * second cannot be renamed into place, the first target gets its previous
 * file back, and no temporary or backup is left.  (pl_proof_write_json
 * used to rename the proof, fail on the public inputs and then delete the
 * proof: the previous proof.json was lost.) */
PL_TEST(output_pair_keeps_the_previous_pair)
{
    char a[4200], b[4200], inside[4300];
    const char *dir = fresh_path(a, "out_pair", "p.proof.json");
    snprintf(b, sizeof(b), "%s/p.public.json", dir);
    pl_test_write_file(a, "old proof", 9);
    pl_test_write_file(b, "old public", 10);
    pl_error err = {0};
    pl__output oa, ob;
    CHECK_OK(pl__output_stage(&oa, a, "new proof", 9, &err), &err);
    CHECK_OK(pl__output_stage(&ob, b, "new public", 10, &err), &err);
    /* b's target turns into a folder that holds a file: rename fails */
    CHECK(unlink(b) == 0 && mkdir(b, 0777) == 0);
    snprintf(inside, sizeof(inside), "%s/x", b);
    pl_test_write_file(inside, "x", 1);
    CHECK_STATUS(pl__output_commit_pair(&oa, &ob, &err), PL_EIO, &err);
    CHECK(strstr(err.msg, "p.public.json: cannot rename into place") != NULL);
    check_file_text(a, "old proof");
    CHECK_LISTING(dir, "p.proof.json p.public.json");
    /* and the pair goes in when it can, the old first file not kept */
    CHECK(unlink(inside) == 0 && rmdir(b) == 0);
    CHECK_OK(pl__output_stage(&oa, a, "new proof", 9, &err), &err);
    CHECK_OK(pl__output_stage(&ob, b, "new public", 10, &err), &err);
    CHECK_OK(pl__output_commit_pair(&oa, &ob, &err), &err);
    check_file_text(a, "new proof");
    check_file_text(b, "new public");
    CHECK_LISTING(dir, "p.proof.json p.public.json");
    /* a first target that did not exist is removed again on failure */
    CHECK(unlink(a) == 0);
    CHECK_OK(pl__output_stage(&oa, a, "newer", 5, &err), &err);
    CHECK_OK(pl__output_stage(&ob, b, "newer", 5, &err), &err);
    CHECK(unlink(b) == 0 && mkdir(b, 0777) == 0);
    pl_test_write_file(inside, "x", 1);
    CHECK_STATUS(pl__output_commit_pair(&oa, &ob, &err), PL_EIO, &err);
    CHECK(access(a, F_OK) != 0);
    CHECK_LISTING(dir, "p.public.json");
}

/* pl_output_check: an output named twice (even as another spelling of one
 * path), an output that is an input, a folder, a missing folder; devices
 * such as /dev/null may be named twice. */
PL_TEST(output_check_refuses_clashes)
{
    char a[4200], other[4300], input[4300];
    const char *dir = fresh_path(a, "out_check", "same.json");
    snprintf(other, sizeof(other), "%s/../out_check/./same.json", dir);
    snprintf(input, sizeof(input), "%s/in.wtns", dir);
    pl_test_write_file(input, "w", 1);
    pl_error err = {0};
    const char *twice[] = {a, a};
    CHECK_STATUS(pl_output_check(twice, 2, NULL, 0, &err), PL_EUSAGE, &err);
    CHECK(strstr(err.msg, "same.json is given as two outputs") != NULL);
    const char *spelled[] = {a, other};
    CHECK_STATUS(pl_output_check(spelled, 2, NULL, 0, &err), PL_EUSAGE,
                 &err);
    CHECK(strstr(err.msg, "name the same file") != NULL);
    /* an existing file reached by two spellings */
    pl_test_write_file(a, "x", 1);
    CHECK_STATUS(pl_output_check(spelled, 2, NULL, 0, &err), PL_EUSAGE,
                 &err);
    const char *outs[] = {a, input}, *ins[] = {"/nonexistent", input};
    CHECK_STATUS(pl_output_check(outs, 2, ins, 2, &err), PL_EUSAGE, &err);
    CHECK(strstr(err.msg, "in.wtns is also an input") != NULL);
    const char *devices[] = {"/dev/null", "/dev/null", NULL, a};
    CHECK_OK(pl_output_check(devices, 4, ins, 2, &err), &err);
    const char *folder[] = {dir};
    CHECK_STATUS(pl_output_check(folder, 1, NULL, 0, &err), PL_EUSAGE, &err);
    CHECK(strstr(err.msg, "is a folder") != NULL);
    char missing[4300];
    snprintf(missing, sizeof(missing), "%s/no/x.json", dir);
    const char *lost[] = {missing};
    CHECK_STATUS(pl_output_check(lost, 1, NULL, 0, &err), PL_EIO, &err);
    CHECK(strstr(err.msg, "its folder") != NULL);
    CHECK_LISTING(dir, "in.wtns same.json");
}

/* ---- the container writer (formats/container.c) ----------------------- */

/* An output at path with a container header begun on it. */
static void begin_container(pl__output *out, pl__container_writer *w,
                            const char *path, const char magic[4],
                            uint32_t version, uint32_t n_sections)
{
    pl_error err = {0};
    CHECK_OK(pl__output_open(out, path, &err), &err);
    CHECK_OK(pl__container_write_begin(w, out, magic, version, n_sections,
                                       &err), &err);
}

/* Three sections, one sized only when it ends, read back by the parser. */
PL_TEST(container_writer_round_trip)
{
    char path[4200];
    const char *dir = fresh_path(path, "cw_round", "c.ptau");
    pl_error err = {0};
    pl__output out;
    pl__container_writer w;
    uint8_t blob[1000];
    for (size_t i = 0; i < sizeof(blob); i++)
        blob[i] = (uint8_t)(i * 7);
    begin_container(&out, &w, path, "ptau", 7, 3);
    CHECK_OK(pl__container_section_begin(&w, 2, 12, &err), &err);
    CHECK_OK(pl__container_put_u32(&w, 0xa1b2c3d4u, &err), &err);
    CHECK_OK(pl__container_put_u64(&w, 0x0102030405060708ull, &err), &err);
    CHECK_OK(pl__container_section_end(&w, &err), &err);
    CHECK_OK(pl__container_section_begin(&w, 5, PL__SECTION_SIZE_LATER, &err),
             &err);
    for (int i = 0; i < 3; i++)
        CHECK_OK(pl__container_put(&w, blob, sizeof(blob), &err), &err);
    CHECK_OK(pl__container_section_end(&w, &err), &err);
    CHECK_OK(pl__container_section_begin(&w, 1, 0, &err), &err);
    CHECK_OK(pl__container_section_end(&w, &err), &err);
    CHECK_OK(pl__container_write_end(&w, &err), &err);
    CHECK_OK(pl__output_commit(&out, &err), &err);

    pl__mapped m;
    pl__container c;
    CHECK_OK(pl__file_map(&m, path, &err), &err);
    CHECK_OK(pl__container_parse(&c, &m, path, "ptau", &err), &err);
    CHECK_EQ(m.size, 12 + 12 + 12 + 12 + 3000 + 12);
    CHECK_EQ(c.version, 7);
    CHECK_EQ(c.n_sections, 3);
    CHECK_EQ(c.offset[2], 24);
    CHECK_EQ(c.size[2], 12);
    CHECK_EQ(pl__le32(m.data + 24), 0xa1b2c3d4u);
    CHECK_EQ(pl__le64(m.data + 28), 0x0102030405060708ull);
    CHECK_EQ(c.offset[5], 48);
    CHECK_EQ(c.size[5], 3000);
    for (int i = 0; i < 3; i++)
        CHECK_MEM(m.data + 48 + 1000 * i, blob, sizeof(blob));
    CHECK_EQ(c.offset[1], 3060);
    CHECK_EQ(c.size[1], 0);
    pl__file_unmap(&m);
    CHECK_LISTING(dir, "c.ptau");
}

/* A section that does not hold its declared size, a section too many, too
 * few: PL_EINTERNAL naming the file, section and offset; then sticky. */
PL_TEST(container_writer_refuses_wrong_sizes)
{
    char path[4200];
    const char *dir = fresh_path(path, "cw_sizes", "w.wtns");
    pl_error err = {0};
    pl__output out;
    pl__container_writer w;

    begin_container(&out, &w, path, "wtns", 2, 2);
    CHECK_OK(pl__container_section_begin(&w, 1, 8, &err), &err);
    CHECK_OK(pl__container_put_u32(&w, 1, &err), &err);
    CHECK_STATUS(pl__container_section_end(&w, &err), PL_EINTERNAL, &err);
    CHECK(strstr(err.msg, "w.wtns: section 1: 4 bytes written, 8 declared "
                          "(at byte offset 12)") != NULL);
    /* sticky: later calls return the first error and write nothing */
    uint64_t written = out.written;
    err.msg[0] = '\0';
    CHECK_STATUS(pl__container_put_u32(&w, 1, &err), PL_EINTERNAL, &err);
    CHECK_STATUS(pl__container_write_end(&w, &err), PL_EINTERNAL, &err);
    CHECK_EQ(out.written, written);
    pl__output_abort(&out);

    begin_container(&out, &w, path, "wtns", 2, 1);
    CHECK_OK(pl__container_section_begin(&w, 1, 0, &err), &err);
    CHECK_OK(pl__container_section_end(&w, &err), &err);
    CHECK_STATUS(pl__container_section_begin(&w, 2, 0, &err), PL_EINTERNAL,
                 &err);
    CHECK(strstr(err.msg, "past the declared count") != NULL);
    pl__output_abort(&out);

    begin_container(&out, &w, path, "wtns", 2, 2);
    CHECK_OK(pl__container_section_begin(&w, 1, 0, &err), &err);
    CHECK_OK(pl__container_section_end(&w, &err), &err);
    CHECK_STATUS(pl__container_write_end(&w, &err), PL_EINTERNAL, &err);
    CHECK(strstr(err.msg, "1 of 2 declared sections written") != NULL);
    pl__output_abort(&out);
    CHECK_LISTING(dir, "");
}

/* A witness written by pl__wtns_write is the file snarkjs wrote. */
PL_TEST(wtns_writer_matches_snarkjs)
{
    char path[4200];
    const char *dir = fresh_path(path, "wtns_write", "w.wtns");
    pl_error err = {0};
    for (size_t v = 0; v < N_VECTORS; v++) {
        pl_wtns *w;
        CHECK_OK(pl_wtns_open(&w, vec(vectors[v], "witness.wtns"), &err),
                 &err);
        CHECK_OK(pl__wtns_write(path, pl_wtns_values(w), pl_wtns_count(w),
                                &err), &err);
        size_t a_len, b_len;
        uint8_t *a = pl_test_read_file(path, &a_len);
        uint8_t *b = read_vector(vectors[v], "witness.wtns", &b_len);
        CHECK_EQ(a_len, b_len);
        CHECK_MEM(a, b, a_len);
        free(a);
        free(b);
        pl_wtns_close(w);
    }
    CHECK_LISTING(dir, "w.wtns");
}

/* ---- the record iterators (formats.h) ---------------------------------- */

/* Every r1cs term, in order, where the test's own walk of section 2 finds
 * it. */
PL_TEST(r1cs_iter_visits_every_term)
{
    pl_error err = {0};
    for (size_t v = 0; v < N_VECTORS; v++) {
        size_t len;
        uint8_t *b = read_vector(vectors[v], "circuit.r1cs", &len);
        size_t pos = pl_test_section_payload(b, len, 2);
        pl_r1cs *r;
        CHECK_OK(pl__r1cs_parse(&r, b, len, vectors[v], &err), &err);
        pl__r1cs_iter it;
        pl__r1cs_lc lc[3];
        uint32_t k, seen = 0;
        uint64_t terms = 0;
        for (pl__r1cs_iter_init(&it, r); pl__r1cs_iter_next(&it, &k, lc);) {
            CHECK_EQ(k, seen++);
            for (unsigned m = 0; m < 3; m++) {
                CHECK_EQ(lc[m].n_terms, pl__le32(b + pos));
                pos += 4;
                for (uint32_t t = 0; t < lc[m].n_terms; t++, pos += 36) {
                    pl__r1cs_term term = pl__r1cs_lc_term(&lc[m], t);
                    CHECK_EQ(term.wire, pl__le32(b + pos));
                    CHECK(term.coef == b + pos + 4);
                    terms++;
                }
            }
        }
        CHECK_EQ(seen, r->info.n_constraints);
        CHECK(!pl__r1cs_iter_next(&it, &k, lc)); /* stays at the end */
        CHECK(terms > 0);
        uint64_t size2;
        size_t head2 = pl_test_find_section(b, len, 2, &size2);
        CHECK_EQ(pos, head2 + 12 + size2);
        pl_r1cs_close(r);
        free(b);
    }
}

/* Every zkey record, in order, as the test reads it from section 4. */
PL_TEST(zkey_coef_iter_visits_every_record)
{
    pl_error err = {0};
    for (size_t v = 0; v < N_VECTORS; v++) {
        size_t len;
        uint8_t *b = read_vector(vectors[v], "circuit.zkey", &len);
        size_t s4 = pl_test_section_payload(b, len, 4);
        pl_zkey *z;
        CHECK_OK(pl__zkey_parse(&z, b, len, vectors[v], &err), &err);
        pl__zkey_coef_iter it;
        pl__zkey_coef c, d;
        uint32_t i = 0;
        for (pl__zkey_coef_iter_init(&it, z); pl__zkey_coef_next(&it, &c);
             i++) {
            const uint8_t *rec = b + s4 + 4 + 44 * (size_t)i;
            CHECK_EQ(c.index, i);
            CHECK_EQ(c.matrix, pl__le32(rec));
            CHECK_EQ(c.constraint, pl__le32(rec + 4));
            CHECK_EQ(c.signal, pl__le32(rec + 8));
            CHECK(c.value == rec + 12);
            pl__zkey_coef_at(&d, z, i);
            CHECK(memcmp(&c, &d, sizeof(c)) == 0);
        }
        CHECK_EQ(i, pl__le32(b + s4));
        CHECK(!pl__zkey_coef_next(&it, &c));
        pl_zkey_close(z);
        free(b);
    }
}

/* An r1cs walked with the iterator and written with the r1cs writer has
 * the same header and constraints, byte for byte. */
PL_TEST(r1cs_writer_round_trip)
{
    char path[4200];
    const char *dir = fresh_path(path, "r1cs_write", "c.r1cs");
    pl_error err = {0};
    for (size_t v = 0; v < N_VECTORS; v++) {
        pl_r1cs *r, *back;
        CHECK_OK(pl_r1cs_open(&r, vec(vectors[v], "circuit.r1cs"), &err),
                 &err);
        pl__r1cs_iter it;
        pl__r1cs_lc lc[3];
        uint32_t k;
        uint64_t n_terms = 0;
        for (pl__r1cs_iter_init(&it, r); pl__r1cs_iter_next(&it, &k, lc);)
            n_terms += (uint64_t)lc[0].n_terms + lc[1].n_terms +
                       lc[2].n_terms;
        pl__output out;
        pl__container_writer w;
        CHECK_OK(pl__output_open(&out, path, &err), &err);
        CHECK_OK(pl__r1cs_write_begin(&w, &out, &r->info, n_terms, &err),
                 &err);
        for (pl__r1cs_iter_init(&it, r); pl__r1cs_iter_next(&it, &k, lc);)
            for (unsigned m = 0; m < 3; m++) {
                pl__r1cs_put_lc(&w, lc[m].n_terms, &err);
                for (uint32_t t = 0; t < lc[m].n_terms; t++) {
                    pl__r1cs_term term = pl__r1cs_lc_term(&lc[m], t);
                    pl__r1cs_put_term(&w, term.wire, term.coef, &err);
                }
            }
        CHECK_OK(pl__r1cs_write_end(&w, &r->info, &err), &err);
        CHECK_OK(pl__output_commit(&out, &err), &err);
        CHECK_OK(pl_r1cs_open(&back, path, &err), &err);
        CHECK(memcmp(&back->info, &r->info, sizeof(r->info)) == 0);
        CHECK_EQ(back->constraints_bytes, r->constraints_bytes);
        CHECK_MEM(back->constraints, r->constraints, r->constraints_bytes);
        pl_r1cs_close(back);
        pl_r1cs_close(r);
    }
    CHECK_LISTING(dir, "c.r1cs");
}
