/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The check every fuzz target makes after an input: each packet received on
 * any port was forwarded, left to the kernel, dropped under one reason, or
 * is still held for ARP (in flight). Anything else is a bug: abort, so
 * libFuzzer keeps the input.
 */
#ifndef CELLGATE_FUZZ_ACCOUNTING_H
#define CELLGATE_FUZZ_ACCOUNTING_H

#include <stdlib.h>

#include "datapath/dataplane.h"

static inline void fuzz_accounting_check(const struct dataplane *dp)
{
	static struct stats_snapshot s; /* large: not on the stack */
	uint64_t in = 0, out;

	dp_stats_take(dp, &s);
	out = s.worker_held[0];
	for (unsigned p = 0; p < s.nports; p++) {
		in += s.port[p].c.rx_packets;
		out += s.port[p].c.forwarded + s.port[p].c.to_kernel + s.port[p].drops_total;
	}
	if (in != out)
		abort();
}

#endif
