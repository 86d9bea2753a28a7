/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Control-side index of the installed IPv4 prefixes: one open-addressing
 * hash (linear probing) per prefix length. The DIR-24-8 tables only hold the
 * expanded result; this index remembers what was actually installed, so a
 * delete can find the next shorter covering prefix and fib4_walk/fib4_get can
 * answer exactly. 8 bytes per slot, load factor <= 3/4: ~12 MB for 1M routes,
 * far less than a binary trie with pointers would take.
 *
 * Single-threaded (the FIB writer); readers of the datapath never touch it.
 */
#ifndef CELLGATE_FIB4_INDEX_H
#define CELLGATE_FIB4_INDEX_H

#include <stddef.h>
#include <stdint.h>

struct fib4_islot {
	uint32_t prefix;
	uint32_t value; /* 0 = empty slot (route values are never 0) */
};

struct fib4_ihash {
	struct fib4_islot *slots;
	uint32_t mask; /* capacity - 1; capacity is a power of two */
	uint32_t used;
};

struct fib4_index {
	struct fib4_ihash len[33];
	uint64_t nonempty; /* bit l set when len[l].used > 0: skips empty lengths */
};

void fib4_index_init(struct fib4_index *ix);
void fib4_index_fini(struct fib4_index *ix);

/* Start loading the slot where prefix/len is (or would be): the next call will miss less. */
void fib4_index_prefetch(const struct fib4_index *ix, uint32_t prefix, uint8_t len);

/* Value of prefix/len, or 0. */
uint32_t fib4_index_get(const struct fib4_index *ix, uint32_t prefix, uint8_t len);

/* Make room so the next fib4_index_set on len cannot fail. 0 or -ENOMEM. */
int fib4_index_reserve(struct fib4_index *ix, uint8_t len);

/* Add or replace; requires a prior successful fib4_index_reserve(len). */
void fib4_index_set(struct fib4_index *ix, uint32_t prefix, uint8_t len, uint32_t value);

/* Remove prefix/len; returns its value, or 0 if it was not there. */
uint32_t fib4_index_remove(struct fib4_index *ix, uint32_t prefix, uint8_t len);

/*
 * Longest installed prefix strictly shorter than len that covers prefix: its
 * value (0 if none) and its length in *cover_len (0 if none).
 */
uint32_t fib4_index_cover(const struct fib4_index *ix, uint32_t prefix, uint8_t len,
                          uint8_t *cover_len);

int fib4_index_walk(const struct fib4_index *ix,
                    int (*cb)(uint32_t prefix, uint8_t len, uint32_t value, void *arg), void *arg);

size_t fib4_index_memory(const struct fib4_index *ix);

#endif
