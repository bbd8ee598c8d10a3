/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `proofline batch`: many witnesses of one circuit as one job's partitions,
 * proved by the engine under a byte budget.  Writes DIR/<name>.proof.json
 * and DIR/<name>.public.json per witness (<name> = the witness file's name
 * without .wtns) as each proof is finished; shows progress on a terminal;
 * --report writes the run's figures as JSON.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char batch_help[] =
    "Usage: proofline batch --zkey C.zkey --out DIR [options] W1.wtns "
    "[W2.wtns ...]\n"
    "\n"
    "Proves every witness of one circuit as the partitions of one job, with\n"
    "synthesis overlapping proving and every large buffer reserved from a\n"
    "byte budget before it is allocated.  For each witness NAME.wtns it writes\n"
    "DIR/NAME.proof.json and DIR/NAME.public.json.\n"
    "\n"
    "Options:\n"
    "  --zkey FILE        the circuit's Groth16 zkey (required)\n"
    "  --out DIR          where the proofs go (required; created if missing)\n"
    "  --pw N             synthesis workers (default 2)\n"
    "  --workers N        prover workers (default 1)\n"
    "  --budget SIZE      memory budget, e.g. 512MiB, 4GiB (default: 80% of RAM)\n"
    "  --threads N        threads per prover (default: one per core)\n"
    "  --backend B        auto (default: CUDA when a GPU is found, else the\n"
    "                     CPU), cpu or cuda\n"
    "  --verify           verify every proof before writing it\n"
    "  --check-witness    check every constraint first (needs --r1cs)\n"
    "  --r1cs FILE        the circuit's .r1cs\n"
    "  --report FILE      write the run's figures as JSON\n"
    "  --trace FILE       write a Chrome trace (Perfetto, chrome://tracing)\n"
    "  --plot FILE        write an SVG of memory over time, by buffer class\n"
    "  --log-level L      ledger lines on stderr: info (default) or quiet\n"
    "  --quiet            no progress line, no ledger lines, no summary\n"
    "  --print-plan       print the bytes one partition and the circuit reserve,\n"
    "                     as key=value lines, and exit\n"
    "  -h, --help         this text\n"
    "\n"
    "Exit codes: 0 all proved, 2 bad usage or input (a failed partition fails\n"
    "the job), 3 internal error.\n";

typedef struct {
    const char *out_dir;
    char **names; /* per partition */
    pthread_mutex_t lock;
    pl_status write_status;
    pl_error write_error;
} batch_output;

static void write_proof(void *user, uint64_t job, size_t partition,
                        const pl_proof *proof, const pl_scalar *publics,
                        size_t n_public)
{
    batch_output *out = user;
    char proof_path[4096], public_path[4096];
    snprintf(proof_path, sizeof(proof_path), "%s/%s.proof.json", out->out_dir,
             out->names[partition]);
    snprintf(public_path, sizeof(public_path), "%s/%s.public.json",
             out->out_dir, out->names[partition]);
    pl_error err = {0};
    pl_status st = pl_proof_write_json(proof, proof_path, publics, n_public,
                                       public_path, &err);
    if (st != PL_OK) {
        pthread_mutex_lock(&out->lock);
        if (out->write_status == PL_OK) {
            out->write_status = st;
            out->write_error = err;
        }
        pthread_mutex_unlock(&out->lock);
    }
}

/* "dir/x.wtns" -> "x" */
static char *witness_name(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t len = strlen(base);
    if (len > 5 && strcmp(base + len - 5, ".wtns") == 0)
        len -= 5;
    char *name = malloc(len + 1);
    if (name) {
        memcpy(name, base, len);
        name[len] = '\0';
    }
    return name;
}

/* Writes the report through a temporary file renamed into place. */
static pl_status write_report(const char *path, const pl_engine_stats *st,
                              const pl_job_status *js,
                              const pl_run_facts *run, pl_error *err)
{
    char tmp[4096 + 8];
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        snprintf(err->msg, sizeof(err->msg), "%.200s: cannot write: %s", tmp,
                 strerror(errno));
        return PL_EIO;
    }
    pl_engine_write_report(f, st, js, run);
    bool ok = !ferror(f);
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        snprintf(err->msg, sizeof(err->msg), "%.200s: cannot write: %s", path,
                 strerror(errno));
        unlink(tmp);
        return PL_EIO;
    }
    return PL_OK;
}

/* The slot of an option that takes a string, or NULL. */
static const char **string_option(const char *a, const char **zkey,
                                  const char **out, const char **r1cs,
                                  const char **report, const char **trace,
                                  const char **plot, const char **log_level,
                                  const char **backend)
{
    static const char *const names[] = {"--zkey",  "--out",   "--r1cs",
                                         "--report", "--trace", "--plot",
                                         "--log-level", "--backend"};
    const char **slots[] = {zkey, out, r1cs, report, trace, plot, log_level,
                            backend};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(a, names[i]) == 0)
            return slots[i];
    return NULL;
}

int cli_batch(int argc, char **argv)
{
    const char *zkey = NULL, *out_dir = NULL, *r1cs = NULL, *report = NULL;
    const char *trace = NULL, *plot = NULL, *log_level = "info";
    pl_engine_config cfg;
    pl_engine_config_init(&cfg);
    cfg.synth_workers = 2;
    cfg.prover_workers = 1;
    cfg.backend = "auto";
    bool verify = false, check = false, quiet = false, print_plan = false;
    const char **witnesses = calloc((size_t)argc + 1, sizeof(char *));
    size_t n = 0;
    if (!witnesses)
        return 3;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        unsigned *count = NULL;
        if (cli_is_help(a)) {
            fputs(batch_help, stdout);
            free(witnesses);
            return 0;
        } else if (string_option(a, &zkey, &out_dir, &r1cs, &report, &trace,
                                 &plot, &log_level, &cfg.backend)) {
            if (!val) {
                free(witnesses);
                return cli_usage_error("batch", "%s needs a value", a);
            }
            *string_option(a, &zkey, &out_dir, &r1cs, &report, &trace, &plot,
                           &log_level, &cfg.backend) = val;
            i++;
        } else if (strcmp(a, "--pw") == 0) {
            count = &cfg.synth_workers;
        } else if (strcmp(a, "--workers") == 0) {
            count = &cfg.prover_workers;
        } else if (strcmp(a, "--threads") == 0) {
            count = &cfg.threads;
        } else if (strcmp(a, "--budget") == 0) {
            if (!val || !pl_parse_size(val, &cfg.budget_bytes)) {
                free(witnesses);
                return cli_usage_error("batch", "--budget needs a size such as "
                                       "512MiB or 4GiB, not '%s'",
                                       val ? val : "");
            }
            i++;
        } else if (strcmp(a, "--verify") == 0) {
            verify = true;
        } else if (strcmp(a, "--check-witness") == 0) {
            check = true;
        } else if (strcmp(a, "--quiet") == 0) {
            quiet = true;
        } else if (strcmp(a, "--print-plan") == 0) {
            print_plan = true;
        } else if (a[0] == '-' && a[1]) {
            free(witnesses);
            return cli_usage_error("batch", "unknown option %s", a);
        } else {
            witnesses[n++] = a;
        }
        if (count) {
            if (!val || !cli_parse_count(val, count)) {
                free(witnesses);
                return cli_usage_error("batch", "%s needs a count from 1 to "
                                       "4096", a);
            }
            i++;
        }
    }
    if (!zkey || !out_dir || n == 0) {
        free(witnesses);
        return cli_usage_error("batch", "needs --zkey, --out and at least one "
                               "witness%s", "");
    }
    if (strcmp(log_level, "info") != 0 && strcmp(log_level, "quiet") != 0) {
        free(witnesses);
        return cli_usage_error("batch", "--log-level is info or quiet, not "
                               "'%s'", log_level);
    }
    cfg.log_level = quiet || strcmp(log_level, "quiet") == 0 ? PL_LOG_QUIET
                                                             : PL_LOG_INFO;
    cfg.record_timeline = trace || plot;
    if (check && !r1cs) {
        free(witnesses);
        return cli_usage_error("batch", "--check-witness needs --r1cs FILE%s",
                               "");
    }

    pl_error err = {0};
    pl_status st = PL_OK;
    pl_engine *engine = NULL;
    pl_circuit *circuit = NULL;
    batch_output out = {out_dir, calloc(n, sizeof(char *)),
                        PTHREAD_MUTEX_INITIALIZER, PL_OK, {0}};
    if (!out.names) {
        st = PL_ENOMEM;
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        if (!(out.names[i] = witness_name(witnesses[i]))) {
            st = PL_ENOMEM;
            goto done;
        }
        for (size_t k = 0; k < i; k++)
            if (strcmp(out.names[k], out.names[i]) == 0) {
                st = PL_EUSAGE;
                snprintf(err.msg, sizeof(err.msg), "%.70s and %.70s would "
                         "both write %.40s.proof.json", witnesses[k],
                         witnesses[i], out.names[i]);
                goto done;
            }
    }
    if (mkdir(out_dir, 0777) != 0 && errno != EEXIST) {
        st = PL_EIO;
        snprintf(err.msg, sizeof(err.msg), "%s: cannot create: %s", out_dir,
                 strerror(errno));
        goto done;
    }
    double t0 = cli_now();
    if ((st = pl_engine_create(&engine, &cfg, &err)) ||
        (st = pl_engine_open_circuit(engine, &circuit, zkey, r1cs, &err)))
        goto done;
    if (print_plan) {
        struct stat sb;
        uint64_t part, resident;
        pl_circuit_plan(circuit, stat(witnesses[0], &sb) == 0
                                     ? (uint64_t)sb.st_size : 0,
                        &part, &resident);
        printf("partition_bytes=%llu\nresident_bytes=%llu\n",
               (unsigned long long)part, (unsigned long long)resident);
        goto done;
    }
    pl_job_spec spec = {.circuit = circuit, .n_partitions = n,
                        .witness_paths = witnesses, .check_witness = check,
                        .verify = verify, .on_proof = write_proof,
                        .on_proof_user = &out};
    /* the ledger lines are the progress when they are on */
    pl_job_status js;
    if ((st = cli_run_job(engine, &spec, "batch",
                           !quiet && cfg.log_level == PL_LOG_QUIET, t0, &js,
                           &err)))
        goto done;
    double wall = cli_now() - t0;
    pl_circuit_release(circuit);
    circuit = NULL;

    pl_engine_trim(engine);
    pl_engine_stats es;
    pl_engine_stats_read(engine, &es);
    pl_run_facts run = {wall, cfg.synth_workers, cfg.prover_workers,
                        cfg.threads ? cfg.threads
                                    : (unsigned)sysconf(_SC_NPROCESSORS_ONLN)};
    if (!quiet) {
        fprintf(stderr, "batch: %zu proved, %zu verified, %zu failed, %zu "
                "skipped in %.2f s (%.1f proofs/hour)\n", js.proved,
                js.verified, js.failed, js.skipped, wall,
                wall > 0 ? (double)js.proved * 3600.0 / wall : 0.0);
        pl_engine_write_summary(engine, stderr);
    }
    pl_status out_st;
    if ((trace && (out_st = pl_engine_write_trace(engine, trace, &err))) ||
        (plot && (out_st = pl_engine_write_plot(engine, plot, &err))) ||
        (report && (out_st = write_report(report, &es, &js, &run, &err)))) {
        st = out_st;
        goto done;
    }
    if ((st = js.status) != PL_OK)
        err = js.error;
    else if ((st = out.write_status) != PL_OK)
        err = out.write_error;
done:
    pl_circuit_release(circuit);
    cli_engine_close(engine, &st, &err);
    if (out.names)
        for (size_t i = 0; i < n; i++)
            free(out.names[i]);
    free(out.names);
    free(witnesses);
    if (st == PL_ENOMEM && !err.msg[0])
        snprintf(err.msg, sizeof(err.msg), "out of memory");
    return st == PL_OK ? 0 : cli_fail("batch", st, &err);
}
