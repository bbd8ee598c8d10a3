/* SPDX-License-Identifier: Apache-2.0 */
/* Work beside the calling thread (util/beside.h). */
#define _GNU_SOURCE
#include "util/beside.h"
#include "util/error.h"

#include <string.h>

static void *beside_main(void *arg)
{
    pl__beside *b = arg;
    pl__alloc_scope_enter(b->scope);
    pl__stage_sink_set(&b->sink);
    b->fn(b->arg);
    return NULL;
}

pl_status pl__beside_start(pl__beside *b, const char *name,
                           void (*fn)(void *arg), void *arg, pl_error *err)
{
    memset(b, 0, sizeof(*b));
    b->fn = fn;
    b->arg = arg;
    b->scope = pl__alloc_scope_current();
    pl__stage_sink_get(&b->sink);
    b->sink.helper = true;
    int rc = pthread_create(&b->thread, NULL, beside_main, b);
    if (rc)
        return pl__error_errno(err, PL_EINTERNAL, rc,
                               "cannot start the %s thread", name);
    pthread_setname_np(b->thread, name);
    b->running = true;
    return PL_OK;
}

void pl__beside_join(pl__beside *b)
{
    if (!b->running)
        return;
    pthread_join(b->thread, NULL);
    b->running = false;
}
