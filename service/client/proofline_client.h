/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The client of `proofline serve`: HTTP requests over libcurl to a server
 * at "http://host:port" or "unix:/path/to.sock" (a Unix socket, through
 * CURLOPT_UNIX_SOCKET_PATH), with the bearer token read from a token file,
 * bodies given in memory or streamed from a file (a zkey, a witness: never
 * held whole in memory), and replies parsed with the project's own strict
 * JSON parser.  The commands `submit`, `jobs`, `status` and `fetch`
 * (cli/cmd_client.c) are its callers; it knows the API's paths only
 * through them, except for pl_client_fetch_proof, which turns one proof
 * reply into the proof.json/public.json pair `proofline prove` writes.
 *
 * Errors name the URL and, for a reply that is not 2xx, show the server's
 * {"error": "..."} message.  The statuses: a server that cannot be reached,
 * a timeout, a 5xx other than 500: PL_EIO; 500: PL_EINTERNAL; any 4xx:
 * PL_EUSAGE (the request was wrong: bad token, unknown id, bad input); a
 * reply that is not the JSON it should be: PL_EFORMAT.  All but
 * PL_EINTERNAL exit 2 (pl_status_exit_code).
 *
 * A 429 or 503 with Retry-After (a full queue, a draining server) is
 * retried after the delay asked, until max_retry_s seconds of waiting are
 * spent (0: never retried); a request with a file body rewinds the file.
 *
 * A handle is used by one thread at a time; handles are independent.
 */
#ifndef PROOFLINE_CLIENT_H
#define PROOFLINE_CLIENT_H

#include "proofline.h"
#include "formats/json.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The server when none is given (proofline serve's default --listen). */
#define PL_CLIENT_DEFAULT_SERVER "http://127.0.0.1:7878"
/* A reply larger than this is refused: the largest is a job list, and a
 * proof with its public inputs is a few KiB. */
#define PL_CLIENT_MAX_REPLY ((size_t)64 << 20)
/* A token file larger than this is refused (a token is one line). */
#define PL_CLIENT_MAX_TOKEN 4096

typedef struct pl_client pl_client;

typedef struct pl_client_config {
    const char *server;      /* NULL: PL_CLIENT_DEFAULT_SERVER */
    const char *token_file;  /* NULL: no Authorization header */
    long connect_timeout_s;  /* 0: 10 s */
    /* A request is abandoned when fewer than 1 byte/s moves for this long
     * (an upload of a large zkey has no fixed total time); 0: 60 s. */
    long stall_timeout_s;
    long max_retry_s;        /* 429/503 retries, total wait; 0: none */
    /* Polled during transfers and waits (NULL: never): true ends the
     * request with PL_ECANCELLED (a command's SIGINT). */
    bool (*should_stop)(void);
} pl_client_config;

/* A reply.  body is NUL-terminated (malloc'd); doc is parsed when the body
 * is JSON (json: true) and borrows body. */
typedef struct pl_client_reply {
    long code;            /* the HTTP status */
    char *body;
    size_t len;
    bool json;
    pl__json_doc doc;
    long retry_after_s;   /* from Retry-After, or -1 */
    char url[512];        /* for messages */
} pl_client_reply;

/* Checks the server address and reads the token file (its first line,
 * trailing whitespace dropped; an empty token is refused). */
pl_status pl_client_open(pl_client **out, const pl_client_config *cfg,
                          pl_error *err);
void pl_client_close(pl_client *c);
/* The server's address as given ("http://..." or "unix:/..."). */
const char *pl_client_server(const pl_client *c);

/* A request.  method: "GET", "POST", "PUT", "DELETE"; path: "/v1/jobs";
 * a body either in memory (body, len) or from a file (body_file, streamed),
 * or none; content_type for the body ("application/json",
 * "application/octet-stream").  A 2xx reply with a JSON body is PL_OK with
 * the reply filled in (free it with pl_client_reply_free, on failure
 * too); any other reply is an error as above, naming the URL and quoting
 * the server's message.  allow_code: a non-2xx status the caller handles
 * itself (409 for a proof not done yet), answered PL_OK; 0: none. */
pl_status pl_client_request(pl_client *c, pl_client_reply *out,
                             const char *method, const char *path,
                             const char *content_type, const void *body,
                             size_t len, const char *body_file,
                             long allow_code, pl_error *err);
void pl_client_reply_free(pl_client_reply *r);
/* The whole text of the client's last failed request (the URL, the HTTP
 * status and the server's message, uncut), "" after a success: err holds
 * the same, cut to pl_error's 255 characters. */
const char *pl_client_last_error(const pl_client *c);
/* Whether should_stop is heeded (true after open): off for a request that
 * must go out even after a stop, such as cancelling a half-uploaded job. */
void pl_client_stoppable(pl_client *c, bool on);

/* Members of a reply's objects, for the commands' tables.  str: the
 * string member (NULL when absent or not a string); num: a number member
 * as uint64 (fallback when absent, not a number or negative). */
const char *pl_client_str(const pl_client_reply *r,
                           const pl__json_value *obj, const char *key);
uint64_t pl_client_num(const pl_client_reply *r, const pl__json_value *obj,
                        const char *key, uint64_t fallback);
int64_t pl_client_int(const pl_client_reply *r, const pl__json_value *obj,
                       const char *key, int64_t fallback);
/* The member value itself, or NULL. */
const pl__json_value *pl_client_get(const pl_client_reply *r,
                                     const pl__json_value *obj,
                                     const char *key);

/* Registers a zkey (POST /v1/circuits, the file streamed as the body)
 * unless the server has it already: the file's sha256 is the circuit's
 * id, so it is hashed here first and asked for (GET /v1/circuits/{id}); a
 * large key the server knows is not sent again.  id: 65 bytes, the hex
 * id; *uploaded says whether it was sent. */
pl_status pl_client_register(pl_client *c, const char *zkey_path,
                              char id[65], bool *uploaded, pl_error *err);

/* POST /v1/jobs with a JSON spec (written by the project's one JSON
 * writer): a job of n_partitions on the circuit, at the priority named
 * ("low", "normal", "high", "critical"), to be done deadline_s seconds
 * after it is made (0: no deadline); its witnesses are PUT next.  id: the
 * job's id from the reply (37 bytes). */
pl_status pl_client_create_job(pl_client *c, const char *circuit,
                               const char *priority, size_t n_partitions,
                               double deadline_s, char id[37], pl_error *err);

/* GET /v1/jobs/{job}/proofs/{index}, then writes proof_path and
 * public_path as a pair (pl_proof_write_json: byte for byte what
 * `proofline prove` writes).  *ready is false (nothing written) when the
 * server answers 409: the partition is not done yet. */
pl_status pl_client_fetch_proof(pl_client *c, const char *job,
                                 uint32_t index, const char *proof_path,
                                 const char *public_path, bool *ready,
                                 pl_error *err);

#endif /* PROOFLINE_CLIENT_H */
