/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The accounted allocator.  Every large buffer (>= 1 MiB; smaller ones are
 * welcome too) is allocated here with its buffer class, so the per-class
 * counters are exact: live count, live bytes, high-water, largest request,
 * totals.  The engine's budget and the ledger build on these counters.
 */
#ifndef PL_UTIL_ALLOC_H
#define PL_UTIL_ALLOC_H

#include "proofline.h"

/* 64-byte aligned, uninitialised.  On failure: NULL, PL_ENOMEM in err with
 * the class and the bytes asked. */
void *pl__alloc(pl_buffer_class cls, uint64_t bytes, pl_error *err);
/* Zero-filled pl__alloc. */
void *pl__calloc(pl_buffer_class cls, uint64_t bytes, pl_error *err);
/* Frees a pl__alloc buffer; NULL is a no-op. */
void pl__free(void *ptr);

/* Memory that another allocator owns (cudaMalloc's device memory,
 * cudaHostAlloc's pinned pages) counted in a class like pl__alloc's own:
 * account after the foreign allocation succeeded, unaccount after it was
 * freed, with the same bytes.  account fails (false, PL_ENOMEM in err) only
 * under fault injection, so tests can fail these allocations too. */
bool pl__alloc_account(pl_buffer_class cls, uint64_t bytes, pl_error *err);
void pl__alloc_unaccount(pl_buffer_class cls, uint64_t bytes);

/* Classes whose bytes are not in this process's RSS (device memory): the
 * ledger leaves them out of its reconciliation with RssAnon. */
bool pl__alloc_class_is_host(pl_buffer_class cls);

/* Accounting scopes: beside the process-wide counters, which every buffer
 * counts in, a scope counts the live buffers allocated while it was its
 * thread's current scope: an engine's own buffers, so that its leak check
 * at destroy is not disturbed by another engine (or a direct prover) in the
 * same process.  The block remembers its scope, so a free is counted
 * against it whichever thread frees.  Memory accounted with
 * pl__alloc_account is unaccounted against the freeing thread's current
 * scope: free it with the same scope current.  Threads start with none
 * (NULL); pool workers run tasks with none, so tasks must not allocate
 * (callers allocate a run's scratch before it, as the MSMs do). */
typedef struct pl__alloc_scope pl__alloc_scope;

pl_status pl__alloc_scope_create(pl__alloc_scope **out, pl_error *err);
/* Lets go of a scope; it is freed when its last live block is (at once
 * when none is left). */
void pl__alloc_scope_destroy(pl__alloc_scope *scope);
/* Makes scope (NULL: none) the calling thread's current one and returns the
 * one it replaces, for restoring. */
pl__alloc_scope *pl__alloc_scope_enter(pl__alloc_scope *scope);
pl__alloc_scope *pl__alloc_scope_current(void);
/* True when no buffer of the scope is live; else names the classes. */
bool pl__alloc_scope_all_freed(pl__alloc_scope *scope, pl_error *err);

/* Test hook (fault injection): make the n-th accounted allocation from now
 * fail (n = 1 is the next one); 0 disables.  Returns how many allocations
 * were made since the last call, so a test can learn k, then fail 1..k. */
uint64_t pl__alloc_fail_at(uint64_t n);

#endif /* PL_UTIL_ALLOC_H */
