/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The process's device object (cuda_backend.c): one pl__gpu for device 0,
 * shared by everything in the process that runs on it (the zkey backend's
 * circuits, the C2 prover's device state), so that they share one context,
 * one set of streams and staging buffers, and one lock (pl__gpu_lock),
 * which each user takes around its work.
 */
#ifndef PL_BACKEND_CUDA_PROCESS_DEVICE_H
#define PL_BACKEND_CUDA_PROCESS_DEVICE_H

#include "backend/cuda/gpu.h"

/* Opens the object at its first user, over impl; refuses a second
 * implementation while one is open, and an implementation whose device
 * faulted earlier in this process (PL_EUNSUPPORTED, naming the fault).
 * Every successful acquire is paired with one release; the last closes the
 * object (and resets a faulted device). */
pl_status pl__cuda_device_acquire(const pl__gpu_impl *impl, pl__gpu **out,
                                  pl_error *err);
void pl__cuda_device_release(void);

#endif /* PL_BACKEND_CUDA_PROCESS_DEVICE_H */
