/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The curve of a ceremony as a table of operations, chosen once per call
 * (pl__cer_curve_by_name, _by_q, _by_r) so that every step of the
 * ceremony (ptau.c, prepare.c, zkey_new.c, zkey_mpc.c) is written once for
 * all curves.  A curve file fills the table: curve_bls12381.c over blst,
 * curve_bn254.c (snarkjs's "bn128") over src/field/bn254.
 *
 * Conventions, the same for every curve:
 *  - points travel as the files hold them: affine, each coordinate in
 *    Montgomery form little-endian ("LEM"), G2 coordinates c0 || c1, the
 *    point at infinity all zero bytes; aff_bytes each;
 *  - working points (sums, products) are opaque buffers of jac_bytes,
 *    aligned to 16 bytes at least (the caller's buffers are pl__alloc's,
 *    64-byte aligned); only the group's functions look inside;
 *  - scalars are pl__cer_fr, the curve's own representation of an element
 *    of Fr (both curves fit 32 bytes); integers from the files (r1cs
 *    coefficients) are 32-byte little-endian standard form;
 *  - "uncompressed" and "compressed" are snarkjs's encodings for hashing
 *    (ffjavascript toRprUncompressed, toRprCompressed): big-endian
 *    canonical coordinates (G2: c1 then c0); compressed is x with bit 0x80
 *    of the first byte set when y is "negative" (above (q-1)/2, G2: the
 *    sign of c1, or of c0 when c1 is zero) and 0x40 for infinity;
 *    uncompressed infinity is all zeros;
 *  - the batch functions take scratch from the caller (sized by their
 *    *_scratch_bytes query), run one task's share, and are what the steps
 *    split over a pool; nothing in them allocates.
 */
#ifndef PL_CEREMONY_CURVE_H
#define PL_CEREMONY_CURVE_H

#include "proofline.h"
#include "ceremony/rng.h"
#include "util/pool.h"

#include <stddef.h>
#include <stdint.h>

/* The largest sizes of any curve in the table (BLS12-381's). */
#define PL__CER_MAX_FQ 48u
#define PL__CER_MAX_FR 32u
#define PL__CER_MAX_AFF (4u * PL__CER_MAX_FQ)   /* a G2 point */
#define PL__CER_MAX_JAC 320u                    /* a G2 working point */

typedef struct pl__cer_fr {
    uint64_t l[4];
} pl__cer_fr;

typedef struct pl__cer_group pl__cer_group;
typedef struct pl__cer_curve pl__cer_curve;

struct pl__cer_group {
    const char *name;       /* "G1", "G2" */
    unsigned index;         /* 0, 1 */
    size_t coord_bytes;     /* one coordinate: n8q (G1), 2 n8q (G2) */
    size_t aff_bytes;       /* a point in the files: 2 coord_bytes */
    size_t jac_bytes;       /* a working point */
    void (*generator)(uint8_t *aff); /* LEM */

    /* A point read from a file: NULL when it is a point of the group (the
     * point at infinity included), else what is wrong with it ("a
     * coordinate is not below q", "is not on the curve", "is not in the
     * subgroup"). */
    const char *(*check)(const uint8_t *aff);
    void (*to_u)(uint8_t *out, const uint8_t *aff);
    void (*to_c)(uint8_t *out, const uint8_t *aff);
    /* ffjavascript's fromRng: x from the rng (Montgomery digits), a flag
     * bit, y by sqrt and the flag, times the cofactor; affine out. */
    void (*from_rng)(uint8_t *aff, pl__chacha *rng);

    void (*from_aff)(void *jac, const uint8_t *aff);
    /* a working point from its Jacobian coordinates X, Y, Z (x = X/Z^2,
     * y = Y/Z^3), each a Montgomery representation below q, LE */
    void (*from_jac_le)(void *jac, const uint8_t *xyz);
    void (*to_aff)(uint8_t *aff, const void *jac);
    void (*set_inf)(void *jac);
    bool (*is_inf)(const void *jac);
    bool (*eq)(const void *a, const void *b);
    void (*add)(void *r, const void *a, const void *b);
    void (*dbl)(void *r, const void *a);
    void (*add_aff)(void *r, const void *a, const uint8_t *aff);
    void (*neg)(void *r, const void *a);
    void (*mul)(void *r, const void *a, const pl__cer_fr *s);
    /* a times the little-endian integer le of `bytes` bytes (any size) */
    void (*mul_int)(void *r, const void *a, const uint8_t *le, size_t bytes);

    /* n working points to affine LEM (one inversion), infinity as zeros;
     * scratch: n coordinates (to_aff_scratch_bytes). */
    void (*to_aff_batch)(uint8_t *aff, const void *jac, size_t n,
                         void *scratch);
    size_t (*to_aff_scratch_bytes)(size_t n);
    /* out[i] = in[i] * s[i * s_stride] (s_stride 0: one scalar for all),
     * affine in and out (out may be in); scratch: mul_scratch_bytes(n).
     * secret: the scalars derive from a contribution's secret, so each
     * product takes the curve's constant-time multiplication; otherwise
     * (public scalars: twiddles, a beacon's) the faster variable-time
     * one. */
    void (*mul_batch)(uint8_t *out, const uint8_t *in, const pl__cer_fr *s,
                      size_t s_stride, size_t n, bool secret, void *scratch);
    size_t (*mul_scratch_bytes)(size_t n);
    /* One stage of a radix-2 transform over affine points in place
     * (prepare.c): the butterflies b in [b0, b1) of the stage of half size
     * m, b = blk m + k over the pairs j = 2 blk m + k, j + m, each
     * (x_j, x_{j+m}) -> (x_j + t x_{j+m}, x_j - t x_{j+m}) with
     * t = tw[k * tw_stride] (k = 0 costs no multiplication).  With a
     * scale c (not NULL), block 0 alone is scaled: there t is
     * tw[k * tw_stride] c, and at m = 1 x_j is taken as c x_j too.  Given
     * at every stage, that leaves block 0 holding c times its transform
     * after each stage (its u half was block 0 of the stage before), so
     * the whole transform comes out times c for log2(n) + 1 more
     * multiplications rather than n / 2 + 1 on the last stage;
     * scratch: stage_scratch_bytes(b1 - b0). */
    void (*fft_stage)(uint8_t *pts, size_t m, size_t b0, size_t b1,
                      const pl__cer_fr *tw, size_t tw_stride,
                      const pl__cer_fr *scale, void *scratch);
    size_t (*stage_scratch_bytes)(size_t butterflies);
    /* Two stages at once, m and 2m (m >= 2): the groups q in [q0, q1) of
     * four points j = 4 blk m + k + {0, m, 2m, 3m}, q = blk m + k, the
     * result of fft_stage at m then at 2m (tw_stride and scale as there,
     * the stride stage m's) with the second stage's products taken as
     * two-term sums of the first's inputs, whose doublings are shared:
     * three lanes of doublings a group where the two stages make four
     * products (group_impl.h); scratch: stage2_scratch_bytes(q1 - q0). */
    void (*fft_stage2)(uint8_t *pts, size_t m, size_t q0, size_t q1,
                       const pl__cer_fr *tw, size_t tw_stride,
                       const pl__cer_fr *scale, void *scratch);
    size_t (*stage2_scratch_bytes)(size_t groups);
    /* The sum of s_i P_i over n affine points and 32-byte little-endian
     * scalars (< 2^256; reduced mod r), on the pool; its scratch is
     * accounted (class msm_scratch), msm_scratch_bytes(n, threads) of it. */
    pl_status (*msm)(void *out, const uint8_t *pts, const uint8_t *scalars,
                     size_t n, pl__pool *pool, pl_error *err);
    uint64_t (*msm_scratch_bytes)(size_t n, unsigned threads);
};

struct pl__cer_curve {
    const char *name;        /* snarkjs's: "bls12381", "bn128" */
    unsigned n8q, n8r;       /* bytes of a base field and scalar element */
    unsigned r_bits;         /* bit length of r (Fr.fromRng's mask) */
    unsigned fr_s;           /* 2-adicity of r - 1: the largest FFT */
    const uint8_t *q_le, *r_le;
    pl__cer_group g[2];

    /* Fr: the curve's representation, Montgomery form for both curves */
    void (*fr_from_le)(pl__cer_fr *out, const uint8_t *le);  /* < r */
    void (*fr_to_le)(uint8_t *le, const pl__cer_fr *a);
    void (*fr_from_u64)(pl__cer_fr *out, uint64_t v);
    /* the element whose Montgomery representation is the n8r-byte
     * little-endian integer v < r (ffjavascript's Fr.fromRng returns its
     * random digits as a Montgomery representation) */
    void (*fr_from_mont)(pl__cer_fr *out, const uint8_t *v);
    void (*fr_add)(pl__cer_fr *r, const pl__cer_fr *a, const pl__cer_fr *b);
    void (*fr_sub)(pl__cer_fr *r, const pl__cer_fr *a, const pl__cer_fr *b);
    void (*fr_mul)(pl__cer_fr *r, const pl__cer_fr *a, const pl__cer_fr *b);
    void (*fr_inv)(pl__cer_fr *r, const pl__cer_fr *a);
    bool (*fr_is_zero)(const pl__cer_fr *a);
    /* snarkjs's primitive 2^k-th root of unity (ffjavascript Fr.w[k]) */
    void (*fr_root)(pl__cer_fr *out, unsigned k);
    /* the forward FFT of 2^log2n elements in natural order, on the pool
     * (ffjavascript Fr.fft); PL_ENOMEM (its tables are accounted) */
    pl_status (*fr_fft)(pl__cer_fr *data, unsigned log2n, pl__pool *pool,
                        pl_error *err);
    uint64_t (*fr_fft_bytes)(unsigned log2n);

    /* snarkjs's sameRatio: false when a point is infinity, else whether
     * e(a1, b2) = e(b1, a2); affine LEM points, checked already. */
    bool (*same_ratio)(const uint8_t *a1, const uint8_t *b1,
                       const uint8_t *a2, const uint8_t *b2);
};

/* The curves compiled in, by any name snarkjs takes for them ("bn128",
 * "bn254", "alt_bn128", "bls12381", "BLS12-381"); NULL when unknown. */
const pl__cer_curve *pl__cer_curve_by_name(const char *name);
/* By the base field's prime as a file holds it (n8 bytes little-endian),
 * or the scalar field's. */
const pl__cer_curve *pl__cer_curve_by_q(const uint8_t *q, size_t n8);
const pl__cer_curve *pl__cer_curve_by_r(const uint8_t *r, size_t n8);
/* "bls12381, bn128": for messages listing what is supported. */
const char *pl__cer_curve_names(void);

extern const pl__cer_curve pl__cer_bls12381;
extern const pl__cer_curve pl__cer_bn128;

/* What the curve files share: all-zero bytes (the files' point at
 * infinity), Fr's limbs from n8r = 32 little-endian bytes of a Montgomery
 * representation (fr_from_mont of both curves) or all zero (fr_is_zero),
 * and the NTT plan's bytes (fr_fft_bytes of both). */
bool pl__cer_all_zero(const uint8_t *p, size_t n);
void pl__cer_fr_limbs_from_le(pl__cer_fr *out, const uint8_t *v);
bool pl__cer_fr_limbs_zero(const pl__cer_fr *a);
uint64_t pl__cer_fr_fft_bytes(unsigned log2n);
/* snarkjs's uncompressed or compressed bytes of an affine point (the
 * conventions above) from its field's two operations on one coordinate of
 * coord_bytes: big-endian canonical bytes, and ffjavascript's sign */
void pl__cer_encode(uint8_t *out, const uint8_t *aff, size_t coord_bytes,
                    bool compressed,
                    void (*coord_be)(uint8_t *out, const uint8_t *coord),
                    bool (*coord_negative)(const uint8_t *coord));

/* The table's entries a curve file fills with functions of these names:
 * G1's g1_check, ..., to_aff_batch_g1 (group_impl.h's), ...; its Fr's
 * fr_from_le, ..., same_ratio. */
#define PL__CER_GROUP_OPS(G)                                                  \
    .generator = G##_generator, .check = G##_check, .to_u = G##_to_u,        \
    .to_c = G##_to_c, .from_rng = G##_from_rng, .from_aff = G##_from_aff,    \
    .from_jac_le = G##_from_jac_le, .to_aff = G##_to_aff,                    \
    .set_inf = G##_set_inf, .is_inf = G##_is_inf, .eq = G##_eq,              \
    .add = G##_add, .dbl = G##_dbl, .add_aff = G##_add_aff, .neg = G##_neg,  \
    .mul = G##_mul, .mul_int = G##_mul_int,                                  \
    .to_aff_batch = to_aff_batch_##G,                                        \
    .to_aff_scratch_bytes = to_aff_scratch_bytes_##G,                        \
    .mul_batch = mul_batch_##G, .mul_scratch_bytes = mul_scratch_bytes_##G,  \
    .fft_stage = fft_stage_##G,                                              \
    .stage_scratch_bytes = stage_scratch_bytes_##G,                          \
    .fft_stage2 = fft_stage2_##G,                                            \
    .stage2_scratch_bytes = stage2_scratch_bytes_##G, .msm = G##_msm,        \
    .msm_scratch_bytes = G##_msm_scratch_bytes
#define PL__CER_FR_OPS                                                        \
    .fr_from_le = fr_from_le, .fr_to_le = fr_to_le,                          \
    .fr_from_u64 = fr_from_u64, .fr_from_mont = pl__cer_fr_limbs_from_le,    \
    .fr_add = fr_add, .fr_sub = fr_sub, .fr_mul = fr_mul, .fr_inv = fr_inv,  \
    .fr_is_zero = pl__cer_fr_limbs_zero, .fr_root = fr_root,                 \
    .fr_fft = fr_fft, .fr_fft_bytes = pl__cer_fr_fft_bytes,                  \
    .same_ratio = same_ratio

/* Fr helpers over the table */
void pl__cer_fr_pow(const pl__cer_curve *c, pl__cer_fr *out,
                    const pl__cer_fr *base, uint64_t e);
/* ffjavascript's Fr.fromRng: n64 random 64-bit digits, masked to r's bit
 * length, drawn again until below r, taken as a Montgomery form. */
void pl__cer_fr_from_rng(const pl__cer_curve *c, pl__cer_fr *out,
                         pl__chacha *rng);

#endif /* PL_CEREMONY_CURVE_H */
