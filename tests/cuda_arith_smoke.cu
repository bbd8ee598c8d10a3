/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Compile-only check of the CUDA backend's device arithmetic: one kernel
 * per header and curve that calls every function, so nvcc generates (and
 * checks) device code for all of it.  tests/CMakeLists.txt runs `nvcc -c` on this
 * file as the ctests cuda_arith.nvcc_smoke_portable and _ptx when nvcc is
 * found, for sm_90 plus compute_90 PTX, once with each form of the field
 * multiplication (the library build compiles only the form PL_CUDA_PTX
 * selects); nothing here runs on a GPU.  The host-side correctness tests of
 * the same code are tests/test_cuda_arith.c.
 */
#include "backend/cuda/arith/fr.h"
#include "backend/cuda/arith/g1.h"

__global__ void pl_smoke_fr(pl__cu_fr *out, const pl__cu_fr *a,
                            const pl__cu_fr *b)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    pl__cu_fr x = a[i], y = b[i], t;
    pl__cu_fr_add(&t, &x, &y);
    pl__cu_fr_sub(&t, &t, &y);
    pl__cu_fr_mul(&t, &t, &x);
    pl__cu_fr_to_canonical(&t, &t);
    out[i] = t;
}

/* The bucket-accumulation shape: a running XYZZ sum of affine points. */
__global__ void pl_smoke_g1(pl__cu_g1_jacobian *jac,
                            const pl__cu_g1_affine *pts, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    pl__cu_g1_xyzz acc, other;
    pl__cu_g1_xyzz_set_inf(&acc);
    for (unsigned j = i; j < n; j += blockDim.x * gridDim.x) {
        pl__cu_g1_affine p = pts[j];
        if (j & 1)
            pl__cu_g1_affine_neg(&p, &p);
        pl__cu_g1_xyzz_add_affine(&acc, &acc, &p);
    }
    pl__cu_g1_xyzz_from_affine(&other, &pts[i]);
    pl__cu_g1_xyzz_dbl(&other, &other);
    pl__cu_g1_xyzz_add(&acc, &acc, &other);
    if (!pl__cu_g1_xyzz_is_inf(&acc))
        pl__cu_g1_xyzz_to_jacobian(&jac[i], &acc);
}

/* The same for BN254's instances (arith/bn254.h, g1.h's pl__cu_bn254_*). */
__global__ void pl_smoke_bn254_fr(pl__cu_bn254_fr *out,
                                  const pl__cu_bn254_fr *a,
                                  const pl__cu_bn254_fr *b)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    pl__cu_bn254_fr x = a[i], y = b[i], t;
    pl__cu_bn254_fr_add(&t, &x, &y);
    pl__cu_bn254_fr_sub(&t, &t, &y);
    pl__cu_bn254_fr_mul(&t, &t, &x);
    pl__cu_bn254_fr_to_canonical(&t, &t);
    out[i] = t;
}

__global__ void pl_smoke_bn254_g1(pl__cu_bn254_g1_jacobian *jac,
                                  const pl__cu_bn254_g1_affine *pts,
                                  unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    pl__cu_bn254_g1_xyzz acc, other;
    pl__cu_bn254_g1_xyzz_set_inf(&acc);
    for (unsigned j = i; j < n; j += blockDim.x * gridDim.x) {
        pl__cu_bn254_g1_affine p = pts[j];
        if (j & 1)
            pl__cu_bn254_g1_affine_neg(&p, &p);
        pl__cu_bn254_g1_xyzz_add_affine(&acc, &acc, &p);
    }
    pl__cu_bn254_g1_xyzz_from_affine(&other, &pts[i]);
    pl__cu_bn254_g1_xyzz_dbl(&other, &other);
    pl__cu_bn254_g1_xyzz_add(&acc, &acc, &other);
    if (!pl__cu_bn254_g1_xyzz_is_inf(&acc))
        pl__cu_bn254_g1_xyzz_to_jacobian(&jac[i], &acc);
}
