/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: an arbitrary byte stream as the FPM session's TCP stream,
 * cut into frames and decoded exactly as the server does (fpm_frame_check,
 * the prefetch peek, the 4-byte realignment, fpm_table_frame), applied to
 * the real RIB and FIB, and the RIB6 and FIB6 for IPv6 routes.
 * Seeds are frames captured from FRR 8.4's zebra (both modes, a restart
 * replay, IPv6) and a synthetic file with weights and forward references.
 *
 * A route of length L costs the DIR-24-8 FIB 2^(24-L) writes: a mutated
 * /0 takes 64 MiB of stores, a thousand times slower than anything else
 * here, and even a /8 takes 256 KiB. The harness raises IPv4 prefix lengths
 * below 16 to 16 in its copy of each frame (the decoder then sees a /16 with
 * host bits, or a clean one): the decoder's and the table's paths do not
 * depend on the length, and a run does about twice as many inputs a second
 * as with /8; the unit tests cover /0../15.
 *
 * Each input is three sessions, as three connections of zebra: the stream;
 * then, as after a zebra restart, a replay of its second half (what the
 * first half alone announced is swept as stale, the rest reconfirmed or
 * changed); then a session that announces nothing, so everything is swept
 * and the next input starts from the same empty table (a finding
 * reproduces from its input alone). Besides the sanitizers' checks, after
 * each session has settled the table's account of FRR routes in the RIB
 * and the RIB6 must equal their own counts, none may be left pending or
 * stale, and after the last one no FRR route may be left in the table or
 * the RIB.
 *
 * run.sh builds this target with a 1 K-slot IPv4 table
 * (-DFPM_R4_SLOTS_INIT=1024, the daemon's is 64 K): a session start walks
 * every slot, which at 64 K was most of the time of an input.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/fpm_table.h"
#include "daemon/rib6.h"

static struct dataplane dp;
static struct rib *rib;
static struct rib6 *rib6;
static struct fpm_table *tab;
static uint32_t aligned[FPM_FRAME_MAX / 4 + 1];

static uint64_t seed(void *arg, uint16_t port, uint32_t ip)
{
	return 0;
}

/* Ports on ifindex 2..4, as r-h1..r-h3 in the lab where the seeds were captured. */
static void setup(void)
{
	struct rib_path on = {.weight = 1};

	dp_init(&dp, NULL, &(struct fib_params){.tbl8_groups = 64});
	dp.nports = 3;
	for (unsigned i = 0; i < 3; i++) {
		dp.ports[i].id = (uint16_t)i;
		dp.ports[i].ifindex = (int)i + 2;
		on.port = (int)i;
		if (!rib)
			rib = rib_new(&dp, seed, NULL);
		rib_route_set(rib, 0x0a000000u | (i + 1) << 8, 24, RIB_SRC_CONNECTED, NH_GLEAN, &on,
		              1);
	}
	rib6 = rib6_new(rib, NULL, NULL);
	tab = fpm_table_new(rib, &dp);
	if (!tab || !rib6)
		abort();
	fpm_table_set_rib6(tab, rib6);
}

static void clamp_short_prefixes(uint8_t *payload, size_t len)
{
	struct fpm_frame_iter it = {.p = payload, .rem = (int)len};
	const void *msg;
	size_t mlen;

	while (fpm_frame_next(&it, &msg, &mlen) > 0) {
		uint8_t *m = (uint8_t *)msg;
		uint16_t type;
		memcpy(&type, m + 4, sizeof(type));
		/* rtmsg after the 16-byte nlmsghdr: family, dst_len, ... */
		if ((type == 24 || type == 25) && mlen >= 16 + 12 && m[16] == 2 && m[17] < 16)
			m[17] = 16;
	}
}

/* One session: the frames of data as the server reads them, then the sweep; the accounts checked. */
static void session(const uint8_t *data, size_t size, bool empty_after)
{
	struct fpm_table_counters c;
	struct rib_counts rc;
	long flen;

	if (fpm_table_session_start(tab) != 0)
		abort(); /* -ENOMEM only: not the input's doing */
	while ((flen = fpm_frame_check(data, size)) > 0) {
		/* As the server: a look at the frame where it lies, then the aligned copy. */
		fpm_table_prefetch(tab, data + FPM_HDR_LEN, (size_t)flen - FPM_HDR_LEN);
		memcpy(aligned, data + FPM_HDR_LEN, (size_t)flen - FPM_HDR_LEN);
		clamp_short_prefixes((uint8_t *)aligned, (size_t)flen - FPM_HDR_LEN);
		fpm_table_frame(tab, (const uint8_t *)aligned, (size_t)flen - FPM_HDR_LEN);
		data += flen;
		size -= (size_t)flen;
	}
	while (!fpm_table_sweep(tab, 7))
		;
	/* Ids freed by this session become reusable, as after a grace period. */
	rib_reclaim(rib);
	fib_reclaim(&dp.fib);
	fib6_reclaim(dp.fib6);

	uint64_t r6[RIB_SRC__MAX], e6;
	fpm_table_get_counters(tab, &c);
	rib_get_counts(rib, &rc);
	rib6_get_counts(rib6, r6, &e6);
	if (c.routes4_rib != rc.routes[RIB_SRC_FRR] || c.routes4_pending > c.routes4 ||
	    c.stale != 0 || c.routes6_rib != r6[RIB_SRC_FRR] ||
	    c.routes6 != c.routes6_rib + c.routes6_pending + c.routes6_rejected)
		abort();
	if (empty_after && (c.routes4 || c.routes6 || c.nhobjs || rc.routes[RIB_SRC_FRR] ||
	                    r6[RIB_SRC_FRR]))
		abort();
}

/* Where the second half of data's frames starts: after the first n/2 of its n frames. */
static size_t second_half(const uint8_t *data, size_t size)
{
	size_t n = 0, at = 0;
	long flen;

	while ((flen = fpm_frame_check(data + at, size - at)) > 0) {
		at += (size_t)flen;
		n++;
	}
	at = 0;
	for (n /= 2; n; n--)
		at += (size_t)fpm_frame_check(data + at, size - at);
	return at;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t half;

	if (!tab)
		setup();
	half = second_half(data, size);
	session(data, size, false);
	session(data + half, size - half, false);
	session(NULL, 0, true);
	return 0;
}
