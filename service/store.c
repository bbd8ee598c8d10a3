/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What every store implementation shares: the names of states and
 * priorities (the API's and the metrics' vocabulary), and the choice of an
 * implementation by locator.
 */
#include "store.h"

#include <string.h>

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

static const char *const priority_names[PL__PRIORITY_COUNT] = {"low", "normal",
                                                               "high"};

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
