/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The connections' guard (see http.h): what keeps slow and hostile clients
 * from holding the service's connections, so that /healthz and real
 * clients are served through a slowloris.
 *
 *  - a deadline for a request's headers (--header-timeout): a connection
 *    that trickles its header lines, or sends nothing, is closed that long
 *    after it opened or after its last request ended (the library's own
 *    timeout only closes connections that are idle, and a trickle is not);
 *  - a minimum rate for a body (--body-min-rate, averaged over the same
 *    time): an upload that drags is closed;
 *  - caps per client address (--max-connections-per-client) and in total
 *    (--max-connections): a connection beyond either makes room by closing
 *    a connection still sending its headers, the kind a slow client holds:
 *    the oldest of that address for the first; for the second, the oldest
 *    of the address that holds the most connections (an attacker who
 *    reconnects as fast as he is closed holds only young connections, so
 *    the oldest of all would be a real client's request being read); when
 *    none is, the new one is closed.  A request whose headers arrived (an authenticated client's,
 *    a health probe's) is never the one closed, and requests waiting for
 *    their job (suspended) are exempt from the deadlines.
 *
 * The library tells us of each connection (MHD_OPTION_NOTIFY_CONNECTION:
 * started, closed) on its polling threads, and of each request through
 * server.c; a thread of ours checks the deadlines every TICK_MS.  A
 * connection is closed with shutdown(2) on its socket: the library sees
 * the end and cleans it up on its own thread.  The library reports a
 * connection closed before it closes its socket, and our entry goes under
 * our lock then, so we never shut a socket the library has reused.  One
 * lock, held for a list walk at most.
 */
#define _GNU_SOURCE
#include "http.h"
#include "util/clock.h"
#include "util/error.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define TICK_MS 200
/* Connections counted by their address's hash, so the heaviest address is
 * found in a fixed time whatever the number of connections (a collision
 * merges two addresses: then both are taken as one heavy user). */
#define ADDR_BUCKETS 1024

typedef enum { HEADERS, BODY, ANSWERING, WAITING } phase;

typedef struct conn {
    struct MHD_Connection *c;
    int fd;
    char addr[64];       /* the client's address, as text ("unix": local) */
    unsigned bucket;     /* the address's hash, in by_bucket */
    phase phase;
    double since;        /* monotonic seconds: when the phase began */
    uint64_t window_bytes; /* a body's bytes since window_start */
    double window_start;
    bool closing;        /* shut down: not counted, not chosen again */
    struct conn *prev, *next;
} conn;

struct pl__guard {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t thread;
    bool started, stop;
    conn *head;
    unsigned total, max_total, max_per_client;
    unsigned by_bucket[ADDR_BUCKETS]; /* connections not closing, by bucket */
    double header_timeout_s;
    uint64_t body_min_rate;
    pl__guard_counts counts;
};

static void addr_text(struct MHD_Connection *c, char *out, size_t cap)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    const struct sockaddr *sa = ci ? ci->client_addr : NULL;
    snprintf(out, cap, "unix");
    if (!sa)
        return;
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
        inet_ntop(AF_INET, &in->sin_addr, out, (socklen_t)cap);
    } else if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
        inet_ntop(AF_INET6, &in6->sin6_addr, out, (socklen_t)cap);
    }
}

/* Under the lock: closes one (its socket shut; the library finishes it). */
static void shut(pl__guard *g, conn *e)
{
    if (e->closing)
        return;
    e->closing = true;
    g->total--;
    g->by_bucket[e->bucket]--;
    shutdown(e->fd, SHUT_RDWR);
}

static unsigned bucket_of(const char *addr)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (const char *p = addr; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    return h % ADDR_BUCKETS;
}

/* Under the lock: the oldest connection still sending its headers, of
 * addr (NULL: of any) and of bucket (ADDR_BUCKETS: of any), other than
 * skip. */
static conn *slowest(pl__guard *g, const char *addr, unsigned bucket,
                     const conn *skip)
{
    conn *best = NULL;
    for (conn *e = g->head; e; e = e->next)
        if (e != skip && !e->closing && e->phase == HEADERS &&
            (!addr || strcmp(e->addr, addr) == 0) &&
            (bucket == ADDR_BUCKETS || e->bucket == bucket) &&
            (!best || e->since < best->since))
            best = e;
    return best;
}

/* Under the lock: room in total.  The victim is a connection sending its
 * headers of the address holding the most connections (a reconnecting
 * attacker's are always younger than a real client's request still being
 * read, so the oldest of all would be the real client's), else the oldest
 * of any; else the new one is closed. */
static void make_room(pl__guard *g, conn *e)
{
    unsigned heavy = 0;
    for (unsigned b = 1; b < ADDR_BUCKETS; b++)
        if (g->by_bucket[b] > g->by_bucket[heavy])
            heavy = b;
    conn *victim = slowest(g, NULL, heavy, e);
    if (!victim)
        victim = slowest(g, NULL, ADDR_BUCKETS, e);
    g->counts.evicted += victim != NULL;
    g->counts.refused += victim == NULL;
    shut(g, victim ? victim : e);
}

static unsigned count_of(pl__guard *g, const char *addr)
{
    unsigned n = 0;
    for (conn *e = g->head; e; e = e->next)
        n += !e->closing && strcmp(e->addr, addr) == 0;
    return n;
}

static void *watch(void *arg)
{
    pl__guard *g = arg;
    pthread_mutex_lock(&g->mu);
    while (!g->stop) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += TICK_MS * 1000000L;
        ts.tv_sec += ts.tv_nsec / 1000000000L;
        ts.tv_nsec %= 1000000000L;
        pthread_cond_timedwait(&g->cv, &g->mu, &ts);
        double now = pl__now_seconds(), window = g->header_timeout_s;
        for (conn *e = g->head; e; e = e->next) {
            if (e->closing)
                continue;
            if (e->phase == HEADERS && now - e->since > window) {
                g->counts.header_timeouts++;
                shut(g, e);
            } else if (e->phase == BODY && now - e->window_start > window) {
                /* a window's worth of body at the minimum rate, or out */
                if ((double)e->window_bytes <
                    (double)g->body_min_rate * (now - e->window_start)) {
                    g->counts.slow_bodies++;
                    shut(g, e);
                } else {
                    e->window_start = now;
                    e->window_bytes = 0;
                }
            }
        }
    }
    pthread_mutex_unlock(&g->mu);
    return NULL;
}

pl_status pl__guard_start(pl__guard **out, const pl__server_config *cfg,
                          pl_error *err)
{
    *out = NULL;
    pl__guard *g = calloc(1, sizeof(*g));
    if (!g)
        return pl__error_set(err, PL_ENOMEM, "server: out of memory");
    g->max_total = cfg->connection_limit;
    g->max_per_client = cfg->per_client_limit;
    g->header_timeout_s = cfg->header_timeout_s;
    g->body_min_rate = cfg->body_min_rate;
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->cv, NULL);
    if (pthread_create(&g->thread, NULL, watch, g) != 0) {
        pthread_mutex_destroy(&g->mu);
        pthread_cond_destroy(&g->cv);
        free(g);
        return pl__error_set(err, PL_EIO, "server: the guard thread did not "
                             "start");
    }
    pthread_setname_np(g->thread, "pl-http-guard");
    g->started = true;
    *out = g;
    return PL_OK;
}

/* After the daemon stopped: every connection is gone. */
void pl__guard_stop(pl__guard *g)
{
    if (!g)
        return;
    pthread_mutex_lock(&g->mu);
    g->stop = true;
    pthread_cond_signal(&g->cv);
    pthread_mutex_unlock(&g->mu);
    pthread_join(g->thread, NULL);
    while (g->head) {
        conn *e = g->head;
        g->head = e->next;
        free(e);
    }
    pthread_mutex_destroy(&g->mu);
    pthread_cond_destroy(&g->cv);
    free(g);
}

void pl__guard_notify(void *cls, struct MHD_Connection *c, void **socket_ctx,
                      enum MHD_ConnectionNotificationCode toe)
{
    pl__guard *g = cls;
    if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
        conn *e = *socket_ctx;
        if (!e)
            return;
        pthread_mutex_lock(&g->mu);
        if (!e->closing) {
            g->total--;
            g->by_bucket[e->bucket]--;
        }
        if (e->prev)
            e->prev->next = e->next;
        else
            g->head = e->next;
        if (e->next)
            e->next->prev = e->prev;
        pthread_mutex_unlock(&g->mu);
        free(e);
        *socket_ctx = NULL;
        return;
    }
    conn *e = calloc(1, sizeof(*e));
    const union MHD_ConnectionInfo *fi =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (!e || !fi) { /* cannot be watched: not taken */
        free(e);
        if (fi)
            shutdown(fi->connect_fd, SHUT_RDWR);
        return;
    }
    e->c = c;
    e->fd = fi->connect_fd;
    addr_text(c, e->addr, sizeof(e->addr));
    e->bucket = bucket_of(e->addr);
    e->phase = HEADERS;
    e->since = pl__now_seconds();
    pthread_mutex_lock(&g->mu);
    e->next = g->head;
    if (g->head)
        g->head->prev = e;
    g->head = e;
    g->total++;
    g->by_bucket[e->bucket]++;
    g->counts.opened++;
    /* room by closing a slow sender of headers: of this address first
     * (its oldest), then of the heaviest address */
    if (count_of(g, e->addr) > g->max_per_client) {
        conn *victim = slowest(g, e->addr, ADDR_BUCKETS, e);
        g->counts.evicted += victim != NULL;
        g->counts.refused += victim == NULL;
        shut(g, victim ? victim : e);
    }
    if (!e->closing && g->total > g->max_total)
        make_room(g, e);
    pthread_mutex_unlock(&g->mu);
    *socket_ctx = e;
}

static conn *entry(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return ci ? ci->socket_context : NULL;
}

static void set_phase(pl__guard *g, struct MHD_Connection *c, phase p)
{
    conn *e = entry(c);
    if (!e)
        return;
    pthread_mutex_lock(&g->mu);
    e->phase = p;
    e->since = pl__now_seconds();
    e->window_start = e->since;
    e->window_bytes = 0;
    pthread_mutex_unlock(&g->mu);
}

void pl__guard_request(pl__guard *g, struct MHD_Connection *c)
{
    set_phase(g, c, BODY);
}

void pl__guard_body(pl__guard *g, struct MHD_Connection *c, size_t bytes)
{
    conn *e = entry(c);
    if (!e)
        return;
    pthread_mutex_lock(&g->mu);
    e->window_bytes += bytes;
    pthread_mutex_unlock(&g->mu);
}

void pl__guard_idle(pl__guard *g, struct MHD_Connection *c)
{
    set_phase(g, c, HEADERS);
}

void pl__guard_waiting(pl__guard *g, struct MHD_Connection *c, bool on)
{
    set_phase(g, c, on ? WAITING : ANSWERING);
}

void pl__guard_counts_read(pl__guard *g, pl__guard_counts *out)
{
    pthread_mutex_lock(&g->mu);
    *out = g->counts;
    pthread_mutex_unlock(&g->mu);
}
