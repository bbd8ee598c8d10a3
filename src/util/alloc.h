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

/* Test hook (fault injection): make the n-th accounted allocation from now
 * fail (n = 1 is the next one); 0 disables.  Returns how many allocations
 * were made since the last call, so a test can learn k, then fail 1..k. */
uint64_t pl__alloc_fail_at(uint64_t n);

#endif /* PL_UTIL_ALLOC_H */
