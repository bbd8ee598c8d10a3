/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What every store implementation shares: the names of states and
 * priorities (the API's and the metrics' vocabulary), the choice of an
 * implementation by locator, the checks of arguments that every
 * implementation would make the same way (so that each receives only ids,
 * owners and paths that fit store.h's arrays), job ids, and the clock.
 */
#define _DEFAULT_SOURCE /* getrandom */
#include "store_impl.h"
#include "util/error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

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

void pl__store_copy(char *dst, size_t cap, const char *text)
{
    snprintf(dst, cap, "%s", text ? text : "");
}

/* Wall-clock time: leases and timestamps are compared across processes
 * (and, with PostgreSQL, across machines), so a monotonic clock of one
 * process would not do. */
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

bool pl__store_is_not_found(const pl_error *err)
{
    return err && err->code == PL_EUSAGE &&
           (strstr(err->msg, "unknown circuit ") ||
            strstr(err->msg, "unknown job "));
}

/* ---- opening: the implementation by locator ---------------------------- */

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
        store->ops->close(store);
}

int pl__store_schema_version(const pl__store *store)
{
    return store ? store->schema_version : PL__STORE_SCHEMA_VERSION;
}

/* ---- the checks every implementation shares ---------------------------- */

static pl_status check_text(const char *what, const char *text, size_t cap,
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

#define CHECK_TEXT(what, text, cap)                                           \
    do {                                                                      \
        pl_status st_ = check_text(what, text, cap, false, err);              \
        if (st_ != PL_OK)                                                     \
            return st_;                                                       \
    } while (0)

/* Checks text and copies it into a local array, which text then names:
 * for an input that may lie inside the structure the call fills. */
#define CHECK_COPY(what, text, cap)                                           \
    char text##_copy[cap];                                                    \
    do {                                                                      \
        CHECK_TEXT(what, text, cap);                                          \
        memcpy(text##_copy, text, strlen(text) + 1);                          \
        text = text##_copy;                                                   \
    } while (0)

/* A job id that is not 36 characters cannot be in the store: "unknown
 * job", like any other absent id.  The id is copied first: a caller may
 * pass the id inside the very structure the call fills (job.id, &job). */
#define CHECK_JOB_ID(id)                                                      \
    char id##_copy[PL__STORE_JOB_ID_LEN + 1];                                 \
    do {                                                                      \
        CHECK_TEXT("job id", id, PL__STORE_JOB_ID_LEN + 1);                   \
        if (strlen(id) != PL__STORE_JOB_ID_LEN)                               \
            return pl__error_set(err, PL_EUSAGE, "store: unknown job %s",     \
                                 id);                                         \
        memcpy(id##_copy, id, sizeof(id##_copy));                             \
        id = id##_copy;                                                       \
    } while (0)

#define CHECK_LEASE(ms)                                                       \
    do {                                                                      \
        if ((ms) <= 0 || (ms) > INT64_C(1) << 40)                             \
            return pl__error_set(err, PL_EUSAGE,                              \
                                 "store: a lease of %lld ms",                 \
                                 (long long)(ms));                            \
    } while (0)

pl_status pl__store_circuit_put(pl__store *store, const pl__store_circuit *c,
                                pl_error *err)
{
    CHECK_TEXT("circuit id", c->id, sizeof(c->id));
    CHECK_TEXT("zkey path", c->zkey_path, sizeof(c->zkey_path));
    /* Both implementations store 64-bit signed integers. */
    const uint64_t sizes[] = {c->zkey_bytes,    c->n_constraints,
                              c->n_vars,        c->n_public,
                              c->witness_bytes, c->partition_bytes};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        if (sizes[i] > (uint64_t)INT64_MAX)
            return pl__error_set(err, PL_EUSAGE,
                                 "store: circuit %s: a size above 2^63",
                                 c->id);
    return store->ops->circuit_put(store, c, err);
}

pl_status pl__store_circuit_get(pl__store *store, const char *id,
                                pl__store_circuit *out, pl_error *err)
{
    CHECK_COPY("circuit id", id, PL__STORE_ID_LEN + 1);
    memset(out, 0, sizeof(*out));
    return store->ops->circuit_get(store, id, out, err);
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

/* The listings walk their pages here, for both stores: a page read under
 * the store's lock, then the callbacks with no lock held (so they may call
 * the store), until one returns false or a page comes back short. */
pl_status pl__store_circuit_list(pl__store *store, pl__store_circuit_fn fn,
                                 void *user, pl_error *err)
{
    pl__store_circuit *page = malloc(PL__STORE_LIST_PAGE * sizeof(*page));
    if (!page)
        return pl__error_set(err, PL_ENOMEM, "store: listing circuits: out "
                             "of memory");
    char after[PL__STORE_ID_LEN + 1] = "";
    pl_status st = PL_OK;
    for (bool more = true; more;) {
        size_t n = 0;
        if ((st = store->ops->circuit_page(store, after, page, &n, err)))
            break;
        more = n == PL__STORE_LIST_PAGE;
        if (n)
            pl__store_copy(after, sizeof(after), page[n - 1].id);
        for (size_t i = 0; i < n; i++)
            if (!fn(user, &page[i])) {
                more = false;
                break;
            }
    }
    free(page);
    return st;
}

pl_status pl__store_job_create(pl__store *store, const char *circuit_id,
                               pl__priority priority, uint32_t n_partitions,
                               pl__store_job *out, pl_error *err)
{
    CHECK_COPY("circuit id", circuit_id, PL__STORE_ID_LEN + 1);
    memset(out, 0, sizeof(*out));
    if ((unsigned)priority >= PL__PRIORITY_COUNT)
        return pl__error_set(err, PL_EUSAGE, "store: priority %d",
                             (int)priority);
    if (n_partitions == 0)
        return pl__error_set(err, PL_EUSAGE,
                             "store: a job needs at least one partition");
    return store->ops->job_create(store, circuit_id, priority, n_partitions,
                                  out, err);
}

pl_status pl__store_job_create_with_id(pl__store *store, const char *job_id,
                                       const char *circuit_id,
                                       pl__priority priority,
                                       uint32_t n_partitions,
                                       pl__store_job *out, bool *created,
                                       pl_error *err)
{
    *created = false;
    CHECK_TEXT("job id", job_id, PL__STORE_JOB_ID_LEN + 1);
    if (strlen(job_id) != PL__STORE_JOB_ID_LEN)
        return pl__error_set(err, PL_EUSAGE, "store: a job id of %zu "
                             "characters (%d are needed)", strlen(job_id),
                             PL__STORE_JOB_ID_LEN);
    char id[PL__STORE_JOB_ID_LEN + 1];
    memcpy(id, job_id, sizeof(id));
    CHECK_COPY("circuit id", circuit_id, PL__STORE_ID_LEN + 1);
    memset(out, 0, sizeof(*out));
    if ((unsigned)priority >= PL__PRIORITY_COUNT)
        return pl__error_set(err, PL_EUSAGE, "store: priority %d",
                             (int)priority);
    if (n_partitions == 0)
        return pl__error_set(err, PL_EUSAGE,
                             "store: a job needs at least one partition");
    return store->ops->job_create_with_id(store, id, circuit_id, priority,
                                          n_partitions, out, created, err);
}

pl_status pl__store_job_set_deadline(pl__store *store, const char *job_id,
                                     int64_t deadline_unix_ms, pl_error *err)
{
    CHECK_JOB_ID(job_id);
    if (deadline_unix_ms < 0)
        return pl__error_set(err, PL_EUSAGE, "store: deadline %lld: below 0",
                             (long long)deadline_unix_ms);
    return store->ops->job_set_deadline(store, job_id, deadline_unix_ms, err);
}

bool pl__store_job_deadline_missed(const pl__store_job *j,
                                   int64_t now_unix_ms)
{
    if (j->deadline_unix_ms <= 0)
        return false;
    if (j->state > PL__JOB_RUNNING)
        return j->finished_unix_ms > j->deadline_unix_ms;
    return now_unix_ms > j->deadline_unix_ms;
}

pl_status pl__store_witness_stored(pl__store *store, const char *job_id,
                                   uint32_t index, const char *witness_path,
                                   pl__store_job *job_out, pl_error *err)
{
    CHECK_JOB_ID(job_id);
    if (job_out)
        memset(job_out, 0, sizeof(*job_out));
    CHECK_TEXT("witness path", witness_path, PL__STORE_PATH_MAX);
    return store->ops->witness_stored(store, job_id, index, witness_path,
                                      job_out, err);
}

pl_status pl__store_job_get(pl__store *store, const char *job_id,
                            pl__store_job *out, pl_error *err)
{
    CHECK_JOB_ID(job_id);
    memset(out, 0, sizeof(*out));
    return store->ops->job_get(store, job_id, out, err);
}

pl_status pl__store_partitions(pl__store *store, const char *job_id,
                               pl__store_partition *out, size_t cap,
                               size_t *count, pl_error *err)
{
    *count = 0;
    CHECK_JOB_ID(job_id);
    if (cap)
        memset(out, 0, cap * sizeof(*out));
    return store->ops->partitions(store, job_id, out, cap, count, err);
}

pl_status pl__store_job_list(pl__store *store, int state, size_t limit,
                             pl__store_job_fn fn, void *user, pl_error *err)
{
    if (state >= PL__JOB_STATE_COUNT)
        return pl__error_set(err, PL_EUSAGE, "store: job state %d", state);
    pl__store_job *page = malloc(PL__STORE_LIST_PAGE * sizeof(*page));
    if (!page)
        return pl__error_set(err, PL_ENOMEM, "store: listing jobs: out of "
                             "memory");
    int64_t before = INT64_MAX;
    size_t told = 0;
    pl_status st = PL_OK;
    for (bool more = true; more;) {
        size_t n = 0;
        if ((st = store->ops->job_page(store, state < 0 ? -1 : state, before,
                                       page, &n, err)))
            break;
        more = n == PL__STORE_LIST_PAGE;
        if (n)
            before = (int64_t)page[n - 1].seq;
        for (size_t i = 0; i < n; i++) {
            if ((limit && told == limit) || !fn(user, &page[i])) {
                more = false;
                break;
            }
            told++;
        }
        if (limit && told == limit)
            more = false;
    }
    free(page);
    return st;
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

/* A failure's message as it is kept: cut to PL__STORE_MSG_MAX - 1 bytes
 * on a character boundary, and made valid UTF-8 (PostgreSQL refuses text
 * that is not; a message may quote a file name in another encoding). */
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

pl_status pl__store_job_cancel(pl__store *store, const char *job_id,
                               bool *changed, pl_error *err)
{
    *changed = false;
    CHECK_JOB_ID(job_id);
    return store->ops->job_end(store, job_id, NULL, changed, err);
}

pl_status pl__store_job_fail(pl__store *store, const char *job_id,
                             const char *msg, bool *changed, pl_error *err)
{
    *changed = false;
    CHECK_JOB_ID(job_id);
    char cut[PL__STORE_MSG_MAX];
    pl__store_message(cut, msg);
    return store->ops->job_end(store, job_id, cut, changed, err);
}

pl_status pl__store_claim_next(pl__store *store, const char *owner,
                               uint64_t max_bytes, int64_t lease_ms,
                               pl__store_claim *out, bool *found,
                               pl_error *err)
{
    *found = false;
    CHECK_COPY("owner", owner, PL__STORE_OWNER_MAX);
    CHECK_LEASE(lease_ms);
    memset(out, 0, sizeof(*out));
    return store->ops->claim_next(store, owner, max_bytes, lease_ms, out,
                                  found, err);
}

pl_status pl__store_heartbeat(pl__store *store, const char *owner,
                              int64_t lease_ms, pl_error *err)
{
    CHECK_TEXT("owner", owner, PL__STORE_OWNER_MAX);
    CHECK_LEASE(lease_ms);
    return store->ops->heartbeat(store, owner, lease_ms, err);
}

pl_status pl__store_claim_live(pl__store *store, const char *job_id,
                               uint32_t index, const char *owner,
                               uint64_t fence, bool *live, pl_error *err)
{
    *live = false;
    CHECK_JOB_ID(job_id);
    CHECK_TEXT("owner", owner, PL__STORE_OWNER_MAX);
    return store->ops->claim_live(store, job_id, index, owner, fence, live,
                                  err);
}

pl_status pl__store_complete_job(pl__store *store, const char *job_id,
                                 uint32_t index, const char *owner,
                                 uint64_t fence, const char *proof_path,
                                 bool *job_done, pl_error *err)
{
    *job_done = false;
    CHECK_JOB_ID(job_id);
    CHECK_TEXT("owner", owner, PL__STORE_OWNER_MAX);
    CHECK_TEXT("proof path", proof_path, PL__STORE_PATH_MAX);
    pl_status st = store->ops->complete(store, job_id, index, owner, fence,
                                        proof_path, job_done, err);
    if (st != PL_OK)
        *job_done = false;
    return st;
}

pl_status pl__store_complete(pl__store *store, const char *job_id,
                             uint32_t index, const char *owner, uint64_t fence,
                             const char *proof_path, pl_error *err)
{
    bool job_done = false;
    return pl__store_complete_job(store, job_id, index, owner, fence,
                                  proof_path, &job_done, err);
}

pl_status pl__store_fail_attempt(pl__store *store, const char *job_id,
                                 uint32_t index, const char *owner,
                                 uint64_t fence, const char *msg,
                                 bool retryable, bool *requeued,
                                 pl_error *err)
{
    bool ignored = false;
    if (!requeued)
        requeued = &ignored;
    *requeued = false;
    CHECK_JOB_ID(job_id);
    CHECK_TEXT("owner", owner, PL__STORE_OWNER_MAX);
    char cut[PL__STORE_MSG_MAX];
    pl__store_message(cut, msg);
    pl_status status = store->ops->fail(store, job_id, index, owner, fence,
                                        cut, retryable, store->max_attempts,
                                        requeued, err);
    if (status != PL_OK)
        *requeued = false;
    return status;
}

pl_status pl__store_fail(pl__store *store, const char *job_id, uint32_t index,
                         const char *owner, uint64_t fence, const char *msg,
                         pl_error *err)
{
    return pl__store_fail_attempt(store, job_id, index, owner, fence, msg,
                                  true, NULL, err);
}

pl_status pl__store_attempts(pl__store *store, const char *job_id,
                             pl__store_attempt *out, size_t cap,
                             size_t *count, pl_error *err)
{
    *count = 0;
    CHECK_JOB_ID(job_id);
    if (cap)
        memset(out, 0, cap * sizeof(*out));
    return store->ops->attempts(store, job_id, out, cap, count, err);
}

/* ---- workers ---------------------------------------------------------------- */

static pl_status check_worker(const pl__store_worker *w, pl_error *err)
{
    CHECK_TEXT("worker id", w->id, sizeof(w->id));
    pl_status st = check_text("worker host", w->host, sizeof(w->host), true,
                              err);
    if (st == PL_OK)
        st = check_text("worker backend", w->backend, sizeof(w->backend),
                        true, err);
    if (st == PL_OK)
        st = check_text("worker GPUs", w->gpus, sizeof(w->gpus), true, err);
    if (st == PL_OK)
        st = check_text("worker status", w->status_json,
                        sizeof(w->status_json), true, err);
    if (st == PL_OK && (w->budget_bytes > (uint64_t)INT64_MAX ||
                        w->reserved_bytes > (uint64_t)INT64_MAX))
        st = pl__error_set(err, PL_EUSAGE,
                           "store: worker %s: a size above 2^63", w->id);
    return st;
}

pl_status pl__store_worker_register(pl__store *store,
                                    const pl__store_worker *w, pl_error *err)
{
    pl_status st = check_worker(w, err);
    return st != PL_OK ? st : store->ops->worker_put(store, w, true, 0, err);
}

pl_status pl__store_worker_heartbeat(pl__store *store,
                                     const pl__store_worker *w,
                                     int64_t lease_ms, pl_error *err)
{
    pl_status st = check_worker(w, err);
    if (st != PL_OK)
        return st;
    if (lease_ms)
        CHECK_LEASE(lease_ms);
    return store->ops->worker_put(store, w, false, lease_ms, err);
}

pl_status pl__store_worker_gone(pl__store *store, const char *id,
                                pl_error *err)
{
    CHECK_TEXT("worker id", id, PL__STORE_OWNER_MAX);
    return store->ops->worker_gone(store, id, err);
}

pl_status pl__store_worker_list(pl__store *store, pl__store_worker_fn fn,
                                void *user, pl_error *err)
{
    pl__store_worker *page = malloc(PL__STORE_LIST_PAGE * sizeof(*page));
    if (!page)
        return pl__error_set(err, PL_ENOMEM, "store: listing workers: out of "
                             "memory");
    char after[PL__STORE_OWNER_MAX] = "";
    pl_status st = PL_OK;
    for (bool more = true; more;) {
        size_t n = 0;
        if ((st = store->ops->worker_page(store, after, page, &n, err)))
            break;
        more = n == PL__STORE_LIST_PAGE;
        if (n)
            pl__store_copy(after, sizeof(after), page[n - 1].id);
        for (size_t i = 0; i < n; i++)
            if (!fn(user, &page[i])) {
                more = false;
                break;
            }
    }
    free(page);
    return st;
}

pl_status pl__store_release(pl__store *store, const char *job_id,
                            uint32_t index, const char *owner, uint64_t fence,
                            pl_error *err)
{
    CHECK_JOB_ID(job_id);
    CHECK_TEXT("owner", owner, PL__STORE_OWNER_MAX);
    return store->ops->release(store, job_id, index, owner, fence, err);
}

pl_status pl__store_recover(pl__store *store, const char *owner,
                            uint64_t *requeued, pl_error *err)
{
    *requeued = 0;
    if (owner)
        CHECK_TEXT("owner", owner, PL__STORE_OWNER_MAX);
    return store->ops->recover(store, owner, store->max_attempts, requeued,
                               err);
}

pl_status pl__store_counts_read(pl__store *store, pl__store_counts *out,
                                pl_error *err)
{
    memset(out, 0, sizeof(*out));
    return store->ops->counts_read(store, out, err);
}

pl_status pl__store_purge(pl__store *store, int64_t cutoff_unix_ms,
                          pl__store_path_fn fn, void *user, uint64_t *removed,
                          pl_error *err)
{
    *removed = 0;
    return store->ops->purge(store, cutoff_unix_ms, fn, user, removed, err);
}
