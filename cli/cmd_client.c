/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The client commands of `proofline serve`: `submit` (register a circuit
 * if asked, create a job, upload its witnesses, and with --wait fetch its
 * proofs), `jobs` (a table of jobs), `status` (the service's ledger for a
 * terminal) and `fetch` (a job's proof.json/public.json pairs).  They talk
 * to the server through service/client.h only (libcurl, the project's
 * JSON parser); they prove nothing themselves.
 *
 * The server is --server, else $PROOFLINE_SERVER, else
 * http://127.0.0.1:7878; the token file --token-file, else
 * $PROOFLINE_TOKEN_FILE.  Exit codes as the other commands: 0 success,
 * 1 a proof that did not verify (a job the server failed for that), 2 bad
 * usage, bad input, an unreachable server or a refused request, 3 an
 * internal error (the server's 500 among them); 130/143 after SIGINT or
 * SIGTERM while waiting (the job stays on the server).
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "proofline_client.h"
#include "job.h"
#include "options.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- what the four commands share --------------------------------------- */

typedef struct {
    const char *server, *token_file;
} client_common;

#define C(field) offsetof(client_common, field)
static const cli_opt client_opts[] = {
    {"--server", "URL", CLI_STRING, C(server),
     .help = "http://HOST:PORT or unix:/path/to.sock (default:\n"
             "$PROOFLINE_SERVER, else " PL_CLIENT_DEFAULT_SERVER ")"},
    {"--token-file", "F", CLI_STRING, C(token_file),
     .help = "the bearer token, the file's first line (default:\n"
             "$PROOFLINE_TOKEN_FILE)", .io = CLI_IN},
    {NULL},
};

static const char client_exit_text[] =
    "\n"
    "Exit codes: 0 success, 1 a proof did not verify, 2 bad usage or input,\n"
    "an unreachable server or a refused request (the server's message is\n"
    "shown), 3 internal error.\n";

static void common_defaults(client_common *c)
{
    const char *s = getenv("PROOFLINE_SERVER");
    const char *t = getenv("PROOFLINE_TOKEN_FILE");
    c->server = s && s[0] ? s : NULL;
    c->token_file = t && t[0] ? t : NULL;
}

/* SIGINT or SIGTERM (cli_signals_install) ends a transfer or a wait. */
static bool signal_caught(void)
{
    return cli_signal_caught() != 0;
}

/* The whole message of the command's failure (a server's message, a
 * failed job's error, with what the command adds), printed at its end in
 * place of err's, which pl_error cuts at 255 characters. */
static char g_whole[16384];

static void whole_set(pl_error *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void whole_set(pl_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_whole, sizeof(g_whole), fmt, ap);
    va_end(ap);
    pl__error_set(err, err->code, "%s", g_whole);
}

/* The command's end: the whole message when there is one (set above, or
 * the client's last failure when err is that failure's text). */
static int client_exit(const char *cmd, const pl_client *cl, pl_status st,
                       pl_error *err)
{
    const char *last = pl_client_last_error(cl);
    if (!g_whole[0] && last[0] &&
        strncmp(last, err->msg, strlen(err->msg)) == 0)
        snprintf(g_whole, sizeof(g_whole), "%s", last);
    return cli_exit_whole(cmd, st, err, st == PL_OK ? NULL : g_whole);
}

static pl_status client_open(pl_client **out, const client_common *c,
                             long max_retry_s, pl_error *err)
{
    pl_client_config cfg = {.server = c->server,
                             .token_file = c->token_file,
                             .max_retry_s = max_retry_s,
                             .should_stop = signal_caught};
    return pl_client_open(out, &cfg, err);
}

/* Ids come from the server and go into paths: letters, digits, '-', '_'
 * only, so no reply can steer a request elsewhere. */
static bool id_ok(const char *id)
{
    if (!id || !id[0] || strlen(id) > 64)
        return false;
    for (const char *p = id; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
              (*p >= '0' && *p <= '9') || *p == '-' || *p == '_'))
            return false;
    return true;
}

/* A failed job's status, from its message, for the exit code the same
 * witness would get from `proofline batch`: a status's name in it
 * ("proof is invalid: ..."), else the engine's words for a proof that
 * does not verify (its verification is always on in the service). */
static pl_status status_of_message(const char *msg)
{
    if (!msg)
        return PL_EFORMAT;
    for (int s = PL_EINVALID; s < PL_STATUS_COUNT; s++)
        if (strstr(msg, pl_strerror((pl_status)s)))
            return (pl_status)s;
    if (strstr(msg, "the proof does not verify"))
        return PL_EINVALID;
    return PL_EFORMAT; /* a job fails for its input, unless it says more */
}

static const char *fmt_time(char *buf, size_t cap, int64_t unix_ms)
{
    if (unix_ms <= 0)
        return "-";
    time_t t = (time_t)(unix_ms / 1000);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, cap, "%Y-%m-%d %H:%M:%S", &tm);
    return buf;
}

static const char *fmt_bytes(char *buf, size_t cap, uint64_t bytes)
{
    return pl_format_bytes(buf, cap, bytes);
}

/* A job's partitions: how many there are and how many are done. */
static void job_counts(const pl_client_reply *r, const pl__json_value *job,
                       uint64_t *total, uint64_t *done)
{
    const pl__json_value *parts = pl_client_get(r, job, "partitions");
    *total = *done = 0;
    if (parts && parts->type == PL__JSON_NUMBER) {
        *total = pl_client_num(r, job, "partitions", 0);
        return;
    }
    if (!parts || parts->type != PL__JSON_ARRAY)
        return;
    *total = parts->len;
    for (const pl__json_value *p = pl__json_first(parts);
         p != pl__json_end(parts); p = pl__json_next(p)) {
        const char *st = pl_client_str(r, p, "state");
        if (st && strcmp(st, "done") == 0)
            (*done)++;
    }
}

/* The first failed partition's message ("partition K: ..."), else the
 * job's. */
static void job_error(char *out, size_t cap, const pl_client_reply *r,
                      const pl__json_value *job)
{
    const char *msg = pl_client_str(r, job, "error");
    snprintf(out, cap, "%s", msg && msg[0] ? msg : "(no message)");
    const pl__json_value *parts = pl_client_get(r, job, "partitions");
    if (msg && msg[0])
        return;
    if (!parts || parts->type != PL__JSON_ARRAY)
        return;
    for (const pl__json_value *p = pl__json_first(parts);
         p != pl__json_end(parts); p = pl__json_next(p)) {
        const char *e = pl_client_str(r, p, "error");
        if (e && e[0]) {
            snprintf(out, cap, "partition %llu: %s",
                     (unsigned long long)pl_client_num(r, p, "index", 0), e);
            return;
        }
    }
}

/* Polls the job until it ends (done, failed, cancelled); *r holds its
 * last reply.  PL_OK when done; a failed job's status and message; after
 * SIGINT or SIGTERM PL_ECANCELLED, the job left running. */
static pl_status wait_job(const char *cmd, pl_client *cl, const char *job,
                          pl_client_reply *r, bool progress, pl_error *err)
{
    char path[128];
    /* ?wait=: the server answers as soon as the job ends, or after a
     * second (the progress line's pace); a server that does not know
     * ?wait answers at once, and the pauses below pace the polls then:
     * quick ones first (a small proof takes milliseconds), then at most
     * twice a second, so a waiting client costs the server little */
    snprintf(path, sizeof(path), "/v1/jobs/%s?wait=1s", job);
    long delay_ms = 20;
    bool shown = false;
    double down_since = 0;
    bool reached = false;
    for (;;) {
        double asked = cli_now();
        pl_status st = pl_client_request(cl, r, "GET", path, NULL, NULL, 0,
                                          NULL, 0, err);
        bool waited = cli_now() - asked >= 0.5; /* the server held it */
        /* a server that answered once and went away (a restart:
         * systemd's, an upgrade's) is waited for up to a minute; the job
         * is on its disk */
        if (st == PL_EIO && r->code == 0 && reached && !cli_signal_caught() &&
            (down_since == 0 || cli_now() - down_since < 60)) {
            if (down_since == 0)
                down_since = cli_now();
            pl_client_reply_free(r);
            sleep(1);
            continue;
        }
        if (st == PL_ECANCELLED && cli_signal_caught())
            goto stopped;
        if (st != PL_OK)
            return st;
        down_since = 0;
        reached = true;
        const pl__json_value *root = pl__json_root(&r->doc);
        const char *state = pl_client_str(r, root, "state");
        if (!state) {
            return pl__error_set(err, PL_EFORMAT, "%s: the reply has no "
                                 "\"state\"", r->url);
        }
        if (progress) {
            uint64_t total, done;
            job_counts(r, root, &total, &done);
            fprintf(stderr, "\r%s: %-9s %llu/%llu partitions done ", job,
                    state, (unsigned long long)done,
                    (unsigned long long)total);
            shown = true;
        }
        bool ended = strcmp(state, "done") == 0 ||
                     strcmp(state, "failed") == 0 ||
                     strcmp(state, "cancelled") == 0;
        if (ended || cli_signal_caught()) {
            if (shown)
                fputc('\n', stderr);
            shown = false;
            if (!ended)
                goto stopped;
            if (strcmp(state, "done") == 0)
                return PL_OK;
            static char msg[8192];
            job_error(msg, sizeof(msg), r, root);
            if (strstr(msg, job)) /* the server's message names it */
                whole_set(err, "%s: %s", state, msg);
            else
                whole_set(err, "job %s %s: %s", job, state, msg);
            return strcmp(state, "cancelled") == 0 ? PL_ECANCELLED
                                                   : status_of_message(msg);
        }
        pl_client_reply_free(r);
        if (waited)
            continue;
        struct timespec ts = {.tv_sec = delay_ms / 1000,
                              .tv_nsec = (delay_ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
        delay_ms = delay_ms * 2 > 500 ? 500 : delay_ms * 2;
    }
stopped:
    if (shown)
        fputc('\n', stderr);
    /* cli_exit says only that a signal stopped the command: where the
     * job is goes to stderr here */
    fprintf(stderr, "%s %s: job %s stays on the server: proofline fetch "
            "--wait %s --out DIR\n", CLI_PROG, cmd, job, job);
    return pl__error_set(err, PL_ECANCELLED, "job %s: stopped waiting", job);
}

/* DIR/NAME.proof.json and DIR/NAME.public.json for each name. */
static pl_status check_outputs(const char *dir, char **names, size_t n,
                               const char *const *inputs, size_t n_in,
                               pl_error *err)
{
    char **paths = calloc(2 * n, sizeof(char *));
    pl_status st = PL_OK;
    if (!paths)
        return PL_ENOMEM;
    for (size_t i = 0; i < 2 * n; i++) {
        size_t len = strlen(dir) + strlen(names[i / 2]) + 16;
        if (!(paths[i] = malloc(len))) {
            st = PL_ENOMEM;
            goto done;
        }
        snprintf(paths[i], len, "%s/%s.%s.json", dir, names[i / 2],
                 i % 2 ? "public" : "proof");
    }
    st = pl_output_check((const char *const *)paths, 2 * n, inputs, n_in,
                         err);
done:
    for (size_t i = 0; i < 2 * n; i++)
        free(paths[i]);
    free(paths);
    return st;
}

/* Fetches partitions 0..n) of a done job into DIR/names[k].*.json. */
static pl_status fetch_all(pl_client *cl, const char *job, const char *dir,
                           char **names, size_t n, pl_error *err)
{
    for (size_t k = 0; k < n; k++) {
        char proof[4200], pub[4200];
        bool ready = false;
        snprintf(proof, sizeof(proof), "%s/%s.proof.json", dir, names[k]);
        snprintf(pub, sizeof(pub), "%s/%s.public.json", dir, names[k]);
        pl_status st = pl_client_fetch_proof(cl, job, (uint32_t)k, proof,
                                              pub, &ready, err);
        if (st != PL_OK)
            return st;
        if (!ready) {
            return pl__error_set(err, PL_EIO, "job %s: partition %zu: the "
                                 "server has no proof yet", job, k);
        }
    }
    return PL_OK;
}

static void free_names(char **names, size_t n)
{
    for (size_t i = 0; names && i < n; i++)
        free(names[i]);
    free(names);
}

/* ---- submit ------------------------------------------------------------- */

static const cli_command submit_cmd = {
    "submit",
    "Usage: proofline submit [--server URL] (--circuit ID | --zkey C.zkey)\n"
    "                        [--priority P] [--deadline TIME]\n"
    "                        [--wait [--out DIR]] W1.wtns [W2.wtns ...]\n"
    "\n"
    "Submits one job to a `proofline serve`: every witness is a partition of\n"
    "it, uploaded in the order given.  With --zkey the circuit is registered\n"
    "first: the zkey is hashed (its sha256 is the circuit's id) and sent\n"
    "only if the server does not have it.\n"
    "Prints the job's id alone on stdout.  With --wait it then waits for the\n"
    "job to end, and with --out writes DIR/NAME.proof.json and\n"
    "DIR/NAME.public.json for each witness NAME.wtns, as `proofline batch`\n"
    "names them.\n"
    "With --deadline (30s, 2m, 1.5h) the job should be done that long after\n"
    "it is submitted: one that is late is still proved, and the server\n"
    "counts and logs the miss.\n",
    client_exit_text, 21};

typedef struct {
    const char *circuit, *zkey, *out_dir, *deadline;
    unsigned priority;
    bool wait, quiet;
    double deadline_s; /* from deadline; 0: none */
} submit_options;

static const char *const priorities[] = {"high", "normal", "low", "critical",
                                         NULL};

#define S(field) offsetof(submit_options, field)
static const cli_opt submit_opts[] = {
    {"--circuit", "ID", CLI_STRING, S(circuit),
     .help = "a circuit the server knows (its id: the zkey's sha256)"},
    {"--zkey", "FILE", CLI_STRING, S(zkey),
     .help = "register this zkey first, then use it", .io = CLI_IN},
    {"--priority", "P", CLI_CHOICE, S(priority),
     .help = "critical, high, normal (default) or low",
     .bad = "%s is critical, high, normal or low, not '%s'",
     .choices = priorities},
    {"--deadline", "TIME", CLI_STRING, S(deadline),
     .help = "the job should be done this long after it is submitted "
             "(30s, 2m, 1.5h; at most 30 days); a miss is counted, the "
             "job still proved"},
    {"--wait", NULL, CLI_FLAG, S(wait),
     .help = "wait until the job ends; its outcome is the exit code"},
    {"--out", "DIR", CLI_STRING, S(out_dir),
     .help = "with --wait: where the proofs go (created if missing)"},
    {"--quiet", NULL, CLI_FLAG, S(quiet),
     .help = "no progress line while waiting"},
    {NULL},
};

/* PUT /v1/jobs/{id}/witness/{k} for every witness; a failure cancels the
 * job (it could never be completed) and names the witness. */
static pl_status upload_witnesses(pl_client *cl, const char *job,
                                  const char *const *witnesses, size_t n,
                                  pl_error *err)
{
    for (size_t k = 0; k < n; k++) {
        char path[160];
        pl_client_reply r;
        snprintf(path, sizeof(path), "/v1/jobs/%s/witness/%zu", job, k);
        pl_status st = pl_client_request(cl, &r, "PUT", path,
                                          "application/octet-stream", NULL, 0,
                                          witnesses[k], 0, err);
        pl_client_reply_free(&r);
        if (st != PL_OK) {
            /* the whole of what the server said, before the cancel's
             * request replaces the client's last failure */
            static char msg[8192];
            snprintf(msg, sizeof(msg), "%s", pl_client_last_error(cl)[0]
                                                 ? pl_client_last_error(cl)
                                                 : err->msg);
            snprintf(path, sizeof(path), "/v1/jobs/%s", job);
            pl_error ignored = {0};
            pl_client_stoppable(cl, false); /* even after a SIGINT */
            pl_client_request(cl, &r, "DELETE", path, NULL, NULL, 0, NULL, 0,
                               &ignored);
            pl_client_stoppable(cl, true);
            pl_client_reply_free(&r);
            whole_set(err, "%s: %s (job %s cancelled)", witnesses[k], msg,
                      job);
            return st;
        }
    }
    return PL_OK;
}

/* Every witness checked against the circuit (GET /v1/circuits/{id}) before
 * a job is made, so a wrong file never leaves a cancelled job behind: its
 * size is the circuit's witness_bytes, it opens as a witness of the field
 * proofline proves over (its header, its prime, its values), and it holds
 * the circuit's number of variables. */
static pl_status check_witnesses(pl_client *cl, const char *circuit,
                                 const char *const *witnesses, size_t n,
                                 pl_error *err)
{
    char path[160];
    pl_client_reply r;
    snprintf(path, sizeof(path), "/v1/circuits/%.100s", circuit);
    pl_status st = pl_client_request(cl, &r, "GET", path, NULL, NULL, 0,
                                      NULL, 0, err);
    if (st != PL_OK) {
        pl_client_reply_free(&r);
        return st;
    }
    const pl__json_value *root = pl__json_root(&r.doc);
    uint64_t bytes = pl_client_num(&r, root, "witness_bytes", 0);
    uint64_t vars = pl_client_num(&r, root, "vars", 0);
    pl_client_reply_free(&r);
    for (size_t k = 0; k < n; k++) {
        struct stat sb;
        if (stat(witnesses[k], &sb) != 0) {
            whole_set(err, "%s: cannot read it: %s", witnesses[k],
                      strerror(errno));
            return PL_EIO;
        }
        if (bytes && (uint64_t)sb.st_size != bytes) {
            whole_set(err, "%s: %llu bytes, but a witness of circuit %.16s... "
                      "is exactly %llu bytes (is it a witness of this "
                      "circuit?); no job was made", witnesses[k],
                      (unsigned long long)sb.st_size, circuit,
                      (unsigned long long)bytes);
            return PL_EUSAGE;
        }
        pl_wtns *w = NULL;
        if ((st = pl_wtns_open(&w, witnesses[k], err)) != PL_OK) {
            whole_set(err, "%s; no job was made", err->msg);
            return st;
        }
        size_t count = pl_wtns_count(w);
        pl_wtns_close(w);
        if (vars && count != vars) {
            whole_set(err, "%s: %zu values, but circuit %.16s... has %llu "
                      "variables; no job was made", witnesses[k], count,
                      circuit, (unsigned long long)vars);
            return PL_EFORMAT;
        }
    }
    return PL_OK;
}

static int submit_run(const client_common *cc, const submit_options *o,
                      const char *const *witnesses, size_t n)
{
    pl_error err = {0};
    pl_client *cl = NULL;
    pl_client_reply r = {0};
    char **names = NULL;
    char circuit[128], job[37];
    pl_status st = PL_OK;

    for (size_t k = 0; k < n; k++)
        if (access(witnesses[k], R_OK) != 0) {
            st = pl__error_errno(&err, PL_EIO, errno, "%s: cannot read it",
                                 witnesses[k]);
            goto done;
        }
    if (o->out_dir) {
        /* the proofs replace none of the files read: the witnesses, the
         * zkey, the token */
        const char **inputs = calloc(n + 2, sizeof(*inputs));
        size_t n_in = 0;
        if (!inputs) {
            st = PL_ENOMEM;
            goto done;
        }
        for (size_t k = 0; k < n; k++)
            inputs[n_in++] = witnesses[k];
        if (o->zkey)
            inputs[n_in++] = o->zkey;
        if (cc->token_file)
            inputs[n_in++] = cc->token_file;
        if (!(st = cli_output_names(&names, witnesses, n, &err)) &&
            !(st = cli_make_dir(o->out_dir, false, &err)))
            st = check_outputs(o->out_dir, names, n, inputs, n_in, &err);
        free(inputs);
        if (st)
            goto done;
    }
    /* a full queue (429) or a draining server (503) is waited out for up
     * to ten minutes: a submitter's job is worth the wait */
    if ((st = client_open(&cl, cc, 600, &err)))
        goto done;
    if (o->zkey) {
        bool uploaded;
        if ((st = pl_client_register(cl, o->zkey, circuit, &uploaded,
                                      &err)))
            goto done;
    } else if (!id_ok(o->circuit)) {
        st = pl__error_set(&err, PL_EUSAGE, "--circuit %s: not an id (the "
                           "zkey's sha256 in hex)", o->circuit);
        goto done;
    } else {
        snprintf(circuit, sizeof(circuit), "%s", o->circuit);
    }
    if ((st = check_witnesses(cl, circuit, witnesses, n, &err)))
        goto done;
    if ((st = pl_client_create_job(cl, circuit, priorities[o->priority], n,
                                   o->deadline_s, job, &err)) ||
        (st = upload_witnesses(cl, job, witnesses, n, &err)))
        goto done;
    printf("%s\n", job);
    fflush(stdout);
    if (!o->wait)
        goto done;
    if ((st = wait_job("submit", cl, job, &r,
                       !o->quiet && isatty(STDERR_FILENO), &err)))
        goto done;
    if (o->out_dir)
        st = fetch_all(cl, job, o->out_dir, names, n, &err);
done:
    pl_client_reply_free(&r);
    int rc = client_exit("submit", cl, st, &err);
    pl_client_close(cl);
    free_names(names, n);
    return rc;
}

int cli_submit(int argc, char **argv)
{
    client_common cc;
    submit_options o = {.priority = 1};
    common_defaults(&cc);
    const cli_table tables[] = {{submit_opts, &o}, {client_opts, &cc}};
    int npos = 0;
    int rc = cli_parse(&submit_cmd, tables, 2, argc, argv, &npos);
    if (rc == CLI_RUN && !o.circuit == !o.zkey)
        rc = cli_usage_error("submit", "needs --circuit ID or --zkey FILE "
                             "(one of them)");
    else if (rc == CLI_RUN && npos == 0)
        rc = cli_usage_error("submit", "needs at least one witness");
    else if (rc == CLI_RUN && o.out_dir && !o.wait)
        rc = cli_usage_error("submit", "--out needs --wait");
    else if (rc == CLI_RUN && o.deadline &&
             (!cli_parse_duration(o.deadline, &o.deadline_s) ||
              o.deadline_s < 0.001 || o.deadline_s > 30.0 * 86400))
        rc = cli_usage_error("submit", "--deadline %s: a time from 0.001s "
                             "to 30 days is needed (30s, 2m, 1.5h)",
                             o.deadline);
    if (rc == CLI_RUN) {
        cli_signals_install();
        rc = submit_run(&cc, &o, (const char *const *)argv, (size_t)npos);
    }
    return rc;
}

/* ---- fetch -------------------------------------------------------------- */

static const cli_command fetch_cmd = {
    "fetch",
    "Usage: proofline fetch [--server URL] [--wait] JOB --out DIR\n"
    "                       [W1.wtns W2.wtns ...]\n"
    "\n"
    "Writes the proofs of a finished job of a `proofline serve`, the files\n"
    "`proofline prove` writes: given the job's witnesses (one per partition,\n"
    "in the order submitted), DIR/NAME.proof.json and DIR/NAME.public.json\n"
    "for each witness NAME.wtns, as `submit --wait --out` and `batch` name\n"
    "them (only the names are used: the files need not be here); without\n"
    "them, DIR/pK.proof.json and DIR/pK.public.json for each partition K\n"
    "(from 0).  Without --wait a job that has not ended is an error; with it,\n"
    "the command waits for the job to end.\n",
    client_exit_text, 21};

typedef struct {
    const char *out_dir;
    bool wait, quiet;
} fetch_options;

#define F(field) offsetof(fetch_options, field)
static const cli_opt fetch_opts[] = {
    {"--out", "DIR", CLI_STRING, F(out_dir),
     .help = "where the proofs go (required; created if missing)"},
    {"--wait", NULL, CLI_FLAG, F(wait),
     .help = "wait until the job ends"},
    {"--quiet", NULL, CLI_FLAG, F(quiet),
     .help = "no progress line while waiting"},
    {NULL},
};

static int fetch_run(const client_common *cc, const fetch_options *o,
                     const char *job, const char *const *witnesses,
                     size_t n_witnesses)
{
    pl_error err = {0};
    pl_client *cl = NULL;
    pl_client_reply r = {0};
    char **names = NULL;
    uint64_t total = 0, done_n = 0;
    pl_status st = PL_OK;

    if (!id_ok(job)) {
        st = pl__error_set(&err, PL_EUSAGE, "%s: not a job id", job);
        goto done;
    }
    if ((st = cli_make_dir(o->out_dir, false, &err)) ||
        (st = client_open(&cl, cc, o->wait ? 600 : 0, &err)))
        goto done;
    if (o->wait) {
        if ((st = wait_job("fetch", cl, job, &r,
                           !o->quiet && isatty(STDERR_FILENO), &err)))
            goto done;
    } else {
        char path[128];
        snprintf(path, sizeof(path), "/v1/jobs/%s", job);
        if ((st = pl_client_request(cl, &r, "GET", path, NULL, NULL, 0, NULL,
                                     0, &err)))
            goto done;
        const char *state = pl_client_str(&r, pl__json_root(&r.doc),
                                           "state");
        if (!state || strcmp(state, "done") != 0) {
            static char msg[8192];
            msg[0] = 0;
            if (state && (strcmp(state, "failed") == 0 ||
                          strcmp(state, "cancelled") == 0))
                job_error(msg, sizeof(msg), &r, pl__json_root(&r.doc));
            whole_set(&err, "job %s is %s%s%s%s", job,
                      state ? state : "(no state)", msg[0] ? ": " : "", msg,
                      msg[0] ? "" : ", not done (--wait waits for it)");
            st = state && strcmp(state, "failed") == 0
                     ? status_of_message(msg) : PL_EUSAGE;
            goto done;
        }
    }
    job_counts(&r, pl__json_root(&r.doc), &total, &done_n);
    if (total == 0 || total > (1u << 20)) {
        st = pl__error_set(&err, PL_EFORMAT, "%s: the job has no partitions",
                           r.url);
        goto done;
    }
    if (n_witnesses && n_witnesses != total) {
        st = pl__error_set(&err, PL_EUSAGE, "job %s has %llu partitions, %zu "
                           "witnesses given (one per partition, or none)",
                           job, (unsigned long long)total, n_witnesses);
        total = 0; /* no names to free */
        goto done;
    }
    if (n_witnesses) {
        /* the names submit --out and batch give the same witnesses */
        if ((st = cli_output_names(&names, witnesses, n_witnesses, &err)))
            goto done;
    } else if (!(names = calloc((size_t)total, sizeof(char *)))) {
        st = PL_ENOMEM;
        goto done;
    }
    for (size_t k = 0; !n_witnesses && k < total; k++) {
        if (!(names[k] = malloc(24))) {
            st = PL_ENOMEM;
            goto done;
        }
        snprintf(names[k], 24, "p%zu", k);
    }
    const char *token[1] = {cc->token_file};
    if ((st = check_outputs(o->out_dir, names, (size_t)total, token,
                            cc->token_file ? 1 : 0, &err)) ||
        (st = fetch_all(cl, job, o->out_dir, names, (size_t)total, &err)))
        goto done;
    if (!o->quiet)
        fprintf(stderr, "fetch: job %s: %llu proofs in %s\n", job,
                (unsigned long long)total, o->out_dir);
done:
    pl_client_reply_free(&r);
    int rc = client_exit("fetch", cl, st, &err);
    pl_client_close(cl);
    free_names(names, (size_t)total);
    return rc;
}

int cli_fetch(int argc, char **argv)
{
    client_common cc;
    fetch_options o = {0};
    common_defaults(&cc);
    const cli_table tables[] = {{fetch_opts, &o}, {client_opts, &cc}};
    int npos = 0;
    int rc = cli_parse(&fetch_cmd, tables, 2, argc, argv, &npos);
    if (rc == CLI_RUN && (npos < 1 || !o.out_dir))
        rc = cli_usage_error("fetch", "needs one JOB and --out DIR");
    if (rc == CLI_RUN) {
        cli_signals_install();
        rc = fetch_run(&cc, &o, argv[0], (const char *const *)argv + 1,
                       (size_t)npos - 1);
    }
    return rc;
}

/* ---- jobs --------------------------------------------------------------- */

static const cli_command jobs_cmd = {
    "jobs",
    "Usage: proofline jobs [--server URL] [--state S] [--limit N] [--json]\n"
    "\n"
    "Lists the jobs of a `proofline serve`, newest first: id, state,\n"
    "priority, partitions done, circuit, its curve (bls12381, bn128), when\n"
    "it was created (UTC), how long it ran, and a failed job's message.\n",
    client_exit_text, 21};

typedef struct {
    unsigned state; /* index in job_states; 0: any */
    unsigned limit;
    bool json;
} jobs_options;

static const char *const job_states[] = {"any", "receiving", "queued",
                                         "running", "done", "failed",
                                         "cancelled", NULL};

#define J(field) offsetof(jobs_options, field)
static const cli_opt jobs_opts[] = {
    {"--state", "S", CLI_CHOICE, J(state),
     .help = "only jobs in this state: receiving, queued, running,\n"
             "done, failed or cancelled",
     .bad = "%s is receiving, queued, running, done, failed or cancelled, "
            "not '%s'", .choices = job_states},
    {"--limit", "N", CLI_COUNT, J(limit),
     .help = "at most N jobs (default 50; the server's limit: 10000)",
     .max = 10000, .bad = "%s needs a count from 1 to 10000"},
    {"--json", NULL, CLI_FLAG, J(json),
     .help = "print the server's reply as it is"},
    {NULL},
};

/* One format for the header and every row, so they cannot drift apart;
 * PRIO holds the longest priority, "critical". */
#define JOBS_ROW "%-36s  %-9s  %-8s  %7s  %-12.12s  %-8s  %-19s  %9s  %s\n"

static void print_job_row(const pl_client_reply *r, const pl__json_value *j)
{
    char created[32], dur[32] = "-", parts[32];
    const char *id = pl_client_str(r, j, "id");
    const char *state = pl_client_str(r, j, "state");
    const char *prio = pl_client_str(r, j, "priority");
    const char *circuit = pl_client_str(r, j, "circuit");
    const char *curve = pl_client_str(r, j, "curve"); /* NULL: unknown */
    const char *error = pl_client_str(r, j, "error");
    int64_t c_ms = pl_client_int(r, j, "created_ms", 0);
    int64_t f_ms = pl_client_int(r, j, "finished_ms", 0);
    uint64_t total, done;
    job_counts(r, j, &total, &done);
    snprintf(parts, sizeof(parts), "%llu/%llu", (unsigned long long)done,
             (unsigned long long)total);
    if (c_ms > 0 && f_ms >= c_ms)
        snprintf(dur, sizeof(dur), "%.2fs", (double)(f_ms - c_ms) / 1000.0);
    printf(JOBS_ROW, id ? id : "?", state ? state : "?", prio ? prio : "?",
           parts, circuit ? circuit : "?", curve ? curve : "-",
           fmt_time(created, sizeof(created), c_ms),
           dur, error ? error : "");
}

static int jobs_run(const client_common *cc, const jobs_options *o)
{
    pl_error err = {0};
    pl_client *cl = NULL;
    pl_client_reply r = {0};
    char path[128];
    pl_status st;
    if (o->state)
        snprintf(path, sizeof(path), "/v1/jobs?state=%s&limit=%u",
                 job_states[o->state], o->limit);
    else
        snprintf(path, sizeof(path), "/v1/jobs?limit=%u", o->limit);
    if ((st = client_open(&cl, cc, 0, &err)) ||
        (st = pl_client_request(cl, &r, "GET", path, NULL, NULL, 0, NULL, 0,
                                 &err)))
        goto done;
    if (o->json) {
        fwrite(r.body, 1, r.len, stdout);
        if (r.len && r.body[r.len - 1] != '\n')
            putchar('\n');
        goto done;
    }
    const pl__json_value *jobs = pl_client_get(&r, pl__json_root(&r.doc),
                                                "jobs");
    if (!jobs || jobs->type != PL__JSON_ARRAY) {
        st = pl__error_set(&err, PL_EFORMAT, "%s: the reply has no \"jobs\" "
                           "array", r.url);
        goto done;
    }
    printf(JOBS_ROW, "ID", "STATE", "PRIO", "DONE", "CIRCUIT", "CURVE",
           "CREATED (UTC)", "TOOK", "ERROR");
    for (const pl__json_value *j = pl__json_first(jobs);
         j != pl__json_end(jobs); j = pl__json_next(j))
        print_job_row(&r, j);
done:
    pl_client_reply_free(&r);
    int rc = client_exit("jobs", cl, st, &err);
    pl_client_close(cl);
    return rc;
}

int cli_jobs(int argc, char **argv)
{
    client_common cc;
    jobs_options o = {.limit = 50};
    common_defaults(&cc);
    const cli_table tables[] = {{jobs_opts, &o}, {client_opts, &cc}};
    int npos = 0;
    int rc = cli_parse(&jobs_cmd, tables, 2, argc, argv, &npos);
    if (rc == CLI_RUN && npos != 0)
        rc = cli_usage_error("jobs", "takes no arguments, only options");
    if (rc == CLI_RUN)
        rc = jobs_run(&cc, &o);
    return rc;
}

/* ---- status ------------------------------------------------------------- */

static const cli_command status_cmd = {
    "status",
    "Usage: proofline status [--server URL] [--cluster] [--json]\n"
    "                        [--watch [--count N]]\n"
    "\n"
    "Shows the ledger of a `proofline serve`, live: the byte budget, what is\n"
    "reserved and its peak, the process's RssAnon and the bytes no class\n"
    "accounts for, each buffer class (count, bytes, peak), partitions per\n"
    "stage, the queue per priority, jobs per state, and the workers.\n"
    "With --cluster: every service on the server's store (one PostgreSQL\n"
    "queue): host, budget, reserved, partitions per stage, last heartbeat.\n"
    "With --watch: the same, redrawn in place each second in 80 columns,\n"
    "until Ctrl-C (exit 0) or --count redraws; a server that stops\n"
    "answering is shown as such and watched on.  The same figures, drawn\n"
    "over time, are on the service's own page: open its address (GET /).\n",
    client_exit_text, 21};

typedef struct {
    bool json, cluster, watch;
    unsigned count;
} status_options;

static const cli_opt status_opts[] = {
    {"--json", NULL, CLI_FLAG, offsetof(status_options, json),
     .help = "print the server's reply (GET /v1/status) as it is"},
    {"--cluster", NULL, CLI_FLAG, offsetof(status_options, cluster),
     .help = "the cluster's view instead (GET /v1/cluster)"},
    {"--watch", NULL, CLI_FLAG, offsetof(status_options, watch),
     .help = "redraw each second, in place, until Ctrl-C"},
    {"--count", "N", CLI_COUNT, offsetof(status_options, count),
     .help = "with --watch: stop after N redraws", .max = 1000000},
    {NULL},
};

/* Lines of items under a 10-column label, wrapped before column 80 (the
 * width of a terminal `status --watch` must fit). */
#define STATUS_WIDTH 80
#define STATUS_INDENT 10

typedef struct {
    int col;
    const char *sep;
} status_line;

static void line_start(status_line *l, const char *label)
{
    l->col = printf("%-*s", STATUS_INDENT, label);
    l->sep = "";
}

static void line_item(status_line *l, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void line_item(status_line *l, const char *fmt, ...)
{
    char item[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(item, sizeof(item), fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if (n > STATUS_WIDTH - STATUS_INDENT)
        n = STATUS_WIDTH - STATUS_INDENT;
    int sep = (int)strlen(l->sep);
    if (l->col > STATUS_INDENT && l->col + sep + n > STATUS_WIDTH) {
        printf("%s\n%*s", sep ? "," : "", STATUS_INDENT, "");
        l->col = STATUS_INDENT;
    } else if (l->col > STATUS_INDENT) {
        l->col += printf("%s", l->sep);
    }
    l->col += printf("%.*s", n, item);
    l->sep = ", ";
}

/* "a 1, b 2, c 0" from an object of numbers. */
static void print_counts(const char *label, const pl_client_reply *r,
                         const pl__json_value *obj)
{
    status_line l;
    line_start(&l, label);
    if (!obj || obj->type != PL__JSON_OBJECT || obj->len == 0) {
        printf("-\n");
        return;
    }
    for (const pl__json_value *m = pl__json_first(obj);
         m != pl__json_end(obj); m = pl__json_next(m))
        line_item(&l, "%s %llu", m->key,
                  (unsigned long long)pl_client_num(r, obj, m->key, 0));
    putchar('\n');
}

/* A scalar member as text, for the workers' lines. */
static void scalar_text(const pl__json_value *v, char *out, size_t cap)
{
    switch (v->type) {
    case PL__JSON_NULL: snprintf(out, cap, "null"); break;
    case PL__JSON_TRUE: snprintf(out, cap, "true"); break;
    case PL__JSON_FALSE: snprintf(out, cap, "false"); break;
    case PL__JSON_NUMBER: snprintf(out, cap, "%.*s", (int)v->len, v->text); break;
    case PL__JSON_STRING: snprintf(out, cap, "%s", v->text); break;
    case PL__JSON_ARRAY: snprintf(out, cap, "[%zu]", v->len); break;
    default: snprintf(out, cap, "{%zu}", v->len); break;
    }
}

static void print_status(const client_common *cc, const pl_client_reply *r,
                         const char *server)
{
    const pl__json_value *root = pl__json_root(&r->doc);
    char a[32], b[32], c[32];
    const char *version = pl_client_str(r, root, "version");
    uint64_t up = pl_client_num(r, root, "uptime_s", 0);
    uint64_t budget = pl_client_num(r, root, "budget_bytes", 0);
    uint64_t reserved = pl_client_num(r, root, "reserved_bytes", 0);
    uint64_t peak = pl_client_num(r, root, "peak_reserved_bytes", 0);
    (void)cc;
    const char *backend = pl_client_str(r, root, "backend");
    const pl__json_value *drain = pl_client_get(r, root, "draining");
    status_line l;
    line_start(&l, "server");
    line_item(&l, "%s", server);
    line_item(&l, "proofline %s", version ? version : "?");
    if (backend)
        line_item(&l, "backend %s", backend);
    line_item(&l, "up %llud %02lluh %02llum %02llus%s",
              (unsigned long long)(up / 86400),
              (unsigned long long)(up / 3600 % 24),
              (unsigned long long)(up / 60 % 60), (unsigned long long)(up % 60),
              drain && drain->type == PL__JSON_TRUE ? " DRAINING" : "");
    putchar('\n');
    line_start(&l, "budget");
    line_item(&l, "%s", fmt_bytes(a, sizeof(a), budget));
    line_item(&l, "reserved %s (%.1f%%)", fmt_bytes(b, sizeof(b), reserved),
              budget ? 100.0 * (double)reserved / (double)budget : 0.0);
    line_item(&l, "peak %s (%.1f%%)", fmt_bytes(c, sizeof(c), peak),
              budget ? 100.0 * (double)peak / (double)budget : 0.0);
    putchar('\n');
    int64_t untracked = pl_client_int(r, root, "untracked_bytes", 0);
    line_start(&l, "memory");
    line_item(&l, "RssAnon %s (peak %s)",
              fmt_bytes(a, sizeof(a),
                        pl_client_num(r, root, "rss_anon_bytes", 0)),
              fmt_bytes(b, sizeof(b),
                        pl_client_num(r, root, "peak_rss_anon_bytes", 0)));
    line_item(&l, "RssFile %s",
              fmt_bytes(a, sizeof(a),
                        pl_client_num(r, root, "rss_file_bytes", 0)));
    line_item(&l, "tracked %s",
              fmt_bytes(c, sizeof(c),
                        pl_client_num(r, root, "tracked_bytes", 0)));
    line_item(&l, "untracked %s%s", untracked < 0 ? "-" : "",
              fmt_bytes(a, sizeof(a), untracked < 0 ? (uint64_t)-untracked
                                                    : (uint64_t)untracked));
    putchar('\n');
    /* a line per GPU, as its driver reports it */
    const pl__json_value *gpus = pl_client_get(r, root, "gpus");
    if (gpus && gpus->type == PL__JSON_OBJECT)
        for (const pl__json_value *m = pl__json_first(gpus);
             m != pl__json_end(gpus); m = pl__json_next(m)) {
            uint64_t used = pl_client_num(r, m, "used_bytes", 0),
                     total = pl_client_num(r, m, "total_bytes", 0);
            line_start(&l, m == pl__json_first(gpus) ? "gpus" : "");
            line_item(&l, "%s: used %s of %s (%.1f%%)", m->key,
                      fmt_bytes(a, sizeof(a), used),
                      fmt_bytes(b, sizeof(b), total),
                      total ? 100.0 * (double)used / (double)total : 0.0);
            putchar('\n');
        }
    const pl__json_value *classes = pl_client_get(r, root, "classes");
    if (classes && classes->type == PL__JSON_OBJECT && classes->len) {
        printf("\n%-14s %7s %12s %12s\n", "class", "count", "bytes", "peak");
        for (const pl__json_value *m = pl__json_first(classes);
             m != pl__json_end(classes); m = pl__json_next(m))
            printf("%-14s %7llu %12s %12s\n", m->key,
                   (unsigned long long)pl_client_num(r, m, "count", 0),
                   fmt_bytes(a, sizeof(a), pl_client_num(r, m, "bytes", 0)),
                   fmt_bytes(b, sizeof(b),
                             pl_client_num(r, m, "peak_bytes", 0)));
        putchar('\n');
    }
    print_counts("stages", r, pl_client_get(r, root, "stages"));
    print_counts("queue", r, pl_client_get(r, root, "queue"));
    print_counts("jobs", r, pl_client_get(r, root, "jobs"));
    const pl__json_value *workers = pl_client_get(r, root, "workers");
    if (workers && workers->type == PL__JSON_ARRAY) {
        size_t i = 0;
        for (const pl__json_value *w = pl__json_first(workers);
             w != pl__json_end(workers); w = pl__json_next(w), i++) {
            status_line wl; /* one per worker, apart from the function's l */
            char text[200];
            line_start(&wl, i == 0 ? "workers" : "");
            if (w->type != PL__JSON_OBJECT) {
                scalar_text(w, text, sizeof(text));
                line_item(&wl, "%s", text);
                putchar('\n');
                continue;
            }
            for (const pl__json_value *m = pl__json_first(w);
                 m != pl__json_end(w); m = pl__json_next(m)) {
                if (m->type == PL__JSON_STRING && !m->text[0])
                    continue; /* an empty last_error, say */
                scalar_text(m, text, sizeof(text));
                line_item(&wl, "%s=%s", m->key, text);
            }
            putchar('\n');
        }
    }
}

/* The cluster's view: a line per worker, then the queue and the jobs. */
static void print_cluster(const pl_client_reply *r)
{
    const pl__json_value *root = pl__json_root(&r->doc);
    const pl__json_value *workers = pl_client_get(r, root, "workers");
    const char *self = pl_client_str(r, root, "self");
    char a[32], b[32];
    printf("%-34s %-16s %-7s %10s %10s %8s %9s\n", "worker", "host", "backend",
           "budget", "reserved", "inflight", "heartbeat");
    if (workers && workers->type == PL__JSON_ARRAY)
        for (const pl__json_value *w = pl__json_first(workers);
             w != pl__json_end(workers); w = pl__json_next(w)) {
            const char *id = pl_client_str(r, w, "id");
            const char *host = pl_client_str(r, w, "host");
            const char *backend = pl_client_str(r, w, "backend");
            const pl__json_value *status = pl_client_get(r, w, "status");
            const pl__json_value *gone = pl_client_get(r, w, "gone");
            double age = (double)pl_client_num(r, w, "age_ms", 0) / 1000.0;
            printf("%-34.34s %-16.16s %-7.7s %10s %10s %8llu %8.1fs%s%s\n",
                   id ? id : "?", host ? host : "?", backend ? backend : "?",
                   fmt_bytes(a, sizeof(a),
                             pl_client_num(r, w, "budget_bytes", 0)),
                   fmt_bytes(b, sizeof(b),
                             pl_client_num(r, w, "reserved_bytes", 0)),
                   (unsigned long long)(status
                                            ? pl_client_num(r, status,
                                                             "in_flight", 0)
                                            : 0),
                   age, gone && gone->type == PL__JSON_TRUE ? " gone" : "",
                   self && id && strcmp(self, id) == 0 ? " (this one)" : "");
        }
    putchar('\n');
    print_counts("queue", r, pl_client_get(r, root, "queue"));
    print_counts("jobs", r, pl_client_get(r, root, "jobs"));
}

/* One reading of /v1/status (or /v1/cluster), printed. */
static pl_status status_once(const client_common *cc, pl_client *cl,
                             const status_options *o, pl_error *err)
{
    pl_client_reply r = {0};
    pl_status st = pl_client_request(cl, &r, "GET",
                                     o->cluster ? "/v1/cluster"
                                                : "/v1/status",
                                     NULL, NULL, 0, NULL, 0, err);
    if (st == PL_OK && o->json) {
        fwrite(r.body, 1, r.len, stdout);
        if (r.len && r.body[r.len - 1] != '\n')
            putchar('\n');
    } else if (st == PL_OK &&
               pl__json_root(&r.doc)->type != PL__JSON_OBJECT) {
        st = pl__error_set(err, PL_EFORMAT, "%s: the reply is not an object",
                           r.url);
    } else if (st == PL_OK && o->cluster) {
        print_cluster(&r);
    } else if (st == PL_OK) {
        print_status(cc, &r, pl_client_server(cl));
    }
    pl_client_reply_free(&r);
    return st;
}

/* --watch: the screen cleared and drawn again each second (a terminal's
 * "home, clear"; in a pipe the draws follow one another), until SIGINT
 * or SIGTERM (a watch's normal end: exit 0) or --count draws; a failed
 * reading is shown in place of the figures and the watch goes on (a
 * service restarting comes back into view). */
static int status_watch(const client_common *cc, const status_options *o)
{
    pl_error err = {0};
    pl_client *cl = NULL;
    pl_status st = client_open(&cl, cc, 0, &err);
    if (st != PL_OK) {
        int rc = client_exit("status", cl, st, &err);
        pl_client_close(cl);
        return rc;
    }
    cli_signals_install();
    bool tty = isatty(STDOUT_FILENO);
    for (unsigned n = 0; !cli_signal_caught() && (!o->count || n < o->count);
         n++) {
        double t0 = cli_now();
        fputs(tty ? "\033[H\033[2J" : "\f\n", stdout);
        memset(&err, 0, sizeof(err));
        st = status_once(cc, cl, o, &err);
        if (st != PL_OK)
            printf("%-10s%.*s\n", "error", STATUS_WIDTH - STATUS_INDENT,
                   err.msg);
        time_t now = time(NULL);
        struct tm tmv;
        char when[32];
        strftime(when, sizeof(when), "%H:%M:%S", localtime_r(&now, &tmv));
        printf("\n%s, every 1 s; Ctrl-C ends\n", when);
        fflush(stdout);
        if (o->count && n + 1 == o->count)
            break;
        double left = 1.0 - (cli_now() - t0);
        if (left > 0) {
            struct timespec ts = {0, (long)(left * 1e9)};
            nanosleep(&ts, NULL); /* a signal ends it early */
        }
    }
    int rc = st == PL_OK || cli_signal_caught()
                 ? 0
                 : client_exit("status", cl, st, &err);
    pl_client_close(cl);
    return rc;
}

static int status_run(const client_common *cc, const status_options *o)
{
    pl_error err = {0};
    pl_client *cl = NULL;
    pl_status st = client_open(&cl, cc, 0, &err);
    if (st == PL_OK)
        st = status_once(cc, cl, o, &err);
    int rc = client_exit("status", cl, st, &err);
    pl_client_close(cl);
    return rc;
}

int cli_status(int argc, char **argv)
{
    client_common cc;
    status_options o = {0};
    common_defaults(&cc);
    const cli_table tables[] = {{status_opts, &o}, {client_opts, &cc}};
    int npos = 0;
    int rc = cli_parse(&status_cmd, tables, 2, argc, argv, &npos);
    if (rc == CLI_RUN && npos != 0)
        rc = cli_usage_error("status", "takes no arguments, only options");
    if (rc == CLI_RUN && o.count && !o.watch)
        rc = cli_usage_error("status", "--count is for --watch");
    if (rc == CLI_RUN)
        rc = o.watch ? status_watch(&cc, &o) : status_run(&cc, &o);
    return rc;
}
