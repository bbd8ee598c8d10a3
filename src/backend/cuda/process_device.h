/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The process's device objects (cuda_backend.c): one pl__gpu per GPU
 * (ordinal 0 to PL_GPU_MAX_DEVICES - 1), each shared by everything in the
 * process that runs on that device (every circuit's backend instance
 * there), so that they share one context, one set of streams and staging
 * buffers, and one lock (pl__gpu_lock), which each user takes around its
 * work.
 */
#ifndef PL_BACKEND_CUDA_PROCESS_DEVICE_H
#define PL_BACKEND_CUDA_PROCESS_DEVICE_H

#include "backend/cuda/gpu.h"

/* Opens device `ordinal`'s object at its first user, over impl; refuses a
 * second implementation while one is open on it, and a device that
 * faulted earlier in this process (PL_EUNSUPPORTED, naming the fault).
 * Every successful acquire is paired with one release of the same
 * ordinal; the last closes the object (and resets a faulted device). */
pl_status pl__cuda_device_acquire(const pl__gpu_impl *impl, int ordinal,
                                  pl__gpu **out, pl_error *err);
void pl__cuda_device_release(int ordinal);

#endif /* PL_BACKEND_CUDA_PROCESS_DEVICE_H */
