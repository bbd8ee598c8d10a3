/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One group's half of the batch-affine Pippenger sum, written once for
 * every group: a curve's file (msm_bls12_381.c, msm_bn254.c) includes this
 * file once per group (BN254: per group and field implementation) with
 * these defined:
 *   PL__SFX(name)   a name suffix for this instantiation
 *   PL__F, PL__AFF, PL__JAC   the field, the affine point (the zkey's
 *                   bytes) and the Jacobian point
 *   PL__F_ONE, _ADD, _SUB, _MUL, _SQR, _MUL3, _CNEG, _INV   field
 *                   operations (function-like: (out, in...))
 *   PL__JAC_ADD_AFF, _ADD, _FROM_AFF, _DBL   point operations
 *   PL__BETA_T, PL__BETA_INIT(&beta), PL__F_ENDO(&x, &beta)   GLV: the
 *                   type of the cube root of unity beta, its value, and
 *                   x of phi(P) = (beta x, y) (see msm.h)
 *   PL__S_LOAD(s, bytes), PL__S_FOLD(s), PL__S_GLV_SPLIT(out, s, neg)
 *                   the curve's scalars: load (reduced mod r; returns the
 *                   class PL__SCALAR_*), fold to min(s, r - s) (true when
 *                   negated), and split a folded scalar into two signed
 *                   GLV halves below 2^127
 *   PL__G_NAME, PL__G_SMALL_BELOW, PL__G_INV_COST, PL__G_DEFAULT_GLV,
 *   PL__G_SMALL, PL__G_SMALL_BYTES   the descriptor (msm_core.h) this file
 *                   defines for the group, and its constants
 * It has no header guard on purpose, and nothing else includes it.
 *
 * A tile sums the signed window digits of a range of points into
 * 2^(c-1) buckets kept in AFFINE coordinates.  An affine addition needs a
 * division; the divisions of up to `batch` independent additions
 * (distinct buckets) share one field inversion (Montgomery's trick), so an
 * addition costs 5M + 1S plus 1/batch of an inversion, against blst's
 * 8M + 2S for its xyzz mixed addition.  A point whose bucket already waits
 * in the open batch is parked in a small queue and retried after the batch
 * runs; a point that collides again (or finds the queue full) is added in
 * Jacobian coordinates into a spill slot of its bucket, and the spill slots
 * are folded back into the buckets (one batched normalisation) when they
 * run out and at the end of the tile.  So inputs that pile onto a few
 * buckets (all points equal, scalars all 1) cost a Jacobian addition per
 * point instead of an inversion per point.
 *
 * The tile ends with the bucket sum  sum_k k * B_k, also in batched affine
 * additions (running sums over segments of the buckets, side by side), and
 * returns it as a Jacobian point.  The folding pass (fold_range, run by
 * msm_affine.c over ranges of points) folds the scalars first
 * (0 <= s <= (r-1)/2, the sign moved onto the point, infinity points given
 * scalar 0); msm_affine.c owns the scratch layout and combines the tiles.
 * Point indices and bucket numbers are kept in 32 and 30 bits (the caller
 * sends sums of 2^31 points or more to small()).
 *
 * With GLV (msm.h) a tile runs over the two halves of each scalar, the
 * second on phi(P): from a table, or P's x times beta as it is loaded
 * (PL__F_ENDO); point references in the queue carry which of the two.
 *
 * For the witness MSM a tile reads its points through an index array
 * (prefetching ahead, as the gathered points are scattered), classify
 * counts a range's kinds of scalars, and wit_range sorts one range of
 * witness scalars: zeros dropped, 1-points summed pairwise in the batch
 * arrays (halve), the rest gathered.
 */

#define PL__FN(name) PL__SFX(name)

/* One worker's scratch, cut from the MSM's single allocation. */
typedef struct {
    /* the accumulators the batch adds into: the buckets, then the segment
     * sums of the bucket sum */
    PL__AFF *acc;
    uint8_t *flag;     /* PL__FULL | PL__BUSY per accumulator */
    PL__AFF *bucket;   /* [nbuckets] */
    uint8_t *bucket_flag;
    PL__AFF *seg;      /* [2 * PL__SEGS] running sums, then totals */
    uint8_t *seg_flag;
    uint16_t *spill_of;/* [nbuckets] 1 + spill slot, 0 = none */
    PL__AFF *src;      /* [batch] the addend of each batched addition */
    PL__F *prefix;     /* [batch] products of the earlier denominators */
    uint32_t *dst;     /* [batch] bucket | PL__DBL | PL__CANCEL */
    uint32_t *queue;   /* [2 * queue] point ref, bucket | sign */
    PL__JAC *spill;    /* [spill] */
    uint32_t *spill_b; /* [spill] bucket of each slot */
    PL__AFF *spill_a;  /* [spill] slots normalised to affine */
    PL__F *spill_z;    /* [spill] prefix products of the Z's */
    size_t count, queued, spilled;
    size_t batch;      /* additions per inversion in this tile */
    /* GLV: phi(P_i) from this table, or P_i's x times beta (in Fp for
     * both groups) */
    const uint8_t *endo;
    PL__BETA_T beta;
} PL__FN(ws);

static bool PL__FN(f_is_zero)(const PL__F *a)
{
    const uint64_t *l = (const uint64_t *)a;
    uint64_t acc = 0;
    for (size_t i = 0; i < sizeof(PL__F) / 8; i++)
        acc |= l[i];
    return acc == 0;
}

/* Carves a worker's arrays out of `base` (64-byte aligned) for 2^(c-1)
 * buckets; returns the bytes used.  With base NULL it only measures, so the
 * scratch size and the layout come from the same code. */
static uint64_t PL__FN(ws_carve)(PL__FN(ws) *ws, uint8_t *base, unsigned c)
{
    size_t nb = (size_t)1 << (c - 1);
    uint64_t off = 0;
#define PL__CUT(field, bytes)                                                 \
    do {                                                                      \
        if (base)                                                             \
            ws->field = (void *)(base + off);                                 \
        off = round64(off + (bytes));                                     \
    } while (0)
    PL__CUT(bucket, nb * sizeof(PL__AFF));
    PL__CUT(bucket_flag, nb);
    PL__CUT(seg, 2 * PL__SEGS * sizeof(PL__AFF));
    PL__CUT(seg_flag, 2 * PL__SEGS);
    PL__CUT(spill_of, nb * sizeof(uint16_t));
    PL__CUT(src, PL__BATCH * sizeof(PL__AFF));
    PL__CUT(prefix, PL__BATCH * sizeof(PL__F));
    PL__CUT(dst, PL__BATCH * sizeof(uint32_t));
    PL__CUT(queue, 2 * PL__QUEUE * sizeof(uint32_t));
    PL__CUT(spill, PL__SPILL * sizeof(PL__JAC));
    PL__CUT(spill_b, PL__SPILL * sizeof(uint32_t));
    PL__CUT(spill_a, PL__SPILL * sizeof(PL__AFF));
    PL__CUT(spill_z, PL__SPILL * sizeof(PL__F));
#undef PL__CUT
    return off;
}

/* The second half of a batched addition: *a += *p (a doubling when dbl),
 * with *inv the inverse of the product of this addition's denominator and
 * all those before it, and *prefix the product of those before it.  Leaves
 * in *inv the inverse for the addition before this one. */
static inline void PL__FN(finish_add)(PL__AFF *a, const PL__AFF *p, bool dbl,
                                      PL__F *inv, const PL__F *prefix)
{
    PL__F d, t, lambda, x3;
    if (dbl) {
        PL__F_ADD(&d, &a->y, &a->y);
        PL__F_SQR(&lambda, &a->x);
        PL__F_MUL3(&lambda, &lambda); /* 3x^2 / 2y: a = 0 on both curves */
    } else {
        PL__F_SUB(&d, &p->x, &a->x);
        PL__F_SUB(&lambda, &p->y, &a->y);
    }
    PL__F_MUL(&t, inv, prefix); /* 1 / d */
    PL__F_MUL(inv, inv, &d);
    PL__F_MUL(&lambda, &lambda, &t);
    PL__F_SQR(&x3, &lambda);
    PL__F_SUB(&x3, &x3, &a->x);
    PL__F_SUB(&x3, &x3, &p->x);
    PL__F_SUB(&t, &a->x, &x3);
    PL__F_MUL(&t, &t, &lambda);
    PL__F_SUB(&a->y, &t, &a->y);
    a->x = x3;
}

/* Runs the open batch: acc[dst_i] += src_i for every entry, all dst_i
 * distinct and both operands finite.  Equal x means a doubling (equal y)
 * or a cancellation (opposite y, the bucket empties); neither can be told
 * from the other before the values are in, so it is checked here. */
static void PL__FN(execute)(PL__FN(ws) *ws)
{
    size_t k = ws->count;
    if (k == 0)
        return;
    PL__F run, inv, d;
    PL__F_ONE(&run);
    for (size_t i = 0; i < k; i++) {
        uint32_t b = ws->dst[i];
        const PL__AFF *a = &ws->acc[b], *p = &ws->src[i];
        PL__F_SUB(&d, &p->x, &a->x);
        if (PL__FN(f_is_zero)(&d)) {
            if (memcmp(&p->y, &a->y, sizeof(PL__F)) != 0) {
                ws->dst[i] = b | PL__CANCEL;
                continue; /* contributes no denominator */
            }
            ws->dst[i] = b | PL__DBL;
            PL__F_ADD(&d, &a->y, &a->y);
        }
        ws->prefix[i] = run;
        PL__F_MUL(&run, &run, &d);
    }
    PL__F_INV(&inv, &run);
    for (size_t i = k; i-- > 0;) {
        uint32_t e = ws->dst[i], b = e & PL__BUCKET_MASK;
        PL__AFF *a = &ws->acc[b];
        const PL__AFF *p = &ws->src[i];
        ws->flag[b] &= (uint8_t)~PL__BUSY;
        if (e & PL__CANCEL) {
            ws->flag[b] = 0;
            continue;
        }
        PL__FN(finish_add)(a, p, e & PL__DBL, &inv, &ws->prefix[i]);
    }
    ws->count = 0;
}

/* Opens a batched addition into bucket b (full, not busy) of the point the
 * caller has put at src[count]. */
static inline void PL__FN(push)(PL__FN(ws) *ws, uint32_t b)
{
    size_t k = ws->count++;
    ws->dst[k] = b;
    ws->flag[b] = PL__FULL | PL__BUSY;
    /* the bucket is read again when the batch runs: have it in cache */
    const char *line = (const char *)&ws->acc[b];
    for (size_t o = 0; o < sizeof(PL__AFF); o += 64)
        __builtin_prefetch(line + o, 1);
    __builtin_prefetch(line + sizeof(PL__AFF) - 1, 1);
}

/* Adds *p (already signed) into bucket b, which must not be busy. */
static inline void PL__FN(place)(PL__FN(ws) *ws, uint32_t b, const PL__AFF *p)
{
    if (!(ws->flag[b] & PL__FULL)) {
        ws->acc[b] = *p;
        ws->flag[b] = PL__FULL;
        return;
    }
    ws->src[ws->count] = *p;
    PL__FN(push)(ws, b);
}

/* Folds the spill slots back into their buckets: one batched Z inversion,
 * then ordinary batched additions (the slots' buckets are distinct).  The
 * batch must be empty. */
static void PL__FN(drain)(PL__FN(ws) *ws)
{
    size_t ns = ws->spilled;
    if (ns == 0)
        return;
    PL__F run, inv, zi, zi2;
    PL__F_ONE(&run);
    for (size_t j = 0; j < ns; j++) {
        ws->spill_z[j] = run;
        if (!PL__FN(f_is_zero)(&ws->spill[j].z))
            PL__F_MUL(&run, &run, &ws->spill[j].z);
    }
    PL__F_INV(&inv, &run);
    for (size_t j = ns; j-- > 0;) {
        const PL__JAC *s = &ws->spill[j];
        if (PL__FN(f_is_zero)(&s->z))
            continue; /* the slot's points cancelled */
        PL__F_MUL(&zi, &inv, &ws->spill_z[j]);
        PL__F_MUL(&inv, &inv, &s->z);
        PL__F_SQR(&zi2, &zi);
        PL__F_MUL(&ws->spill_a[j].x, &s->x, &zi2);
        PL__F_MUL(&zi2, &zi2, &zi);
        PL__F_MUL(&ws->spill_a[j].y, &s->y, &zi2);
    }
    for (size_t j = 0; j < ns; j++) {
        uint32_t b = ws->spill_b[j];
        ws->spill_of[b] = 0;
        if (PL__FN(f_is_zero)(&ws->spill[j].z))
            continue;
        PL__FN(place)(ws, b, &ws->spill_a[j]);
        if (ws->count == ws->batch)
            PL__FN(execute)(ws);
    }
    PL__FN(execute)(ws);
    ws->spilled = 0;
}

/* Adds *p into bucket b whose bucket is busy, in Jacobian coordinates. */
static void PL__FN(spill_add)(PL__FN(ws) *ws, uint32_t b, const PL__AFF *p)
{
    uint16_t s = ws->spill_of[b];
    if (s != 0) {
        PL__JAC_ADD_AFF(&ws->spill[s - 1], &ws->spill[s - 1], p);
        return;
    }
    if (ws->spilled == PL__SPILL) {
        /* out of slots: run the batch (b is no longer busy), fold the
         * slots back, and add p the ordinary way */
        PL__FN(execute)(ws);
        PL__FN(drain)(ws);
        PL__FN(place)(ws, b, p);
        return;
    }
    s = (uint16_t)ws->spilled++;
    ws->spill_b[s] = b;
    PL__JAC_FROM_AFF(&ws->spill[s], p);
    ws->spill_of[b] = (uint16_t)(s + 1);
}

static inline void PL__FN(load)(PL__AFF *p, const uint8_t *bytes, bool neg)
{
    memcpy(p, bytes, sizeof(*p)); /* the zkey's bytes may be unaligned */
    PL__F_CNEG(&p->y, &p->y, neg);
}

/* Loads the point of a reference: 2 i for P_i, 2 i + 1 for phi(P_i) (GLV
 * tiles only), negated when neg. */
static inline void PL__FN(load_ref)(const PL__FN(ws) *ws, PL__AFF *p,
                                    const uint8_t *points, uint32_t ref,
                                    bool neg)
{
    size_t off = (size_t)(ref >> 1) * sizeof(PL__AFF);
    if (!(ref & 1)) {
        PL__FN(load)(p, points + off, neg);
    } else if (ws->endo) {
        PL__FN(load)(p, ws->endo + off, neg);
    } else {
        PL__FN(load)(p, points + off, neg);
        PL__F_ENDO(&p->x, &ws->beta);
    }
}

/* Retries the parked points once; a second collision goes to a spill slot. */
static void PL__FN(refeed)(PL__FN(ws) *ws, const uint8_t *points)
{
    size_t nq = ws->queued;
    ws->queued = 0;
    for (size_t j = 0; j < nq; j++) {
        uint32_t ref = ws->queue[2 * j], e = ws->queue[2 * j + 1];
        uint32_t b = e & PL__BUCKET_MASK;
        PL__AFF p;
        PL__FN(load_ref)(ws, &p, points, ref, e >> 31);
        if (ws->flag[b] & PL__BUSY)
            PL__FN(spill_add)(ws, b, &p);
        else
            PL__FN(place)(ws, b, &p);
        if (ws->count == ws->batch)
            PL__FN(execute)(ws);
    }
}

/*
 * The running sums of segments [first, first + nseg) of `len` buckets each,
 * side by side: segment j ends with run_j = sum_t B_{jL+t} and
 * tot_j = sum_t (t+1) B_{jL+t} in ws->seg (run_j at j - first, tot_j at
 * nseg + j - first).  A running sum (run += B; tot += run, from the top)
 * is one long chain of dependent additions; segments make them independent,
 * so each step is one batch of 2 * nseg additions: tot_j += run_j (its
 * value before the step: the batch copies addends in) and run_j += B; one
 * more step adds the last run_j.
 */
static void PL__FN(segment_sums)(PL__FN(ws) *ws, size_t first, size_t nseg,
                                 size_t len)
{
    PL__AFF *run = ws->seg;
    ws->acc = ws->seg;
    ws->flag = ws->seg_flag;
    memset(ws->seg_flag, 0, 2 * nseg);
    for (size_t t = len + 1; t-- > 0;) {
        for (size_t j = 0; j < nseg; j++) {
            if (ws->seg_flag[j] & PL__FULL)
                PL__FN(place)(ws, (uint32_t)(nseg + j), &run[j]);
            size_t k = (first + j) * len + t - 1;
            if (t > 0 && (ws->bucket_flag[k] & PL__FULL))
                PL__FN(place)(ws, (uint32_t)j, &ws->bucket[k]);
        }
        PL__FN(execute)(ws);
    }
}

/*
 * sum_k w_k * B_k over the 2^(c-1) buckets, about 2 batched affine
 * additions per bucket (against 2 Jacobian ones, ~4x the time, for the
 * plain chain).  The tile holds `groups` copies of G = nb / groups buckets,
 * bucket k weighing w_k = (k mod G) + 1 (one copy and w_k = k + 1 in every
 * window but the top one).  With segments of L buckets (L divides G, so a
 * group holds P = G / L of them), bucket k = jL + t weighs
 * (t + 1) + L * (j mod P), so
 *     sum_k w_k B_k = sum_j tot_j + L * sum_q q * sum_g run_{gP+q},
 * the last sum a short Jacobian running sum over q.  L is picked so that
 * there are about segs_for(c) segments; when G is shorter, L = G
 * (P = 1, no second term), and the segments go in chunks of PL__SEGS.
 */
static void PL__FN(bucket_sum)(PL__FN(ws) *ws, PL__JAC *out, unsigned c,
                               size_t groups)
{
    size_t nb = (size_t)1 << (c - 1), glen = nb / groups;
    size_t len = nb / segs_for(c, PL__SEGS);
    memset(out, 0, sizeof(*out));
    if (len >= glen) {
        for (size_t j0 = 0; j0 < groups; j0 += PL__SEGS) {
            size_t ns = groups - j0 < PL__SEGS ? groups - j0 : PL__SEGS;
            PL__FN(segment_sums)(ws, j0, ns, glen);
            for (size_t j = 0; j < ns; j++)
                if (ws->seg_flag[ns + j] & PL__FULL)
                    PL__JAC_ADD_AFF(out, out, &ws->seg[ns + j]);
        }
        return;
    }
    size_t nseg = nb / len, per = glen / len;
    PL__FN(segment_sums)(ws, 0, nseg, len);
    PL__JAC r;
    memset(&r, 0, sizeof(r));
    for (size_t q = per; q-- > 1;) {
        for (size_t j = q; j < nseg; j += per)
            if (ws->seg_flag[j] & PL__FULL)
                PL__JAC_ADD_AFF(&r, &r, &ws->seg[j]);
        PL__JAC_ADD(out, out, &r);
    }
    for (size_t l = len; l > 1; l >>= 1)
        PL__JAC_DBL(out, out);
    for (size_t j = 0; j < nseg; j++)
        if (ws->seg_flag[nseg + j] & PL__FULL)
            PL__JAC_ADD_AFF(out, out, &ws->seg[nseg + j]);
}

/*
 * The tile: points [lo, hi) of `points` (zkey bytes), their folded scalars
 * `fold` (4 limbs each, < 2^254) and sign bits `neg`; or, with idx, the
 * points idx[lo..hi) & ~PL__IDX_NEG with signs in PL__IDX_NEG, window bits
 * [bit0, bit0 + c) with the Booth carry bit bit0 - 1, into *out.
 *
 * With glv, [lo, hi) counts GLV halves instead: half 2 i is P_i's k_lo, half
 * 2 i + 1 its k_hi on phi(P_i) (see glv_split), each 2 limbs at fold + 2 h,
 * magnitude < 2^127 and its sign in bit 127; neg is unused and idx[i]
 * holds no sign.
 *
 * The top window holds only m = top - bit0 < c bits (top = 254, or 127 with
 * glv), so its digits are 0..2^m: all points would pile onto 2^m buckets
 * and collide.  It spreads them instead over groups = 2^(c-1-m) copies of
 * those buckets (point i into copy i mod groups), which the bucket sum then
 * adds up.
 */
static void PL__FN(tile)(PL__FN(ws) *ws, PL__JAC *out, const uint8_t *points,
                         const uint64_t *fold, const uint64_t *neg,
                         const uint32_t *idx, bool glv, size_t lo, size_t hi,
                         unsigned bit0, unsigned c)
{
    size_t nb = (size_t)1 << (c - 1);
    unsigned top = glv ? 127 : 254;
    unsigned m = top - bit0 < c - 1 ? top - bit0 : c - 1;
    size_t groups = (size_t)1 << (c - 1 - m), gmask = groups - 1;
    ws->acc = ws->bucket;
    ws->flag = ws->bucket_flag;
    memset(ws->flag, 0, nb);
    memset(ws->spill_of, 0, nb * sizeof(uint16_t));
    ws->count = ws->queued = ws->spilled = 0;
    ws->batch = batch_for(nb, PL__BATCH);
    for (size_t i = lo; i < hi; i++) {
        int64_t d;
        bool sign;
        if (glv) {
            const uint64_t *h = fold + 2 * i;
            uint64_t mag[2] = {h[0], h[1] & ~(1ull << 63)};
            d = booth_digit(mag, bit0, c, 2);
            sign = h[1] >> 63;
        } else {
            d = booth_digit(fold + 4 * i, bit0, c, 4);
            sign = false;
        }
        if (d == 0)
            continue;
        size_t pt = glv ? i >> 1 : i, at = pt;
        sign ^= d < 0;
        if (idx) {
            if (i + PL__AHEAD < hi) {
                /* gathered points are scattered: fetch ahead of use */
                size_t ia = glv ? (i + PL__AHEAD) >> 1 : i + PL__AHEAD;
                const char *ahead =
                    (const char *)points +
                    (size_t)(idx[ia] & ~PL__IDX_NEG) * sizeof(PL__AFF);
                __builtin_prefetch(ahead);
                __builtin_prefetch(ahead + sizeof(PL__AFF) - 1);
            }
            at = idx[pt] & ~PL__IDX_NEG;
            if (!glv)
                sign ^= (bool)(idx[pt] >> 31);
        } else if (!glv) {
            sign ^= (bool)((neg[i / 64] >> (i % 64)) & 1);
        }
        uint32_t ref = (uint32_t)(at << 1) | (uint32_t)(glv & i);
        uint32_t b = (uint32_t)((d < 0 ? -d : d) - 1 + ((i & gmask) << m));
        if (ws->flag[b] & PL__BUSY) {
            if (ws->queued < PL__QUEUE) {
                ws->queue[2 * ws->queued] = ref;
                ws->queue[2 * ws->queued + 1] = b | (uint32_t)sign << 31;
                ws->queued++;
            } else {
                PL__AFF p;
                PL__FN(load_ref)(ws, &p, points, ref, sign);
                PL__FN(spill_add)(ws, b, &p);
            }
        } else if (!(ws->flag[b] & PL__FULL)) {
            PL__FN(load_ref)(ws, &ws->acc[b], points, ref, sign);
            ws->flag[b] = PL__FULL;
        } else {
            PL__FN(load_ref)(ws, &ws->src[ws->count], points, ref, sign);
            PL__FN(push)(ws, b);
        }
        if (ws->count == ws->batch) {
            PL__FN(execute)(ws);
            PL__FN(refeed)(ws, points);
        }
    }
    PL__FN(execute)(ws);
    PL__FN(refeed)(ws, points);
    PL__FN(execute)(ws);
    PL__FN(drain)(ws);
    PL__FN(bucket_sum)(ws, out, c, groups);
}

/*
 * One level of the pairwise sum of the k >= 2 finite points in src[]:
 * src[i] += src[i + h] for i < h = k / 2, all under one inversion (pairs
 * h apart, so each sum overwrites only its own first operand); an odd last
 * point moves to src[h], and sums that cancel to infinity leave the array.
 * Returns how many points are left, about k / 2.
 */
static size_t PL__FN(halve)(PL__FN(ws) *ws, size_t k)
{
    size_t h = k / 2, cancels = 0;
    PL__F run, inv, d;
    PL__F_ONE(&run);
    for (size_t i = 0; i < h; i++) {
        const PL__AFF *a = &ws->src[i], *p = &ws->src[i + h];
        ws->dst[i] = 0;
        PL__F_SUB(&d, &p->x, &a->x);
        if (PL__FN(f_is_zero)(&d)) {
            if (memcmp(&p->y, &a->y, sizeof(PL__F)) != 0) {
                ws->dst[i] = PL__CANCEL;
                cancels++;
                continue;
            }
            ws->dst[i] = PL__DBL;
            PL__F_ADD(&d, &a->y, &a->y);
        }
        ws->prefix[i] = run;
        PL__F_MUL(&run, &run, &d);
    }
    PL__F_INV(&inv, &run);
    for (size_t i = h; i-- > 0;)
        if (!(ws->dst[i] & PL__CANCEL))
            PL__FN(finish_add)(&ws->src[i], &ws->src[i + h],
                               ws->dst[i] & PL__DBL, &inv, &ws->prefix[i]);
    if (k & 1)
        ws->src[h] = ws->src[k - 1];
    size_t left = h + (k & 1);
    if (cancels) {
        size_t j = 0;
        for (size_t i = 0; i < left; i++)
            if (i >= h || !(ws->dst[i] & PL__CANCEL))
                ws->src[j++] = ws->src[i];
        left = j;
    }
    return left;
}

/*
 * One range [lo, hi) of a witness MSM (see pl__msm_gX_witness): drops
 * zero scalars and points at infinity; sums the points whose scalar is one
 * pairwise, a level of halve() whenever src[] fills (so every addition is
 * in a batch of PL__BATCH / 2 under one inversion), into *out (Jacobian);
 * and writes each other point's index (sign in PL__IDX_NEG) and folded
 * scalar to idx[0..] and fold[0..], in order, for the Pippenger tiles
 * (with glv its two signed GLV halves instead, and no sign in idx).
 * Returns how many it wrote, which the caller counted before (classify).
 */
static size_t PL__FN(wit_range)(PL__FN(ws) *ws, PL__JAC *out,
                                const uint8_t *points, const uint8_t *scalars,
                                size_t lo, size_t hi, uint32_t *idx,
                                uint64_t *fold, bool glv)
{
    size_t k = 0, big = 0;
    for (size_t i = lo; i < hi; i++) {
        uint64_t s[4];
        unsigned kind = PL__S_LOAD(s, scalars + 32 * i);
        if (kind == PL__SCALAR_ZERO)
            continue;
        const uint8_t *bytes = points + i * sizeof(PL__AFF);
        if (point_is_inf(bytes, sizeof(PL__AFF)))
            continue;
        if (kind == PL__SCALAR_ONE) {
            PL__FN(load)(&ws->src[k++], bytes, false);
            if (k == PL__BATCH)
                k = PL__FN(halve)(ws, k);
            continue;
        }
        bool neg = PL__S_FOLD(s);
        if (glv) {
            PL__S_GLV_SPLIT(fold + 4 * big, s, neg);
            idx[big++] = (uint32_t)i;
            continue;
        }
        memcpy(fold + 4 * big, s, 32);
        idx[big++] = (uint32_t)i | (neg ? PL__IDX_NEG : 0);
    }
    /* below 32 points a level's inversion outweighs its additions */
    while (k >= 32)
        k = PL__FN(halve)(ws, k);
    memset(out, 0, sizeof(*out));
    for (size_t i = 0; i < k; i++)
        PL__JAC_ADD_AFF(out, out, &ws->src[i]);
    return big;
}

/* phi(P) of one affine point: zkey bytes in, the same layout out */
static inline void PL__FN(endo_point)(uint8_t *out, const uint8_t *in,
                                      const PL__BETA_T *beta)
{
    PL__AFF p;
    memcpy(&p, in, sizeof(p));
    PL__F_ENDO(&p.x, beta);
    memcpy(out, &p, sizeof(p));
}

/* out[i] = phi(points[i]) for i in [lo, hi), or, with idx, for
 * i = idx[lo..hi) (the witness MSM's gathered points). */
static void PL__FN(endo)(uint8_t *out, const uint8_t *points,
                         const uint32_t *idx, size_t lo, size_t hi)
{
    PL__BETA_T beta;
    PL__BETA_INIT(&beta);
    for (size_t j = lo; j < hi; j++) {
        size_t i = idx ? idx[j] : j;
        PL__FN(endo_point)(out + i * sizeof(PL__AFF),
                           points + i * sizeof(PL__AFF), &beta);
    }
}

/*
 * The fold of points [lo, hi) (a multiple of 64 apart, but for the last
 * range): each scalar loaded, reduced and folded into fold[4 i..], its sign
 * into bit i of the neg bitmap; a point at infinity gets scalar 0.  With
 * glv the scalar is split into its two signed halves instead (no bitmap),
 * and with a table phi(P_i) is written to it.
 */
static void PL__FN(fold_range)(uint64_t *fold, uint64_t *negs, uint8_t *table,
                               const uint8_t *points, const uint8_t *scalars,
                               size_t lo, size_t hi, bool glv)
{
    PL__BETA_T beta;
    if (glv)
        PL__BETA_INIT(&beta);
    uint64_t signs = 0;
    for (size_t i = lo; i < hi; i++) {
        uint64_t *s = fold + 4 * i;
        const uint8_t *pt = points + i * sizeof(PL__AFF);
        PL__S_LOAD(s, scalars + 32 * i);
        bool neg = PL__S_FOLD(s);
        if (point_is_inf(pt, sizeof(PL__AFF))) {
            memset(s, 0, 32);
            neg = false;
        } else if (glv) {
            PL__S_GLV_SPLIT(s, s, neg);
            if (table)
                PL__FN(endo_point)(table + i * sizeof(PL__AFF), pt, &beta);
        }
        if (glv)
            continue;
        signs |= (uint64_t)neg << (i % 64);
        if (i % 64 == 63 || i + 1 == hi) {
            negs[i / 64] = signs;
            signs = 0;
        }
    }
}

/* Counts the big scalars of [lo, hi) (finite points only, as wit_range
 * keeps them) and its 1-scalars; reads the points of big scalars only. */
static void PL__FN(classify)(const uint8_t *points, const uint8_t *scalars,
                             size_t lo, size_t hi, size_t *big_out,
                             size_t *ones_out)
{
    size_t big = 0, ones = 0;
    for (size_t i = lo; i < hi; i++) {
        uint64_t s[4];
        unsigned kind = PL__S_LOAD(s, scalars + 32 * i);
        if (kind == PL__SCALAR_ONE)
            ones++;
        else if (kind == PL__SCALAR_BIG &&
                 !point_is_inf(points + i * sizeof(PL__AFF), sizeof(PL__AFF)))
            big++;
    }
    *big_out = big;
    *ones_out = ones;
}

/* ---- the descriptor's entry points ------------------------------------- */

static uint64_t PL__FN(worker_bytes)(unsigned c)
{
    return PL__FN(ws_carve)(NULL, NULL, c);
}

static void PL__FN(tile_entry)(uint8_t *work, void *out, const uint8_t *points,
                               const uint8_t *endo, bool glv,
                               const uint64_t *fold, const uint64_t *neg,
                               const uint32_t *idx, size_t lo, size_t hi,
                               unsigned bit0, unsigned c)
{
    PL__FN(ws) ws = {0};
    PL__FN(ws_carve)(&ws, work, c);
    ws.endo = endo;
    PL__BETA_INIT(&ws.beta);
    PL__FN(tile)(&ws, out, points, fold, neg, idx, glv, lo, hi, bit0, c);
}

static size_t PL__FN(wit_range_entry)(uint8_t *work, void *out,
                                      const uint8_t *points,
                                      const uint8_t *scalars, size_t lo,
                                      size_t hi, uint32_t *idx, uint64_t *fold,
                                      bool glv, unsigned c)
{
    PL__FN(ws) ws = {0};
    PL__FN(ws_carve)(&ws, work, c);
    return PL__FN(wit_range)(&ws, out, points, scalars, lo, hi, idx, fold,
                             glv);
}

static void PL__FN(add_entry)(void *acc, const void *p)
{
    PL__JAC_ADD(acc, acc, p);
}

static void PL__FN(dbl_entry)(void *acc) { PL__JAC_DBL(acc, acc); }

const pl__msm_group PL__G_NAME = {
    .point_bytes = sizeof(PL__AFF),
    .small_below = PL__G_SMALL_BELOW,
    .sum_bytes = sizeof(PL__JAC),
    .sum_cost = 2.3,
    .inv_cost = PL__G_INV_COST,
    .has_glv = true,
    .default_glv = PL__G_DEFAULT_GLV,
    .worker_bytes = PL__FN(worker_bytes),
    .tile = PL__FN(tile_entry),
    .wit_range = PL__FN(wit_range_entry),
    .fold = PL__FN(fold_range),
    .classify = PL__FN(classify),
    .endo = PL__FN(endo),
    .add = PL__FN(add_entry),
    .dbl = PL__FN(dbl_entry),
    .small = PL__G_SMALL,
    .small_bytes = PL__G_SMALL_BYTES,
};

#undef PL__FN

/* The parameters are this instantiation's only: the next include sets
 * its own. */
#undef PL__SFX
#undef PL__F
#undef PL__AFF
#undef PL__JAC
#undef PL__F_ONE
#undef PL__F_ADD
#undef PL__F_SUB
#undef PL__F_MUL
#undef PL__F_SQR
#undef PL__F_MUL3
#undef PL__F_CNEG
#undef PL__F_INV
#undef PL__F_ENDO
#undef PL__JAC_ADD_AFF
#undef PL__JAC_ADD
#undef PL__JAC_FROM_AFF
#undef PL__JAC_DBL
#undef PL__BETA_T
#undef PL__BETA_INIT
#undef PL__S_LOAD
#undef PL__S_FOLD
#undef PL__S_GLV_SPLIT
#undef PL__G_NAME
#undef PL__G_SMALL_BELOW
#undef PL__G_INV_COST
#undef PL__G_DEFAULT_GLV
#undef PL__G_SMALL
#undef PL__G_SMALL_BYTES
