/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Choosing a backend by name: "cpu", "cuda", "auto" (CUDA when this build
 * has it and a device answers, else the CPU, saying why), or
 * "cuda-emulated" (the CUDA backend on the host emulation).  The one place
 * outside each backend's own file that names them.
 */
#include "backend/backend.h"

#include <stdio.h>
#include <string.h>

const pl__backend_ops *pl__backend_find(const char *name, char *note,
                                        size_t note_len)
{
    char why[200] = "";
    if (note_len)
        note[0] = '\0';
    if (!name || strcmp(name, "cpu") == 0)
        return &pl__backend_cpu;
    if (strcmp(name, "cuda") == 0) {
        if (pl__backend_cuda_usable(why, sizeof(why)))
            return pl__backend_cuda;
        snprintf(note, note_len, "backend cuda: %s", why);
        return NULL;
    }
    if (strcmp(name, "auto") == 0) {
        if (pl__backend_cuda_usable(why, sizeof(why)))
            return pl__backend_cuda;
        snprintf(note, note_len, "backend auto: %s; using the CPU", why);
        return &pl__backend_cpu;
    }
    if (strcmp(name, "cuda-emulated") == 0)
        return &pl__backend_cuda_emulated;
    snprintf(note, note_len, "unknown backend '%s' (cpu, cuda or auto)", name);
    return NULL;
}
