/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ceremony's hot loops over one group, written once: a curve file
 * (curve_bls12381.c) includes this file once per group with the types and
 * operations below defined, as msm/msm_affine.c includes
 * msm_affine_impl.h.  No header guard on purpose; nothing else includes it,
 * and it undefines the includer's definitions below at its end.
 *
 * Defined by the includer:
 *   PL__G(name)        a name suffixed for the group (name##_g1)
 *   PL__AFF, PL__JAC   the affine and the working (Jacobian) point types;
 *                      PL__AFF has the file's byte layout (x || y, LEM)
 *   PL__F              a coordinate's field element, with .x .y .z of
 *                      PL__JAC of that type
 *   PL__F_MUL, PL__F_SQR, PL__F_INV   field operations (r, a[, b])
 *   PL__F_IS_ZERO(a)   bool
 *   PL__JAC_ADD(r, a, b), PL__JAC_ADD_AFF(r, a, aff), PL__JAC_FROM_AFF,
 *   PL__JAC_CNEG(r, flag), PL__JAC_IS_INF(a)
 *   PL__JAC_MUL(r, a, le32)  a times a canonical 32-byte scalar, in
 *                      constant time (a contribution's secrets)
 *   PL__FR, PL__FR_MUL(r, a, b), PL__FR_TO_LE(le32, fr)   the scalar field
 *   PL__F_ADD, PL__F_SUB (r, a, b), PL__F_MUL3(r, a), PL__F_CNEG(r, a, flag)
 *   PL__JAC_DBL(r, a), PL__JAC_ADD_AFF(r, a, aff), PL__JAC_IS_INF(a)
 * and, for the multiplications (mulv), an endomorphism E of the group
 * acting as a known scalar lambda_E, with
 *   PL__GLV_DIM        the sub-scalars of a scalar (2 on G1, 4 on G2)
 *   PL__GLV_BITS       the bits of a sub-scalar at most (128, 64)
 *   PL__GLV_SPLIT(k, neg, le32)  k[d] (unsigned __int128, >= 0) and
 *                      the bits of *neg (uint8_t) with s = sum (-1)^(bit
 *                      d of *neg) k[d] lambda_E^d mod r (BLS12-381's splits
 *                      are non-negative; BN254's short-basis halves carry
 *                      signs)
 *   PL__GLV_ENDO(r, a) E on an affine point (infinity to infinity)
 * A curve without one sets PL__GLV_DIM 1, PL__GLV_BITS 256 and a split
 * that puts the scalar in k[0] (a 256-bit sub-scalar needs two __int128:
 * that curve would widen the digit recoding first).
 *
 * What it defines (static, suffixed): to_aff_batch, to_aff_scratch_bytes,
 * mul_batch, mul_scratch_bytes, fft_stage, stage_scratch_bytes, fft_stage2,
 * stage2_scratch_bytes, with the contracts of curve.h's table entries of
 * the same names.
 *
 * The multiplications of mulv (and mulvt, whose lanes may each be a sum
 * of two products sharing their doublings: fft_stage2's) are
 * variable-time: they take the public scalars (the FFT's twiddles, a
 * beacon's powers, whose timing tells nothing that is not in the
 * output), while a contribution's secrets and
 * their powers go through PL__JAC_MUL, blst's constant-time ladder
 * (mul_batch's `secret`).  Per point: the sub-scalars in width-4 NAF and
 * a table of P, 3P, 5P, 7P (made affine for the whole batch with one
 * inversion) and its images under E.  Then all points go in step, one bit
 * at a time, their accumulators AFFINE: a doubling pass and one addition
 * pass per sub-scalar, each pass's divisions sharing one inversion
 * (Montgomery's trick), so a doubling costs 5M + 2S and an addition
 * 5M + 1S against 2M + 5S and 7M + 4S in working coordinates.  Measured
 * on this project's 2-core EPYC (loaded): G1 1.5x, G2 1.7x faster per
 * product than blst_p1_mult / blst_p2_mult (bench/ceremony_bench.sh); tests/test_ceremony.c
 * (batch_products_agree) checks them against double and add.  A
 * lane that meets +-its own accumulator (or a point of order 2, which a
 * bad file might hold) is done alone in working coordinates.
 */

#define PL__GFN(name) PL__G(name)
#define PL__WNAF 4u
#define PL__TABLE (1u << (PL__WNAF - 2))      /* P, 3P, 5P, 7P */
#define PL__NAF_LEN (PL__GLV_BITS + 2u)

static size_t PL__GFN(to_aff_scratch_bytes)(size_t n)
{
    return n * sizeof(PL__F);
}

/* Montgomery's trick over the non-zero Z's: scratch holds the product of
 * those before each, one inversion, then back down. */
static void PL__GFN(to_aff_batch)(uint8_t *aff_out, const void *jac_in,
                                  size_t n, void *scratch)
{
    const PL__JAC *in = jac_in;
    PL__AFF *out = (PL__AFF *)aff_out;
    PL__F *before = scratch;
    PL__F run = *PL__F_ONE, inv, zi, zi2, t;
    for (size_t i = 0; i < n; i++) {
        if (PL__F_IS_ZERO(&in[i].z))
            continue;
        before[i] = run;
        PL__F_MUL(&run, &run, &in[i].z);
    }
    PL__F_INV(&inv, &run); /* run is 1 when every point is infinity */
    for (size_t i = n; i-- > 0;) {
        if (PL__F_IS_ZERO(&in[i].z)) {
            memset(&out[i], 0, sizeof(out[i]));
            continue;
        }
        PL__F_MUL(&zi, &inv, &before[i]);   /* 1 / Z_i */
        PL__F_MUL(&inv, &inv, &in[i].z);
        PL__F_SQR(&zi2, &zi);
        PL__F_MUL(&t, &in[i].x, &zi2);
        PL__F_MUL(&zi2, &zi2, &zi);
        PL__F_MUL(&out[i].y, &in[i].y, &zi2);
        out[i].x = t;
    }
}

/* ---- variable-time multiplications of a batch ----------------------------- */

/* A lane: the sum of T products (T = 1, or 2 for a stage pair's Straus
 * sums), T PL__GLV_DIM sub-scalars d = term PL__GLV_DIM + e, their digits
 * and tables in the batch's arrays. */
typedef struct {
    PL__AFF (*t)[PL__TABLE];             /* [d]: E^e of the odd multiples */
    int8_t (*naf)[PL__NAF_LEN];          /* [d] */
    uint16_t len;                        /* digits of the longest; 0: zero */
    uint8_t neg;                         /* bit d: sub-scalar d negative */
    bool started;                        /* acc is not infinity */
} PL__GFN(lane);

/* Width-PL__WNAF NAF of k: odd digits below 2^(w-1) in absolute value,
 * least significant first; returns the count. */
static unsigned PL__GFN(wnaf)(int8_t *naf, unsigned __int128 k)
{
    unsigned len = 0;
    while (k) {
        int d = 0;
        if (k & 1) {
            d = (int)(k & ((1u << PL__WNAF) - 1));
            if (d >= (1 << (PL__WNAF - 1)))
                d -= 1 << PL__WNAF;
            if (d > 0)
                k -= (unsigned)d;
            else
                k += (unsigned)-d;
        }
        naf[len++] = (int8_t)d;
        k >>= 1;
    }
    return len;
}

static bool PL__GFN(aff_is_inf)(const PL__AFF *a)
{
    return PL__F_IS_ZERO(&a->x) && PL__F_IS_ZERO(&a->y);
}

static bool PL__GFN(f_eq)(const PL__F *a, const PL__F *b)
{
    return memcmp(a, b, sizeof(*a)) == 0;  /* blst keeps values reduced */
}

/* The arrays of one batched pass: lane indices, their denominators, the
 * running products; and the addends of an addition pass. */
typedef struct {
    uint32_t *idx;
    PL__F *den, *pre;
    PL__AFF *add;
} PL__GFN(pass);

/* inv[k] = 1 / den[k] for k < m (all non-zero): Montgomery's trick, the
 * results over den. */
static void PL__GFN(invert_all)(PL__F *den, PL__F *pre, size_t m)
{
    if (m == 0)
        return;
    pre[0] = den[0];
    for (size_t k = 1; k < m; k++)
        PL__F_MUL(&pre[k], &pre[k - 1], &den[k]);
    PL__F inv, t;
    PL__F_INV(&inv, &pre[m - 1]);
    for (size_t k = m - 1; k > 0; k--) {
        PL__F_MUL(&t, &inv, &pre[k - 1]);
        PL__F_MUL(&inv, &inv, &den[k]);
        den[k] = t;
    }
    den[0] = inv;
}

/* acc = 2 acc for the started lanes: lambda = 3 x^2 / 2y. */
static void PL__GFN(double_pass)(PL__AFF *acc, PL__GFN(lane) *lanes, size_t n,
                                 PL__GFN(pass) *ps)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (!lanes[i].started)
            continue;
        if (PL__F_IS_ZERO(&acc[i].y)) {   /* a point of order 2: none in */
            lanes[i].started = false;     /* a prime-order group, but a  */
            memset(&acc[i], 0, sizeof(acc[i]));  /* file may hold any */
            continue;
        }
        ps->idx[m] = (uint32_t)i;
        PL__F_ADD(&ps->den[m], &acc[i].y, &acc[i].y);
        m++;
    }
    PL__GFN(invert_all)(ps->den, ps->pre, m);
    for (size_t k = 0; k < m; k++) {
        PL__AFF *a = &acc[ps->idx[k]];
        PL__F l, x3;
        PL__F_SQR(&l, &a->x);
        PL__F_MUL3(&l, &l);
        PL__F_MUL(&l, &l, &ps->den[k]);
        PL__F_SQR(&x3, &l);
        PL__F_SUB(&x3, &x3, &a->x);
        PL__F_SUB(&x3, &x3, &a->x);
        PL__F y3;
        PL__F_SUB(&y3, &a->x, &x3);     /* y3 = l (x - x3) - y */
        PL__F_MUL(&y3, &y3, &l);
        PL__F_SUB(&a->y, &y3, &a->y);
        a->x = x3;
    }
}

/* acc += q for lanes whose digit of sub-scalar d at bit b is not zero:
 * lambda = (y_q - y) / (x_q - x); a lane meeting +-acc itself, or still
 * at infinity, is done alone. */
static void PL__GFN(add_pass)(PL__AFF *acc, PL__GFN(lane) *lanes, size_t n,
                              unsigned d, unsigned b, PL__GFN(pass) *ps)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        PL__GFN(lane) *l = &lanes[i];
        if (b >= l->len)
            continue;
        int dig = l->naf[d][b];
        if (dig == 0)
            continue;
        if ((l->neg >> d) & 1u)
            dig = -dig;
        PL__AFF q = l->t[d][(dig < 0 ? -dig : dig) >> 1];
        if (dig < 0)
            PL__F_CNEG(&q.y, &q.y, true);
        if (!l->started) {
            acc[i] = q;
            l->started = true;
            continue;
        }
        if (PL__GFN(f_eq)(&acc[i].x, &q.x)) {
            /* acc = +-q: a doubling or infinity, in working coordinates */
            PL__JAC j;
            PL__JAC_FROM_AFF(&j, &acc[i]);
            PL__JAC_ADD_AFF(&j, &j, &q);
            if (PL__JAC_IS_INF(&j)) {
                l->started = false;
                memset(&acc[i], 0, sizeof(acc[i]));
            } else {
                PL__F zi, zi2;
                PL__F_INV(&zi, &j.z);
                PL__F_SQR(&zi2, &zi);
                PL__F_MUL(&acc[i].x, &j.x, &zi2);
                PL__F_MUL(&zi2, &zi2, &zi);
                PL__F_MUL(&acc[i].y, &j.y, &zi2);
            }
            continue;
        }
        ps->idx[m] = (uint32_t)i;
        ps->add[m] = q;
        PL__F_SUB(&ps->den[m], &q.x, &acc[i].x);
        m++;
    }
    PL__GFN(invert_all)(ps->den, ps->pre, m);
    for (size_t k = 0; k < m; k++) {
        PL__AFF *a = &acc[ps->idx[k]];
        const PL__AFF *q = &ps->add[k];
        PL__F l, x3, y3;
        PL__F_SUB(&l, &q->y, &a->y);
        PL__F_MUL(&l, &l, &ps->den[k]);
        PL__F_SQR(&x3, &l);
        PL__F_SUB(&x3, &x3, &a->x);
        PL__F_SUB(&x3, &x3, &q->x);
        PL__F_SUB(&y3, &a->x, &x3);
        PL__F_MUL(&y3, &y3, &l);
        PL__F_SUB(&a->y, &y3, &a->y);
        a->x = x3;
    }
}

/* mulvt's scratch for n lanes of T terms */
static size_t PL__GFN(mulvt_scratch_bytes)(size_t n, unsigned terms)
{
    const size_t nt = n * terms;
    return n * sizeof(PL__GFN(lane)) +
           nt * PL__GLV_DIM * (sizeof(PL__AFF[PL__TABLE]) + PL__NAF_LEN) +
           nt * PL__TABLE * (sizeof(PL__JAC) + sizeof(PL__AFF)) +
           PL__GFN(to_aff_scratch_bytes)(nt * PL__TABLE) +
           n * (4 + 2 * sizeof(PL__F) + sizeof(PL__AFF)) + 16;
}

static size_t PL__GFN(mulv_scratch_bytes)(size_t n)
{
    return PL__GFN(mulvt_scratch_bytes)(n, 1);
}

/* out[i] = sum over u < T of in[i T + u] times the canonical 32-byte scalar
 * le + 32 (i T + u), affine (infinity as zeros): all lanes in step, one
 * bit at a time, each pass's divisions sharing one inversion; a lane's T
 * terms share its doublings (Straus).  in is bytes at any alignment (a
 * mapped file's section starts anywhere). */
static void PL__GFN(mulvt)(PL__AFF *out, const uint8_t *in, const uint8_t *le,
                           size_t n, unsigned terms, void *scratch)
{
    const size_t nt = n * terms;
    PL__GFN(lane) *lanes = scratch;
    PL__AFF (*tabs)[PL__TABLE] = (PL__AFF (*)[PL__TABLE])(lanes + n);
    int8_t (*nafs)[PL__NAF_LEN] =
        (int8_t (*)[PL__NAF_LEN])(tabs + nt * PL__GLV_DIM);
    /* the working points after the digits, realigned */
    uintptr_t at = (uintptr_t)(nafs + nt * PL__GLV_DIM);
    at = (at + 15) & ~(uintptr_t)15;
    PL__JAC *tj = (PL__JAC *)at;
    PL__AFF *ta = (PL__AFF *)(tj + nt * PL__TABLE);
    void *rest = ta + nt * PL__TABLE;
    PL__GFN(pass) ps;
    ps.den = (PL__F *)((uint8_t *)rest +
                       PL__GFN(to_aff_scratch_bytes)(nt * PL__TABLE));
    ps.pre = ps.den + n;
    ps.add = (PL__AFF *)(ps.pre + n);
    ps.idx = (uint32_t *)(ps.add + n);
    static const uint8_t zero32[32];
    unsigned top = 0;
    for (size_t i = 0; i < n; i++) {
        PL__GFN(lane) *l = &lanes[i];
        l->t = tabs + i * terms * PL__GLV_DIM;
        l->naf = nafs + i * terms * PL__GLV_DIM;
        l->len = 0;
        l->neg = 0;
        l->started = false;
        for (unsigned u = 0; u < terms; u++) {
            const size_t it = i * terms + u;
            PL__JAC *t = &tj[it * PL__TABLE];
            const uint8_t *s = le + 32 * it;
            PL__AFF p;
            memcpy(&p, in + it * sizeof(PL__AFF), sizeof(p));
            for (unsigned e = 0; e < PL__GLV_DIM; e++)
                memset(l->naf[u * PL__GLV_DIM + e], 0, PL__NAF_LEN);
            if (PL__GFN(aff_is_inf)(&p) || memcmp(s, zero32, 32) == 0) {
                for (unsigned j = 0; j < PL__TABLE; j++)
                    memset(&t[j], 0, sizeof(t[j]));
                continue;
            }
            unsigned __int128 k[PL__GLV_DIM];
            uint8_t neg = 0;
            PL__GLV_SPLIT(k, &neg, s);
            l->neg |= (uint8_t)(neg << (u * PL__GLV_DIM));
            for (unsigned e = 0; e < PL__GLV_DIM; e++) {
                unsigned len = PL__GFN(wnaf)(l->naf[u * PL__GLV_DIM + e], k[e]);
                if (len > l->len)
                    l->len = (uint16_t)len;
            }
            PL__JAC two;
            PL__JAC_FROM_AFF(&t[0], &p);
            PL__JAC_DBL(&two, &t[0]);
            for (unsigned j = 1; j < PL__TABLE; j++)
                PL__JAC_ADD(&t[j], &t[j - 1], &two);
        }
        if (l->len > top)
            top = l->len;
    }
    PL__GFN(to_aff_batch)((uint8_t *)ta, tj, nt * PL__TABLE, rest);
    for (size_t i = 0; i < n; i++) {
        PL__GFN(lane) *l = &lanes[i];
        memset(&out[i], 0, sizeof(out[i]));
        if (l->len == 0)
            continue;
        for (unsigned u = 0; u < terms; u++) {
            PL__AFF (*t)[PL__TABLE] = l->t + u * PL__GLV_DIM;
            memcpy(t[0], &ta[(i * terms + u) * PL__TABLE], sizeof(t[0]));
            for (unsigned e = 1; e < PL__GLV_DIM; e++)
                for (unsigned j = 0; j < PL__TABLE; j++)
                    PL__GLV_ENDO(&t[e][j], &t[e - 1][j]);
        }
    }
    for (unsigned b = top; b-- > 0;) {
        PL__GFN(double_pass)(out, lanes, n, &ps);
        for (unsigned d = 0; d < terms * PL__GLV_DIM; d++)
            PL__GFN(add_pass)(out, lanes, n, d, b, &ps);
    }
}

/* out[i] = in[i] times the 32-byte scalar le + 32 i (mulvt of one term) */
static void PL__GFN(mulv)(PL__AFF *out, const uint8_t *in, const uint8_t *le,
                          size_t n, void *scratch)
{
    PL__GFN(mulvt)(out, in, le, n, 1, scratch);
}

static size_t PL__GFN(mul_scratch_bytes)(size_t n)
{
    size_t fast = PL__GFN(mulv_scratch_bytes)(n);
    size_t ct = n * sizeof(PL__JAC) + PL__GFN(to_aff_scratch_bytes)(n);
    return n * 32 + (fast > ct ? fast : ct);
}

static void PL__GFN(mul_batch)(uint8_t *out, const uint8_t *in,
                               const pl__cer_fr *s, size_t s_stride,
                               size_t n, bool secret, void *scratch)
{
    uint8_t *le = scratch;
    void *rest = le + 32 * n;
    if (secret) {
        /* constant time, point by point (mulv's scratch is larger) */
        PL__JAC *acc = rest;
        void *tas = acc + n;
        for (size_t i = 0; i < n; i++) {
            PL__AFF p;
            memcpy(&p, in + i * sizeof(PL__AFF), sizeof(p));
            PL__JAC_FROM_AFF(&acc[i], &p);
            PL__FR_TO_LE(le, (const PL__FR *)&s[i * s_stride]);
            PL__JAC_MUL(&acc[i], &acc[i], le);
        }
        memset(le, 0, 32);
        PL__GFN(to_aff_batch)(out, acc, n, tas);
        return;
    }
    for (size_t i = 0; i < n; i++)
        PL__FR_TO_LE(le + 32 * i, (const PL__FR *)&s[i * s_stride]);
    /* out may be in: mulv has read every input into its tables before it
     * writes an output */
    PL__GFN(mulv)((PL__AFF *)out, in, le, n, rest);
}

/* Each pair (u, v) = (uv[2q], uv[2q + 1]), q < count, made (u + v, u - v)
 * in place, each pair's two lambdas sharing one division; tmp: count
 * times (2 coordinates + 4 bytes), rest: to_aff_batch's scratch for one
 * point. */
static void PL__GFN(pm_pairs)(PL__AFF *uv, size_t count, void *tmp,
                              void *rest)
{
    /* (u + v, u - v): lambda = (+-y_v - y_u) / (x_v - x_u), one division;
     * infinity or x_u = x_v (u = +-v) in working coordinates */
    PL__GFN(pass) ps;
    ps.den = (PL__F *)tmp;
    ps.pre = ps.den + count;
    uint32_t *idx = (uint32_t *)(ps.pre + count);
    size_t nm = 0;
    for (size_t q = 0; q < count; q++) {
        PL__AFF *u = &uv[2 * q], *v = u + 1;
        if (PL__GFN(aff_is_inf)(u) || PL__GFN(aff_is_inf)(v) ||
            PL__GFN(f_eq)(&u->x, &v->x)) {
            PL__JAC a, c;
            PL__AFF w = *v;
            PL__JAC_FROM_AFF(&a, u);
            c = a;
            PL__JAC_ADD_AFF(&a, &a, v);
            PL__F_CNEG(&w.y, &w.y, true);
            if (PL__GFN(aff_is_inf)(v))
                w = *v;
            PL__JAC_ADD_AFF(&c, &c, &w);
            PL__GFN(to_aff_batch)((uint8_t *)u, &a, 1, rest);
            PL__GFN(to_aff_batch)((uint8_t *)v, &c, 1, rest);
            continue;
        }
        idx[nm] = (uint32_t)q;
        PL__F_SUB(&ps.den[nm], &v->x, &u->x);
        nm++;
    }
    PL__GFN(invert_all)(ps.den, ps.pre, nm);
    for (size_t e = 0; e < nm; e++) {
        PL__AFF *u = &uv[2 * idx[e]], *v = u + 1;
        PL__F l, x3, y3, l2, x4, y4, yv_neg;
        /* u + v */
        PL__F_SUB(&l, &v->y, &u->y);
        PL__F_MUL(&l, &l, &ps.den[e]);
        PL__F_SQR(&x3, &l);
        PL__F_SUB(&x3, &x3, &u->x);
        PL__F_SUB(&x3, &x3, &v->x);
        PL__F_SUB(&y3, &u->x, &x3);
        PL__F_MUL(&y3, &y3, &l);
        PL__F_SUB(&y3, &y3, &u->y);
        /* u - v: the same x difference, -y_v */
        PL__F_CNEG(&yv_neg, &v->y, true);
        PL__F_SUB(&l2, &yv_neg, &u->y);
        PL__F_MUL(&l2, &l2, &ps.den[e]);
        PL__F_SQR(&x4, &l2);
        PL__F_SUB(&x4, &x4, &u->x);
        PL__F_SUB(&x4, &x4, &v->x);
        PL__F_SUB(&y4, &u->x, &x4);
        PL__F_MUL(&y4, &y4, &l2);
        PL__F_SUB(&y4, &y4, &u->y);
        u->x = x3;
        u->y = y3;
        v->x = x4;
        v->y = y4;
    }
}

/* A stage's task gathers its multiplications (t x_{j+m} where t is not 1;
 * with a scale c, block 0's c t x_{j+m}, and at m = 1 also c x_j) into one
 * mulv, then makes each butterfly's two outputs u + v, u - v from one
 * shared division. */
static size_t PL__GFN(stage_scratch_bytes)(size_t butterflies)
{
    const size_t lanes = 2 * butterflies;
    return lanes * (2 * sizeof(PL__AFF) + 32) +
           2 * butterflies * sizeof(PL__AFF) +
           PL__GFN(mulv_scratch_bytes)(lanes);
}

static void PL__GFN(fft_stage)(uint8_t *pts_bytes, size_t m, size_t b0,
                               size_t b1, const pl__cer_fr *tw,
                               size_t tw_stride, const pl__cer_fr *scale,
                               void *scratch)
{
    PL__AFF *pts = (PL__AFF *)pts_bytes;
    const size_t count = b1 - b0, lanes = 2 * count;
    PL__AFF *gin = scratch;                    /* [lanes] */
    PL__AFF *gout = gin + lanes;               /* [lanes] */
    uint8_t *gle = (uint8_t *)(gout + lanes);  /* [lanes] x 32 */
    PL__AFF *uv = (PL__AFF *)(gle + 32 * lanes); /* [2 count] */
    void *rest = uv + 2 * count;
    size_t nl = 0;
    PL__FR t;
    for (size_t b = b0; b < b1; b++) {
        const size_t blk = b / m, k = b % m, j = 2 * blk * m + k;
        const bool sc = scale && blk == 0;
        if (sc || k != 0) {
            t = *(const PL__FR *)&tw[k * tw_stride];
            if (sc)
                PL__FR_MUL(&t, &t, (const PL__FR *)scale);
            gin[nl] = pts[j + m];
            PL__FR_TO_LE(gle + 32 * nl, &t);
            nl++;
        }
        if (sc && m == 1) {
            gin[nl] = pts[j];
            PL__FR_TO_LE(gle + 32 * nl, (const PL__FR *)scale);
            nl++;
        }
    }
    PL__GFN(mulv)(gout, (const uint8_t *)gin, gle, nl, rest);
    /* u and v of each butterfly, affine */
    size_t at = 0;
    for (size_t b = b0; b < b1; b++) {
        const size_t blk = b / m, k = b % m, j = 2 * blk * m + k;
        const bool sc = scale && blk == 0;
        PL__AFF *u = &uv[2 * (b - b0)], *v = u + 1;
        *v = (sc || k != 0) ? gout[at++] : pts[j + m];
        *u = (sc && m == 1) ? gout[at++] : pts[j];
    }
    PL__GFN(pm_pairs)(uv, count, gin, rest);
    for (size_t b = b0; b < b1; b++) {
        const size_t blk = b / m, k = b % m, j = 2 * blk * m + k;
        pts[j] = uv[2 * (b - b0)];
        pts[j + m] = uv[2 * (b - b0) + 1];
    }
}

/* Two stages at once, m and 2m (prepare.c, G1): for the groups q in
 * [q0, q1), q = blk m + k, the four points j = 4 blk m + k + {0, m, 2m, 3m}
 * = (a, b, c, d) with t1 = the stage-m twiddle of k, t2, t3 = the stage-2m
 * twiddles of k and k + m:
 *     P = t1 b,  Q = t2 c + t2 t1 d,  R = t3 c - t3 t1 d,
 *     (A, B) = (a + P, a - P),  out = (A + Q, B + R, A - Q, B - R),
 * which is the two radix-2 stages with the second's products taken from
 * the first's inputs: Q and R are two-term sums sharing their doublings
 * (Straus), so the group costs three lanes' doublings rather than four
 * products' (with G1's 128-bit sub-scalars, the doublings are most of a
 * product).  scale as in fft_stage for both stages (block 0 of each, m
 * >= 2 here); tw_stride is stage m's. */
static size_t PL__GFN(stage2_scratch_bytes)(size_t groups)
{
    const size_t lanes = 3 * groups;
    return lanes * (3 * sizeof(PL__AFF) + 64) + 4 * groups * sizeof(PL__AFF) +
           PL__GFN(mulvt_scratch_bytes)(lanes, 2);
}

static void PL__GFN(fft_stage2)(uint8_t *pts_bytes, size_t m, size_t q0,
                                size_t q1, const pl__cer_fr *tw,
                                size_t tw_stride, const pl__cer_fr *scale,
                                void *scratch)
{
    PL__AFF *pts = (PL__AFF *)pts_bytes;
    const size_t count = q1 - q0, lanes = 3 * count;
    PL__AFF *gin = scratch;                        /* [2 lanes] */
    PL__AFF *gout = gin + 2 * lanes;               /* [lanes] */
    uint8_t *gle = (uint8_t *)(gout + lanes);      /* [2 lanes] x 32 */
    PL__AFF *quad = (PL__AFF *)(gle + 64 * lanes); /* [4 count] */
    void *rest = quad + 4 * count;
    const size_t s2 = tw_stride / 2;
    size_t nl = 0;
    for (size_t q = q0; q < q1; q++) {
        const size_t blk = q / m, k = q % m, j = 4 * blk * m + k;
        const bool sc = scale && blk == 0;
        PL__FR t1 = *(const PL__FR *)&tw[k * tw_stride];
        PL__FR t2 = *(const PL__FR *)&tw[k * s2];
        PL__FR t3 = *(const PL__FR *)&tw[(k + m) * s2];
        PL__FR p1 = t1, t21, t31;
        if (sc) {
            PL__FR_MUL(&p1, &p1, (const PL__FR *)scale);
            PL__FR_MUL(&t2, &t2, (const PL__FR *)scale);
            PL__FR_MUL(&t3, &t3, (const PL__FR *)scale);
        }
        PL__FR_MUL(&t21, &t2, &t1);
        PL__FR_MUL(&t31, &t3, &t1);
        PL__AFF dn = pts[j + 3 * m];
        if (!PL__GFN(aff_is_inf)(&dn))
            PL__F_CNEG(&dn.y, &dn.y, true);
        if (sc || k != 0) {          /* P: one term (the second is zero) */
            gin[2 * nl] = pts[j + m];
            PL__FR_TO_LE(gle + 64 * nl, &p1);
            memset(&gin[2 * nl + 1], 0, sizeof(PL__AFF));
            memset(gle + 64 * nl + 32, 0, 32);
            nl++;
        }
        gin[2 * nl] = pts[j + 2 * m];
        PL__FR_TO_LE(gle + 64 * nl, &t2);
        gin[2 * nl + 1] = pts[j + 3 * m];
        PL__FR_TO_LE(gle + 64 * nl + 32, &t21);
        nl++;
        gin[2 * nl] = pts[j + 2 * m];
        PL__FR_TO_LE(gle + 64 * nl, &t3);
        gin[2 * nl + 1] = dn;
        PL__FR_TO_LE(gle + 64 * nl + 32, &t31);
        nl++;
    }
    PL__GFN(mulvt)(gout, (const uint8_t *)gin, gle, nl, 2, rest);
    /* (A, B) = a +- P */
    size_t at = 0;
    for (size_t q = q0; q < q1; q++) {
        const size_t blk = q / m, k = q % m, j = 4 * blk * m + k;
        const bool sc = scale && blk == 0;
        PL__AFF *e = &quad[4 * (q - q0)];
        e[0] = pts[j];
        e[1] = (sc || k != 0) ? gout[at++] : pts[j + m];
        at += 2;
    }
    /* the pairs packed two points apart: (a, P) of group i at 4i, 4i + 1 */
    for (size_t i = 0; i < count; i++) {
        quad[2 * i] = quad[4 * i];
        quad[2 * i + 1] = quad[4 * i + 1];
    }
    PL__GFN(pm_pairs)(quad, count, gin, rest);
    /* spread back, from the top down: (A, Q, B, R) of group i at 4i.. */
    at = 0;
    size_t *qat = (size_t *)gle;   /* each group's Q lane */
    for (size_t q = q0; q < q1; q++) {
        const size_t blk = q / m, k = q % m;
        const bool sc = scale && blk == 0;
        if (sc || k != 0)
            at++;
        qat[q - q0] = at;
        at += 2;
    }
    for (size_t i = count; i-- > 0;) {
        const PL__AFF A = quad[2 * i], B = quad[2 * i + 1];
        quad[4 * i] = A;
        quad[4 * i + 1] = gout[qat[i]];
        quad[4 * i + 2] = B;
        quad[4 * i + 3] = gout[qat[i] + 1];
    }
    PL__GFN(pm_pairs)(quad, 2 * count, gin, rest);
    for (size_t q = q0; q < q1; q++) {
        const size_t blk = q / m, k = q % m, j = 4 * blk * m + k;
        const PL__AFF *e = &quad[4 * (q - q0)];
        pts[j] = e[0];            /* A + Q */
        pts[j + 2 * m] = e[1];    /* A - Q */
        pts[j + m] = e[2];        /* B + R */
        pts[j + 3 * m] = e[3];    /* B - R */
    }
}

#undef PL__WNAF
#undef PL__TABLE
#undef PL__NAF_LEN
#undef PL__GFN
/* the includer's definitions: each inclusion defines its own */
#undef PL__G
#undef PL__AFF
#undef PL__JAC
#undef PL__F
#undef PL__F_ONE
#undef PL__F_MUL
#undef PL__F_SQR
#undef PL__F_INV
#undef PL__F_IS_ZERO
#undef PL__F_CNEG
#undef PL__F_ADD
#undef PL__F_SUB
#undef PL__F_MUL3
#undef PL__JAC_IS_INF
#undef PL__JAC_ADD
#undef PL__JAC_ADD_AFF
#undef PL__JAC_DBL
#undef PL__JAC_FROM_AFF
#undef PL__JAC_CNEG
#undef PL__JAC_MUL
#undef PL__FR
#undef PL__FR_MUL
#undef PL__FR_TO_LE
#undef PL__GLV_DIM
#undef PL__GLV_BITS
#undef PL__GLV_SPLIT
#undef PL__GLV_ENDO
