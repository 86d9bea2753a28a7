/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The naive longest-match reference the FIB tests compare both algorithms
 * against: a flat list of routes, scanned in full for every lookup, so it
 * has no structure that could share a bug with the tables under test.
 * Header-only: the unit tests and the fuzz target each include it once.
 */
#ifndef CELLGATE_TEST_FIB_REF_H
#define CELLGATE_TEST_FIB_REF_H

#include <stdint.h>

struct ref_route {
	uint32_t prefix;
	uint8_t len;
	uint32_t value;
};

struct fib_ref {
	struct ref_route *r;
	unsigned n, cap;
};

static inline uint32_t ref_mask(uint8_t len)
{
	return len ? ~0u << (32 - len) : 0;
}

static inline int ref_find(const struct fib_ref *ref, uint32_t prefix, uint8_t len)
{
	for (unsigned i = 0; i < ref->n; i++) {
		if (ref->r[i].prefix == prefix && ref->r[i].len == len)
			return (int)i;
	}
	return -1;
}

static inline uint32_t ref_lookup(const struct fib_ref *ref, uint32_t addr)
{
	int best = -1;

	for (unsigned i = 0; i < ref->n; i++) {
		if ((addr & ref_mask(ref->r[i].len)) != ref->r[i].prefix)
			continue;
		if (best < 0 || ref->r[i].len > ref->r[best].len)
			best = (int)i;
	}
	return best < 0 ? 0 : ref->r[best].value;
}

/* Add or replace; 0, or -1 when the list is full. */
static inline int ref_set(struct fib_ref *ref, uint32_t prefix, uint8_t len, uint32_t value)
{
	int i = ref_find(ref, prefix, len);

	if (i >= 0) {
		ref->r[i].value = value;
		return 0;
	}
	if (ref->n == ref->cap)
		return -1;
	ref->r[ref->n++] = (struct ref_route){prefix, len, value};
	return 0;
}

/* 1 if it was there. */
static inline int ref_del(struct fib_ref *ref, uint32_t prefix, uint8_t len)
{
	int i = ref_find(ref, prefix, len);

	if (i < 0)
		return 0;
	ref->r[i] = ref->r[--ref->n];
	return 1;
}

#endif
