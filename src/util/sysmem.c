/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Physical memory and the cgroup's memory limit (sysmem.h).  A container
 * (Docker, Kubernetes, systemd slices) limits a process through its
 * cgroup: memory.max on cgroup v2, memory.limit_in_bytes on v1.  A budget
 * taken from physical memory alone would let such a process be killed by
 * the OOM killer long before the engine's budget was reached.
 *
 * /proc/self/cgroup names the cgroup: "0::/path" on v2, "N:memory:/path"
 * (the controller list may hold others) on v1.  Every folder from that
 * path up to the hierarchy's root is read, since an ancestor's limit
 * binds too; a folder that does not exist is passed over, as happens in a
 * container whose cgroup namespace shows its own cgroup at the root.
 */
#define _GNU_SOURCE
#include "util/sysmem.h"
#include "proofline.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* v1 writes "no limit" as a page-rounded 2^63 - 1: anything this large is
 * none. */
#define NO_LIMIT_ABOVE ((uint64_t)1 << 62)

/* The number in a limit file, or UINT64_MAX for "max", a missing file or
 * anything that is not a number. */
static uint64_t read_limit(const char *path)
{
    char text[64] = {0};
    FILE *f = fopen(path, "re");
    if (!f)
        return UINT64_MAX;
    bool got = fgets(text, sizeof(text), f) != NULL;
    fclose(f);
    char *end;
    unsigned long long v = got ? strtoull(text, &end, 10) : 0;
    if (!got || end == text || (*end && *end != '\n') || v >= NO_LIMIT_ABOVE)
        return UINT64_MAX;
    return (uint64_t)v;
}

/* The smallest limit in `file` over the folders from mount/cgroup up to
 * mount/. */
static uint64_t smallest_on_path(const char *mount, const char *cgroup,
                                 const char *file)
{
    char dir[4096], path[4200];
    uint64_t limit = UINT64_MAX;
    snprintf(dir, sizeof(dir), "%s", cgroup);
    for (;;) {
        size_t len = strlen(dir);
        while (len && dir[len - 1] == '/')
            dir[--len] = '\0';
        snprintf(path, sizeof(path), "%s%s/%s", mount, dir, file);
        uint64_t v = read_limit(path);
        if (v < limit)
            limit = v;
        char *slash = strrchr(dir, '/');
        if (!len || !slash)
            break;
        *slash = '\0';
    }
    return limit;
}

uint64_t pl__cgroup_memory_limit(const char *root)
{
    char path[4200], line[4096], mount[4200];
    uint64_t limit = UINT64_MAX;
    snprintf(path, sizeof(path), "%s/proc/self/cgroup", root);
    FILE *f = fopen(path, "re");
    if (!f)
        return limit;
    while (fgets(line, sizeof(line), f)) {
        line[strcspn(line, "\n")] = '\0';
        /* hierarchy-id:controllers:path */
        char *controllers = strchr(line, ':');
        char *cgroup = controllers ? strchr(controllers + 1, ':') : NULL;
        if (!cgroup)
            continue;
        *cgroup++ = '\0';
        *controllers++ = '\0';
        uint64_t v = UINT64_MAX;
        if (strcmp(line, "0") == 0 && !*controllers) {
            snprintf(mount, sizeof(mount), "%s/sys/fs/cgroup", root);
            v = smallest_on_path(mount, cgroup, "memory.max");
        } else {
            /* strtok_r: engines are created from several threads at once,
             * and strtok's one hidden position would be shared by them */
            char *next = NULL;
            for (char *c = strtok_r(controllers, ",", &next); c;
                 c = strtok_r(NULL, ",", &next))
                if (strcmp(c, "memory") == 0) {
                    snprintf(mount, sizeof(mount), "%s/sys/fs/cgroup/memory",
                             root);
                    v = smallest_on_path(mount, cgroup,
                                         "memory.limit_in_bytes");
                }
        }
        if (v < limit)
            limit = v;
    }
    fclose(f);
    return limit;
}

uint64_t pl__physical_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
}

uint64_t pl_memory_limit(void)
{
    uint64_t ram = pl__physical_memory();
    uint64_t cgroup = pl__cgroup_memory_limit("");
    if (!ram)
        return cgroup == UINT64_MAX ? 0 : cgroup;
    return cgroup < ram ? cgroup : ram;
}
