/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Choosing a backend by name: "cpu", "cuda", or "auto" (CUDA when this
 * build has it and a device answers, else the CPU, saying why).
 */
#include "backend/backend.h"
#include "backend/cuda/gpu.h"

#include <stdio.h>
#include <string.h>

/* A CUDA backend that can run here, or NULL with the reason in note. */
static const pl__backend_ops *usable_cuda(char *note, size_t note_len)
{
#ifdef PL_HAVE_CUDA
    char why[160] = "";
    if (pl__gpu_impl_cuda.device_count(why, sizeof(why)) > 0)
        return pl__backend_cuda;
    snprintf(note, note_len, "no CUDA device found (%s)",
             why[0] ? why : "none present");
#else
    snprintf(note, note_len,
             "this build has no CUDA backend (nvcc was not found when it "
             "was built)");
#endif
    return NULL;
}

const pl__backend_ops *pl__backend_find(const char *name, char *note,
                                        size_t note_len)
{
    char why[200] = "";
    if (note_len)
        note[0] = '\0';
    if (!name || strcmp(name, "cpu") == 0)
        return &pl__backend_cpu;
    if (strcmp(name, "cuda") == 0) {
        const pl__backend_ops *cuda = usable_cuda(why, sizeof(why));
        if (!cuda)
            snprintf(note, note_len, "backend cuda: %s", why);
        return cuda;
    }
    if (strcmp(name, "auto") == 0) {
        const pl__backend_ops *cuda = usable_cuda(why, sizeof(why));
        if (cuda)
            return cuda;
        snprintf(note, note_len, "backend auto: %s; using the CPU", why);
        return &pl__backend_cpu;
    }
    snprintf(note, note_len, "unknown backend '%s' (cpu, cuda or auto)", name);
    return NULL;
}
