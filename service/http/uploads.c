/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Request bodies (see http.h): a JSON body kept up to its limit; a zkey
 * and a witness streamed to a temporary file beside their target (never
 * held whole in memory), checked there, then renamed into place before
 * the store records them; and POST /v1/jobs's and /v1/prove's multipart
 * form: a part `spec` (the job), then one part `witness` per partition.
 * Submissions may carry an idempotency key, from which the job's id is
 * derived, so a retry (after a restart too, through another service on
 * the same database, or at the same moment as the first try) finds the
 * job the first try made and gets its answer, never a conflict of its
 * own making.  Nothing a request does disturbs other jobs: a refused
 * upload removes its temporary file, and the store records only files
 * that are whole.
 */
#define _GNU_SOURCE
#include "http.h"
#include "worker.h"
#include "formats/json.h"
#include "util/alloc.h"
#include "util/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

/* A job's deadline, "deadline_s" of a spec: seconds after submission. */
#define DEADLINE_S_MAX (30.0 * 24 * 3600) /* 30 days */

static void random_tag(char out[17])
{
    uint8_t b[8] = {0};
    if (getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b)) {
        /* getrandom does not fail for 8 bytes once the pool is ready */
        uint64_t t = (uint64_t)pl__service_now_ms() ^ (uint64_t)getpid();
        memcpy(b, &t, sizeof(b));
    }
    for (int i = 0; i < 8; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
}

/* The job id a key stands for: the sha256 of a fixed prefix and the key,
 * cut to 16 bytes and shaped as a UUID (version 8: made by us, variant
 * RFC 4122).  Deterministic, so a retry after a restart, or through
 * another service on the same database, names the same row, and the
 * store's unique id makes it one job. */
static void key_job_id(char out[PL__STORE_JOB_ID_LEN + 1], const char *key)
{
    static const char prefix[] = "proofline idempotency key v1\n";
    pl__sha256 h;
    uint8_t d[32];
    pl__sha256_init(&h);
    pl__sha256_update(&h, prefix, sizeof(prefix) - 1);
    pl__sha256_update(&h, key, strlen(key));
    pl__sha256_final(&h, d);
    d[6] = (uint8_t)((d[6] & 0x0f) | 0x80);
    d[8] = (uint8_t)((d[8] & 0x3f) | 0x80);
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            out[o++] = '-';
        out[o++] = hex[d[i] >> 4];
        out[o++] = hex[d[i] & 15];
    }
    out[o] = 0;
}

/* ---- begin: what a request will do with its body ------------------------------ */

void pl__http_begin_json(request *rq)
{
    rq->body = PL__BODY_JSON;
}

void pl__http_begin_zkey(request *rq)
{
    pl__service *svc = rq->svc;
    const char *cl = pl__http_header(rq, MHD_HTTP_HEADER_CONTENT_LENGTH);
    uint64_t len = 0;
    if (svc->max_zkey_bytes && cl && pl__http_uint(cl, UINT64_MAX / 2, &len) &&
        len > svc->max_zkey_bytes) {
        pl__http_refuse(rq, 413, "body: a zkey of %llu bytes, more than the "
                        "%llu of --max-zkey", (unsigned long long)len,
                        (unsigned long long)svc->max_zkey_bytes);
        return;
    }
    char path[PL__SERVICE_PATH_MAX + 64];
    snprintf(path, sizeof(path), "%s/circuits/upload.zkey", svc->data_dir);
    pl_error err = {0};
    if (pl__output_open(&rq->out, path, &err) != PL_OK) {
        pl__http_refuse(rq, 503, "zkey upload: %s", err.msg);
        rq->retry = true;
        return;
    }
    rq->out_open = true;
    pl__sha256_init(&rq->sha);
    rq->body = PL__BODY_ZKEY;
}

void pl__http_begin_witness(request *rq)
{
    pl__service *svc = rq->svc;
    pl_error err = {0};
    pl__store_job job;
    pl_status st = pl__store_job_get(svc->store, rq->id, &job, &err);
    if (st != PL_OK) {
        pl__http_refuse(rq, pl__http_store_code(st, &err), "job: %s",
                        err.msg);
        return;
    }
    if (rq->index >= job.n_partitions) {
        pl__http_refuse(rq, 404, "witness: job %s has %u partitions, no "
                        "partition %u", job.id, job.n_partitions, rq->index);
        return;
    }
    if (job.state != PL__JOB_RECEIVING) {
        pl__http_refuse(rq, 409, "witness: job %s is %s, not receiving",
                        job.id, pl__job_state_name(job.state));
        return;
    }
    if ((st = pl__store_circuit_get(svc->store, job.circuit_id, &rq->circuit,
                                    &err)) != PL_OK) {
        pl__http_refuse(rq, pl__http_store_code(st, &err), "circuit: %s",
                        err.msg);
        return;
    }
    rq->expected = rq->circuit.witness_bytes;
    const char *cl = pl__http_header(rq, MHD_HTTP_HEADER_CONTENT_LENGTH);
    uint64_t len;
    if (!cl || !pl__http_uint(cl, UINT64_MAX / 2, &len) ||
        len != rq->expected) {
        pl__http_refuse(rq, 400, "witness %u: the body is %s bytes, but a "
                        "witness of circuit %.16s... is exactly %llu bytes",
                        rq->index, cl ? cl : "no", rq->circuit.id,
                        (unsigned long long)rq->expected);
        return;
    }
    char tag[17], path[PL__SERVICE_PATH_MAX + 128];
    random_tag(tag);
    snprintf(path, sizeof(path), "%s/witnesses/%s.%u.%s.wtns", svc->data_dir,
             job.id, rq->index, tag);
    if ((st = pl__output_open(&rq->out, path, &err)) != PL_OK) {
        pl__http_refuse(rq, 503, "witness %u: %s", rq->index, err.msg);
        rq->retry = true;
        return;
    }
    rq->out_open = true;
    rq->body = PL__BODY_WITNESS;
}

static enum MHD_Result on_part(void *cls, enum MHD_ValueKind kind,
                               const char *key, const char *filename,
                               const char *content_type,
                               const char *transfer_encoding,
                               const char *data, uint64_t off, size_t size);

void pl__http_begin_submit(request *rq)
{
    pl__service *svc = rq->svc;
    bool prove = rq->route->id == PL__R_PROVE;
    if (prove) {
        const char *w = pl__http_arg(rq, "wait");
        uint64_t ms = PL__HTTP_PROVE_WAIT_MS;
        if (w && !pl__http_duration_ms(w, &ms)) {
            pl__http_refuse(rq, 400, "wait: a duration such as 30, 30s, "
                            "500ms or 2m is needed (decimal; more than %d s "
                            "counts as %d s)", PL__HTTP_WAIT_MAX_MS / 1000,
                            PL__HTTP_WAIT_MAX_MS / 1000);
            return;
        }
        rq->wait_ms = ms > PL__HTTP_WAIT_MAX_MS ? PL__HTTP_WAIT_MAX_MS
                                                : (long long)ms;
    }
    bool known = false; /* a retry of a job that exists: no 429 */
    const char *key = pl__http_header(rq, "Idempotency-Key");
    if (key) {
        if (!pl__http_key(key)) {
            pl__http_refuse(rq, 400, "Idempotency-Key: 1 to %d characters "
                            "of %s are allowed", PL__HTTP_KEY_MAX,
                            PL__HTTP_KEY_CHARS);
            return;
        }
        snprintf(rq->key, sizeof(rq->key), "%s", key);
        char id[PL__STORE_JOB_ID_LEN + 1];
        pl__store_job job;
        pl_error err = {0};
        key_job_id(id, key);
        known = pl__store_job_get(svc->store, id, &job, &err) == PL_OK;
    }
    if (svc->max_queued && !known) {
        pl__store_counts counts;
        pl_error err = {0};
        if (pl__store_counts_read(svc->store, &counts, &err) != PL_OK) {
            pl__http_refuse(rq, 503, "store: %s", err.msg);
            rq->retry = true;
            return;
        }
        uint64_t waiting =
            counts.jobs[PL__JOB_RECEIVING] + counts.jobs[PL__JOB_QUEUED];
        if (waiting >= svc->max_queued) {
            pl__http_refuse(rq, 429, "the queue is full: %llu jobs waiting "
                            "(--max-queued %llu); retry later",
                            (unsigned long long)waiting,
                            (unsigned long long)svc->max_queued);
            rq->retry = true;
            return;
        }
    }
    if (rq->body == PL__BODY_MULTIPART) {
        rq->pp = MHD_create_post_processor(rq->conn, 64 * 1024, on_part, rq);
        if (!rq->pp)
            pl__http_refuse(rq, 400, "multipart: no boundary in "
                            "Content-Type");
    }
}

/* ---- the body --------------------------------------------------------------------- */

void pl__http_take_body(request *rq, const char *data, size_t size)
{
    pl_error err = {0};
    pl__service *svc = rq->svc;
    switch (rq->body) {
    case PL__BODY_JSON:
        if (rq->json.len + size > PL__HTTP_JSON_MAX) {
            pl__http_refuse(rq, 413, "body: more than %u bytes of JSON",
                            PL__HTTP_JSON_MAX);
            return;
        }
        pl__strbuf_printf(&rq->json, "%.*s", (int)size, data);
        if (rq->json.failed)
            pl__http_refuse(rq, 500, "body: out of memory");
        return;
    case PL__BODY_ZKEY:
        if (svc->max_zkey_bytes && rq->received + size > svc->max_zkey_bytes) {
            pl__http_refuse(rq, 413, "body: a zkey of more than the %llu "
                            "bytes of --max-zkey",
                            (unsigned long long)svc->max_zkey_bytes);
            return;
        }
        pl__sha256_update(&rq->sha, data, size);
        /* fallthrough */
    case PL__BODY_WITNESS:
        if (rq->body == PL__BODY_WITNESS && rq->received + size > rq->expected) {
            pl__http_refuse(rq, 400, "witness %u: the body is more than the "
                            "%llu bytes of a witness of circuit %.16s...",
                            rq->index, (unsigned long long)rq->expected,
                            rq->circuit.id);
            return;
        }
        if (pl__output_write(&rq->out, data, size, &err) != PL_OK) {
            /* our disk, not the client's mistake */
            pl__http_refuse(rq, 503, "upload: %s", err.msg);
            rq->retry = true;
            pl__health_probe(svc);
            return;
        }
        rq->received += size;
        return;
    case PL__BODY_MULTIPART:
        if (MHD_post_process(rq->pp, data, size) != MHD_YES)
            pl__http_refuse(rq, 400, "multipart: the body does not parse");
        return;
    default:
        return;
    }
}

/* ---- witnesses -------------------------------------------------------------------- */

unsigned pl__http_witness_commit(request *rq, const char *name,
                                 pl__strbuf *msg, bool *misfit)
{
    pl_error err = {0};
    unsigned code = 0;
    *misfit = false;
    pl_wtns *w;
    if (rq->received != rq->expected) {
        pl__strbuf_printf(msg, "%s: the body is %llu bytes, but a witness of "
                          "circuit %.16s... is exactly %llu bytes", name,
                          (unsigned long long)rq->received, rq->circuit.id,
                          (unsigned long long)rq->expected);
        code = 400;
    } else if (pl__output_finish(&rq->out, &err) != PL_OK) {
        pl__strbuf_printf(msg, "%s", err.msg);
        code = 503;
    } else if (pl_wtns_open(&w, rq->out.tmp_path, &err) != PL_OK) {
        /* the witness's own header; the temporary name means nothing to
         * the client */
        const char *m = strstr(err.msg, ": ");
        pl__strbuf_printf(msg, "%s%s", name, m ? m : err.msg);
        code = 400;
        *misfit = true;
    } else {
        size_t count = pl_wtns_count(w);
        pl_wtns_close(w);
        if (count != rq->circuit.n_vars) {
            pl__strbuf_printf(msg, "%s: %zu values, the circuit has %llu",
                              name, count,
                              (unsigned long long)rq->circuit.n_vars);
            code = 400;
            *misfit = true;
        }
    }
    if (code) {
        pl__output_abort(&rq->out);
        rq->out_open = false;
        return code;
    }
    pl_status st = pl__output_commit(&rq->out, &err);
    rq->out_open = false;
    if (st != PL_OK) {
        pl__strbuf_printf(msg, "%s", err.msg);
        return 503;
    }
    return 0;
}

/* ---- a job from its spec ------------------------------------------------------------- */

/* The spec {"circuit": ID, "priority": P, "partitions": N, "request_id":
 * KEY, "deadline_s": S} of rq->json (`name` names it in messages: "body",
 * "spec"): 0 with the job in rq->job (its circuit in rq->circuit), or the
 * HTTP status with msg.  With an idempotency key (the header's, or the
 * field's) the job is the key's: rq->existing tells whether it was there
 * already, and one with another circuit, priority or partition count is
 * 409 naming them.  Another deadline is not a conflict: a retry comes
 * later than the first request, so its "S seconds from now" is another
 * instant for the same wish; the job keeps its first deadline. */
unsigned pl__http_job_from_spec(request *rq, const char *name,
                                pl__strbuf *msg)
{
    pl__service *svc = rq->svc;
    pl_error err = {0};
    pl__json_doc doc;
    unsigned code = 0;
    rq->existing = false;
    if (pl__json_parse(&doc, rq->json.data ? rq->json.data : "",
                       rq->json.len, name, &err) != PL_OK) {
        pl__strbuf_printf(msg, "%s", err.msg);
        return 400;
    }
    const pl__json_value *root = pl__json_root(&doc), *vc, *vp, *vn, *vr,
                         *vd;
    pl__priority prio = PL__PRIORITY_NORMAL;
    uint64_t n = 1;
    int64_t deadline_ms = 0; /* after creation; 0: none */
    if (root->type != PL__JSON_OBJECT) {
        pl__strbuf_printf(msg, "%s: a JSON object is needed", name);
        code = 400;
        goto done;
    }
    if (pl__json_member(&vc, &doc, root, "circuit", true, "", &err) ||
        pl__json_member(&vp, &doc, root, "priority", false, "", &err) ||
        pl__json_member(&vn, &doc, root, "partitions", false, "", &err) ||
        pl__json_member(&vr, &doc, root, "request_id", false, "", &err) ||
        pl__json_member(&vd, &doc, root, "deadline_s", false, "", &err)) {
        pl__strbuf_printf(msg, "%s", err.msg);
        code = 400;
        goto done;
    }
    if (vc->type != PL__JSON_STRING || !pl__http_circuit_id(vc->text)) {
        pl__strbuf_printf(msg, "%s: circuit: a circuit's id (64 lowercase "
                          "hex digits, the zkey's sha256) is needed", name);
        code = 400;
        goto done;
    }
    if (vp && (vp->type != PL__JSON_STRING ||
               !pl__priority_parse(&prio, vp->text))) {
        pl__strbuf_printf(msg, "%s: priority: \"critical\", \"high\", "
                          "\"normal\" or \"low\"", name);
        code = 400;
        goto done;
    }
    if (vn) {
        char num[24] = {0};
        bool ok = vn->type == PL__JSON_NUMBER && vn->len < sizeof(num);
        if (ok) {
            memcpy(num, vn->text, vn->len);
            ok = pl__http_uint(num, PL__HTTP_MAX_PARTITIONS, &n) && n >= 1;
        }
        if (!ok) {
            pl__strbuf_printf(msg, "%s: partitions: a whole number from 1 to "
                              "%d is needed", name, PL__HTTP_MAX_PARTITIONS);
            code = 400;
            goto done;
        }
    }
    if (vd) {
        char num[40] = {0};
        bool ok = vd->type == PL__JSON_NUMBER && vd->len < sizeof(num);
        double secs = 0;
        if (ok) {
            memcpy(num, vd->text, vd->len);
            char *end;
            secs = strtod(num, &end); /* a JSON number: no inf, no nan */
            ok = !*end && secs > 0 && secs <= DEADLINE_S_MAX;
        }
        if (!ok) {
            pl__strbuf_printf(msg, "%s: deadline_s: a number of seconds "
                              "above 0 and at most %.0f (30 days) is needed",
                              name, DEADLINE_S_MAX);
            code = 400;
            goto done;
        }
        /* whole milliseconds, at least one: 0 would mean none */
        deadline_ms = (int64_t)(secs * 1000.0 + 0.5);
        if (deadline_ms < 1)
            deadline_ms = 1;
    }
    if (vr) {
        if (vr->type != PL__JSON_STRING || !pl__http_key(vr->text)) {
            pl__strbuf_printf(msg, "%s: request_id: 1 to %d characters of %s "
                              "are allowed", name, PL__HTTP_KEY_MAX,
                              PL__HTTP_KEY_CHARS);
            code = 400;
            goto done;
        }
        if (rq->key[0] && strcmp(rq->key, vr->text) != 0) {
            pl__strbuf_printf(msg, "%s: request_id: differs from the "
                              "Idempotency-Key header (give one, or the same "
                              "in both)", name);
            code = 400;
            goto done;
        }
        snprintf(rq->key, sizeof(rq->key), "%s", vr->text);
    }
    pl__store_job *job = &rq->job;
    pl__store_circuit *c = &rq->circuit;
    pl_status st = pl__store_circuit_get(svc->store, vc->text, c, &err);
    if (st != PL_OK) {
        pl__strbuf_printf(msg, "%s: circuit: %s", name, err.msg);
        code = pl__http_store_code(st, &err);
        goto done;
    }
    if (!rq->key[0]) {
        st = pl__store_job_create(svc->store, c->id, prio, (uint32_t)n, job,
                                  &err);
    } else {
        char id[PL__STORE_JOB_ID_LEN + 1];
        bool created = false;
        key_job_id(id, rq->key);
        st = pl__store_job_create_with_id(svc->store, id, c->id, prio,
                                          (uint32_t)n, job, &created, &err);
        rq->existing = st == PL_OK && !created;
    }
    if (st != PL_OK) {
        pl__strbuf_printf(msg, "%s", err.msg);
        code = pl__http_store_code(st, &err);
        goto done;
    }
    if (rq->existing) {
        /* the same key with another body: which fields differ, so that a
         * client reusing a key by mistake sees it at once */
        pl__strbuf diff = {0};
        if (strcmp(job->circuit_id, c->id) != 0)
            pl__strbuf_printf(&diff, "; circuit %.16s... (this request: "
                              "%.16s...)", job->circuit_id, c->id);
        if (job->priority != prio)
            pl__strbuf_printf(&diff, "; priority %s (this request: %s)",
                              pl__priority_name(job->priority),
                              pl__priority_name(prio));
        if (job->n_partitions != n)
            pl__strbuf_printf(&diff, "; partitions %u (this request: %llu)",
                              job->n_partitions, (unsigned long long)n);
        if (diff.len) {
            pl__strbuf_printf(msg, "Idempotency-Key %s: job %s was submitted "
                              "with another body%s", rq->key, job->id,
                              diff.data);
            code = 409;
        }
        pl__strbuf_free(&diff);
    }
    /* recorded now, before any witness is stored, so before any worker
     * can claim the job; a retry of a key finds its job with the first
     * deadline and leaves it; one whose first request stopped between
     * the two calls (no deadline yet, still receiving) gets this one */
    if (code == 0 && deadline_ms > 0 &&
        (!rq->existing || (job->deadline_unix_ms == 0 &&
                           job->state == PL__JOB_RECEIVING))) {
        int64_t at = job->created_unix_ms + deadline_ms;
        st = pl__store_job_set_deadline(svc->store, job->id, at, &err);
        if (st != PL_OK) {
            pl__strbuf_printf(msg, "%s: deadline_s: %s", name, err.msg);
            code = pl__http_store_code(st, &err);
            /* a job without a key could never be found again: end it
             * rather than leave it receiving; a keyed one waits for the
             * client's retry */
            if (!rq->key[0]) {
                bool changed = false;
                pl_error cerr = {0};
                pl__store_job_cancel(svc->store, job->id, &changed, &cerr);
            }
            goto done;
        }
        job->deadline_unix_ms = at;
    }
done:
    pl__json_free(&doc);
    return code;
}

/* ---- multipart: a part `spec`, then N parts `witness` ---------------------------- */

void pl__http_upload_undo(request *rq)
{
    for (uint32_t k = 0; rq->paths && k < rq->n_parts; k++)
        if (rq->paths[k]) {
            unlink(rq->paths[k]);
            free(rq->paths[k]);
            rq->paths[k] = NULL;
        }
    /* a job with an idempotency key stays, receiving: the client's retry
     * with the same key resumes it (DELETE ends it otherwise) */
    if (rq->job_made && !rq->acked && !rq->key[0]) {
        bool changed;
        pl_error err = {0};
        pl__store_job_cancel(rq->svc->store, rq->job.id, &changed, &err);
        rq->job_made = false;
    }
}

/* The witness part being received ends (another part starts, or the
 * body): checked and renamed into place; false after a refusal. */
static bool witness_part_end(request *rq)
{
    char name[40];
    uint32_t k = rq->n_parts - 1;
    snprintf(name, sizeof(name), "witness part %u", k);
    rq->part = P_NONE;
    bool misfit; /* the job was never acknowledged: it is cancelled */
    pl__strbuf msg = {0};
    unsigned code = pl__http_witness_commit(rq, name, &msg, &misfit);
    if (code) {
        pl__http_refuse(rq, code, "%s", msg.data ? msg.data : "");
        rq->retry = code == 503;
        pl__strbuf_free(&msg);
        return false;
    }
    pl__strbuf_free(&msg);
    if (!(rq->paths[k] = strdup(rq->out.path))) {
        unlink(rq->out.path);
        pl__http_refuse(rq, 500, "%s: out of memory", name);
        return false;
    }
    return true;
}

/* A witness part starts: the job is made from the spec (the first witness
 * part needs it), then the part's temporary file is opened. */
static bool witness_part_begin(request *rq)
{
    if (!rq->job_made) {
        if (!rq->spec_seen) {
            pl__http_refuse(rq, 400, "multipart: the part `spec` must come "
                            "before the `witness` parts");
            return false;
        }
        pl__strbuf msg = {0};
        unsigned code = pl__http_job_from_spec(rq, "spec", &msg);
        if (code) {
            pl__http_refuse(rq, code, "%s", msg.data ? msg.data : "");
            pl__strbuf_free(&msg);
            return false;
        }
        pl__strbuf_free(&msg);
        rq->job_made = true;
        rq->expected = rq->circuit.witness_bytes;
        if (!(rq->paths = calloc(rq->job.n_partitions, sizeof(char *)))) {
            pl__http_refuse(rq, 500, "multipart: out of memory");
            return false;
        }
    }
    if (rq->n_parts >= rq->job.n_partitions) {
        pl__http_refuse(rq, 400, "multipart: more `witness` parts than the "
                        "spec's %u partitions", rq->job.n_partitions);
        return false;
    }
    uint32_t k = rq->n_parts++;
    if (rq->existing && rq->job.state != PL__JOB_RECEIVING) {
        /* a retry of a job that has all its witnesses: read, not kept */
        rq->part = P_SKIP;
        return true;
    }
    char tag[17], path[PL__SERVICE_PATH_MAX + 128];
    pl_error err = {0};
    random_tag(tag);
    snprintf(path, sizeof(path), "%s/witnesses/%s.%u.%s.wtns",
             rq->svc->data_dir, rq->job.id, k, tag);
    if (pl__output_open(&rq->out, path, &err) != PL_OK) {
        pl__http_refuse(rq, 503, "witness part %u: %s", k, err.msg);
        rq->retry = true;
        return false;
    }
    rq->out_open = true;
    rq->received = 0;
    rq->part = P_WITNESS;
    return true;
}

static enum MHD_Result on_part(void *cls, enum MHD_ValueKind kind,
                               const char *key, const char *filename,
                               const char *content_type,
                               const char *transfer_encoding,
                               const char *data, uint64_t off, size_t size)
{
    (void)kind;
    (void)filename;
    (void)content_type;
    (void)transfer_encoding;
    request *rq = cls;
    pl_error err = {0};
    if (rq->code)
        return MHD_YES; /* refused: the rest is read and dropped */
    if (off == 0) {      /* a part begins */
        if (rq->part == P_WITNESS && !witness_part_end(rq))
            return MHD_YES;
        rq->part = P_NONE;
        if (!key) /* a part without a name (libmicrohttpd passes NULL) */
            key = "";
        if (strcmp(key, "spec") == 0) {
            if (rq->spec_seen || rq->job_made) {
                pl__http_refuse(rq, 400, "multipart: one part `spec`, first");
                return MHD_YES;
            }
            rq->spec_seen = true;
            rq->part = P_SPEC;
        } else if (strcmp(key, "witness") == 0) {
            if (!witness_part_begin(rq))
                return MHD_YES;
        } else {
            pl__http_refuse(rq, 400, "multipart: unknown part `%.40s` (a "
                            "`spec`, then `witness` parts)", key);
            return MHD_YES;
        }
    }
    if (rq->part == P_SPEC) {
        if (rq->json.len + size > PL__HTTP_JSON_MAX)
            pl__http_refuse(rq, 413, "spec: more than %u bytes of JSON",
                            PL__HTTP_JSON_MAX);
        else
            pl__strbuf_printf(&rq->json, "%.*s", (int)size, data);
    } else if (rq->part == P_WITNESS && size) {
        if (rq->received + size > rq->expected) {
            pl__http_refuse(rq, 400, "witness part %u: more than the %llu "
                            "bytes of a witness of circuit %.16s...",
                            rq->n_parts - 1, (unsigned long long)rq->expected,
                            rq->circuit.id);
        } else if (pl__output_write(&rq->out, data, size, &err) != PL_OK) {
            pl__http_refuse(rq, 503, "upload: %s", err.msg);
            rq->retry = true;
            pl__health_probe(rq->svc);
        } else {
            rq->received += size;
        }
    }
    return MHD_YES;
}

/* Partition k's witness, recorded; for a keyed job, a witness another try
 * of the same key recorded first (the two at once) is the same witness:
 * ours goes, and that is not a conflict. */
static pl_status record_witness(request *rq, uint32_t k, pl__store_job *job,
                                pl_error *err)
{
    pl__service *svc = rq->svc;
    pl_status st = pl__store_witness_stored(svc->store, rq->job.id, k,
                                            rq->paths[k], job, err);
    if (st != PL_EUSAGE || !rq->key[0] || pl__store_is_not_found(err))
        return st;
    pl__store_job now;
    size_t count = 0;
    pl_error e2 = {0};
    pl__store_partition *all =
        pl__alloc(PL__SERVICE_BUF, (k + 1) * sizeof(*all), &e2);
    bool theirs = false;
    if (all && pl__store_partitions(svc->store, rq->job.id, all, k + 1, &count,
                                    &e2) == PL_OK && count > k)
        theirs = all[k].witness_path[0] != 0;
    pl__free(all);
    if (!theirs || pl__store_job_get(svc->store, rq->job.id, &now, &e2))
        return st;
    unlink(rq->paths[k]);
    free(rq->paths[k]);
    rq->paths[k] = NULL;
    *job = now;
    return PL_OK;
}

enum MHD_Result pl__http_end_multipart(request *rq)
{
    pl__service *svc = rq->svc;
    if (rq->pp) {
        MHD_destroy_post_processor(rq->pp); /* delivers what it still holds */
        rq->pp = NULL;
    }
    if (!rq->code && rq->part == P_WITNESS)
        witness_part_end(rq);
    if (!rq->code && !rq->job_made)
        pl__http_refuse(rq, 400, "multipart: no `witness` part (a `spec`, "
                        "then one `witness` part per partition)");
    if (!rq->code && rq->n_parts != rq->job.n_partitions)
        pl__http_refuse(rq, 400, "multipart: %u `witness` parts, the spec "
                        "says %u partitions", rq->n_parts,
                        rq->job.n_partitions);
    pl__store_job job = rq->job;
    pl_error err = {0};
    bool had_all = rq->existing && rq->job.state != PL__JOB_RECEIVING;
    for (uint32_t k = 0; !rq->code && !had_all && k < rq->n_parts; k++) {
        pl_status st = record_witness(rq, k, &job, &err);
        if (st != PL_OK)
            pl__http_refuse(rq, pl__http_store_code(st, &err),
                            "witness part %u: %s", k, err.msg);
    }
    if (!rq->code && rq->existing &&
        pl__store_job_get(svc->store, rq->job.id, &job, &err) != PL_OK)
        pl__http_refuse(rq, 503, "store: %s", err.msg);
    if (rq->code) {
        pl__http_upload_undo(rq);
        return pl__http_reply_error(rq, rq->code,
                                    rq->msg.data ? rq->msg.data : "",
                                    rq->retry);
    }
    rq->acked = true;
    for (uint32_t k = 0; rq->paths && k < rq->n_parts; k++) {
        free(rq->paths[k]); /* the store has them now */
        rq->paths[k] = NULL;
    }
    pl__worker_kick(svc->worker);
    if (rq->route->id == PL__R_PROVE)
        return pl__api_prove_reply_or_wait(rq, &job);
    /* a retry: the same job, and the first answer's status */
    pl__strbuf sb = {0};
    pl_status st = pl__api_job_json(&sb, svc, &job, &err);
    return pl__http_reply_built(rq, 202, st, err.msg, &sb);
}
