/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Helpers shared by the subcommands of the `proofline` command (cli.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s %s: ", CLI_PROG, cmd);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nTry '%s %s --help'.\n", CLI_PROG, cmd);
    va_end(ap);
    return 2;
}

int cli_fail(const char *cmd, pl_status st, const pl_error *err)
{
    fprintf(stderr, "%s %s: %s: %s\n", CLI_PROG, cmd, pl_strerror(st),
            err->msg[0] ? err->msg : "(no detail)");
    return pl_status_exit_code(st);
}

int cli_exit(const char *cmd, pl_status st, pl_error *err)
{
    return cli_exit_whole(cmd, st, err, NULL);
}

int cli_exit_whole(const char *cmd, pl_status st, pl_error *err,
                   const char *whole)
{
    int sig = cli_signal_caught();
    if (st == PL_OK && !sig)
        return 0;
    if (st == PL_ENOMEM && !err->msg[0])
        pl__error_set(err, st, "out of memory");
    int rc = 0;
    if (st != PL_OK && !(sig && st == PL_ECANCELLED)) {
        if (whole && whole[0]) {
            fprintf(stderr, "%s %s: %s: %s\n", CLI_PROG, cmd,
                    pl_strerror(st), whole);
            rc = pl_status_exit_code(st);
        } else {
            rc = cli_fail(cmd, st, err);
        }
    }
    if (sig) {
        fprintf(stderr, "%s %s: stopped by %s: what finished is kept\n",
                CLI_PROG, cmd, sig == SIGINT ? "SIGINT" : "SIGTERM");
        rc = 128 + sig;
    }
    return rc;
}

bool cli_parse_duration(const char *text, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || !(v >= 0) || !isfinite(v))
        return false;
    double unit = 1;
    if (*end == 's')
        end++;
    else if (*end == 'm')
        unit = 60, end++;
    else if (*end == 'h')
        unit = 3600, end++;
    else if (*end == 'd')
        unit = 86400, end++;
    /* a finite count of a unit can still be no finite count of seconds
     * ("2e305h") */
    if (*end || !isfinite(v * unit))
        return false;
    *out = v * unit;
    return true;
}

bool cli_is_help(const char *arg)
{
    return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0;
}

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double cli_per_hour(size_t proofs, double seconds)
{
    return seconds > 0 ? (double)proofs * 3600.0 / seconds : 0.0;
}

unsigned cli_threads(unsigned threads)
{
    return threads ? threads : (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
}

pl_status cli_make_dir(const char *path, bool parents, pl_error *err)
{
    char tmp[4096];
    snprintf(tmp, sizeof(tmp), "%s", path);
    for (char *p = tmp + 1; parents && *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
                break; /* tmp stays this prefix: the mkdir below says why */
            *p = '/';
        }
    if (mkdir(tmp, 0777) != 0 && errno != EEXIST) {
        return pl__error_errno(err, PL_EIO, errno, "%s: cannot create", path);
    }
    return PL_OK;
}

/* on_progress of the point check: "proofline CMD: checking STAGE: N%". */
typedef struct {
    const char *cmd;
    bool tty;
    unsigned shown; /* the last tenth printed, off a terminal */
    const char *stage;
} check_progress;

static void on_check_progress(void *user, const char *stage, uint64_t done,
                              uint64_t total)
{
    check_progress *c = user;
    char a[32], b[32];
    const unsigned pct = total ? (unsigned)(done * 100 / total) : 100;
    if (stage != c->stage) {
        c->stage = stage;
        c->shown = 0;
    }
    if (!c->tty && pct / 10 <= c->shown && done != total)
        return;
    c->shown = pct / 10;
    fprintf(stderr, "%s%s %s: checking %s: %u%% (%s of %s)%s",
            c->tty ? "\r" : "", CLI_PROG, c->cmd, stage, pct,
            pl_format_bytes(a, sizeof(a), done),
            pl_format_bytes(b, sizeof(b), total),
            c->tty && done != total ? "\033[K" : "\n");
    fflush(stderr);
}

pl_status cli_check_bp_points(const char *cmd, const pl_bp_params *params,
                              pl_error *err)
{
    pl_bp_info info;
    pl_bp_params_get_info(params, &info);
    check_progress c = {.cmd = cmd, .tty = isatty(STDERR_FILENO)};
    pl_bp_check_config cfg = {.threads = 0};
    if (info.file_bytes > CLI_PROGRESS_BYTES) {
        cfg.on_progress = on_check_progress;
        cfg.on_progress_user = &c;
    }
    return pl_bp_params_check_points_with(params, &cfg, err);
}

pl_status cli_check_zkey_points(const char *cmd, const char *path,
                                const pl_zkey *zkey, pl_error *err)
{
    struct stat sb;
    check_progress c = {.cmd = cmd, .tty = isatty(STDERR_FILENO)};
    pl_check_config cfg = {.threads = 0};
    if (stat(path, &sb) == 0 && (uint64_t)sb.st_size > CLI_PROGRESS_BYTES) {
        cfg.on_progress = on_check_progress;
        cfg.on_progress_user = &c;
    }
    return pl_zkey_check_points_with(zkey, &cfg, err);
}

char *cli_r1cs_beside(const char *zkey_path)
{
    size_t len = strlen(zkey_path);
    if (len < 5 || strcmp(zkey_path + len - 5, ".zkey") != 0)
        return NULL;
    char *p = malloc(len + 1);
    if (p) {
        memcpy(p, zkey_path, len - 5);
        strcpy(p + len - 5, ".r1cs");
    }
    return p;
}

static volatile sig_atomic_t caught;

static void on_signal(int sig)
{
    if (caught) { /* the second one: as if there were no handler */
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    caught = sig;
}

void cli_signals_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    /* system calls the signal interrupts carry on: a write in progress
     * completes (or fails) as it would have, never half-done by EINTR */
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

int cli_signal_caught(void)
{
    return caught;
}
