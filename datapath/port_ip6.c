/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A port's ICMPv6 error source changed while workers read it (port.h,
 * ip6_src): two slots, the published one and the one being written, with
 * an RCU grace period between a publication and the next write of the slot
 * it replaced. Control thread only.
 */
#include <string.h>
#include <urcu-qsbr.h>

#include "datapath/port.h"

void port_ip6_src_set(struct port *p, const uint8_t addr[16])
{
	const uint8_t *cur = p->ip6_src; /* the only writer: no concurrent store */
	uint8_t *slot;

	if (addr && cur && !memcmp(cur, addr, 16))
		return;
	if (!addr && !cur)
		return;
	slot = NULL;
	if (addr) {
		/*
		 * The slot not published now: the grace period that ended the last
		 * call let every reader that took it before finish with it.
		 */
		slot = p->ip6_slot[cur == p->ip6_slot[0] ? 1 : 0];
		memcpy(slot, addr, 16);
	}
	__atomic_store_n(&p->ip6_src, slot, __ATOMIC_RELEASE);
	/* Before the next call may rewrite cur's slot, every reader of cur is done. */
	synchronize_rcu();
}
