/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Readiness (see service.h): whether the service can still write what it
 * acknowledges.  A probe writes a transaction to the store (after checking
 * that its files are still the ones it opened: a folder removed under a
 * SQLite store goes on taking writes into an unlinked file) and a small
 * file through the one output path in DATA (temporary file, fsync, rename,
 * removed), where witnesses and proofs go.  While either fails, /readyz
 * and every state-changing request answer 503 and the worker claims
 * nothing; the next probe that succeeds makes the service ready again, by
 * itself.  A folder that was removed never comes back: the store it held
 * is gone with it.
 */
#define _GNU_SOURCE
#include "service.h"
#include "util/error.h"
#include "util/file.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

bool pl__health_ok(pl__service *svc, char *why, size_t cap)
{
    bool ok = !atomic_load(&svc->unwritable);
    if (!ok && why && cap) {
        pthread_mutex_lock(&svc->health_lock);
        snprintf(why, cap, "%s", svc->unwritable_why);
        pthread_mutex_unlock(&svc->health_lock);
    }
    return ok;
}

bool pl__health_probe(pl__service *svc)
{
    pl_error err = {0};
    pthread_mutex_lock(&svc->probe_lock);
    pl_status st = pl__store_probe(svc->store, &err);
    if (st == PL_OK) {
        char path[PL__SERVICE_PATH_MAX + 16];
        snprintf(path, sizeof(path), "%s/.probe", svc->data_dir);
        st = pl__file_write_atomic(path, "probe\n", 6, &err);
        unlink(path);
    }
    bool ok = st == PL_OK;
    bool was = !atomic_exchange(&svc->unwritable, !ok);
    pthread_mutex_lock(&svc->health_lock);
    if (!ok)
        snprintf(svc->unwritable_why, sizeof(svc->unwritable_why), "%s",
                 err.msg);
    pthread_mutex_unlock(&svc->health_lock);
    if (was != ok && ok)
        fprintf(stderr, "proofline serve: the store and the data folder can "
                "be written again: ready\n");
    else if (was != ok)
        fprintf(stderr, "proofline serve: not ready: %s\n", err.msg);
    pthread_mutex_unlock(&svc->probe_lock);
    return ok;
}
