/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The reference FIB6 is checked against: a plain list of prefixes, the
 * longest match found by comparing every one with the address. Random
 * prefixes are shaped like a real table (crowded under a few /16s, the
 * lengths libloc has) and hit the structure's edges.
 */
#ifndef CELLGATE_TEST_FIB6_REF_H
#define CELLGATE_TEST_FIB6_REF_H

#include <stdint.h>

#include "datapath/fib/fib6.h"

__extension__ typedef unsigned __int128 u128;

#define REF_MAX 8192

struct ref {
	u128 key[REF_MAX];
	uint8_t len[REF_MAX];
	uint32_t val[REF_MAX];
	unsigned n;
};

uint64_t rnd64(void);
u128 rnd128(void);
u128 mask(unsigned len);
void store(u128 k, uint8_t a[16]);
u128 load(const uint8_t a[16]);

int ref_find(const struct ref *r, u128 key, unsigned len);
uint32_t ref_lookup(const struct ref *r, u128 addr);
void ref_set(struct ref *r, u128 key, unsigned len, uint32_t val);
void ref_del(struct ref *r, int i);
struct ref *ref_dup(const struct ref *r);

int ins(struct fib6 *f, u128 key, unsigned len, uint32_t val);
int del(struct fib6 *f, u128 key, unsigned len);
uint32_t look(const struct fib6 *f, u128 addr);

/* Mismatches of scalar and bulk lookups (random, in-table and edge keys) against r. */
unsigned compare(const struct fib6 *f, const struct ref *r, unsigned count);
/* Mismatches where an address answers what none of the nst states says. */
unsigned compare_any(const struct fib6 *f, struct ref *const *st, unsigned nst, unsigned count);
/* fib6_walk, the route count and fib6_get agree with r (CHECKs). */
void check_walk(const struct fib6 *f, const struct ref *r);

unsigned pick_len(void);
u128 pick_key(unsigned len);

#endif
