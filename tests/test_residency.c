/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The service's parameter residency (service/residency.c) over a real
 * engine and the committed vectors: hot bytes never above the parameter
 * budget, the least recently used idle circuit demoted first, a circuit in
 * use never demoted (nor evicted), a circuit too large refused with the
 * numbers, preload making the first use free of promotion, and every
 * byte back once all are let go.
 */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"
#include "residency.h"

#include <pthread.h>
#include <string.h>

static const char *zkey(const char *vector)
{
    static _Thread_local char path[4][256];
    static _Thread_local int slot;
    char *p = path[slot++ % 4];
    snprintf(p, 256, "%s/%s/circuit.zkey", PL_TEST_VECTORS, vector);
    return p;
}

static pl_engine *engine(void)
{
    pl_engine_config cfg;
    pl_engine_config_init(&cfg);
    cfg.budget_bytes = 1ull << 30;
    cfg.threads = 2;
    pl_engine *e;
    pl_error err = {0};
    CHECK_OK(pl_engine_create(&e, &cfg, &err), &err);
    return e;
}

/* The resident bytes of a vector's circuit, learned from a roomy residency. */
static uint64_t resident_of(pl_engine *e, const char *vector)
{
    pl__residency *r;
    pl_error err = {0};
    CHECK_OK(pl__residency_create(&r, e, 0, &err), &err);
    pl_circuit *c;
    double took;
    bool busy;
    CHECK_OK(pl__residency_acquire(r, vector, zkey(vector), 0, &c, &took,
                                   &busy, &err), &err);
    uint64_t hot;
    pl__residency_bytes(r, &hot, NULL, NULL);
    pl__residency_release(r, vector);
    pl__residency_destroy(r);
    return hot;
}

static pl__tier tier_of(pl__residency *r, const char *id)
{
    pl__residency_entry ents[8];
    size_t n = pl__residency_list(r, ents, 8);
    for (size_t i = 0; i < n && i < 8; i++)
        if (strcmp(ents[i].id, id) == 0)
            return ents[i].tier;
    return PL__TIER_COLD;
}

static bool is_hot(pl__residency *r, const char *id)
{
    return tier_of(r, id) == PL__TIER_HOT;
}

PL_TEST(lru_under_the_budget_never_demotes_what_is_in_use)
{
    pl_engine *e = engine();
    const char *names[3] = {"chain10", "multiplier", "pow2exact"};
    uint64_t b[3];
    for (int i = 0; i < 3; i++) {
        b[i] = resident_of(e, names[i]);
        CHECK(b[i] > 0);
    }
    /* v[0] the smallest; room for v[1] and v[2] together, not for all */
    int s = 0;
    for (int i = 1; i < 3; i++)
        if (b[i] < b[s])
            s = i;
    const char *v[3] = {names[s], names[(s + 1) % 3], names[(s + 2) % 3]};
    uint64_t bytes[3] = {b[s], b[(s + 1) % 3], b[(s + 2) % 3]};
    uint64_t budget = bytes[1] + bytes[2];
    pl__residency *r;
    pl_error err = {0};
    CHECK_OK(pl__residency_create(&r, e, budget, &err), &err);
    pl_circuit *c;
    double took;
    bool busy;
    /* v[1] then v[0] hot (they fit together): v[1] is the older use */
    for (int i = 1; i >= 0; i--) {
        CHECK_OK(pl__residency_acquire(r, v[i], zkey(v[i]), 0, &c, &took,
                                       &busy, &err), &err);
        CHECK(took > 0);
        pl__residency_release(r, v[i]);
    }
    /* v[1] in use: promoting v[2] demotes v[0], the idle one, although
     * v[1] was used longer ago */
    CHECK_OK(pl__residency_acquire(r, v[1], zkey(v[1]), 0, &c, &took, &busy,
                                   &err), &err);
    CHECK(took == 0); /* it was hot */
    pl_circuit *c2;
    CHECK_OK(pl__residency_acquire(r, v[2], zkey(v[2]), 0, &c2, &took, &busy,
                                   &err), &err);
    CHECK(is_hot(r, v[1]) && is_hot(r, v[2]) && !is_hot(r, v[0]));
    uint64_t hot, peak;
    pl__residency_bytes(r, &hot, NULL, &peak);
    CHECK_EQ(hot, budget);
    CHECK(peak <= budget);
    /* both in use: v[0] does not fit now, and nothing is demoted */
    CHECK_EQ(pl__residency_acquire(r, v[0], zkey(v[0]), 0, &c, &took, &busy,
                                   &err), PL_EBUDGET);
    CHECK(busy);
    CHECK(is_hot(r, v[1]) && is_hot(r, v[2]));
    pl__residency_release(r, v[2]);
    /* in use: evict refused */
    bool changed = true;
    CHECK_EQ(pl__residency_evict(r, v[1], &changed, &err), PL_EUSAGE);
    CHECK(!changed && is_hot(r, v[1]));
    pl__residency_release(r, v[1]);
    CHECK_OK(pl__residency_evict(r, v[1], &changed, &err), &err);
    CHECK(changed && !is_hot(r, v[1]));
    /* everything let go: nothing reserved */
    pl__residency_shrink(r, 0, NULL);
    pl__residency_bytes(r, &hot, NULL, &peak);
    CHECK_EQ(hot, 0);
    CHECK(peak <= budget);
    pl_engine_stats es;
    pl_engine_stats_read(e, &es);
    CHECK_EQ(es.reserved_bytes, 0);
    pl__residency_destroy(r);
    CHECK_OK(pl_engine_destroy(e, &err), &err);
}

PL_TEST(too_large_is_refused_with_the_numbers)
{
    pl_engine *e = engine();
    uint64_t bytes = resident_of(e, "chain10");
    pl__residency *r;
    pl_error err = {0};
    CHECK_OK(pl__residency_create(&r, e, bytes - 1, &err), &err);
    pl_circuit *c;
    bool busy = true;
    CHECK_EQ(pl__residency_acquire(r, "chain10", zkey("chain10"), bytes, &c,
                                   NULL, &busy, &err), PL_EBUDGET);
    CHECK(!busy);
    CHECK(strstr(err.msg, "parameter budget") != NULL);
    /* refused before anything was opened when the size is known */
    pl_engine_stats es;
    pl_engine_stats_read(e, &es);
    CHECK_EQ(es.reserved_bytes, 0);
    /* and after opening, when the estimate was low */
    CHECK_EQ(pl__residency_acquire(r, "chain10", zkey("chain10"), 1, &c, NULL,
                                   &busy, &err), PL_EBUDGET);
    CHECK(!busy);
    pl_engine_stats_read(e, &es);
    CHECK_EQ(es.reserved_bytes, 0);
    pl__residency_destroy(r);
    CHECK_OK(pl_engine_destroy(e, &err), &err);
}

PL_TEST(preload_makes_the_first_use_free)
{
    pl_engine *e = engine();
    pl__residency *r;
    pl_error err = {0};
    CHECK_OK(pl__residency_create(&r, e, 0, &err), &err);
    bool busy;
    CHECK(tier_of(r, "multiplier") == PL__TIER_COLD);
    CHECK_OK(pl__residency_preload(r, "multiplier", zkey("multiplier"), 0,
                                   &busy, &err), &err);
    CHECK(is_hot(r, "multiplier"));
    pl_circuit *c;
    double took = -1;
    CHECK_OK(pl__residency_acquire(r, "multiplier", zkey("multiplier"), 0, &c,
                                   &took, &busy, &err), &err);
    CHECK(took == 0);
    pl__residency_release(r, "multiplier");
    /* demoted by idleness: its file's pages are still cached, so warm */
    CHECK_EQ(pl__residency_demote_idle(r, 0), 1);
    pl__tier t = tier_of(r, "multiplier");
    CHECK(t == PL__TIER_WARM || t == PL__TIER_COLD);
    pl__residency_destroy(r);
    CHECK_OK(pl_engine_destroy(e, &err), &err);
}

/* Two threads acquiring one cold circuit at once open it once. */
typedef struct {
    pl__residency *r;
    pl_circuit *c;
} racer;

static void *race(void *arg)
{
    racer *x = arg;
    pl_error err = {0};
    bool busy;
    double took;
    CHECK_OK(pl__residency_acquire(x->r, "chain10", zkey("chain10"), 0, &x->c,
                                   &took, &busy, &err), &err);
    return NULL;
}

PL_TEST(concurrent_acquires_open_once)
{
    pl_engine *e = engine();
    pl__residency *r;
    pl_error err = {0};
    CHECK_OK(pl__residency_create(&r, e, 0, &err), &err);
    racer a = {r, NULL}, b = {r, NULL};
    pthread_t ta, tb;
    pthread_create(&ta, NULL, race, &a);
    pthread_create(&tb, NULL, race, &b);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    CHECK(a.c == b.c);
    pl__residency_entry ent;
    CHECK_EQ(pl__residency_list(r, &ent, 1), 1);
    CHECK_EQ(ent.promotions, 1);
    CHECK_EQ(ent.refs, 2);
    pl__residency_release(r, "chain10");
    pl__residency_release(r, "chain10");
    pl__residency_destroy(r);
    CHECK_OK(pl_engine_destroy(e, &err), &err);
}
