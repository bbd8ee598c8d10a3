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
    snprintf(err->msg, sizeof(err->msg), "%.*s", (int)sizeof(err->msg) - 1,
             g_whole);
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
            snprintf(err->msg, sizeof(err->msg), "%.160s: the reply has no "
                     "\"state\"", r->url);
            return PL_EFORMAT;
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
    snprintf(err->msg, sizeof(err->msg), "job %s: stopped waiting", job);
    return PL_ECANCELLED;
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
            snprintf(err->msg, sizeof(err->msg), "job %s: partition %zu: "
                     "the server has no proof yet", job, k);
            return PL_EIO;
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
            snprintf(err.msg, sizeof(err.msg), "%.200s: cannot read it",
                     witnesses[k]);
            st = PL_EIO;
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
        snprintf(err.msg, sizeof(err.msg), "--circuit %.160s: not an id (the "
                 "zkey's sha256 in hex)", o->circuit);
        st = PL_EUSAGE;
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
    "\n"
    "Writes the proofs of a finished job of a `proofline serve`:\n"
    "DIR/pK.proof.json and DIR/pK.public.json for each partition K (from 0),\n"
    "the files `proofline prove` writes.  Without --wait a job that has not\n"
    "ended is an error; with it, the command waits for the job to end.\n",
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
                     const char *job)
{
    pl_error err = {0};
    pl_client *cl = NULL;
    pl_client_reply r = {0};
    char **names = NULL;
    uint64_t total = 0, done_n = 0;
    pl_status st = PL_OK;

    if (!id_ok(job)) {
        snprintf(err.msg, sizeof(err.msg), "%.160s: not a job id", job);
        st = PL_EUSAGE;
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
        snprintf(err.msg, sizeof(err.msg), "%.160s: the job has no "
                 "partitions", r.url);
        st = PL_EFORMAT;
        goto done;
    }
    if (!(names = calloc((size_t)total, sizeof(char *)))) {
        st = PL_ENOMEM;
        goto done;
    }
    for (size_t k = 0; k < total; k++) {
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
    if (rc == CLI_RUN && (npos != 1 || !o.out_dir))
        rc = cli_usage_error("fetch", "needs one JOB and --out DIR");
    if (rc == CLI_RUN) {
        cli_signals_install();
        rc = fetch_run(&cc, &o, argv[0]);
    }
    return rc;
}

/* ---- jobs --------------------------------------------------------------- */

static const cli_command jobs_cmd = {
    "jobs",
    "Usage: proofline jobs [--server URL] [--state S] [--limit N] [--json]\n"
    "\n"
    "Lists the jobs of a `proofline serve`, newest first: id, state,\n"
    "priority, partitions done, circuit, when it was created (UTC), how long\n"
    "it ran, and a failed job's message.\n",
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

static void print_job_row(const pl_client_reply *r, const pl__json_value *j)
{
    char created[32], dur[32] = "-", parts[32];
    const char *id = pl_client_str(r, j, "id");
    const char *state = pl_client_str(r, j, "state");
    const char *prio = pl_client_str(r, j, "priority");
    const char *circuit = pl_client_str(r, j, "circuit");
    const char *error = pl_client_str(r, j, "error");
    int64_t c_ms = pl_client_int(r, j, "created_ms", 0);
    int64_t f_ms = pl_client_int(r, j, "finished_ms", 0);
    uint64_t total, done;
    job_counts(r, j, &total, &done);
    snprintf(parts, sizeof(parts), "%llu/%llu", (unsigned long long)done,
             (unsigned long long)total);
    if (c_ms > 0 && f_ms >= c_ms)
        snprintf(dur, sizeof(dur), "%.2fs", (double)(f_ms - c_ms) / 1000.0);
    printf("%-36s  %-9s  %-6s  %7s  %-12.12s  %-19s  %9s  %s\n",
           id ? id : "?", state ? state : "?", prio ? prio : "?", parts,
           circuit ? circuit : "?", fmt_time(created, sizeof(created), c_ms),
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
        snprintf(err.msg, sizeof(err.msg), "%.160s: the reply has no "
                 "\"jobs\" array", r.url);
        st = PL_EFORMAT;
        goto done;
    }
    printf("%-36s  %-9s  %-6s  %7s  %-12s  %-19s  %9s  %s\n", "ID", "STATE",
           "PRIO", "DONE", "CIRCUIT", "CREATED (UTC)", "TOOK", "ERROR");
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
    "\n"
    "Shows the ledger of a `proofline serve`, live: the byte budget, what is\n"
    "reserved and its peak, the process's RssAnon and the bytes no class\n"
    "accounts for, each buffer class (count, bytes, peak), partitions per\n"
    "stage, the queue per priority, jobs per state, and the workers.\n"
    "With --cluster: every service on the server's store (one PostgreSQL\n"
    "queue): host, budget, reserved, partitions per stage, last heartbeat.\n",
    client_exit_text, 21};

typedef struct {
    bool json, cluster;
} status_options;

static const cli_opt status_opts[] = {
    {"--json", NULL, CLI_FLAG, offsetof(status_options, json),
     .help = "print the server's reply (GET /v1/status) as it is"},
    {"--cluster", NULL, CLI_FLAG, offsetof(status_options, cluster),
     .help = "the cluster's view instead (GET /v1/cluster)"},
    {NULL},
};

/* "a 1, b 2, c 0" from an object of numbers. */
static void print_counts(const char *label, const pl_client_reply *r,
                         const pl__json_value *obj)
{
    printf("%-10s", label);
    if (!obj || obj->type != PL__JSON_OBJECT || obj->len == 0) {
        printf("-\n");
        return;
    }
    const char *sep = "";
    for (const pl__json_value *m = pl__json_first(obj);
         m != pl__json_end(obj); m = pl__json_next(m)) {
        printf("%s%s %llu", sep, m->key,
               (unsigned long long)pl_client_num(r, obj, m->key, 0));
        sep = ", ";
    }
    putchar('\n');
}

/* A scalar member as text, for the workers' lines. */
static void print_scalar(const pl__json_value *v)
{
    switch (v->type) {
    case PL__JSON_NULL: printf("null"); break;
    case PL__JSON_TRUE: printf("true"); break;
    case PL__JSON_FALSE: printf("false"); break;
    case PL__JSON_NUMBER: printf("%.*s", (int)v->len, v->text); break;
    case PL__JSON_STRING: printf("%s", v->text); break;
    case PL__JSON_ARRAY: printf("[%zu]", v->len); break;
    default: printf("{%zu}", v->len); break;
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
    printf("%-10s%s (proofline %s%s%s, up %llud %02lluh %02llum %02llus)%s\n",
           "server", server, version ? version : "?",
           backend ? ", backend " : "", backend ? backend : "",
           (unsigned long long)(up / 86400),
           (unsigned long long)(up / 3600 % 24),
           (unsigned long long)(up / 60 % 60), (unsigned long long)(up % 60),
           drain && drain->type == PL__JSON_TRUE ? " DRAINING" : "");
    printf("%-10s%s, reserved %s (%.1f%%), peak %s (%.1f%%)\n", "budget",
           fmt_bytes(a, sizeof(a), budget), fmt_bytes(b, sizeof(b), reserved),
           budget ? 100.0 * (double)reserved / (double)budget : 0.0,
           fmt_bytes(c, sizeof(c), peak),
           budget ? 100.0 * (double)peak / (double)budget : 0.0);
    int64_t untracked = pl_client_int(r, root, "untracked_bytes", 0);
    char d[32];
    printf("%-10sRssAnon %s (peak %s), tracked %s, untracked %s%s\n",
           "memory",
           fmt_bytes(a, sizeof(a), pl_client_num(r, root, "rss_anon_bytes",
                                                  0)),
           fmt_bytes(b, sizeof(b),
                     pl_client_num(r, root, "peak_rss_anon_bytes", 0)),
           fmt_bytes(c, sizeof(c), pl_client_num(r, root, "tracked_bytes",
                                                  0)),
           untracked < 0 ? "-" : "",
           fmt_bytes(d, sizeof(d), untracked < 0 ? (uint64_t)-untracked
                                                 : (uint64_t)untracked));
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
            printf("%-10s", i == 0 ? "workers" : "");
            if (w->type != PL__JSON_OBJECT) {
                print_scalar(w);
                putchar('\n');
                continue;
            }
            const char *sep = "";
            for (const pl__json_value *m = pl__json_first(w);
                 m != pl__json_end(w); m = pl__json_next(m)) {
                if (m->type == PL__JSON_STRING && !m->text[0])
                    continue; /* an empty last_error, say */
                printf("%s%s=", sep, m->key);
                print_scalar(m);
                sep = " ";
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

static int status_run(const client_common *cc, const status_options *o)
{
    pl_error err = {0};
    pl_client *cl = NULL;
    pl_client_reply r = {0};
    pl_status st;
    if ((st = client_open(&cl, cc, 0, &err)) ||
        (st = pl_client_request(cl, &r, "GET",
                                 o->cluster ? "/v1/cluster" : "/v1/status",
                                 NULL, NULL, 0, NULL, 0, &err)))
        goto done;
    if (o->json) {
        fwrite(r.body, 1, r.len, stdout);
        if (r.len && r.body[r.len - 1] != '\n')
            putchar('\n');
    } else if (pl__json_root(&r.doc)->type != PL__JSON_OBJECT) {
        snprintf(err.msg, sizeof(err.msg), "%.160s: the reply is not an "
                 "object", r.url);
        st = PL_EFORMAT;
    } else if (o->cluster) {
        print_cluster(&r);
    } else {
        print_status(cc, &r, pl_client_server(cl));
    }
done:
    pl_client_reply_free(&r);
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
    if (rc == CLI_RUN)
        rc = status_run(&cc, &o);
    return rc;
}
