/* SPDX-License-Identifier: Apache-2.0 */
/* The engine's scheduling decisions (see sched.h): pure functions. */
#include "engine/sched.h"

#include <limits.h>

bool pl__sched_before(const pl__sched_key *a, const pl__sched_key *b)
{
    if (a->priority != b->priority)
        return a->priority > b->priority;
    if (a->job_seq != b->job_seq)
        return a->job_seq < b->job_seq;
    return a->partition < b->partition;
}

void pl__sched_reservation_for(pl__sched_reservation *out,
                               const pl__prove_plan *plan,
                               uint64_t witness_bytes)
{
    out->total = witness_bytes;
    for (int c = 0; c < PL_BUF_CLASS_COUNT; c++)
        out->total += plan->bytes[c];
    out->abc_share = plan->bytes[PL_BUF_ABC];
}

bool pl__sched_can_fit(uint64_t limit, uint64_t resident, uint64_t bytes)
{
    return resident <= limit && bytes <= limit - resident;
}

uint64_t pl__sched_smallest_budget(uint64_t resident, uint64_t bytes)
{
    return resident + bytes;
}

bool pl__sched_handoff_has_room(size_t queued, size_t claimed,
                                size_t capacity)
{
    return queued + claimed < capacity;
}

bool pl__sched_preempts(int waiting, int arriving)
{
    return waiting != INT_MIN && arriving > waiting;
}

bool pl__sched_queue_has_room(size_t count, size_t capacity)
{
    return count < capacity;
}

uint64_t pl__sched_release_after(const pl__sched_reservation *r,
                                 pl_event event, uint64_t held)
{
    switch (event) {
    case PL_EV_ABC_FREED:
        return r->abc_share < held ? r->abc_share : held;
    case PL_EV_DEALLOC_DONE:
    case PL_EV_FAILED:
    case PL_EV_CANCELLED:
        return held;
    default:
        return 0;
    }
}

bool pl__sched_worker_free_after(pl__sched_policy policy, pl_event event)
{
    switch (policy) {
    case PL__SCHED_RELEASE_AT_SYNTH_END:
        return event == PL_EV_SYNTH_DONE;
    case PL__SCHED_OURS:
    default:
        return event == PL_EV_HANDED_OFF;
    }
}

void pl__sched_config_complete(pl_engine_config *cfg, uint64_t memory_limit,
                               unsigned devices)
{
    if (!cfg->budget_bytes)
        cfg->budget_bytes = memory_limit ? memory_limit / 5 * 4 : 4ull << 30;
    if (!cfg->synth_workers)
        cfg->synth_workers = 2;
    if (!cfg->devices)
        cfg->devices = devices ? devices : 1;
    if (!cfg->prover_workers)
        cfg->prover_workers = cfg->devices;
    if (!cfg->handoff_slots)
        cfg->handoff_slots = cfg->prover_workers;
}

unsigned pl__sched_worker_device(unsigned worker, unsigned devices)
{
    return devices ? worker % devices : 0;
}

bool pl__sched_device_allowed(uint32_t device_mask, unsigned device)
{
    return device_mask == 0 || (device < 32 && (device_mask >> device) & 1);
}
