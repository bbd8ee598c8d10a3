/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the store does the same on every database (see store.h, driver.h):
 * the names of states and priorities (the API's and the metrics'
 * vocabulary), the choice of a driver by locator, transactions and their
 * retries (pl__store_txn), rows read into records, the checks of
 * arguments, and the calls that are not the job state machine (jobs.c):
 * circuits, workers, listings by pages, counts, purge, the probe.
 */
#define _DEFAULT_SOURCE /* getrandom */
#include "driver.h"
#include "util/error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

/* Runs of a transaction in all, when its failures allow a retry. */
#define TXN_RUNS 5

/* ---- names ------------------------------------------------------------------ */

const char *pl__job_state_name(pl__job_state s)
{
    static const char *const names[] = {
#define PL__JOB_STATE_NAME(name, label) label,
        PL__JOB_STATE_MAP(PL__JOB_STATE_NAME)
#undef PL__JOB_STATE_NAME
    };
    return (unsigned)s < PL__JOB_STATE_COUNT ? names[s] : "unknown";
}

const char *pl__part_state_name(pl__part_state s)
{
    static const char *const names[] = {
#define PL__PART_STATE_NAME(name, label) label,
        PL__PART_STATE_MAP(PL__PART_STATE_NAME)
#undef PL__PART_STATE_NAME
    };
    return (unsigned)s < PL__PART_STATE_COUNT ? names[s] : "unknown";
}

static const char *const priority_names[PL__PRIORITY_COUNT] = {
    "low", "normal", "high", "critical"};
_Static_assert(PL__PRIORITY_CRITICAL == PL_PRIORITY_CRITICAL &&
                   PL__PRIORITY_HIGH == PL_PRIORITY_HIGH &&
                   PL__PRIORITY_NORMAL == PL_PRIORITY_NORMAL &&
                   PL__PRIORITY_LOW == PL_PRIORITY_LOW,
               "the store's priorities are the engine's");

const char *pl__priority_name(pl__priority p)
{
    return (unsigned)p < PL__PRIORITY_COUNT ? priority_names[p] : "unknown";
}

bool pl__priority_parse(pl__priority *out, const char *text)
{
    for (int p = 0; p < PL__PRIORITY_COUNT; p++)
        if (text && strcmp(text, priority_names[p]) == 0) {
            *out = (pl__priority)p;
            return true;
        }
    return false;
}

bool pl__job_state_parse(pl__job_state *out, const char *label)
{
    for (int s = 0; s < PL__JOB_STATE_COUNT; s++)
        if (label && strcmp(label, pl__job_state_name((pl__job_state)s)) == 0) {
            *out = (pl__job_state)s;
            return true;
        }
    return false;
}

bool pl__part_state_parse(pl__part_state *out, const char *label)
{
    for (int s = 0; s < PL__PART_STATE_COUNT; s++)
        if (label &&
            strcmp(label, pl__part_state_name((pl__part_state)s)) == 0) {
            *out = (pl__part_state)s;
            return true;
        }
    return false;
}

/* ---- small helpers ------------------------------------------------------------ */

void pl__store_copy(char *dst, size_t cap, const char *text)
{
    snprintf(dst, cap, "%s", text ? text : "");
}

/* Wall-clock time: leases and timestamps are compared across processes
 * (and, with PostgreSQL, across machines: there the database's clock is
 * used instead), so a monotonic clock of one process would not do. */
int64_t pl__store_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

pl_status pl__store_new_job_id(char out[PL__STORE_JOB_ID_LEN + 1],
                               pl_error *err)
{
    uint8_t b[16];
    size_t got = 0;
    while (got < sizeof(b)) {
        ssize_t n = getrandom(b + got, sizeof(b) - got, 0);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return pl__error_errno(err, PL_EIO, errno,
                                   "store: cannot draw a job id (getrandom)");
        }
        got += (size_t)n;
    }
    b[6] = (uint8_t)((b[6] & 0x0f) | 0x40); /* version 4 */
    b[8] = (uint8_t)((b[8] & 0x3f) | 0x80); /* RFC 4122 variant */
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            out[o++] = '-';
        out[o++] = hex[b[i] >> 4];
        out[o++] = hex[b[i] & 15];
    }
    out[o] = 0;
    return PL_OK;
}

pl_status pl__store_absent(pl_error *err, const char *fmt, ...)
{
    char msg[sizeof(err->msg)];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    pl__error_set(err, PL_EUSAGE, "%s", msg);
    err->sys_errno = ENOENT;
    return PL_EUSAGE;
}

bool pl__store_is_not_found(const pl_error *err)
{
    return err && err->code == PL_EUSAGE && err->sys_errno == ENOENT;
}

/* Replaces every byte that does not begin a valid UTF-8 sequence (or
 * belongs to a cut or overlong one) with '?', in place. */
static void utf8_scrub(char *text)
{
    unsigned char *p = (unsigned char *)text;
    while (*p) {
        size_t len = *p < 0x80 ? 1 : (*p & 0xe0) == 0xc0 ? 2
                   : (*p & 0xf0) == 0xe0 ? 3 : (*p & 0xf8) == 0xf0 ? 4 : 0;
        bool ok = len > 0 && !(len == 2 && *p < 0xc2) &&
                  !(len == 4 && *p > 0xf4);
        for (size_t i = 1; ok && i < len; i++)
            ok = (p[i] & 0xc0) == 0x80;
        if (ok && len == 3) /* overlong forms and UTF-16 surrogates */
            ok = !(p[0] == 0xe0 && p[1] < 0xa0) &&
                 !(p[0] == 0xed && p[1] >= 0xa0);
        if (ok && len == 4)
            ok = !(p[0] == 0xf0 && p[1] < 0x90) &&
                 !(p[0] == 0xf4 && p[1] >= 0x90);
        if (!ok) {
            *p++ = '?';
            continue;
        }
        p += len;
    }
}

/* PostgreSQL refuses text that is not UTF-8, and a message may quote a
 * file name in another encoding. */
void pl__store_message(char cut[PL__STORE_MSG_MAX], const char *msg)
{
    pl__store_copy(cut, PL__STORE_MSG_MAX, msg && *msg ? msg : "failed");
    size_t n = strlen(cut);
    if (msg && strlen(msg) > n) {
        while (n > 0 && ((unsigned char)msg[n] & 0xc0) == 0x80)
            n--;
        cut[n] = 0;
    }
    utf8_scrub(cut);
}

bool pl__store_paths_add(pl__store_paths *l, const char *path)
{
    if (!path[0])
        return true;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        char **v = realloc(l->v, cap * sizeof(*v));
        if (!v)
            return false;
        l->v = v;
        l->cap = cap;
    }
    return (l->v[l->n++] = strdup(path)) != NULL;
}

void pl__store_paths_truncate(pl__store_paths *l, size_t keep)
{
    while (l->n > keep)
        free(l->v[--l->n]);
}

void pl__store_paths_free(pl__store_paths *l)
{
    pl__store_paths_truncate(l, 0);
    free(l->v);
    l->v = NULL;
    l->cap = 0;
}

pl_status pl__store_check_text(const char *what, const char *text, size_t cap,
                               bool may_be_empty, pl_error *err)
{
    if (!text || (!may_be_empty && !*text))
        return pl__error_set(err, PL_EUSAGE, "store: no %s given", what);
    if (strlen(text) >= cap)
        return pl__error_set(err, PL_EUSAGE,
                             "store: the %s is too long (%zu bytes, at most "
                             "%zu)", what, strlen(text), cap - 1);
    return PL_OK;
}

/* ---- rows ----------------------------------------------------------------------- */

void pl__sql_rows_free(pl__sql_rows *r)
{
    if (!r || !r->cells)
        return;
    for (size_t i = 0; i < r->n * r->cols; i++)
        free(r->cells[i]);
    free(r->cells);
    memset(r, 0, sizeof(*r));
}

const char *pl__sql_text(const pl__sql_rows *r, size_t row, size_t col)
{
    if (row >= r->n || col >= r->cols || !r->cells[row * r->cols + col])
        return "";
    return r->cells[row * r->cols + col];
}

int64_t pl__sql_i64(const pl__sql_rows *r, size_t row, size_t col)
{
    return strtoll(pl__sql_text(r, row, col), NULL, 10);
}

uint64_t pl__sql_u64(const pl__sql_rows *r, size_t row, size_t col)
{
    int64_t v = pl__sql_i64(r, row, col);
    return v < 0 ? 0 : (uint64_t)v;
}

bool pl__sql_bool(const pl__sql_rows *r, size_t row, size_t col)
{
    const char *t = pl__sql_text(r, row, col);
    return strcmp(t, "t") == 0 || strcmp(t, "true") == 0 ||
           strcmp(t, "1") == 0;
}

void pl__store_read_circuit(const pl__sql_rows *r, size_t row, size_t off,
                            pl__store_circuit *c)
{
    memset(c, 0, sizeof(*c));
    pl__store_copy(c->id, sizeof(c->id), pl__sql_text(r, row, off + 0));
    pl__store_copy(c->zkey_path, sizeof(c->zkey_path),
                   pl__sql_text(r, row, off + 1));
    c->zkey_bytes = pl__sql_u64(r, row, off + 2);
    c->n_constraints = pl__sql_u64(r, row, off + 3);
    c->n_vars = pl__sql_u64(r, row, off + 4);
    c->n_public = pl__sql_u64(r, row, off + 5);
    c->witness_bytes = pl__sql_u64(r, row, off + 6);
    c->partition_bytes = pl__sql_u64(r, row, off + 7);
    c->created_unix_ms = pl__sql_i64(r, row, off + 8);
    pl__store_copy(c->curve, sizeof(c->curve), pl__sql_text(r, row, off + 9));
}

void pl__store_read_job(const pl__sql_rows *r, size_t row, size_t off,
                        pl__store_job *j)
{
    memset(j, 0, sizeof(*j));
    pl__store_copy(j->id, sizeof(j->id), pl__sql_text(r, row, off + 0));
    pl__store_copy(j->circuit_id, sizeof(j->circuit_id),
                   pl__sql_text(r, row, off + 1));
    int64_t p = pl__sql_i64(r, row, off + 2);
    j->priority = p >= 0 && p < PL__PRIORITY_COUNT ? (pl__priority)p
                                                   : PL__PRIORITY_NORMAL;
    pl__job_state js = PL__JOB_FAILED; /* the schema forbids other labels */
    pl__job_state_parse(&js, pl__sql_text(r, row, off + 3));
    j->state = js;
    j->n_partitions = (uint32_t)pl__sql_i64(r, row, off + 4);
    j->seq = pl__sql_u64(r, row, off + 5);
    j->created_unix_ms = pl__sql_i64(r, row, off + 6);
    j->updated_unix_ms = pl__sql_i64(r, row, off + 7);
    j->finished_unix_ms = pl__sql_i64(r, row, off + 8);
    pl__store_copy(j->error, sizeof(j->error), pl__sql_text(r, row, off + 9));
    j->deadline_unix_ms = pl__sql_i64(r, row, off + 12);
    pl__store_copy(j->curve, sizeof(j->curve), pl__sql_text(r, row, off + 13));
}

void pl__store_read_part(const pl__sql_rows *r, size_t row, size_t off,
                         pl__store_partition *p)
{
    memset(p, 0, sizeof(*p));
    pl__store_copy(p->job_id, sizeof(p->job_id),
                   pl__sql_text(r, row, off + 0));
    p->index = (uint32_t)pl__sql_i64(r, row, off + 1);
    pl__part_state ps = PL__PART_FAILED;
    pl__part_state_parse(&ps, pl__sql_text(r, row, off + 2));
    p->state = ps;
    pl__store_copy(p->witness_path, sizeof(p->witness_path),
                   pl__sql_text(r, row, off + 3));
    pl__store_copy(p->proof_path, sizeof(p->proof_path),
                   pl__sql_text(r, row, off + 4));
    pl__store_copy(p->owner, sizeof(p->owner), pl__sql_text(r, row, off + 5));
    p->fence = pl__sql_u64(r, row, off + 6);
    p->lease_until_unix_ms = pl__sql_i64(r, row, off + 7);
    p->attempts = (uint32_t)pl__sql_i64(r, row, off + 8);
    p->completions = (uint32_t)pl__sql_i64(r, row, off + 9);
    p->claimed_unix_ms = pl__sql_i64(r, row, off + 10);
    p->finished_unix_ms = pl__sql_i64(r, row, off + 11);
    pl__store_copy(p->error, sizeof(p->error), pl__sql_text(r, row, off + 12));
    p->started_unix_ms = pl__sql_i64(r, row, off + 13);
}

/* ---- transactions ---------------------------------------------------------------- */

pl_status pl__store_exec(pl__store *s, pl__sql_id id, const pl__sql_arg *args,
                         size_t n, pl__sql_rows *rows, pl_error *err)
{
    if (rows)
        memset(rows, 0, sizeof(*rows));
    return s->drv->exec(s, id, args, n, rows, err);
}

pl_status pl__store_txn(pl__store *s, pl__txn_kind kind, bool repeatable,
                        pl__txn_body body, void *arg, pl_error *err)
{
    pthread_mutex_lock(&s->lock);
    pl_status st = s->drv->connect(s, err);
    for (int run = 0; st == PL_OK; run++) {
        int64_t now = 0;
        st = s->drv->begin(s, kind, &now, err);
        if (st == PL_OK)
            st = body(s, arg, now, err);
        if (kind != PL__TXN_ONE) {
            if (st == PL_OK)
                st = s->drv->commit(s, err);
            else
                s->drv->rollback(s);
        }
        if (st == PL_OK || run + 1 == TXN_RUNS)
            break;
        pl__txn_fate fate = s->drv->fate(s);
        bool again = fate == PL__FATE_RETRY || fate == PL__FATE_LOST ||
                     (fate == PL__FATE_UNKNOWN && repeatable);
        if (!again)
            break;
        if (fate != PL__FATE_RETRY) {
            pl_error lost = *err;
            if (s->drv->connect(s, err) != PL_OK) {
                *err = lost; /* the first cause is the clearer */
                break;
            }
        }
        st = PL_OK; /* and again */
    }
    pthread_mutex_unlock(&s->lock);
    return st;
}

pl_status pl__store_get_job(pl__store *s, const char *id, pl__store_job *out,
                            pl_error *err)
{
    pl__sql_rows r;
    pl_status st = PL__EXEC(s, PL__SQL_JOB_GET, &r, err, pl__arg_text(id));
    if (st == PL_OK && r.n == 0)
        st = pl__store_absent(err, "store: no job %s", id);
    else if (st == PL_OK && out)
        pl__store_read_job(&r, 0, 0, out);
    pl__sql_rows_free(&r);
    return st;
}

pl_status pl__store_get_circuit(pl__store *s, const char *id,
                                pl__store_circuit *out, pl_error *err)
{
    pl__sql_rows r;
    pl_status st = PL__EXEC(s, PL__SQL_CIRCUIT_GET, &r, err,
                            pl__arg_text(id));
    if (st == PL_OK && r.n == 0)
        st = pl__store_absent(err, "store: no circuit %s", id);
    else if (st == PL_OK)
        pl__store_read_circuit(&r, 0, 0, out);
    pl__sql_rows_free(&r);
    return st;
}

pl_status pl__store_get_part(pl__store *s, const char *job_id, uint32_t index,
                             pl__store_partition *out, pl_error *err)
{
    pl__store_job job;
    pl_status st = pl__store_get_job(s, job_id, &job, err);
    if (st != PL_OK)
        return st;
    pl__sql_rows r;
    st = PL__EXEC(s, PL__SQL_PART_GET, &r, err, pl__arg_text(job_id),
                  pl__arg_int(index));
    if (st == PL_OK && r.n == 0)
        st = pl__store_absent(err, "store: job %s has %u partitions: no "
                              "partition %u", job_id, job.n_partitions,
                              index);
    else if (st == PL_OK)
        pl__store_read_part(&r, 0, 0, out);
    pl__sql_rows_free(&r);
    return st;
}

/* ---- opening: the driver by locator ----------------------------------------------- */

static bool has_prefix(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The store's own options in the locator's query ("?max_attempts=N",
 * alone or among libpq's parameters), taken out of it: what is left
 * (into out) is the folder or the libpq URI.  *max_attempts stays as it
 * was when the locator does not say.  Messages never quote the locator
 * (a URI may hold a password). */
static pl_status split_options(const char *locator, char *out, size_t cap,
                               uint32_t *max_attempts, pl_error *err)
{
    static const char key[] = "max_attempts=";
    if (strlen(locator) >= cap)
        return pl__error_set(err, PL_EUSAGE,
                             "store: the locator is too long (at most %zu "
                             "bytes)", cap - 1);
    const char *q = strchr(locator, '?');
    size_t base = q ? (size_t)(q - locator) : strlen(locator);
    memcpy(out, locator, base);
    out[base] = 0;
    size_t o = base;
    bool first = true;
    for (const char *p = q ? q + 1 : NULL; p && *p;) {
        const char *end = strchr(p, '&');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len > strlen(key) && strncmp(p, key, strlen(key)) == 0) {
            char digits[16];
            size_t n = len - strlen(key);
            unsigned long v = 0;
            bool ok = n < sizeof(digits);
            if (ok) {
                memcpy(digits, p + strlen(key), n);
                digits[n] = 0;
                char *stop = NULL;
                v = strtoul(digits, &stop, 10);
                ok = digits[0] >= '0' && digits[0] <= '9' && *stop == 0 &&
                     v >= 1 && v <= 1000;
            }
            if (!ok)
                return pl__error_set(err, PL_EUSAGE,
                                     "store: max_attempts in the locator: a "
                                     "whole number from 1 to 1000");
            *max_attempts = (uint32_t)v;
        } else if (len) {
            out[o++] = first ? '?' : '&';
            memcpy(out + o, p, len);
            o += len;
            out[o] = 0;
            first = false;
        }
        p = end ? end + 1 : NULL;
    }
    return PL_OK;
}

static pl_status open_at(pl__store **out, const char *locator, int target,
                         int *before, pl_error *err)
{
    *out = NULL;
    int found = 0;
    if (before)
        *before = 0;
    if (!locator || !*locator)
        return pl__error_set(err, PL_EUSAGE,
                             "store: no locator (a folder or postgres://...)");
    uint32_t max_attempts = PL__STORE_MAX_ATTEMPTS_DEFAULT;
    char plain[PL__STORE_PATH_MAX];
    pl_status split = split_options(locator, plain, sizeof(plain),
                                    &max_attempts, err);
    if (split != PL_OK)
        return split;
    locator = plain;
    if (target < 1 || target > PL__STORE_SCHEMA_VERSION)
        return pl__error_set(err, PL_EUSAGE,
                             "store %s: no schema version %d (this build "
                             "knows 1 to %d)",
                             locator, target, PL__STORE_SCHEMA_VERSION);
    pl_status status;
    if (has_prefix(locator, "postgres://") ||
        has_prefix(locator, "postgresql://"))
        status = pl__store_postgres_open(out, locator, target, &found, err);
    else if (strstr(locator, "://"))
        return pl__error_set(err, PL_EUNSUPPORTED,
                             "store %s: unknown kind of store (a folder, or "
                             "postgres://...)", locator);
    else
        status = pl__store_sqlite_open(out, locator, target, &found, err);
    if (status == PL_OK)
        (*out)->max_attempts = max_attempts;
    if (before)
        *before = found;
    return status;
}

pl_status pl__store_open(pl__store **out, const char *locator, pl_error *err)
{
    return open_at(out, locator, PL__STORE_SCHEMA_VERSION, NULL, err);
}

pl_status pl__store_migrate(const char *locator, int target_version,
                            int *before, int *after, pl_error *err)
{
    pl__store *s = NULL;
    if (after)
        *after = 0;
    pl_status status =
        open_at(&s, locator,
                target_version ? target_version : PL__STORE_SCHEMA_VERSION,
                before, err);
    if (status == PL_OK && after)
        *after = s->schema_version;
    pl__store_close(s);
    return status;
}

void pl__store_set_max_attempts(pl__store *store, uint32_t max_attempts)
{
    store->max_attempts = max_attempts ? max_attempts : 1;
}

uint32_t pl__store_max_attempts(const pl__store *store)
{
    return store->max_attempts;
}

void pl__store_close(pl__store *store)
{
    if (store)
        store->drv->close(store);
}

int pl__store_schema_version(const pl__store *store)
{
    return store ? store->schema_version : PL__STORE_SCHEMA_VERSION;
}

/* ---- circuits ------------------------------------------------------------------------ */

static pl_status body_circuit_put(pl__store *s, void *arg, int64_t now,
                                  pl_error *err)
{
    const pl__store_circuit *c = arg;
    return PL__EXEC(s, PL__SQL_CIRCUIT_PUT, NULL, err, pl__arg_text(c->id),
                    pl__arg_text(c->zkey_path), pl__arg_u64(c->zkey_bytes),
                    pl__arg_u64(c->n_constraints), pl__arg_u64(c->n_vars),
                    pl__arg_u64(c->n_public), pl__arg_u64(c->witness_bytes),
                    pl__arg_u64(c->partition_bytes),
                    pl__arg_int(c->created_unix_ms ? c->created_unix_ms
                                                   : now),
                    pl__arg_text(c->curve));
}

pl_status pl__store_circuit_put(pl__store *store, const pl__store_circuit *c,
                                pl_error *err)
{
    PL__CHECK_TEXT("circuit id", c->id, sizeof(c->id));
    PL__CHECK_TEXT("zkey path", c->zkey_path, sizeof(c->zkey_path));
    /* "" is a circuit whose curve is not known (a test's) */
    pl_status cst = pl__store_check_text("curve", c->curve, sizeof(c->curve),
                                         true, err);
    if (cst != PL_OK)
        return cst;
    /* Both databases keep 64-bit signed integers. */
    const uint64_t sizes[] = {c->zkey_bytes,    c->n_constraints,
                              c->n_vars,        c->n_public,
                              c->witness_bytes, c->partition_bytes};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        if (sizes[i] > (uint64_t)INT64_MAX)
            return pl__error_set(err, PL_EUSAGE,
                                 "store: circuit %s: a size above 2^63",
                                 c->id);
    return pl__store_txn(store, PL__TXN_WRITE, true, body_circuit_put,
                         (void *)c, err);
}

typedef struct {
    const char *id, *curve;
} circuit_curve_args;

static pl_status body_circuit_curve(pl__store *s, void *arg, int64_t now,
                                    pl_error *err)
{
    (void)now;
    const circuit_curve_args *a = arg;
    return PL__EXEC(s, PL__SQL_CIRCUIT_CURVE, NULL, err, pl__arg_text(a->id),
                    pl__arg_text(a->curve));
}

pl_status pl__store_circuit_set_curve(pl__store *store, const char *id,
                                      const char *curve, pl_error *err)
{
    PL__CHECK_TEXT("circuit id", id, PL__STORE_ID_LEN + 1);
    PL__CHECK_TEXT("curve", curve, PL__STORE_CURVE_LEN + 1);
    circuit_curve_args a = {id, curve};
    return pl__store_txn(store, PL__TXN_WRITE, true, body_circuit_curve, &a,
                         err);
}

typedef struct {
    const char *id;
    pl__store_circuit *out;
} circuit_get_args;

static pl_status body_circuit_get(pl__store *s, void *arg, int64_t now,
                                  pl_error *err)
{
    circuit_get_args *a = arg;
    return pl__store_get_circuit(s, a->id, a->out, err);
}

pl_status pl__store_circuit_get(pl__store *store, const char *id,
                                pl__store_circuit *out, pl_error *err)
{
    PL__CHECK_COPY("circuit id", id, PL__STORE_ID_LEN + 1);
    memset(out, 0, sizeof(*out));
    circuit_get_args a = {id, out};
    return pl__store_txn(store, PL__TXN_ONE, true, body_circuit_get, &a, err);
}

/* ---- listings, a page per transaction --------------------------------------------- */

/* One page of a listing: the statement, its cursor and where the rows go. */
typedef struct {
    pl__sql_id stmt;
    const char *after;     /* circuits, workers: the last id read */
    int64_t before;        /* jobs: the last seq read */
    const char *state;     /* jobs: NULL for every state */
    void *rows;
    size_t n;
    char after_buf[PL__STORE_OWNER_MAX]; /* the ids' cursor */
} page_args;

static pl_status body_page(pl__store *s, void *arg, int64_t now,
                           pl_error *err)
{
    page_args *a = arg;
    pl__sql_rows r;
    pl_status st;
    pl__sql_arg lim = pl__arg_int(PL__STORE_LIST_PAGE);
    if (a->stmt == PL__SQL_JOB_PAGE_STATE)
        st = PL__EXEC(s, a->stmt, &r, err, pl__arg_int(a->before), lim,
                      pl__arg_text(a->state));
    else if (a->stmt == PL__SQL_JOB_PAGE)
        st = PL__EXEC(s, a->stmt, &r, err, pl__arg_int(a->before), lim);
    else
        st = PL__EXEC(s, a->stmt, &r, err, pl__arg_text(a->after), lim);
    a->n = 0;
    for (size_t i = 0; st == PL_OK && i < r.n && i < PL__STORE_LIST_PAGE;
         i++, a->n++) {
        if (a->stmt == PL__SQL_CIRCUIT_PAGE) {
            pl__store_read_circuit(&r, i, 0, (pl__store_circuit *)a->rows + i);
        } else if (a->stmt == PL__SQL_WORKER_PAGE) {
            pl__store_worker *w = (pl__store_worker *)a->rows + i;
            memset(w, 0, sizeof(*w));
            pl__store_copy(w->id, sizeof(w->id), pl__sql_text(&r, i, 0));
            pl__store_copy(w->host, sizeof(w->host), pl__sql_text(&r, i, 1));
            w->pid = pl__sql_i64(&r, i, 2);
            pl__store_copy(w->backend, sizeof(w->backend),
                           pl__sql_text(&r, i, 3));
            pl__store_copy(w->gpus, sizeof(w->gpus), pl__sql_text(&r, i, 4));
            w->budget_bytes = pl__sql_u64(&r, i, 5);
            w->reserved_bytes = pl__sql_u64(&r, i, 6);
            pl__store_copy(w->status_json, sizeof(w->status_json),
                           pl__sql_text(&r, i, 7));
            w->gone = pl__sql_bool(&r, i, 8);
            w->started_unix_ms = pl__sql_i64(&r, i, 9);
            w->heartbeat_unix_ms = pl__sql_i64(&r, i, 10);
            /* on the store's clock, so machines that disagree agree */
            w->age_ms = now - w->heartbeat_unix_ms;
        } else {
            pl__store_read_job(&r, i, 0, (pl__store_job *)a->rows + i);
        }
    }
    pl__sql_rows_free(&r);
    return st;
}

/* The walk over pages: a page in a transaction, then the callbacks with
 * no lock held (so they may call the store), until one returns false or
 * a page comes back short.  next() moves the cursor past the last row of
 * a page; tell() gives row i to the caller. */
typedef struct {
    page_args page;
    size_t row_size;
    size_t limit, told;
    void (*next)(page_args *p, const void *last);
    bool (*tell)(void *fn, void *user, const void *row);
    void *fn, *user;
} walk;

static pl_status walk_pages(pl__store *store, walk *w, pl_error *err)
{
    w->page.rows = malloc(PL__STORE_LIST_PAGE * w->row_size);
    if (!w->page.rows)
        return pl__error_set(err, PL_ENOMEM, "store: a listing: out of "
                             "memory");
    pl_status st = PL_OK;
    /* the workers' ages need the store's clock: a read transaction */
    pl__txn_kind kind = w->page.stmt == PL__SQL_WORKER_PAGE ? PL__TXN_READ
                                                            : PL__TXN_ONE;
    for (bool more = true; more;) {
        if ((st = pl__store_txn(store, kind, true, body_page, &w->page, err)))
            break;
        size_t n = w->page.n;
        more = n == PL__STORE_LIST_PAGE;
        if (n)
            w->next(&w->page, (char *)w->page.rows + (n - 1) * w->row_size);
        for (size_t i = 0; i < n; i++) {
            if ((w->limit && w->told == w->limit) ||
                !w->tell(w->fn, w->user,
                         (char *)w->page.rows + i * w->row_size)) {
                more = false;
                break;
            }
            w->told++;
        }
        if (w->limit && w->told == w->limit)
            more = false;
    }
    free(w->page.rows);
    return st;
}

/* The cursor is a copy of the last id, kept in the page's own buffer. */
static void next_circuit(page_args *p, const void *last)
{
    pl__store_copy(p->after_buf, sizeof(p->after_buf),
                   ((const pl__store_circuit *)last)->id);
    p->after = p->after_buf;
}

static void next_worker(page_args *p, const void *last)
{
    pl__store_copy(p->after_buf, sizeof(p->after_buf),
                   ((const pl__store_worker *)last)->id);
    p->after = p->after_buf;
}

static void next_job(page_args *p, const void *last)
{
    p->before = (int64_t)((const pl__store_job *)last)->seq;
}

static bool tell_circuit(void *fn, void *user, const void *row)
{
    return ((pl__store_circuit_fn)fn)(user, row);
}

static bool tell_worker(void *fn, void *user, const void *row)
{
    return ((pl__store_worker_fn)fn)(user, row);
}

static bool tell_job(void *fn, void *user, const void *row)
{
    return ((pl__store_job_fn)fn)(user, row);
}

pl_status pl__store_circuit_list(pl__store *store, pl__store_circuit_fn fn,
                                 void *user, pl_error *err)
{
    walk w = {{.stmt = PL__SQL_CIRCUIT_PAGE, .after = ""},
              sizeof(pl__store_circuit), 0, 0, next_circuit, tell_circuit,
              (void *)fn, user};
    return walk_pages(store, &w, err);
}

pl_status pl__store_worker_list(pl__store *store, pl__store_worker_fn fn,
                                void *user, pl_error *err)
{
    walk w = {{.stmt = PL__SQL_WORKER_PAGE, .after = ""},
              sizeof(pl__store_worker), 0, 0, next_worker, tell_worker,
              (void *)fn, user};
    return walk_pages(store, &w, err);
}

pl_status pl__store_job_list(pl__store *store, int state, size_t limit,
                             pl__store_job_fn fn, void *user, pl_error *err)
{
    if (state >= PL__JOB_STATE_COUNT)
        return pl__error_set(err, PL_EUSAGE, "store: job state %d", state);
    walk w = {{.stmt = state < 0 ? PL__SQL_JOB_PAGE : PL__SQL_JOB_PAGE_STATE,
               .before = INT64_MAX,
               .state = state < 0 ? NULL
                                  : pl__job_state_name((pl__job_state)state)},
              sizeof(pl__store_job), limit, 0, next_job, tell_job,
              (void *)fn, user};
    return walk_pages(store, &w, err);
}

/* ---- workers ------------------------------------------------------------------------- */

static pl_status check_worker(const pl__store_worker *w, pl_error *err)
{
    PL__CHECK_TEXT("worker id", w->id, sizeof(w->id));
    pl_status st = pl__store_check_text("worker host", w->host,
                                        sizeof(w->host), true, err);
    if (st == PL_OK)
        st = pl__store_check_text("worker backend", w->backend,
                                  sizeof(w->backend), true, err);
    if (st == PL_OK)
        st = pl__store_check_text("worker GPUs", w->gpus, sizeof(w->gpus),
                                  true, err);
    if (st == PL_OK)
        st = pl__store_check_text("worker status", w->status_json,
                                  sizeof(w->status_json), true, err);
    if (st == PL_OK && (w->budget_bytes > (uint64_t)INT64_MAX ||
                        w->reserved_bytes > (uint64_t)INT64_MAX))
        st = pl__error_set(err, PL_EUSAGE,
                           "store: worker %s: a size above 2^63", w->id);
    return st;
}

typedef struct {
    const pl__store_worker *w;
    bool fresh;
    int64_t lease_ms;
} worker_args;

/* Register (fresh) or a tick: the row, and (lease_ms > 0) the leases of
 * the worker's claims, in one transaction. */
static pl_status body_worker_put(pl__store *s, void *arg, int64_t now,
                                 pl_error *err)
{
    worker_args *a = arg;
    const pl__store_worker *w = a->w;
    pl_status st = PL__EXEC(
        s, PL__SQL_WORKER_PUT, NULL, err, pl__arg_text(w->id),
        pl__arg_text(w->host), pl__arg_int(w->pid), pl__arg_text(w->backend),
        pl__arg_text(w->gpus), pl__arg_u64(w->budget_bytes),
        pl__arg_u64(w->reserved_bytes),
        pl__arg_text(w->status_json[0] ? w->status_json : "{}"),
        pl__arg_int(now), pl__arg_bool(a->fresh));
    if (st == PL_OK && a->lease_ms > 0)
        st = PL__EXEC(s, PL__SQL_HEARTBEAT, NULL, err, pl__arg_text(w->id),
                      pl__arg_int(now + a->lease_ms));
    return st;
}

pl_status pl__store_worker_register(pl__store *store,
                                    const pl__store_worker *w, pl_error *err)
{
    pl_status st = check_worker(w, err);
    worker_args a = {w, true, 0};
    return st != PL_OK ? st
                       : pl__store_txn(store, PL__TXN_WRITE, true,
                                       body_worker_put, &a, err);
}

pl_status pl__store_worker_heartbeat(pl__store *store,
                                     const pl__store_worker *w,
                                     int64_t lease_ms, pl_error *err)
{
    pl_status st = check_worker(w, err);
    if (st != PL_OK)
        return st;
    if (lease_ms)
        PL__CHECK_LEASE(lease_ms);
    worker_args a = {w, false, lease_ms};
    return pl__store_txn(store, PL__TXN_WRITE, true, body_worker_put, &a,
                         err);
}

static pl_status body_worker_gone(pl__store *s, void *arg, int64_t now,
                                  pl_error *err)
{
    return PL__EXEC(s, PL__SQL_WORKER_GONE, NULL, err, pl__arg_text(arg));
}

pl_status pl__store_worker_gone(pl__store *store, const char *id,
                                pl_error *err)
{
    PL__CHECK_TEXT("worker id", id, PL__STORE_OWNER_MAX);
    return pl__store_txn(store, PL__TXN_WRITE, true, body_worker_gone,
                         (void *)id, err);
}

/* ---- counts, purge, probe ------------------------------------------------------------- */

static pl_status body_counts(pl__store *s, void *arg, int64_t now,
                             pl_error *err)
{
    pl__store_counts *out = arg;
    memset(out, 0, sizeof(*out));
    static const pl__sql_id ids[] = {PL__SQL_COUNT_JOBS, PL__SQL_COUNT_QUEUED,
                                     PL__SQL_COUNT_CLAIMED};
    pl_status st = PL_OK;
    for (int i = 0; i < 3 && st == PL_OK; i++) {
        pl__sql_rows r;
        if ((st = pl__store_exec(s, ids[i], NULL, 0, &r, err)) != PL_OK)
            break;
        for (size_t row = 0; row < r.n; row++) {
            if (ids[i] == PL__SQL_COUNT_JOBS) {
                pl__job_state js;
                if (pl__job_state_parse(&js, pl__sql_text(&r, row, 0)))
                    out->jobs[js] = pl__sql_u64(&r, row, 1);
            } else if (ids[i] == PL__SQL_COUNT_QUEUED) {
                int64_t p = pl__sql_i64(&r, row, 0);
                if (p >= 0 && p < PL__PRIORITY_COUNT)
                    out->queued_partitions[p] = pl__sql_u64(&r, row, 1);
            } else {
                out->claimed_partitions = pl__sql_u64(&r, row, 0);
            }
        }
        pl__sql_rows_free(&r);
    }
    return st;
}

pl_status pl__store_counts_read(pl__store *store, pl__store_counts *out,
                                pl_error *err)
{
    memset(out, 0, sizeof(*out));
    return pl__store_txn(store, PL__TXN_READ, true, body_counts, out, err);
}

/* Jobs purged per transaction. */
#define PURGE_BATCH 32

typedef struct {
    int64_t cutoff;
    size_t picked, n; /* jobs chosen, jobs removed */
    pl__store_paths paths;
} purge_args;

static pl_status body_purge(pl__store *s, void *arg, int64_t now,
                            pl_error *err)
{
    purge_args *a = arg;
    pl__store_paths_truncate(&a->paths, 0); /* a run again starts over */
    a->n = 0;
    pl__sql_rows ids;
    pl_status st = PL__EXEC(s, PL__SQL_PURGE_PICK, &ids, err,
                            pl__arg_int(a->cutoff), pl__arg_int(PURGE_BATCH));
    for (size_t i = 0; st == PL_OK && i < ids.n; i++) {
        const char *id = pl__sql_text(&ids, i, 0);
        if ((st = PL__EXEC(s, PL__SQL_PARTS_LOCK, NULL, err,
                           pl__arg_text(id))) != PL_OK)
            break;
        size_t mark = a->paths.n;
        pl__sql_rows paths;
        if ((st = PL__EXEC(s, PL__SQL_PURGE_PATHS, &paths, err,
                           pl__arg_text(id))) != PL_OK)
            break;
        for (size_t row = 0; row < paths.n && st == PL_OK; row++)
            if (!pl__store_paths_add(&a->paths, pl__sql_text(&paths, row, 0)) ||
                !pl__store_paths_add(&a->paths, pl__sql_text(&paths, row, 1)))
                st = pl__error_set(err, PL_ENOMEM, "%s: purging", s->name);
        pl__sql_rows_free(&paths);
        /* the job's row goes, its partitions and attempts with it (on
         * delete cascade); none when another purge took it meanwhile */
        pl__sql_rows gone;
        if (st == PL_OK &&
            (st = PL__EXEC(s, PL__SQL_PURGE_JOB, &gone, err,
                           pl__arg_text(id))) == PL_OK) {
            if (gone.changed)
                a->n++;
            else
                pl__store_paths_truncate(&a->paths, mark);
        }
        pl__sql_rows_free(&gone);
    }
    a->picked = ids.n;
    pl__sql_rows_free(&ids);
    return st;
}

static pl_status body_purge_workers(pl__store *s, void *arg, int64_t now,
                                    pl_error *err)
{
    return PL__EXEC(s, PL__SQL_PURGE_WORKERS, NULL, err,
                    pl__arg_int(*(const int64_t *)arg));
}

pl_status pl__store_purge(pl__store *store, int64_t cutoff_unix_ms,
                          pl__store_path_fn fn, void *user, uint64_t *removed,
                          pl_error *err)
{
    *removed = 0;
    purge_args a = {.cutoff = cutoff_unix_ms};
    pl_status st = PL_OK;
    for (bool more = true; more && st == PL_OK;) {
        st = pl__store_txn(store, PL__TXN_WRITE, false, body_purge, &a, err);
        if (st != PL_OK)
            break;
        /* after the commit: a record never names a file already gone */
        *removed += a.n;
        for (size_t i = 0; fn && i < a.paths.n; i++)
            fn(user, a.paths.v[i]);
        more = a.picked == PURGE_BATCH;
    }
    pl__store_paths_free(&a.paths);
    /* workers silent since before the cutoff (gone, or dead long ago) */
    if (st == PL_OK)
        st = pl__store_txn(store, PL__TXN_WRITE, true, body_purge_workers,
                           &cutoff_unix_ms, err);
    return st;
}

static pl_status body_probe(pl__store *s, void *arg, int64_t now,
                            pl_error *err)
{
    return PL__EXEC(s, PL__SQL_PROBE, NULL, err, pl__arg_int(now));
}

pl_status pl__store_probe(pl__store *store, pl_error *err)
{
    pl_status st = PL_OK;
    if (store->drv->check) {
        pthread_mutex_lock(&store->lock);
        st = store->drv->check(store, err);
        pthread_mutex_unlock(&store->lock);
    }
    if (st == PL_OK)
        st = pl__store_txn(store, PL__TXN_WRITE, true, body_probe, NULL, err);
    return st;
}
