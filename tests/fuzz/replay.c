/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A plain main for the fuzz targets, so that `make test` runs their seed
 * corpus and their regression inputs (tests/fuzz/regressions/<target>/)
 * through the same LLVMFuzzerTestOneInput with the normal compiler, no
 * libFuzzer: `fuzz_<target>_replay FILE|DIR...`.  Folders are read one
 * level deep in name order, dot files skipped; a missing path is skipped
 * (a target's regression folder may hold nothing yet).  Each input is
 * copied into a buffer of exactly its size, so a sanitizer build catches a
 * read one byte past the end.  A failing input aborts (the targets'
 * checks), after its name has been printed.
 */
#define _POSIX_C_SOURCE 200809L
#include "fuzz.h"

#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>

static size_t replayed;

static void replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s: %s\n", path, strerror(errno));
        exit(2);
    }
    size_t cap = 4096, len = 0;
    uint8_t *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap) {
            uint8_t *grown = realloc(buf, cap *= 2);
            if (!grown)
                free(buf);
            buf = grown;
        }
    }
    fclose(f);
    uint8_t *exact = malloc(len ? len : 1);
    if (!buf || !exact) {
        fprintf(stderr, "replay: out of memory for %s\n", path);
        exit(2);
    }
    memcpy(exact, buf, len);
    free(buf);
    fprintf(stderr, "replay: %s (%zu bytes)\n", path, len);
    LLVMFuzzerTestOneInput(exact, len);
    free(exact);
    replayed++;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void replay_dir(const char *path)
{
    DIR *d = opendir(path);
    if (!d) {
        fprintf(stderr, "replay: cannot read %s: %s\n", path, strerror(errno));
        exit(2);
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **grown = realloc(names, cap * sizeof(*names));
            if (!grown)
                exit(2);
            names = grown;
        }
        size_t len = strlen(path) + strlen(e->d_name) + 2;
        if (!(names[n] = malloc(len)))
            exit(2);
        snprintf(names[n++], len, "%s/%s", path, e->d_name);
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof(*names), by_name);
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode))
            replay_file(names[i]);
        free(names[i]);
    }
    free(names);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0)
            fprintf(stderr, "replay: %s: absent, skipped\n", argv[i]);
        else if (S_ISDIR(st.st_mode))
            replay_dir(argv[i]);
        else
            replay_file(argv[i]);
    }
    printf("replayed %zu inputs, all handled\n", replayed);
    return 0;
}
