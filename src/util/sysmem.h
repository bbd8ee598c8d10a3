/* SPDX-License-Identifier: Apache-2.0 */
/*
 * How much memory this process can use: physical memory, and the limit of
 * the cgroup it runs in (a container's memory limit), whichever is
 * smaller.  The engine's default budget is a share of it and the CLI warns
 * when a budget exceeds it (pl_memory_limit in proofline.h).  Read once
 * per call from /proc and /sys; nothing is cached.
 */
#ifndef PL_UTIL_SYSMEM_H
#define PL_UTIL_SYSMEM_H

#include <stdint.h>

/* The smallest memory limit on the cgroup this process is in and on its
 * ancestors: cgroup v2's memory.max, or cgroup v1's
 * memory.limit_in_bytes; UINT64_MAX when there is none ("max", no
 * controller, nothing readable).  root is prefixed to /proc/self/cgroup
 * and /sys/fs/cgroup: "" on a real system, a folder of fake files in
 * tests. */
uint64_t pl__cgroup_memory_limit(const char *root);

/* Physical memory in bytes (sysconf), 0 if unknown. */
uint64_t pl__physical_memory(void);

#endif /* PL_UTIL_SYSMEM_H */
