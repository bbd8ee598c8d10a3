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
