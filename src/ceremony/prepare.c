/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pl_ptau_prepare: snarkjs's `powersoftau prepare phase2`
 * (powersoftau_preparephase2.js).  Sections 1-7 are copied (the header
 * with ceremonyPower = power, as snarkjs writes it); sections 12-15 hold,
 * for each level p = 0..power (and power + 1 for tauG1), the Lagrange
 * basis of the 2^p-point domain at tau: the inverse FFT over the group of
 * the level's first 2^p points of sections 2-5,
 *     L_i = 1/n sum_j w^(-ij) [tau^j],   w = snarkjs's root (Fr.w[p]),
 * with, at tauG1's level power + 1, the missing last power taken as the
 * point at infinity (snarkjs reads 2^(p+1) - 1 points and pads a zero).
 * Points are affine and so unique: any correct transform writes
 * snarkjs's bytes.
 *
 * The transform is radix-2 decimation in time over affine points in
 * memory: the level's points are loaded in bit-reversed order, then each
 * stage's butterflies run over the pool in tasks, each task making its
 * products in working coordinates and turning its outputs affine with one
 * inversion (the group's fft_stage); 1/n rides on block 0 of every stage
 * (the group's fft_stage says why that scales the whole transform), so a
 * level of n points costs about (n/2) log2(n) multiplications by twiddles
 * plus log2(n) + 1 for 1/n (on the last stage alone it was n/2 + 1, a
 * tenth of the section's products).  Stage m's twiddles w_2m^(-k) are
 * every (N/2m)-th entry of one table of w_N^(-k) for the largest level N
 * of the section.  A level of fewer butterflies than the workers' tasks
 * hold is split evenly over the workers.
 *
 * Memory (class params): the largest level's points (2^(power+1) G1 points
 * for tauG1, 2^power for the others), the twiddle table (half as many
 * scalars) and each worker's stage scratch: about 112 bytes per G1 point
 * of the top level (a 2^24 ceremony: 3.7 GiB), whatever the file's size;
 * the input is mapped and the output streamed level by level.
 */
#include "ceremony/ceremony.h"
#include "util/alloc.h"
#include "util/error.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Butterflies per task: its multiplications run in step, one inversion
 * per pass shared by all lanes with a digit at that bit (about one in five
 * per sub-scalar).  BLS12-381's inversion is blst's (3.2 us here), BN254's
 * Fermat's (~316 multiplications): at 256 butterflies it was a fifth of
 * BN254's time at 2^10; 1024 (up to 2048 lanes, ~14 MiB of scratch a
 * worker on BLS12-381's G2) made bn128's prepare at 2^12 ~10% faster. */
#define STAGE_TASK 1024u
#define MIN_TASK 16u

static size_t bitrev(size_t x, unsigned bits)
{
    size_t r = 0;
    for (unsigned i = 0; i < bits; i++) {
        r = r << 1 | (x & 1);
        x >>= 1;
    }
    return r;
}

typedef struct {
    const pl__cer_group *g;
    uint8_t *pts;
    size_t m, tw_stride;
    const pl__cer_fr *tw, *scale;
    uint8_t *scratch;
    size_t scratch_bytes;
    bool pair;             /* stages m and 2m at once (fft_stage2) */
} stage_job;

static void stage_task(void *ctx, size_t first, size_t count, unsigned worker)
{
    const stage_job *j = ctx;
    uint8_t *scratch = j->scratch + worker * j->scratch_bytes;
    if (j->pair)
        j->g->fft_stage2(j->pts, j->m, first, first + count, j->tw,
                         j->tw_stride, j->scale, scratch);
    else
        j->g->fft_stage(j->pts, j->m, first, first + count, j->tw,
                        j->tw_stride, j->scale, scratch);
}

/* Stages are taken two at a time on G1 (from the second stage on: the
 * first's twiddles are all 1), where a product is mostly its 128
 * doublings and the pair's shared doublings save about a tenth; on G2 the
 * 4-way split leaves 64 doublings a product and the pair's extra
 * additions cost what they save. */
static bool pairs_stages(const pl__cer_group *g)
{
    return g->index == 0;
}

typedef struct {
    pl__cer_run *run;
    const pl__ptau *in;
    pl__container_writer *w;
    uint8_t *pts;          /* the largest level's points */
    pl__cer_fr *tw;        /* w_N^(-k), k < N/2 */
    uint8_t *scratch;      /* per worker */
    size_t scratch_bytes;
    size_t task;           /* butterflies per task */
} prep_ctx;

/* Level p of section src (2^p points, the last one infinity when `pad`)
 * transformed and written; N = 2^top is the section's largest level. */
static pl_status level(prep_ctx *x, unsigned src, unsigned p, unsigned top,
                       bool pad, pl_error *err)
{
    const pl__cer_curve *c = x->run->curve;
    const pl__cer_group *g = pl__ptau_section_group(c, src);
    const size_t b = g->aff_bytes;
    const size_t n = (size_t)1 << p;
    const uint8_t *from = pl__ptau_point(x->in, src, 0);
    for (size_t j = 0; j < n; j++) {
        uint8_t *to = x->pts + bitrev(j, p) * b;
        if (pad && j == n - 1)
            memset(to, 0, b);
        else
            memcpy(to, from + j * b, b);
    }
    pl__cer_fr scale;
    if (p > 0) {
        c->fr_from_u64(&scale, n);
        c->fr_inv(&scale, &scale);
    }
    /* a level smaller than the workers times the task is shared out
     * evenly, so every stage of it keeps each worker busy */
    size_t task = x->task;
    const unsigned workers = x->run->threads ? x->run->threads : 1;
    const size_t share = (n / 2 + workers - 1) / workers;
    if (share < task)
        task = share < MIN_TASK ? MIN_TASK : share;
    for (unsigned s = 0; s < p;) {
        const size_t m = (size_t)1 << s;
        const bool pair = pairs_stages(g) && s >= 1 && s + 1 < p;
        stage_job job = {g, x->pts, m, ((size_t)1 << top) / (2 * m), x->tw,
                         &scale, x->scratch, x->scratch_bytes, pair};
        if (pair)   /* a group of four points: half a task's butterflies */
            pl__cer_parallel(x->run, n / 4, task / 2, stage_task, &job);
        else
            pl__cer_parallel(x->run, n / 2, task, stage_task, &job);
        s += pair ? 2 : 1;
        char what[64];
        snprintf(what, sizeof(what), "%s 2^%u", pl__ptau_section_name(src + 10),
                 p);
        pl__cer_progress(x->run, what, s, p);
    }
    return pl__container_put(x->w, x->pts, n * b, err);
}

/* Section dst from src: every level in order. */
static pl_status section(prep_ctx *x, unsigned src, unsigned dst,
                         pl_error *err)
{
    const pl__cer_curve *c = x->run->curve;
    const unsigned power = x->in->power;
    const unsigned top = src == 2 ? power + 1 : power;
    const size_t half = (size_t)1 << (top - 1);
    /* the table: w_N^-1 and its powers */
    pl__cer_fr w;
    c->fr_root(&w, top);
    c->fr_inv(&w, &w);
    c->fr_from_u64(&x->tw[0], 1);
    for (size_t k = 1; k < half; k++)
        c->fr_mul(&x->tw[k], &x->tw[k - 1], &w);
    pl__container_section_begin(
        x->w, dst,
        pl__ptau_section_points(dst, power) *
            pl__ptau_section_group(c, dst)->aff_bytes,
        err);
    pl_status st = PL_OK;
    for (unsigned p = 0; p <= top && st == PL_OK; p++)
        st = level(x, src, p, top, src == 2 && p == power + 1, err);
    if (st)
        return st;
    return pl__container_section_end(x->w, err);
}

pl_status pl_ptau_prepare(const char *in_path, const char *out_path,
                          const pl_ceremony_config *cfg, pl_error *err)
{
    pl__cer_run run;
    pl__ptau in;
    pl__output out;
    pl__container_writer w;
    uint8_t *block = NULL;
    uint64_t block_bytes = 0;
    memset(&in, 0, sizeof(in));
    memset(&out, 0, sizeof(out));
    const char *const ins[] = {in_path};
    pl_status st = pl__cer_run_begin_io(&run, "ptau prepare", cfg, out_path,
                                        ins, 1, err);
    if (st || (st = pl__ptau_open(&in, in_path, err)))
        goto fail;
    run.curve = in.curve;
    const pl__cer_curve *c = in.curve;
    const unsigned power = in.power;
    if (power + 1 > c->fr_s) {
        st = pl__error_set(err, PL_EUNSUPPORTED, "%s: power %u: the largest "
                           "transform of %s is 2^%u", in_path, power, c->name,
                           c->fr_s);
        goto fail;
    }
    /* one allocation: the points of the largest level of any section, the
     * twiddles, each worker's scratch for a task of `task` butterflies (as
     * many as the budget leaves room for, at most STAGE_TASK and, for a
     * small file, a share of the largest level's per worker) */
    uint64_t pts_bytes = 0, tw_bytes = 0, top_half = 0;
    for (unsigned src = 2; src <= 5; src++) {
        const pl__cer_group *g = pl__ptau_section_group(c, src);
        const unsigned top = src == 2 ? power + 1 : power;
        const uint64_t n = (uint64_t)1 << top;
        if (n * g->aff_bytes > pts_bytes)
            pts_bytes = n * g->aff_bytes;
        if (n / 2 * sizeof(pl__cer_fr) > tw_bytes)
            tw_bytes = n / 2 * sizeof(pl__cer_fr);
        if (n / 2 > top_half)
            top_half = n / 2;
    }
    pts_bytes = (pts_bytes + 63) & ~(uint64_t)63;
    size_t task = STAGE_TASK, scratch = 0;
    while (task > MIN_TASK && task * run.threads > top_half)
        task /= 2;
    for (;;) {
        scratch = 0;
        for (unsigned gi = 0; gi < 2; gi++) {
            if (c->g[gi].stage_scratch_bytes(task) > scratch)
                scratch = c->g[gi].stage_scratch_bytes(task);
            if (pairs_stages(&c->g[gi]) &&
                c->g[gi].stage2_scratch_bytes(task / 2) > scratch)
                scratch = c->g[gi].stage2_scratch_bytes(task / 2);
        }
        scratch = (scratch + 63) & ~(size_t)63;
        block_bytes = pts_bytes + tw_bytes + (uint64_t)scratch * run.threads;
        if (task <= MIN_TASK || block_bytes <= pl__cer_room(&run))
            break;
        task /= 2;
    }
    char what[96];
    snprintf(what, sizeof(what), "the largest level (2^%u points) and its "
             "twiddles", power + 1);
    if ((st = pl__cer_alloc(&run, &block, PL_BUF_PARAMS, block_bytes, what,
                            err)))
        goto fail;
    prep_ctx x = {&run, &in, &w, block, (pl__cer_fr *)(block + pts_bytes),
                  block + pts_bytes + tw_bytes, scratch, task};
    if ((st = pl__output_open(&out, out_path, err)) ||
        (st = pl__container_write_begin(&w, &out, "ptau", 1, 11, err)) ||
        (st = pl__ptau_write_header(&w, c, power, power, err)))
        goto fail;
    for (unsigned id = 2; id <= 7; id++)
        if ((st = pl__cer_copy_section(&w, &in.map, &in.c, id, err)))
            goto fail;
    for (unsigned src = 2; src <= 5; src++)
        if ((st = section(&x, src, src + 10, err)))
            goto fail;
    if ((st = pl__container_write_end(&w, err)) ||
        (st = pl__output_commit(&out, err)))
        goto fail;
fail:
    pl__output_abort(&out);
    pl__cer_free(&run, block, block_bytes);
    pl__ptau_close(&in);
    pl__cer_run_end(&run);
    return st;
}
