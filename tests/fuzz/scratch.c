/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pl_fuzz_file (fuzz.h): the fuzz input as a file, for the readers that
 * take a path (bellperson proofs and public inputs, pl_inspect, the plan's
 * costs file).  One folder per process, made at the first call and removed
 * at exit; the file inside is rewritten for each input, so what a reader
 * opens holds exactly the input's bytes.  On tmpfs (/dev/shm) when there is
 * one: a write and an open cost microseconds there.  pl_fuzz_dir is that
 * folder, for a target's other files (the service's data folder), which
 * must be gone by the time the process exits.  Linked into every target,
 * libFuzzer's and replay.c's alike.
 */
#define _POSIX_C_SOURCE 200809L
#include "fuzz.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[512], file[600];

static void remove_dir(void)
{
    unlink(file);
    rmdir(dir);
}

static const char *base_dir(void)
{
    const char *env = getenv("PL_FUZZ_TMP");
    struct stat st;
    if (env && *env)
        return env;
    if (stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) &&
        access("/dev/shm", W_OK) == 0)
        return "/dev/shm";
    env = getenv("TMPDIR");
    return env && *env ? env : "/tmp";
}

const char *pl_fuzz_dir(void)
{
    if (!dir[0]) {
        const char *base = base_dir();
        mkdir(base, 0700); /* PL_FUZZ_TMP may not exist yet */
        snprintf(dir, sizeof(dir), "%s/pl-fuzz-XXXXXX", base);
        PL_FUZZ_ASSERT(mkdtemp(dir) != NULL, "mkdtemp %s: %s", dir,
                       strerror(errno));
        snprintf(file, sizeof(file), "%s/" PL_FUZZ_NAME, dir);
        atexit(remove_dir);
    }
    return dir;
}

const char *pl_fuzz_file(const uint8_t *data, size_t size)
{
    pl_fuzz_dir();
    int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    PL_FUZZ_ASSERT(fd >= 0, "%s: %s", file, strerror(errno));
    for (size_t done = 0; done < size;) {
        ssize_t n = write(fd, data + done, size - done);
        PL_FUZZ_ASSERT(n > 0, "%s: %s", file, strerror(errno));
        done += (size_t)n;
    }
    close(fd);
    return file;
}
