/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The circuits' resources: GET /v1/circuits (all), GET /v1/circuits/{id},
 * POST /v1/circuits (a zkey uploaded as the body, or {"path": ...} under
 * --allow-path), POST /v1/circuits/{id}/preload and /evict (the parameter
 * residency).  A circuit's id is its zkey's sha256; a zkey is checked in
 * its temporary file and renamed to its id, so one that does not open
 * never appears under circuits/.
 */
#define _GNU_SOURCE
#include "http.h"
#include "figures.h"
#include "metrics.h"
#include "residency.h"
#include "formats/formats.h" /* the witness file's size */
#include "formats/json.h"
#include "util/error.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void circuit_json(pl__jw *w, const pl__store_circuit *c)
{
    pl__jw_object(w);
    pl__jw_key_str(w, "id", c->id);
    pl__jw_key(w, "curve"); /* null: registered before the store kept it */
    if (c->curve[0])
        pl__jw_str(w, c->curve);
    else
        pl__jw_null(w);
    pl__jw_key_u64(w, "constraints", c->n_constraints);
    pl__jw_key_u64(w, "vars", c->n_vars);
    pl__jw_key_u64(w, "public", c->n_public);
    pl__jw_key_u64(w, "witness_bytes", c->witness_bytes);
    pl__jw_key_u64(w, "partition_bytes", c->partition_bytes);
    pl__jw_key_u64(w, "zkey_bytes", c->zkey_bytes);
    pl__jw_key_i64(w, "created_ms", c->created_unix_ms);
    pl__jw_end_object(w);
}

static enum MHD_Result reply_circuit(request *rq, unsigned code,
                                     const pl__store_circuit *c)
{
    pl__strbuf sb = {0};
    pl__jw w;
    pl__jw_to_buffer(&w, &sb, false);
    circuit_json(&w, c);
    return pl__http_reply_built(rq, code, PL_OK, NULL, &sb);
}

/* Opens the zkey at path, fills the circuit's shape and its planned bytes
 * per partition (the engine's plan; the circuit is opened through the
 * residency and stays hot for its first proof).  *code: the HTTP status on
 * failure; `name` stands for the file in messages. */
static pl_status describe_circuit(pl__service *svc, pl__store_circuit *c,
                                  const char *path, const char *name,
                                  unsigned *code, pl_error *err)
{
    pl_zkey *zkey = NULL;
    pl_status st = pl_zkey_open(&zkey, path, err);
    if (st != PL_OK) {
        *code = st == PL_EIO ? 503 : 400;
        /* the file's own name means nothing to the client */
        const char *m = strstr(err->msg, ": ");
        return pl__error_set(err, st, "%s%s", name, m ? m : err->msg);
    }
    pl_zkey_info info;
    pl_zkey_get_info(zkey, &info);
    snprintf(c->curve, sizeof(c->curve), "%s",
             pl_curve_name(pl_zkey_curve(zkey)));
    pl_zkey_close(zkey);
    snprintf(c->zkey_path, sizeof(c->zkey_path), "%s", path);
    c->n_constraints = info.n_constraints;
    c->n_vars = info.n_vars;
    c->n_public = info.n_public;
    c->witness_bytes = pl__wtns_file_bytes(info.n_vars);
    /* a circuit larger than the parameter budget is refused here, with
     * the numbers, rather than waited for at every claim */
    pl_circuit *circuit;
    bool busy = false;
    double took = 0;
    if ((st = pl__residency_acquire(svc->residency, c->id, path, 0, &circuit,
                                    &took, &busy, err)) != PL_OK) {
        *code = busy ? 503 : st == PL_EIO ? 503 : 400;
        return st;
    }
    uint64_t resident;
    pl_circuit_plan(circuit, c->witness_bytes, &c->partition_bytes, &resident);
    pl__residency_release(svc->residency, c->id);
    if (took > 0)
        pl__metrics_promotion(svc->metrics, c->id, took);
    if (c->partition_bytes + resident > svc->budget_bytes) {
        *code = 400;
        return pl__error_set(err, PL_EBUDGET, "%s: one partition needs %llu "
                             "bytes and the circuit %llu resident, more than "
                             "the budget's %llu", name,
                             (unsigned long long)c->partition_bytes,
                             (unsigned long long)resident,
                             (unsigned long long)svc->budget_bytes);
    }
    c->created_unix_ms = pl__service_now_ms();
    return PL_OK;
}

/* POST /v1/circuits with the zkey in the body. */
static enum MHD_Result end_zkey_upload(request *rq)
{
    pl__service *svc = rq->svc;
    pl_error err = {0};
    uint8_t digest[32];
    pl__store_circuit c = {0};
    pl__sha256_final(&rq->sha, digest);
    pl__sha256_hex(c.id, digest);
    c.zkey_bytes = rq->received;
    pl__store_circuit known;
    if (pl__store_circuit_get(svc->store, c.id, &known, &err) == PL_OK) {
        pl__output_abort(&rq->out);
        rq->out_open = false;
        return reply_circuit(rq, 200, &known);
    }
    if (pl__output_finish(&rq->out, &err) != PL_OK) {
        pl__output_abort(&rq->out);
        rq->out_open = false;
        return pl__http_reply_error(rq, 503, err.msg, true);
    }
    /* checked in its temporary file, then renamed to its id */
    pl_zkey *zkey;
    if (pl_zkey_open(&zkey, rq->out.tmp_path, &err) != PL_OK) {
        const char *m = strstr(err.msg, ": ");
        char msg[300];
        snprintf(msg, sizeof(msg), "body (zkey)%s", m ? m : err.msg);
        pl__output_abort(&rq->out);
        rq->out_open = false;
        return pl__http_reply_error(rq, 400, msg, false);
    }
    pl_zkey_close(zkey);
    snprintf(rq->out.path, sizeof(rq->out.path), "%s/circuits/%s.zkey",
             svc->data_dir, c.id);
    pl_status st = pl__output_commit(&rq->out, &err);
    rq->out_open = false;
    if (st != PL_OK)
        return pl__http_reply_error(rq, 503, err.msg, true);
    char path[PL__STORE_PATH_MAX];
    snprintf(path, sizeof(path), "%s/circuits/%s.zkey", svc->data_dir, c.id);
    unsigned code = 400;
    if ((st = describe_circuit(svc, &c, path, "body (zkey)", &code, &err)) !=
            PL_OK ||
        (code = 503, st = pl__store_circuit_put(svc->store, &c, &err)) !=
            PL_OK) {
        unlink(path);
        return pl__http_reply_error(rq, code, err.msg, code == 503);
    }
    return reply_circuit(rq, 201, &c);
}

/* POST /v1/circuits {"path": "/abs/file.zkey"} under --allow-path. */
static enum MHD_Result end_circuit_path(request *rq)
{
    pl__service *svc = rq->svc;
    pl_error err = {0};
    pl__json_doc doc;
    if (pl__json_parse(&doc, rq->json.data ? rq->json.data : "", rq->json.len,
                       "body", &err) != PL_OK)
        return pl__http_reply_error(rq, 400, err.msg, false);
    const pl__json_value *root = pl__json_root(&doc), *v = NULL;
    enum MHD_Result r;
    char real[PATH_MAX], allow[PATH_MAX];
    if (root->type != PL__JSON_OBJECT) {
        r = pl__http_reply_error(rq, 400, "body: a JSON object is needed",
                                 false);
        goto done;
    }
    if (pl__json_member(&v, &doc, root, "path", true, "", &err) != PL_OK) {
        r = pl__http_reply_error(rq, 400, err.msg, false);
        goto done;
    }
    if (v->type != PL__JSON_STRING) {
        r = pl__http_reply_error(rq, 400, "body: path: a string is needed",
                                 false);
        goto done;
    }
    if (!svc->allow_path) {
        r = pl__http_reply_error(rq, 403, "path: registering a zkey by path "
                                 "needs the service started with "
                                 "--allow-path DIR", false);
        goto done;
    }
    if (!realpath(v->text, real)) {
        r = pl__http_reply_error(rq, 400, "path: no such file", false);
        goto done;
    }
    if (!realpath(svc->allow_path, allow)) {
        r = pl__http_reply_error(rq, 503, "--allow-path: the folder is gone",
                                 true);
        goto done;
    }
    size_t n = strlen(allow);
    if (strncmp(real, allow, n) != 0 || (real[n] != '/' && n > 1)) {
        r = pl__http_reply_error(rq, 403, "path: outside the folder "
                                 "--allow-path allows", false);
        goto done;
    }
    int fd = open(real, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        if (fd >= 0)
            close(fd);
        r = pl__http_reply_error(rq, 400, "path: not a readable regular file",
                                 false);
        goto done;
    }
    /* its id: the sha256 of its bytes, read in pieces */
    pl__store_circuit c = {0};
    pl__sha256 h;
    pl__sha256_init(&h);
    static const size_t piece = 256 * 1024;
    uint8_t *buf = malloc(piece);
    ssize_t got = 0;
    while (buf && (got = read(fd, buf, piece)) > 0) {
        pl__sha256_update(&h, buf, (size_t)got);
        c.zkey_bytes += (uint64_t)got;
    }
    free(buf);
    close(fd);
    if (!buf || got < 0) {
        r = pl__http_reply_error(rq, 503, "path: reading the file failed",
                                 true);
        goto done;
    }
    uint8_t digest[32];
    pl__sha256_final(&h, digest);
    pl__sha256_hex(c.id, digest);
    pl__store_circuit known;
    if (pl__store_circuit_get(svc->store, c.id, &known, &err) == PL_OK) {
        r = reply_circuit(rq, 200, &known);
        goto done;
    }
    unsigned code = 400;
    pl_status st;
    if ((st = describe_circuit(svc, &c, real, "path", &code, &err)) != PL_OK ||
        (code = 503, st = pl__store_circuit_put(svc->store, &c, &err)) != PL_OK)
        r = pl__http_reply_error(rq, code, err.msg, code == 503);
    else
        r = reply_circuit(rq, 201, &c);
done:
    pl__json_free(&doc);
    return r;
}

enum MHD_Result pl__api_circuits_add(request *rq)
{
    return rq->body == PL__BODY_ZKEY ? end_zkey_upload(rq)
                                     : end_circuit_path(rq);
}

static bool list_circuit(void *user, const pl__store_circuit *c)
{
    circuit_json(user, c);
    return true;
}

enum MHD_Result pl__api_circuits_list(request *rq)
{
    pl__strbuf sb = {0};
    pl_error err = {0};
    pl__jw w;
    pl__jw_to_buffer(&w, &sb, false);
    pl__jw_object(&w);
    pl__jw_key(&w, "circuits");
    pl__jw_array(&w);
    pl_status st = pl__store_circuit_list(rq->svc->store, list_circuit, &w,
                                          &err);
    pl__jw_end_array(&w);
    pl__jw_end_object(&w);
    return pl__http_reply_built(rq, 200, st, err.msg, &sb);
}

enum MHD_Result pl__api_circuit(request *rq)
{
    pl__store_circuit c;
    pl_error err = {0};
    pl_status st = pl__store_circuit_get(rq->svc->store, rq->id, &c, &err);
    if (st != PL_OK)
        return pl__http_reply_error(rq, pl__http_store_code(st, &err),
                                    err.msg, false);
    return reply_circuit(rq, 200, &c);
}

/* preload (make hot now) or evict (demote now). */
static enum MHD_Result residency_call(request *rq, bool preload)
{
    pl__service *svc = rq->svc;
    pl__store_circuit c;
    pl_error err = {0};
    pl_status st = pl__store_circuit_get(svc->store, rq->id, &c, &err);
    if (st != PL_OK)
        return pl__http_reply_error(rq, pl__http_store_code(st, &err),
                                    err.msg, false);
    bool busy = false, changed = false;
    double took = 0;
    pl_circuit *hot;
    if (preload) {
        st = pl__residency_acquire(svc->residency, c.id, c.zkey_path, 0, &hot,
                                   &took, &busy, &err);
        if (st == PL_OK) {
            pl__residency_release(svc->residency, c.id);
            if (took > 0)
                pl__metrics_promotion(svc->metrics, c.id, took);
        }
    } else {
        st = pl__residency_evict(svc->residency, c.id, &changed, &err);
    }
    if (st != PL_OK) {
        /* in use: 409; busy (circuits in use hold the room): 503 and retry;
         * larger than the parameter budget: 400 */
        unsigned code = !preload ? 409 : busy ? 503 : 400;
        return pl__http_reply_error(rq, code, err.msg, busy);
    }
    pl__strbuf sb = {0};
    pl__jw w;
    pl__jw_to_buffer(&w, &sb, false);
    pl__figures_params_json(svc, &w, c.id);
    return pl__http_reply_built(rq, 200, PL_OK, NULL, &sb);
}

enum MHD_Result pl__api_preload(request *rq)
{
    return residency_call(rq, true);
}

enum MHD_Result pl__api_evict(request *rq)
{
    return residency_call(rq, false);
}
