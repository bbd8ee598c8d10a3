/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Parameters as a managed resource: which circuits a service keeps open
 * (their keys loaded, their matrices and NTT tables built) under a
 * parameter budget, and which it lets go.
 *
 * Three tiers, as an operator sees them:
 *  - hot: open in the engine, its resident bytes (class params, csr, ...)
 *    reserved from the engine's budget, ready to prove;
 *  - warm: not open, but the kernel still caches some of the key file's
 *    pages (counted with mincore), so promoting it reads little from disk;
 *  - cold: not open and not cached (or never opened).
 * Hot bytes never exceed the parameter budget: promoting a circuit first
 * demotes the least recently used hot circuits that no proof uses; a
 * circuit in use (acquired and not yet released) is never demoted.  A
 * circuit whose resident bytes alone exceed the parameter budget is
 * refused (PL_EBUDGET, with the numbers) rather than waited for.
 *
 * Promotion opens the circuit in the engine: seconds for a large key.  The
 * caller's thread does it, outside the residency's lock; a second acquire
 * of the same circuit meanwhile waits for that open rather than opening it
 * twice.  Thread-safe.
 */
#ifndef PL_SERVICE_RESIDENCY_H
#define PL_SERVICE_RESIDENCY_H

#include "proofline.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct pl__residency pl__residency;

typedef enum {
    PL__TIER_COLD = 0,
    PL__TIER_WARM = 1,
    PL__TIER_HOT = 2,
    PL__TIER_COUNT
} pl__tier;

const char *pl__tier_name(pl__tier tier);

/* The view of one circuit, for status and metrics. */
typedef struct pl__residency_entry {
    char id[65];
    pl__tier tier;
    uint64_t resident_bytes; /* hot: reserved; otherwise the last known */
    const char *curve;       /* "bn128", "bls12381"; NULL until opened */
    uint64_t cached_bytes;   /* the key file's pages in the page cache */
    unsigned refs;           /* proofs using it now */
    bool opening;            /* a promotion in progress */
    uint64_t promotions, demotions;
    double last_promotion_s; /* how long the last promotion took */
    double idle_s;           /* since its last release (0 while in use) */
} pl__residency_entry;

/* budget_bytes: the most hot bytes at once (0: no limit but the engine's
 * own budget). */
pl_status pl__residency_create(pl__residency **out, pl_engine *engine,
                               uint64_t budget_bytes, pl_error *err);
/* Releases every hot circuit; none may be in use. */
void pl__residency_destroy(pl__residency *r);
uint64_t pl__residency_budget(const pl__residency *r);

/* Makes circuit `id` (key at zkey_path) hot and takes a reference.
 * expected_bytes: its resident bytes if known (0: not known; the key
 * file's size is used as the estimate), so that room is made before it is
 * opened.  *promote_s: the seconds spent promoting (0 when it was hot).
 * PL_EBUDGET: it does not fit the parameter budget even alone (never
 * retried), or *busy is set: it would fit once circuits in use are
 * released (retry later; nothing was changed). */
pl_status pl__residency_acquire(pl__residency *r, const char *id,
                                const char *zkey_path,
                                uint64_t expected_bytes, pl_circuit **out,
                                double *promote_s, bool *busy,
                                pl_error *err);
/* Gives back a reference taken by acquire. */
void pl__residency_release(pl__residency *r, const char *id);

/* Promotes without using it (preload): acquire then release. */
pl_status pl__residency_preload(pl__residency *r, const char *id,
                                const char *zkey_path,
                                uint64_t expected_bytes, bool *busy,
                                pl_error *err);
/* Demotes a hot circuit now.  PL_EUSAGE "in use" while a proof uses it;
 * *changed false when it was not hot. */
pl_status pl__residency_evict(pl__residency *r, const char *id,
                              bool *changed, pl_error *err);
/* Demotes every hot circuit unused for idle_s seconds or more; returns
 * how many. */
unsigned pl__residency_demote_idle(pl__residency *r, double idle_s);

/* Hot bytes now, the part of them in use (or being opened: these cannot
 * be demoted to make room), and the peak of hot bytes. */
void pl__residency_bytes(pl__residency *r, uint64_t *hot, uint64_t *in_use,
                         uint64_t *peak);
/* Demotes least recently used idle circuits, never `keep_id`, until hot
 * bytes are at most max_hot; returns the hot bytes then (more than max_hot
 * when what is in use holds more). */
uint64_t pl__residency_shrink(pl__residency *r, uint64_t max_hot,
                              const char *keep_id);
/* Every circuit it has seen, into out[0..cap); returns the count (which
 * may exceed cap).  zkey pages are counted (mincore) for the non-hot
 * ones. */
size_t pl__residency_list(pl__residency *r, pl__residency_entry *out,
                          size_t cap);

#endif
