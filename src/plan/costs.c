/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Stage-cost profiles for the planner: reading and writing the costs file
 * (docs/plan.md, "Costs"), and the seconds of a stage at a size.  A
 * profile says, for synthesis, the prover's start and its finish, the
 * seconds of one partition as fixed + per_row x domain rows, and how it was
 * obtained: measured by `proofline calibrate` on a number of cores, or
 * estimated from named figures.
 *
 * The format is lines of `key value...`; `#` starts a comment:
 *     profile NAME
 *     source TEXT...          (where the figures come from)
 *     estimated yes|no
 *     device cpu|gpu          (where the start runs)
 *     cores N                 (the cores the start was measured with)
 *     synth FIXED PER_ROW     (seconds; seconds per domain row)
 *     prove FIXED PER_ROW
 *     finish FIXED PER_ROW
 *     curve bls12381|bn128    (the stage lines after it are that curve's)
 *
 * Stage costs are per curve (BN254's field is 4 limbs, BLS12-381's 6, so
 * one machine's stages differ by curve): the stage lines before any
 * `curve` line are BLS12-381's, which is what every file without one has
 * always meant.  A file gives one curve's three stages, or both curves'.
 */
#define _GNU_SOURCE
#include "proofline.h"
#include "util/error.h"
#include "util/file.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const stage_keys[PL_PLAN_STAGE_COUNT] = {"synth", "prove",
                                                             "finish"};

double pl_plan_costs_seconds(const pl_plan_costs *c, pl_plan_stage stage,
                             uint64_t rows)
{
    return pl_plan_costs_seconds_curve(c, PL_CURVE_BLS12_381, stage, rows);
}

bool pl_plan_costs_has_curve(const pl_plan_costs *c, pl_curve curve)
{
    return curve == PL_CURVE_BN254 ? c->bn254 : !c->no_bls12_381;
}

double pl_plan_costs_seconds_curve(const pl_plan_costs *c, pl_curve curve,
                                   pl_plan_stage stage, uint64_t rows)
{
    if ((unsigned)stage >= PL_PLAN_STAGE_COUNT ||
        !pl_plan_costs_has_curve(c, curve))
        return 0;
    const bool bn = curve == PL_CURVE_BN254;
    double t = (bn ? c->bn254_fixed : c->fixed)[stage] +
               (bn ? c->bn254_per_row : c->per_row)[stage] * (double)rows;
    return t > 0 ? t : 0;
}

/* A number that is finite and not negative. */
static bool parse_seconds(const char *text, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || *end || !isfinite(v) || v < 0)
        return false;
    *out = v;
    return true;
}

pl_status pl_plan_costs_read(pl_plan_costs *out, const char *path,
                             pl_error *err)
{
    memset(out, 0, sizeof(*out));
    /* read as every input is (util/file.h: a FIFO refused, not waited on),
     * then parsed from memory; a costs file is a few hundred bytes */
    char *text = NULL;
    size_t len = 0;
    pl_status rst = pl__file_read_small(&text, &len, path, 1u << 20, err);
    if (rst != PL_OK)
        return rst;
    FILE *f = fmemopen(text, len, "r");
    if (!f) {
        free(text);
        return pl__error_errno(err, PL_ENOMEM, errno, "%s: cannot read it "
                               "from memory", path);
    }
    char line[512];
    unsigned lineno = 0;
    unsigned seen[2] = {0, 0}; /* stages given, per curve (pl_curve) */
    pl_curve curve = PL_CURVE_BLS12_381; /* before any `curve` line */
    pl_status st = PL_OK;
    while (fgets(line, sizeof(line), f)) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        line[strcspn(line, "\r\n")] = '\0';
        char *save = NULL, *key = strtok_r(line, " \t", &save);
        if (!key)
            continue;
        char *rest = save ? save + strspn(save, " \t") : NULL;
        if (strcmp(key, "profile") == 0 && rest && *rest) {
            snprintf(out->profile, sizeof(out->profile), "%s", rest);
        } else if (strcmp(key, "source") == 0 && rest) {
            snprintf(out->source, sizeof(out->source), "%s", rest);
        } else if (strcmp(key, "estimated") == 0 && rest &&
                   (!strcmp(rest, "yes") || !strcmp(rest, "no"))) {
            out->estimated = strcmp(rest, "yes") == 0;
        } else if (strcmp(key, "device") == 0 && rest &&
                   (!strcmp(rest, "cpu") || !strcmp(rest, "gpu"))) {
            out->gpu = strcmp(rest, "gpu") == 0;
        } else if (strcmp(key, "cores") == 0 && rest) {
            char *end;
            unsigned long n = strtoul(rest, &end, 10);
            if (*end || n == 0 || n > 1u << 16) {
                st = pl__error_set(err, PL_EFORMAT, "%s:%u: cores: '%s' is "
                                   "not a count of cores", path, lineno, rest);
                break;
            }
            out->cores = (unsigned)n;
        } else if (strcmp(key, "curve") == 0) {
            if (rest && strcmp(rest, pl_curve_name(PL_CURVE_BN254)) == 0) {
                curve = PL_CURVE_BN254;
            } else if (rest &&
                       strcmp(rest, pl_curve_name(PL_CURVE_BLS12_381)) == 0) {
                curve = PL_CURVE_BLS12_381;
            } else {
                st = pl__error_set(err, PL_EFORMAT, "%s:%u: curve: '%s' is "
                                   "not a curve (bls12381, bn128)", path,
                                   lineno, rest ? rest : "");
                break;
            }
        } else {
            int stage = -1;
            for (int s = 0; s < PL_PLAN_STAGE_COUNT; s++)
                if (strcmp(key, stage_keys[s]) == 0)
                    stage = s;
            char *a = rest ? strtok_r(NULL, " \t", &save) : NULL;
            char *b = a ? strtok_r(NULL, " \t", &save) : NULL;
            if (stage < 0) {
                st = pl__error_set(err, PL_EFORMAT, "%s:%u: '%s' is not a "
                                   "field of a costs file (profile, source, "
                                   "estimated, device, cores, synth, prove, "
                                   "finish, curve)", path, lineno, key);
                break;
            }
            const bool bn = curve == PL_CURVE_BN254;
            double *fixed = bn ? out->bn254_fixed : out->fixed;
            double *per_row = bn ? out->bn254_per_row : out->per_row;
            if (!a || !b || strtok_r(NULL, " \t", &save) ||
                !parse_seconds(a, &fixed[stage]) ||
                !parse_seconds(b, &per_row[stage])) {
                st = pl__error_set(err, PL_EFORMAT, "%s:%u: %s: wants two "
                                   "numbers, seconds and seconds per domain "
                                   "row", path, lineno, key);
                break;
            }
            seen[curve] |= 1u << stage;
        }
    }
    fclose(f);
    free(text);
    /* each curve given has its three stages; a file without BN254's is
     * BLS12-381's (as files were before curves), so that one is needed */
    const unsigned all = (1u << PL_PLAN_STAGE_COUNT) - 1;
    for (int c = 0; c < 2 && st == PL_OK; c++) {
        unsigned m = seen[c];
        if (m == all || (m == 0 && (c == PL_CURVE_BLS12_381
                                        ? seen[PL_CURVE_BN254] != 0
                                        : true)))
            continue;
        const char *missing = !(m & 1) ? "synth" : !(m & 2) ? "prove"
                                                             : "finish";
        st = c == PL_CURVE_BLS12_381 && seen[PL_CURVE_BN254] == 0
                 ? pl__error_set(err, PL_EFORMAT, "%s: %s: missing (a costs "
                                 "file gives synth, prove and finish)", path,
                                 missing)
                 : pl__error_set(err, PL_EFORMAT, "%s: curve %s: %s: missing "
                                 "(each curve a costs file gives has synth, "
                                 "prove and finish)", path,
                                 pl_curve_name((pl_curve)c), missing);
    }
    if (st == PL_OK) {
        out->bn254 = seen[PL_CURVE_BN254] == all;
        out->no_bls12_381 = seen[PL_CURVE_BLS12_381] == 0;
    }
    if (st == PL_OK && !out->cores)
        out->cores = 1;
    return st;
}

pl_status pl_plan_costs_write(const char *path, const pl_plan_costs *c,
                              pl_error *err)
{
    pl__output out;
    pl_status st = pl__output_open(&out, path, err);
    if (st != PL_OK)
        return st;
    fprintf(out.f, "# proofline costs (docs/plan.md): seconds of one "
            "partition's stage = fixed + per_row x domain rows\n");
    fprintf(out.f, "profile %s\n", c->profile[0] ? c->profile : "unnamed");
    if (c->source[0])
        fprintf(out.f, "source %s\n", c->source);
    fprintf(out.f, "estimated %s\ndevice %s\ncores %u\n",
            c->estimated ? "yes" : "no", c->gpu ? "gpu" : "cpu", c->cores);
    /* BLS12-381's first and without a curve line: the file reads as it
     * always did where BN254's are not given */
    if (!c->no_bls12_381)
        for (int s = 0; s < PL_PLAN_STAGE_COUNT; s++)
            fprintf(out.f, "%-6s %.6g %.6g\n", stage_keys[s], c->fixed[s],
                    c->per_row[s]);
    if (c->bn254) {
        fprintf(out.f, "curve %s\n", pl_curve_name(PL_CURVE_BN254));
        for (int s = 0; s < PL_PLAN_STAGE_COUNT; s++)
            fprintf(out.f, "%-6s %.6g %.6g\n", stage_keys[s],
                    c->bn254_fixed[s], c->bn254_per_row[s]);
    }
    return pl__output_commit(&out, err);
}
