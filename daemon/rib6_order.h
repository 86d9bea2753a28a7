/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The RIB6's prefix order: an ordered set of IPv6 route keys (rib6.h,
 * struct rib6_key: address, then length), kept beside the route hash as
 * lib/kset.h is beside the IPv4 one, and built the same way: sorted
 * chunks of up to RIB6_ORDER_CHUNK keys under a sorted array of their
 * first keys. A key is 136 bits, too wide for kset's 64, so a chunk holds
 * its keys as three arrays (high and low halves, length): 17 bytes a key,
 * ~5 MiB for the 220k routes of a full IPv6 table. An insert or delete
 * moves at most one chunk's keys, keys arriving in order (a replay in
 * prefix order) are appended, a range is counted or skipped a chunk at a
 * time, and a walk resumes from a key, not from a pointer.
 */
#ifndef CELLGATE_RIB6_ORDER_H
#define CELLGATE_RIB6_ORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/rib6.h"

#define RIB6_ORDER_CHUNK 128

struct rib6_order_chunk {
	uint32_t n;
	uint8_t len[RIB6_ORDER_CHUNK];
	uint64_t hi[RIB6_ORDER_CHUNK], lo[RIB6_ORDER_CHUNK];
};

struct rib6_order {
	struct rib6_order_chunk **c; /* in key order, none empty */
	struct rib6_key *first;      /* c[i]'s first key: the search reads this array only */
	uint32_t n, cap;             /* chunks used, allocated */
	uint64_t count;              /* keys */
};

/* A place in the set: chunk and index; valid until the set changes. */
struct rib6_order_pos {
	uint32_t chunk, idx;
};

void rib6_order_init(struct rib6_order *o);
void rib6_order_fini(struct rib6_order *o);

/* 0, -EEXIST (already there, nothing changed) or -ENOMEM. */
int rib6_order_insert(struct rib6_order *o, const struct rib6_key *k);
/* 0 or -ENOENT. */
int rib6_order_remove(struct rib6_order *o, const struct rib6_key *k);

/* The first key >= k: true and *p set, or false when there is none. */
bool rib6_order_seek(const struct rib6_order *o, const struct rib6_key *k,
                     struct rib6_order_pos *p);
void rib6_order_at(const struct rib6_order *o, const struct rib6_order_pos *p, struct rib6_key *k);
/* Move to the next key; false at the end. */
bool rib6_order_next(const struct rib6_order *o, struct rib6_order_pos *p);

/* Keys in [lo, hi]. Cost: two searches and one step per chunk in between. */
uint64_t rib6_order_count(const struct rib6_order *o, const struct rib6_key *lo,
                          const struct rib6_key *hi);
/* Move n keys on from *p (whole chunks at a time); false when that is past the end. */
bool rib6_order_skip(const struct rib6_order *o, struct rib6_order_pos *p, uint64_t n);

/* Bytes held (chunks and the arrays over them). */
size_t rib6_order_memory(const struct rib6_order *o);

#endif
