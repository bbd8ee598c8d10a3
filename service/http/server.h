/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The HTTP side of `proofline serve`: a libmicrohttpd daemon (a small pool
 * of polling threads, so a slow client holds a connection, never a thread)
 * that routes the API of docs/serve.md onto the store, the worker and the
 * metrics.  Uploads (zkeys, witnesses) are streamed to a temporary file
 * beside their target, fsync'd and renamed before the store records them,
 * so an acknowledged upload is whole on disk.  Used by cli/cmd_serve.c.
 */
#ifndef PL_SERVICE_SERVER_H
#define PL_SERVICE_SERVER_H

#include "service.h"

typedef struct pl__server_config {
    const char *listen;         /* "HOST:PORT" (PORT 0: any) or "unix:PATH" */
    unsigned threads;           /* polling threads; 0: 4 */
    unsigned connection_limit;  /* 0: 256 */
    unsigned per_client_limit;  /* from one address; 0: 64 */
    double header_timeout_s;    /* a request's headers; 0: 10 */
    double idle_timeout_s;      /* an idle connection is closed; 0: 30 */
    uint64_t body_min_rate;     /* bytes/s; 0: 1024 */
} pl__server_config;

/* Whether a --listen value is a loopback address (or a Unix socket); a
 * value that does not parse is PL_EUSAGE naming it. */
pl_status pl__server_listen_check(const char *listen, bool *loopback,
                                  pl_error *err);
/* Binds, starts the daemon and writes the bound address ("HOST:PORT" or
 * "unix:PATH", a line) to DATA/listen.addr. */
pl_status pl__server_start(pl__server **out, pl__service *svc,
                           const pl__server_config *cfg, pl_error *err);
/* Closes the listening socket and every connection (uploads in progress
 * leave nothing behind); NULL is a no-op. */
void pl__server_stop(pl__server *s);

#endif /* PL_SERVICE_SERVER_H */
