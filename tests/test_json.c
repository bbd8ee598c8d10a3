/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tests of the strict JSON parser (formats/json.c) and of the snarkjs JSON
 * files built on it: well-formed documents and their layout, every class
 * of malformed input rejected with a position, the writer (layout,
 * escaping, misuse), the verification key's
 * read -> write -> read round trip and byte equality with snarkjs's own
 * files, and the proof/public readers' checks.
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "harness.h"
#include "formats/json.h"
#include "formats/snarkjs_json.h"
#include "groth16/vkey.h"

#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *VECTORS[] = {"multiplier", "chain10",   "nopublic",
                                "pow2exact",  "pow2plus1", "noB",
                                "manypublic", "edgevalues"};
#define N_VECTORS (sizeof(VECTORS) / sizeof(VECTORS[0]))

static pl_status parse(pl__json_doc *doc, const char *text, pl_error *err)
{
    return pl__json_parse(doc, text, strlen(text), "t.json", err);
}

PL_TEST(json_parse_values)
{
    pl_error err = {0};
    pl__json_doc doc;
    const char *text =
        " {\"a\": [1, -2.5e+3, \"x\\u00e9\\ud83d\\ude00\\n\", true, false, "
        "null, [], {}], \"b\": {\"c\": \"\\\"\\\\\\/\"}, \"\\u0070\": 0}\r\n";
    CHECK_OK(parse(&doc, text, &err), &err);
    const pl__json_value *root = pl__json_root(&doc);
    CHECK_EQ(root->type, PL__JSON_OBJECT);
    CHECK_EQ(root->len, 3);
    CHECK_EQ(root->span, doc.count);
    CHECK_EQ(root->offset, 1);

    const pl__json_value *a, *b, *pv, *none;
    CHECK_OK(pl__json_member(&a, &doc, root, "a", true, "", &err), &err);
    CHECK_EQ(a->type, PL__JSON_ARRAY);
    CHECK_EQ(a->len, 8);
    const pl__json_value *e = pl__json_first(a);
    CHECK_EQ(e->type, PL__JSON_NUMBER);
    CHECK(e->len == 1 && e->text[0] == '1');
    e = pl__json_next(e);
    CHECK(e->type == PL__JSON_NUMBER && e->len == 7 &&
          memcmp(e->text, "-2.5e+3", 7) == 0);
    e = pl__json_next(e);
    CHECK_EQ(e->type, PL__JSON_STRING);
    CHECK(strcmp(e->text, "x\xc3\xa9\xf0\x9f\x98\x80\n") == 0);
    CHECK_EQ(e->len, 8);
    e = pl__json_next(e);
    CHECK_EQ(e->type, PL__JSON_TRUE);
    e = pl__json_next(e);
    CHECK_EQ(e->type, PL__JSON_FALSE);
    e = pl__json_next(e);
    CHECK_EQ(e->type, PL__JSON_NULL);
    e = pl__json_next(e);
    CHECK(e->type == PL__JSON_ARRAY && e->len == 0 && e->span == 1);
    e = pl__json_next(e);
    CHECK(e->type == PL__JSON_OBJECT && e->len == 0);
    CHECK(pl__json_next(e) == pl__json_end(a));

    CHECK_OK(pl__json_member(&b, &doc, root, "b", true, "", &err), &err);
    const pl__json_value *c;
    CHECK_OK(pl__json_member(&c, &doc, b, "c", true, "b", &err), &err);
    CHECK(strcmp(c->text, "\"\\/") == 0);
    /* escaped key names match their decoded text */
    CHECK_OK(pl__json_member(&pv, &doc, root, "p", true, "", &err), &err);
    CHECK_EQ(pv->type, PL__JSON_NUMBER);
    CHECK_OK(pl__json_member(&none, &doc, root, "zz", false, "", &err), &err);
    CHECK(none == NULL);
    CHECK_STATUS(pl__json_member(&none, &doc, root, "zz", true, "", &err),
                 PL_EFORMAT, &err);
    CHECK(strstr(err.msg, "missing key \"zz\"") != NULL);
    CHECK_STATUS(pl__json_member(&none, &doc, a, "x", true, "a", &err),
                 PL_EFORMAT, &err);
    pl__json_free(&doc);

    CHECK_OK(parse(&doc, "\"only\"", &err), &err);
    CHECK_EQ(doc.count, 1);
    pl__json_free(&doc);
    CHECK_OK(parse(&doc, "-0", &err), &err);
    pl__json_free(&doc);
}

PL_TEST(json_duplicate_key)
{
    pl_error err = {0};
    pl__json_doc doc;
    const pl__json_value *v;
    CHECK_OK(parse(&doc, "{\"a\": 1,\n \"a\": 2}", &err), &err);
    CHECK_STATUS(pl__json_member(&v, &doc, pl__json_root(&doc), "a", true, "",
                                 &err),
                 PL_EFORMAT, &err);
    CHECK(strstr(err.msg, "duplicate key \"a\"") != NULL);
    CHECK(strstr(err.msg, "line 2") != NULL);
    pl__json_free(&doc);
}

/* Each malformed text must fail with PL_EFORMAT at the given byte offset. */
PL_TEST(json_malformed)
{
    static const struct {
        const char *text;
        size_t offset;
    } cases[] = {
        {"", 0},                       /* empty */
        {"   ", 3},                    /* only whitespace */
        {"{", 1},                      /* truncated */
        {"[1, 2", 5},                  /* truncated */
        {"{\"a\": ", 6},               /* truncated after ':' */
        {"\"abc", 0},                  /* unterminated string */
        {"\"abc\\", 0},                /* truncated escape */
        {"[1] x", 4},                  /* trailing garbage */
        {"{} {}", 3},                  /* two values */
        {"[1,]", 3},                   /* trailing comma */
        {"{\"a\":1,}", 7},             /* trailing comma in object */
        {"{a: 1}", 1},                 /* unquoted key */
        {"{\"a\" 1}", 5},              /* missing ':' */
        {"[1 2]", 3},                  /* missing ',' */
        {"\"\\x\"", 1},                /* bad escape */
        {"\"\\u12g4\"", 1},            /* bad \u escape */
        {"\"\\ud800\"", 1},            /* lone high surrogate */
        {"\"\\udc00\"", 1},            /* lone low surrogate */
        {"\"\\u0000\"", 1},            /* NUL */
        {"\"a\tb\"", 2},               /* raw control character */
        {"\"\xc3\x28\"", 1},           /* bad UTF-8 */
        {"\"\xc0\xaf\"", 1},           /* overlong UTF-8 */
        {"\"\xed\xa0\x80\"", 1},       /* UTF-8 surrogate */
        {"\xef\xbb\xbf{}", 0},         /* BOM */
        {"01", 0},                     /* leading zero */
        {"-", 1},                      /* bare minus */
        {"1.", 2},                     /* no fraction digit */
        {"1e", 2},                     /* no exponent digit */
        {"+1", 0},                     /* plus */
        {"tru", 0},                    /* truncated word */
        {"nul", 0},
        {"True", 0},                   /* case */
        {"// c\n{}", 0},               /* comment */
        {"'a'", 0},                    /* single quotes */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        pl_error err = {0};
        pl__json_doc doc;
        pl_status st = parse(&doc, cases[i].text, &err);
        char want[64];
        snprintf(want, sizeof(want), "byte offset %zu)", cases[i].offset);
        if (st != PL_EFORMAT || strstr(err.msg, want) == NULL)
            pl_test_fail(__FILE__, __LINE__, "case %zu (%s): %s: %s", i,
                         cases[i].text, pl_strerror(st), err.msg);
        CHECK(doc.values == NULL && doc.strings == NULL);
        pl__json_free(&doc);
    }
}

PL_TEST(json_line_and_column)
{
    pl_error err = {0};
    pl__json_doc doc;
    CHECK_STATUS(parse(&doc, "{\n \"a\": [\n  1,\n  ?\n ]\n}", &err),
                 PL_EFORMAT, &err);
    CHECK(strstr(err.msg, "t.json") != NULL);
    CHECK(strstr(err.msg, "line 4, column 3, byte offset 17") != NULL);
}

PL_TEST(json_depth_limit)
{
    pl_error err = {0};
    pl__json_doc doc;
    char text[2 * (PL__JSON_MAX_DEPTH + 1) + 1];
    /* exactly the limit parses */
    size_t n = PL__JSON_MAX_DEPTH;
    for (size_t i = 0; i < n; i++) {
        text[i] = '[';
        text[2 * n - 1 - i] = ']';
    }
    text[2 * n] = '\0';
    CHECK_OK(parse(&doc, text, &err), &err);
    CHECK_EQ(doc.count, n);
    pl__json_free(&doc);
    /* one more fails at the innermost bracket */
    n++;
    for (size_t i = 0; i < n; i++) {
        text[i] = '[';
        text[2 * n - 1 - i] = ']';
    }
    text[2 * n] = '\0';
    CHECK_STATUS(parse(&doc, text, &err), PL_EFORMAT, &err);
    CHECK(strstr(err.msg, "nested too deeply") != NULL);
    char want[48];
    snprintf(want, sizeof(want), "byte offset %d)", PL__JSON_MAX_DEPTH);
    CHECK(strstr(err.msg, want) != NULL);

    /* a hostile depth cannot reach the stack */
    size_t big = 1000000;
    char *deep = malloc(big + 1);
    CHECK(deep != NULL);
    memset(deep, '[', big);
    deep[big] = '\0';
    CHECK_STATUS(parse(&doc, deep, &err), PL_EFORMAT, &err);
    free(deep);
}

/* ---- the writer ------------------------------------------------------ */

/* What the writer wrote parses back with the strict parser. */
static void check_parses(const pl__strbuf *sb)
{
    pl_error err = {0};
    pl__json_doc doc;
    CHECK(sb->data != NULL);
    CHECK_OK(pl__json_parse(&doc, sb->data, sb->len, "written", &err), &err);
    pl__json_free(&doc);
}

PL_TEST(json_writer_layout)
{
    pl__strbuf sb = {0};
    pl__jw w;
    pl__jw_to_buffer(&w, &sb, false);
    pl__jw_object(&w);
    pl__jw_key_str(&w, "id", "a");
    pl__jw_key_u64(&w, "max", UINT64_MAX);
    pl__jw_key_i64(&w, "min", INT64_MIN);
    pl__jw_key_f64(&w, "third", 1.0 / 3.0, 3);
    pl__jw_key_f64(&w, "nan", NAN, -1);
    pl__jw_key_bool(&w, "ok", true);
    pl__jw_key(&w, "list");
    pl__jw_array(&w);
    pl__jw_u64(&w, 1);
    pl__jw_newline(&w);
    pl__jw_null(&w);
    pl__jw_object(&w);
    pl__jw_end_object(&w);
    pl__jw_raw(&w, "[2]", 3);
    pl__jw_end_array(&w);
    pl__jw_end_object(&w);
    CHECK(!w.failed);
    const char *want = "{\"id\": \"a\", \"max\": 18446744073709551615, "
                       "\"min\": -9223372036854775808, \"third\": 0.333, "
                       "\"nan\": null, \"ok\": true, \"list\": [1,\nnull, "
                       "{}, [2]]}";
    if (strcmp(sb.data, want) != 0)
        pl_test_fail(__FILE__, __LINE__, "wrote %s", sb.data);
    check_parses(&sb);
    pl__strbuf_free(&sb);

    /* compact: the trace's layout */
    pl__jw_to_buffer(&w, &sb, true);
    pl__jw_array(&w);
    pl__jw_object(&w);
    pl__jw_key_u64(&w, "a", 1);
    pl__jw_key_str(&w, "b", "");
    pl__jw_end_object(&w);
    pl__jw_newline(&w);
    pl__jw_u64(&w, 2);
    pl__jw_newline(&w);
    pl__jw_end_array(&w);
    CHECK(!w.failed);
    if (strcmp(sb.data, "[{\"a\":1,\"b\":\"\"},\n2\n]") != 0)
        pl_test_fail(__FILE__, __LINE__, "wrote %s", sb.data);
    check_parses(&sb);
    pl__strbuf_free(&sb);
}

/* Quotes, backslashes and control characters escaped; bytes that are not
 * UTF-8 (a cut sequence, an overlong form, a surrogate) become U+FFFD;
 * valid multi-byte characters pass as they are. */
PL_TEST(json_writer_escapes)
{
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"plain", "\"plain\""},
        {"q\"b\\s/", "\"q\\\"b\\\\s/\""},
        {"a\nb\tc\x01\x1f\x7f", "\"a\\u000ab\\u0009c\\u0001\\u001f\x7f\""},
        {"caf\xc3\xa9 \xf0\x9f\x98\x80", "\"caf\xc3\xa9 \xf0\x9f\x98\x80\""},
        {"cut \xc3", "\"cut \\ufffd\""},
        {"over \xc0\xaf", "\"over \\ufffd\\ufffd\""},
        {"sur \xed\xa0\x80", "\"sur \\ufffd\\ufffd\\ufffd\""},
        {"latin1 \xe9t\xe9", "\"latin1 \\ufffdt\\ufffd\""},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        pl__strbuf sb = {0};
        pl__json_put_string(&sb, cases[i].in);
        if (!sb.data || strcmp(sb.data, cases[i].out) != 0)
            pl_test_fail(__FILE__, __LINE__, "case %zu: wrote %s", i,
                         sb.data ? sb.data : "(nothing)");
        check_parses(&sb);
        pl__strbuf_free(&sb);
    }
    /* a NUL inside a counted string is escaped, not an end */
    pl__strbuf sb = {0};
    pl__jw w;
    pl__jw_to_buffer(&w, &sb, true);
    pl__jw_strn(&w, "a\0b", 3);
    CHECK(strcmp(sb.data, "\"a\\u0000b\"") == 0);
    pl__strbuf_free(&sb);
    /* and on a stream */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CHECK(f != NULL);
    pl__json_fputs(f, "x\"y");
    fclose(f);
    CHECK(strcmp(text, "\"x\\\"y\"") == 0);
    free(text);
}

/* Misuse stops the writer and says so, rather than writing broken JSON. */
PL_TEST(json_writer_misuse)
{
    pl__strbuf sb = {0};
    pl__jw w;
    pl__jw_to_buffer(&w, &sb, false);
    pl__jw_object(&w);
    pl__jw_u64(&w, 1); /* a value without its key */
    CHECK(w.failed);
    pl__strbuf_free(&sb);

    pl__jw_to_buffer(&w, &sb, false);
    pl__jw_array(&w);
    pl__jw_key(&w, "k"); /* a key in an array */
    CHECK(w.failed);
    pl__strbuf_free(&sb);

    pl__jw_to_buffer(&w, &sb, false);
    pl__jw_array(&w);
    pl__jw_end_object(&w); /* the wrong close */
    CHECK(w.failed);
    pl__strbuf_free(&sb);

    pl__jw_to_buffer(&w, &sb, false);
    pl__jw_object(&w);
    pl__jw_key(&w, "k");
    pl__jw_end_object(&w); /* a key without its value */
    CHECK(w.failed);
    pl__strbuf_free(&sb);

    pl__jw_to_buffer(&w, &sb, false);
    for (int i = 0; i <= PL__JSON_MAX_DEPTH; i++)
        pl__jw_array(&w);
    CHECK(w.failed); /* deeper than the parser would read back */
    pl__strbuf_free(&sb);
}

/* ---- snarkjs files ---------------------------------------------------- */

static void spit(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    fputs(text, f);
    fclose(f);
}

static void check_same_file(const char *a, const char *b)
{
    size_t la, lb;
    char *ta = (char *)pl_test_read_file(a, &la),
         *tb = (char *)pl_test_read_file(b, &lb);
    if (la != lb || memcmp(ta, tb, la) != 0) {
        size_t i = 0;
        while (i < la && i < lb && ta[i] == tb[i])
            i++;
        pl_test_fail(__FILE__, __LINE__, "%s and %s differ at byte %zu", a,
                     b, i);
    }
    free(ta);
    free(tb);
}

static bool vkey_equal(const pl_vkey *a, const pl_vkey *b)
{
    return a->n_public == b->n_public &&
           memcmp(&a->alpha1, &b->alpha1, sizeof(a->alpha1)) == 0 &&
           memcmp(&a->beta2, &b->beta2, sizeof(a->beta2)) == 0 &&
           memcmp(&a->gamma2, &b->gamma2, sizeof(a->gamma2)) == 0 &&
           memcmp(&a->delta2, &b->delta2, sizeof(a->delta2)) == 0 &&
           memcmp(&a->alphabeta, &b->alphabeta, sizeof(a->alphabeta)) == 0 &&
           memcmp(a->ic, b->ic, (a->n_public + 1) * sizeof(*a->ic)) == 0;
}

/* read -> write -> read, and the written text is snarkjs's byte for byte
 * (so vk_alphabeta_12's layout is snarkjs's too) */
PL_TEST(vkey_json_roundtrip)
{
    for (size_t i = 0; i < N_VECTORS; i++) {
        pl_error err = {0};
        pl_vkey *a = NULL, *b = NULL;
        char src[256], name[64];
        snprintf(src, sizeof(src), "%s/verification_key.json", VECTORS[i]);
        snprintf(name, sizeof(name), "vkey_rt_%s.json", VECTORS[i]);
        CHECK_OK(pl_vkey_read_json(&a, pl_test_vector(src), &err), &err);
        char out[4096];
        snprintf(out, sizeof(out), "%s", pl_test_tmp(name));
        CHECK_OK(pl_vkey_write_json(a, out, &err), &err);
        CHECK_OK(pl_vkey_read_json(&b, out, &err), &err);
        CHECK(vkey_equal(a, b));
        CHECK_EQ(pl_vkey_n_public(a), pl_vkey_n_public(b));
        check_same_file(out, pl_test_vector(src));
        pl_vkey_destroy(a);
        pl_vkey_destroy(b);
    }
    pl_vkey_destroy(NULL);
}

/* Rewrites a copy of multiplier's vkey with one substring replaced and
 * expects `code` with `needle` in the message. */
static void vkey_mutant(const char *from, const char *to, pl_status code,
                        const char *needle)
{
    size_t len;
    char *text = (char *)pl_test_read_file(pl_test_vector("multiplier/verification_key.json"),
                       &len);
    char *at = strstr(text, from);
    if (!at)
        pl_test_fail(__FILE__, __LINE__, "no \"%s\" in the vkey", from);
    size_t flen = strlen(from), tlen = strlen(to);
    char *mut = malloc(len - flen + tlen + 1);
    CHECK(mut != NULL);
    memcpy(mut, text, (size_t)(at - text));
    memcpy(mut + (at - text), to, tlen);
    strcpy(mut + (at - text) + tlen, at + flen);
    const char *path = pl_test_tmp("vkey_mutant.json");
    char p[4096];
    snprintf(p, sizeof(p), "%s", path);
    spit(p, mut);
    pl_error err = {0};
    pl_vkey *vk = NULL;
    pl_status st = pl_vkey_read_json(&vk, p, &err);
    if (st != code || strstr(err.msg, needle) == NULL)
        pl_test_fail(__FILE__, __LINE__, "%s -> %s: %s -> %s: %s (wanted %s "
                     "with \"%s\")", from, to, pl_strerror(st), p, err.msg,
                     pl_strerror(code), needle);
    CHECK(vk == NULL);
    CHECK(strstr(err.msg, p) != NULL); /* names the file */
    free(mut);
    free(text);
}

PL_TEST(vkey_json_rejects)
{
    /* multiplier's values (see the file) */
    const char *beta_x0 = "3865596070911916829952415576016535580448379955780177"
                          "664744684612270185394368518464206893228386528449038"
                          "018259166000";
    const char *ic1_y = "4322374051601211240331960333402850186144802535152988"
                        "53931840781051875255002177710250755237756900009128786"
                        "870455625";
    vkey_mutant("\"bls12381\"", "\"bls12377\"", PL_EUNSUPPORTED, "bls12377");
    /* a BLS12-381 key tagged bn128 is read as BN254's: its coordinates are
     * not below BN254's q */
    vkey_mutant("\"bls12381\"", "\"bn128\"", PL_EFORMAT, "not a bn128 G1");
    vkey_mutant("\"groth16\"", "\"plonk\"", PL_EUNSUPPORTED, "plonk");
    vkey_mutant("\"curve\": \"bls12381\",", "", PL_EFORMAT,
                "missing key \"curve\"");
    vkey_mutant("\"nPublic\": 1", "\"nPublic\": 2", PL_EFORMAT, "IC");
    vkey_mutant("\"nPublic\": 1", "\"nPublic\": 1.0", PL_EFORMAT, "nPublic");
    vkey_mutant("\"nPublic\": 1", "\"nPublic\": -1", PL_EFORMAT, "nPublic");
    vkey_mutant("\"nPublic\": 1", "\"nPublic\": \"1\"", PL_EFORMAT,
                "nPublic");
    vkey_mutant("\"nPublic\": 1", "\"nPublic\": 2147483648", PL_EFORMAT,
                "2^31");
    /* a coordinate changed: off the curve */
    char alt[200];
    snprintf(alt, sizeof(alt), "\"%s\"", beta_x0);
    alt[3] = alt[3] == '1' ? '2' : '1';
    char orig[200];
    snprintf(orig, sizeof(orig), "\"%s\"", beta_x0);
    vkey_mutant(orig, alt, PL_EFORMAT, "vk_beta_2");
    /* an IC coordinate off the curve, named with its path */
    snprintf(orig, sizeof(orig), "\"%s\"", ic1_y);
    snprintf(alt, sizeof(alt), "\"%s\"", ic1_y);
    alt[5] = alt[5] == '1' ? '2' : '1';
    vkey_mutant(orig, alt, PL_EFORMAT, "IC[1]: the point is not on the curve");
    /* decimals: >= q, leading zero, number instead of string */
    snprintf(orig, sizeof(orig), "\"%s\"", beta_x0);
    vkey_mutant(orig,
                "\"4002409555221667393417789825735904156556882819939007885332"
                "058136124031650490837864442687629129015664037894272559787\"",
                PL_EFORMAT, "vk_beta_2[0][0]: not below the base field");
    snprintf(alt, sizeof(alt), "\"0%s\"", beta_x0);
    vkey_mutant(orig, alt, PL_EFORMAT, "vk_beta_2[0][0]: not a decimal");
    vkey_mutant(orig, "3", PL_EFORMAT, "vk_beta_2[0][0]: expected a decimal");
    /* z not 1 */
    vkey_mutant("\"1\"\n ],\n \"vk_beta_2\"", "\"2\"\n ],\n \"vk_beta_2\"",
                PL_EFORMAT, "vk_alpha_1[2]: z must be");
    /* the point at infinity is no alpha */
    vkey_mutant("\"1\"\n ],\n \"vk_beta_2\"", "\"0\"\n ],\n \"vk_beta_2\"",
                PL_EFORMAT, "vk_alpha_1[2]");
    /* alphabeta of another key */
    vkey_mutant("\"2549307403826634453741767419649025742692565947059515699499"
                "863034578389997513878530472014281207792614681690786993878\"",
                "\"1\"", PL_EFORMAT, "vk_alphabeta_12: does not equal");
    vkey_mutant("\"vk_alphabeta_12\": [\n  [", "\"vk_alphabeta_12\": [\n  [\n"
                "[\"1\",\"2\"],", PL_EFORMAT, "vk_alphabeta_12[0]: expected");
    /* duplicate key */
    vkey_mutant("\"nPublic\": 1,", "\"nPublic\": 1, \"nPublic\": 1,",
                PL_EFORMAT, "duplicate key \"nPublic\"");
    /* syntax */
    vkey_mutant("\"IC\": [", "\"IC\": [,", PL_EFORMAT, "JSON syntax");
}

PL_TEST(vkey_json_optional_alphabeta)
{
    /* without vk_alphabeta_12 the key still reads, and it is recomputed */
    size_t len;
    char *text = (char *)pl_test_read_file(pl_test_vector("multiplier/verification_key.json"),
                       &len);
    char *ab = strstr(text, " \"vk_alphabeta_12\"");
    char *ic = strstr(text, " \"IC\"");
    CHECK(ab && ic && ab < ic);
    memmove(ab, ic, strlen(ic) + 1);
    char p[4096];
    snprintf(p, sizeof(p), "%s", pl_test_tmp("vkey_no_ab.json"));
    spit(p, text);
    free(text);
    pl_error err = {0};
    pl_vkey *a = NULL, *b = NULL;
    CHECK_OK(pl_vkey_read_json(&a, p, &err), &err);
    CHECK_OK(pl_vkey_read_json(
                 &b, pl_test_vector("multiplier/verification_key.json"), &err),
             &err);
    CHECK(vkey_equal(a, b));
    pl_vkey_destroy(a);
    pl_vkey_destroy(b);
}

/* ---- proof.json / public.json ----------------------------------------- */

PL_TEST(proof_json_roundtrip)
{
    /* snarkjs's proofs and public inputs, written back byte for byte */
    for (size_t i = 0; i < N_VECTORS; i++) {
        pl_error err = {0};
        pl_proof proof, again;
        pl_scalar *pubs = NULL, *pubs2 = NULL;
        size_t n = 0, n2 = 0;
        char src[256], pub[256], po[4096], qo[4096];
        for (int k = 0; k < 2; k++) {
            snprintf(src, sizeof(src), "%s/%s", VECTORS[i],
                     k ? "proof_ref.json" : "proof_snarkjs.json");
            snprintf(pub, sizeof(pub), "%s/public.json", VECTORS[i]);
            CHECK_OK(pl_proof_read_json(&proof, pl_test_vector(src), &err),
                     &err);
            CHECK_OK(pl_public_read_json(&pubs, &n, pl_test_vector(pub), 64,
                                         &err),
                     &err);
            CHECK(pubs != NULL);
            snprintf(po, sizeof(po), "%s", pl_test_tmp("rt_proof.json"));
            snprintf(qo, sizeof(qo), "%s", pl_test_tmp("rt_public.json"));
            CHECK_OK(pl_proof_write_json(&proof, po, pubs, n, qo, &err), &err);
            check_same_file(po, pl_test_vector(src));
            check_same_file(qo, pl_test_vector(pub));
            CHECK_OK(pl_proof_read_json(&again, po, &err), &err);
            CHECK_MEM(&again, &proof, sizeof(proof));
            CHECK_OK(pl_public_read_json(&pubs2, &n2, qo, 64, &err), &err);
            CHECK_EQ(n2, n);
            if (n)
                CHECK_MEM(pubs2, pubs, n * sizeof(*pubs));
            pl_public_free(pubs);
            pl_public_free(pubs2);
            pubs = pubs2 = NULL;
        }
    }
}

static void write_text(const char *name, const char *text, char *path_out)
{
    snprintf(path_out, 4096, "%s", pl_test_tmp(name));
    spit(path_out, text);
}

PL_TEST(public_json_rejects)
{
    pl_error err = {0};
    pl_scalar *pubs = NULL;
    size_t n = 7;
    char p[4096];
    write_text("pub_r.json",
               "[\"1\", \"5243587517512619047944774050818596583769055250052763"
               "7822603658699938581184513\"]", p);
    CHECK_STATUS(pl_public_read_json(&pubs, &n, p, 2, &err), PL_EFORMAT, &err);
    CHECK(strstr(err.msg, "[1]: not a decimal integer below") != NULL);
    CHECK(pubs == NULL && n == 0);
    write_text("pub_num.json", "[1]", p);
    CHECK_STATUS(pl_public_read_json(&pubs, &n, p, 2, &err), PL_EFORMAT, &err);
    CHECK(strstr(err.msg, "[0]: expected a decimal string") != NULL);
    write_text("pub_obj.json", "{}", p);
    CHECK_STATUS(pl_public_read_json(&pubs, &n, p, 2, &err), PL_EFORMAT, &err);
    write_text("pub_neg.json", "[\"-1\"]", p);
    CHECK_STATUS(pl_public_read_json(&pubs, &n, p, 2, &err), PL_EFORMAT, &err);
    write_text("pub_empty.json", "[]", p);
    CHECK_OK(pl_public_read_json(&pubs, &n, p, 2, &err), &err);
    CHECK(pubs != NULL && n == 0);
    pl_public_free(pubs);
    CHECK_STATUS(pl_public_read_json(&pubs, &n, pl_test_tmp("nonexistent"),
                                     2, &err),
                 PL_EIO, &err);
}

/* The JSON inputs are bounded by what they can hold, refused before they
 * are read: public.json by its key's input count (1 KiB and 256 bytes an
 * input), a proof at 16 KiB; a FIFO is refused without waiting for a
 * writer, a device without reading it.  (Before: public.json up to 4 GiB,
 * /dev/zero read to 4 GiB, a FIFO hung in open.) */
PL_TEST(json_inputs_are_bounded)
{
    pl_error err = {0};
    pl_scalar *pubs = NULL;
    size_t n = 0;
    char p[4096];
    /* a one-input public.json padded past 1 KiB + 256 bytes */
    char text[2048];
    memset(text, ' ', sizeof(text));
    memcpy(text, "[\"33\"", 5);
    memcpy(text + sizeof(text) - 2, "]", 2);
    write_text("pub_padded.json", text, p);
    CHECK_STATUS(pl_public_read_json(&pubs, &n, p, 1, &err), PL_EFORMAT,
                 &err);
    CHECK(strstr(err.msg, "pub_padded.json: 2047 bytes, more than the 1280 "
                 "bytes it can hold") != NULL);
    /* the same file is fine for a key of four inputs (up to 2 KiB) */
    CHECK_OK(pl_public_read_json(&pubs, &n, p, 4, &err), &err);
    CHECK(n == 1);
    pl_public_free(pubs);
    pubs = NULL;
    /* a proof of 16 KiB + 1 */
    char *big = malloc((16 << 10) + 2);
    CHECK(big != NULL);
    memset(big, ' ', (16 << 10) + 1);
    big[0] = '{';
    big[16 << 10] = '}';
    big[(16 << 10) + 1] = '\0';
    write_text("proof_big.json", big, p);
    free(big);
    pl_proof proof;
    CHECK_STATUS(pl_proof_read_json(&proof, p, &err), PL_EFORMAT, &err);
    CHECK(strstr(err.msg, "more than the 16384 bytes") != NULL);
    /* not regular files: refused at once, nothing read */
    snprintf(p, sizeof(p), "%s", pl_test_tmp("json_fifo"));
    unlink(p);
    CHECK(mkfifo(p, 0600) == 0);
    CHECK_STATUS(pl_public_read_json(&pubs, &n, p, 1, &err), PL_EIO, &err);
    CHECK(strstr(err.msg, "json_fifo: not a regular file") != NULL);
    unlink(p);
    CHECK_STATUS(pl_public_read_json(&pubs, &n, "/dev/zero", 1, &err),
                 PL_EIO, &err);
    CHECK(strstr(err.msg, "/dev/zero: not a regular file") != NULL);
    pl_vkey *vk = NULL;
    CHECK_STATUS(pl_vkey_read_json(&vk, "/dev/zero", &err), PL_EIO, &err);
    CHECK(vk == NULL);
}

/* Replaces `from` with `to` in multiplier's snarkjs proof and reads it. */
static pl_status proof_mutant(const char *from, const char *to,
                              pl_error *err)
{
    size_t len;
    char *text = (char *)pl_test_read_file(pl_test_vector("multiplier/proof_snarkjs.json"), &len);
    char *at = strstr(text, from);
    if (!at)
        pl_test_fail(__FILE__, __LINE__, "no \"%s\" in the proof", from);
    size_t flen = strlen(from), tlen = strlen(to);
    char *mut = malloc(len - flen + tlen + 1);
    CHECK(mut != NULL);
    memcpy(mut, text, (size_t)(at - text));
    memcpy(mut + (at - text), to, tlen);
    strcpy(mut + (at - text) + tlen, at + flen);
    char p[4096];
    write_text("proof_mutant.json", mut, p);
    free(mut);
    free(text);
    pl_proof proof;
    return pl_proof_read_json(&proof, p, err);
}

PL_TEST(proof_json_rejects)
{
    pl_error err = {0};
    CHECK_STATUS(proof_mutant("\"bls12381\"", "\"bls12377\"", &err),
                 PL_EUNSUPPORTED, &err);
    CHECK(strstr(err.msg, "bls12377") != NULL);
    CHECK_STATUS(proof_mutant("\"bls12381\"", "\"bn128\"", &err),
                 PL_EFORMAT, &err);
    CHECK(strstr(err.msg, "not a bn128 G1") != NULL);
    CHECK_STATUS(proof_mutant("\"groth16\"", "\"fflonk\"", &err),
                 PL_EUNSUPPORTED, &err);
    /* both tags are optional */
    CHECK_OK(proof_mutant(",\n \"protocol\": \"groth16\",\n \"curve\": "
                          "\"bls12381\"", "", &err), &err);
    CHECK_STATUS(proof_mutant("\"pi_c\"", "\"pi_d\"", &err), PL_EFORMAT,
                 &err);
    CHECK(strstr(err.msg, "missing key \"pi_c\"") != NULL);
    CHECK_STATUS(proof_mutant("\"1\",\n   \"0\"", "\"0\",\n   \"0\"", &err),
                 PL_EFORMAT, &err);
    CHECK(strstr(err.msg, "pi_b[2]: z must be") != NULL);
    CHECK_STATUS(proof_mutant("\"1\"\n ],\n \"pi_b\"", "\"1\", \"1\"\n ],\n "
                              "\"pi_b\"", &err),
                 PL_EFORMAT, &err);
    CHECK(strstr(err.msg, "pi_a: expected a G1 point") != NULL);
    CHECK_STATUS(proof_mutant("[\n  \"1813", "[\n  \"-1813", &err),
                 PL_EFORMAT, &err);
    CHECK(strstr(err.msg, "pi_a[0]: not a decimal") != NULL);
    /* infinity as snarkjs writes it reads as all zeros */
    CHECK_OK(proof_mutant(
                 "\"539903288846176193961575409895425940311281415322593230133"
                 "092913302484865963615337997378164666492430734124506193023\""
                 ",\n  \"30296221875877837314554687803671320488653017006139456"
                 "43650446588020714483660843264136561548162970007870715288577"
                 "778\",\n  \"1\"",
                 "\"0\", \"1\", \"0\"", &err),
             &err);
}

PL_TEST(proof_write_atomic)
{
    /* a public.json that cannot be staged leaves proof.json untouched */
    pl_error err = {0};
    pl_proof proof;
    CHECK_OK(pl_proof_read_json(
                 &proof, pl_test_vector("multiplier/proof_snarkjs.json"),
                 &err),
             &err);
    char po[4096];
    write_text("atomic_proof.json", "old", po);
    pl_scalar one = {{1}};
    CHECK_STATUS(pl_proof_write_json(&proof, po, &one, 1,
                                     "/nonexistent-dir/public.json", &err),
                 PL_EIO, &err);
    size_t len;
    char *t = (char *)pl_test_read_file(po, &len);
    CHECK(strcmp(t, "old") == 0);
    free(t);
    /* public_path NULL writes the proof only */
    CHECK_OK(pl_proof_write_json(&proof, po, NULL, 0, NULL, &err), &err);
    check_same_file(po, pl_test_vector("multiplier/proof_snarkjs.json"));
    /* an empty public.json as snarkjs writes it */
    char qo[4096];
    snprintf(qo, sizeof(qo), "%s", pl_test_tmp("atomic_public.json"));
    CHECK_OK(pl_proof_write_json(&proof, po, NULL, 0, qo, &err), &err);
    check_same_file(qo, pl_test_vector("nopublic/public.json"));
}
