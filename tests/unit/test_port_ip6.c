/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A port's ICMPv6 source and IPv6 flag changed while workers read them
 * (datapath/port.h, port_ip6.c): what a reader gets is always one whole
 * published address or none, never a mix of two, with a reader thread
 * (registered with liburcu-qsbr as the workers are) copying the address a
 * byte at a time while the control thread publishes a new one after the
 * other. Each address published has all 16 bytes equal, so a torn copy shows.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <urcu-qsbr.h>

#include "datapath/port.h"
#include "tests/unit/check.h"

#define ROUNDS 20000

struct race {
	struct port port;
	unsigned long torn, reads, seen_none, epoch;
	int stop;
};

/* One worker pass: take the address once, copy it slowly, check it is one address. */
static void reader_pass(struct race *r)
{
	const uint8_t *src = port_ip6_src(&r->port);
	uint8_t copy[16];

	if (!src) {
		r->seen_none++;
		return;
	}
	for (unsigned i = 0; i < 16; i++) {
		copy[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
		for (volatile unsigned spin = 0; spin < 20; spin++) /* widen the window */
			;
	}
	for (unsigned i = 1; i < 16; i++)
		if (copy[i] != copy[0])
			r->torn++;
	if (copy[0] == 0)
		r->torn++; /* no address published is all zero */
	r->reads++;
}

static void *reader(void *arg)
{
	struct race *r = arg;

	rcu_register_thread();
	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		reader_pass(r);
		rcu_quiescent_state(); /* as a worker after each pass */
		__atomic_store_n(&r->epoch, r->epoch + 1, __ATOMIC_RELEASE);
	}
	rcu_unregister_thread();
	return NULL;
}

static void test_race(void)
{
	static struct race r;
	uint8_t a[16];
	pthread_t th;

	memset(a, 1, sizeof(a));
	port_ip6_src_set(&r.port, a);
	CHECK_EQ(pthread_create(&th, NULL, reader, &r), 0);
	while (__atomic_load_n(&r.epoch, __ATOMIC_ACQUIRE) < 2)
		sched_yield(); /* the reader runs before the first change */
	for (unsigned k = 0; k < ROUNDS; k++) {
		if (k % 100 == 99) {
			port_ip6_src_set(&r.port, NULL); /* the port lost its last address */
			continue;
		}
		memset(a, 1 + (int)(k % 254), sizeof(a));
		port_ip6_src_set(&r.port, a);
	}
	memset(a, 0x77, sizeof(a));
	port_ip6_src_set(&r.port, a);
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	printf("test_port_ip6: %lu reads during %u changes, %lu without an address, %lu torn\n",
	       r.reads, ROUNDS, r.seen_none, r.torn);
	CHECK_EQ(r.torn, 0);
	CHECK(r.reads > 0);
	/* The last address is the one published. */
	CHECK(port_ip6_src(&r.port) && !memcmp(port_ip6_src(&r.port), a, 16));
}

/* What the control thread sees: the last address set, none, the same one again. */
static void test_set(void)
{
	static struct port p;
	uint8_t a[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 1},
	        b[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 2};
	const uint8_t *first;

	CHECK(port_ip6_src(&p) == NULL && !port_ip6_on(&p));
	port_ip6_src_set(&p, a);
	first = port_ip6_src(&p);
	CHECK(first && !memcmp(first, a, 16));
	port_ip6_src_set(&p, a); /* unchanged: nothing published */
	CHECK(port_ip6_src(&p) == first);
	port_ip6_src_set(&p, b); /* the other slot: a reader of `first` keeps a */
	CHECK(port_ip6_src(&p) != first && !memcmp(port_ip6_src(&p), b, 16));
	CHECK(!memcmp(first, a, 16));
	port_ip6_src_set(&p, NULL);
	CHECK(port_ip6_src(&p) == NULL);
	port_ip6_enable(&p, true);
	CHECK(port_ip6_on(&p));
	port_ip6_enable(&p, false);
	CHECK(!port_ip6_on(&p));
}

int main(void)
{
	test_set();
	test_race();
	return check_report("test_port_ip6");
}
