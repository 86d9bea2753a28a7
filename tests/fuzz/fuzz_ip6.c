/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target for the IPv6 libraries (issue 16, phase 1). The first
 * byte picks what the rest is:
 *
 *  bit 0 clear: an IPv6 packet, through ip6_validate, ip6_chain_walk,
 *    ip6_egress_check, ip6_flow_hash, icmp6_error_allowed and
 *    icmp6_error_build for every error type, and nd_parse (a parsed NS is
 *    answered and the answer parsed back). Bits 1-3 help it past checks
 *    random bytes rarely pass: Payload Length set to the input, the ICMPv6
 *    checksum filled in, hop limit 255. Properties: verdicts in range, the
 *    walk's offsets inside the packet, every error we build is well formed,
 *    fits 1280 octets, verifies, quotes the packet and is itself never one
 *    we would answer with an error; ND answers carry the right R/S/O.
 *
 *  bit 0 set: up to 16 FIB6 updates (insert, delete, batches, reclaim) on
 *    small reader arrays, so -ENOSPC comes up, against a naive longest match:
 *    after every step, scalar and bulk lookups match it (inside a batch,
 *    the state before the batch); a refused update changes nothing.
 *
 * Anything else is a bug: abort, so libFuzzer keeps the input.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "datapath/fib/fib6.h"
#include "datapath/icmp6.h"
#include "datapath/ip6.h"
#include "datapath/nd.h"

/*
 * The reference and its helpers are the harness, not the code under test:
 * no coverage feedback from them and no comparison tracing, which cost most
 * of the FIB half's time (noinline, or they are instrumented where inlined).
 */
#define NOCOV __attribute__((no_sanitize("coverage"), noinline))

#define MUST(c)                                                                                    \
	do {                                                                                       \
		if (!(c))                                                                          \
			abort();                                                                   \
	} while (0)

static const uint8_t mac_a[6] = {2, 0, 0, 0, 0, 0xa}, mac_b[6] = {2, 0, 0, 0, 0, 0xb};
static const uint8_t all_nodes_mac[6] = {0x33, 0x33, 0, 0, 0, 1};
static const uint8_t router[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 1};

/* ---- packets ---- */

/* Fill in the ICMPv6 checksum, if the chain leads to an ICMPv6 header. */
static void fix_icmp6(uint8_t *ip, uint32_t len)
{
	struct ip6_info info;

	if (ip6_chain_walk(ip, len, &info) != IP6_OK || info.l4_proto != IP6_NH_ICMPV6 ||
	    (info.flags & IP6_F_LATER_FRAG) || info.l4_off + 4u > len)
		return;
	wr16(ip + info.l4_off + 2, 0);
	wr16(ip + info.l4_off + 2, icmp6_csum(ip, ip + info.l4_off, len - info.l4_off));
}

static void check_info(const struct ip6_info *info, uint32_t avail)
{
	MUST(info->len <= avail && info->len >= IP6_HLEN);
	MUST(info->l4_off >= IP6_HLEN && info->l4_off <= info->len);
	MUST(info->n_ext <= IP6_EXT_MAX);
	MUST(info->l4_off <= IP6_HLEN + IP6_EXT_SPAN);
}

/* Every error we may send about ip: well formed, within 1280, and never answered itself. */
static void check_errors(const uint8_t *ip, uint32_t len, bool l2_multicast)
{
	static const uint8_t types[4][2] = {{ICMP6_DST_UNREACH, ICMP6_CODE_BEYOND_SCOPE},
	                                    {ICMP6_PACKET_TOO_BIG, 0},
	                                    {ICMP6_TIME_EXCEEDED, 0},
	                                    {ICMP6_PARAM_PROB, ICMP6_PP_OPTION}};
	static uint8_t f[ICMP6_ERR_FRAME_MAX];
	struct ip6_info info;

	for (unsigned t = 0; t < 4; t++) {
		uint32_t flen, quote = len < ICMP6_ERR_QUOTE_MAX ? len : ICMP6_ERR_QUOTE_MAX;
		enum drop_reason r;

		if (!icmp6_error_allowed(ip, len, l2_multicast, types[t][0], types[t][1]))
			continue;
		flen = icmp6_error_build(f, ip, len, mac_a, mac_b, router, types[t][0], types[t][1],
		                         1000);
		MUST(flen == 14 + IP6_HLEN + 8 + quote && flen - 14 <= IP6_MIN_MTU);
		MUST(icmp6_csum(f + 14, f + 54, flen - 54) == 0);
		MUST(memcmp(f + 54 + 8, ip, quote) == 0);
		MUST(memcmp(f + 14 + 24, ip + 8, 16) == 0);
		if (types[t][0] == ICMP6_PACKET_TOO_BIG)
			MUST(rd32(f + 54 + 4) == IP6_MIN_MTU);
		r = ip6_validate(f + 14, flen - 14, &info);
		MUST(r == IP6_OK || r == IP6_LOCAL);
		/* RFC 4443 §2.4 (e.1): an error is never answered with an error. */
		for (unsigned u = 0; u < 4; u++)
			MUST(!icmp6_error_allowed(f + 14, flen - 14, false, types[u][0],
			                          types[u][1]));
	}
}

/* A parsed solicitation answered, and the answer parsed back with §7.2.4's flags. */
static void check_nd(const uint8_t *ip, uint32_t len, bool router_flag)
{
	static uint8_t f[ND_FRAME_MAX];
	struct nd_msg m, a;
	uint32_t flen;
	bool dad;

	if (nd_parse(ip, len, &m) != ND_OK)
		return;
	MUST(ip[7] == ND_HOP_LIMIT && !ip6_addr_is_multicast(m.target));
	MUST(m.type == ICMP6_NEIGH_SOL || m.type == ICMP6_NEIGH_ADV);
	if (m.type != ICMP6_NEIGH_SOL)
		return;
	dad = ip6_addr_is_unspecified(m.src);
	MUST(!dad || !m.has_lla);
	flen = nd_na_reply_build(f, &m, mac_a, mac_b, router_flag, true);
	MUST(nd_parse(f + 14, flen - 14, &a) == ND_OK && a.type == ICMP6_NEIGH_ADV);
	MUST(a.flags ==
	     ((router_flag ? ND_NA_ROUTER : 0) | (dad ? 0 : ND_NA_SOLICITED) | ND_NA_OVERRIDE));
	MUST(a.has_lla && memcmp(a.lla, mac_b, 6) == 0);
	MUST(memcmp(f, dad ? all_nodes_mac : m.has_lla ? m.lla : mac_a, 6) == 0);
}

static void packet(const uint8_t *data, size_t size, uint8_t mode)
{
	static uint8_t ip[8192];
	uint32_t len = size > sizeof(ip) ? sizeof(ip) : (uint32_t)size, plen;
	struct ip6_info info, walk;
	struct ip6_err err;
	enum drop_reason r;

	memcpy(ip, data, len);
	if (len >= IP6_HLEN && (mode & 2))
		wr16(ip + 4, (uint16_t)(len - IP6_HLEN));
	if (len >= IP6_HLEN && (mode & 8))
		ip[7] = ND_HOP_LIMIT;
	if (len >= IP6_HLEN && (mode & 4))
		fix_icmp6(ip, len);
	r = ip6_validate(ip, len, &info);
	MUST(r <= IP6_LOCAL);
	MUST(r >= DROP__MAX || drop_reason_name[r] != NULL);
	if (r == IP6_OK) {
		check_info(&info, len);
		(void)ip6_flow_hash(ip, &info);
		MUST(ip6_chain_walk(ip, info.len, &walk) == IP6_OK);
		MUST(walk.l4_off == info.l4_off && walk.l4_proto == info.l4_proto);
	}
	if (len < IP6_HLEN)
		return;
	plen = IP6_HLEN + rd16(ip + 4);
	if (plen > len)
		plen = len;
	if (ip6_chain_walk(ip, plen, &walk) == IP6_OK)
		check_info(&walk, plen);
	r = ip6_egress_check(ip, plen, 1280 + (mode >> 4) * 100, mode & 16, &err);
	MUST((r == IP6_OK) == (err.type == 0)); /* every egress drop names its ICMPv6 error */
	MUST(r != DROP_IP6_TOO_BIG || err.param >= IP6_MIN_MTU);
	check_errors(ip, plen, mode & 32);
	check_nd(ip, len, mode & 64);
}

/* ---- FIB6 against a naive longest match ---- */

__extension__ typedef unsigned __int128 u128;

#define REF_MAX 256

struct ref {
	u128 key[REF_MAX];
	uint8_t len[REF_MAX];
	uint32_t val[REF_MAX];
	unsigned n;
};

static struct fib6 *fib;
static struct ref now, published; /* the control side, and what readers must see */
static bool in_batch;
static uint32_t next_value = 1;

static u128 mask(unsigned len)
{
	return len ? ~(u128)0 << (128 - len) : 0;
}

static u128 load(const uint8_t *a)
{
	u128 k = 0;

	for (int i = 0; i < 16; i++)
		k = k << 8 | a[i];
	return k;
}

static void store(u128 k, uint8_t *a)
{
	for (int i = 15; i >= 0; i--, k >>= 8)
		a[i] = (uint8_t)k;
}

static NOCOV int ref_find(const struct ref *r, u128 key, unsigned len)
{
	for (unsigned i = 0; i < r->n; i++)
		if (r->len[i] == len && r->key[i] == key)
			return (int)i;
	return -1;
}

static NOCOV uint32_t ref_lookup(const struct ref *r, u128 a)
{
	int best = -1;

	for (unsigned i = 0; i < r->n; i++)
		if ((a & mask(r->len[i])) == r->key[i] && (best < 0 || r->len[i] > r->len[best]))
			best = (int)i;
	return best < 0 ? 0 : r->val[best];
}

static void ref_del(struct ref *r, int i)
{
	r->n--;
	r->key[i] = r->key[r->n];
	r->len[i] = r->len[r->n];
	r->val[i] = r->val[r->n];
}

/*
 * Readers see `published`: the probe, and addresses inside up to 16 of its
 * routes (a window that moves with `step`), scalar and bulk.
 */
static NOCOV void check_lookups(u128 probe, unsigned step)
{
	uint8_t a[17][16];
	const uint8_t *p[17];
	uint32_t got[17];
	unsigned n = 0;

	store(probe, a[n++]);
	for (unsigned k = 0; k < 16 && k < published.n; k++) {
		unsigned i = (step * 16 + k) % published.n;

		store(published.key[i] | (probe & ~mask(published.len[i])), a[n++]);
	}
	for (unsigned i = 0; i < n; i++)
		p[i] = a[i];
	fib6_lookup_bulk(fib, p, got, n);
	for (unsigned i = 0; i < n; i++) {
		uint32_t want = ref_lookup(&published, load(a[i]));

		MUST(fib6_lookup(fib, a[i]) == want && got[i] == want);
	}
}

/* Close a batch; while the arrays are short, drop routes inside it until it fits. */
static void batch_close(void)
{
	int rc;

	while ((rc = fib6_batch_end(fib)) != 0) {
		MUST(rc == -ENOSPC);
		fib6_reclaim(fib);
		if ((rc = fib6_batch_end(fib)) == 0)
			break;
		MUST(now.n > 0);
		uint8_t a[16];
		store(now.key[now.n - 1], a);
		MUST(fib6_delete(fib, a, now.len[now.n - 1]) == 0);
		now.n--;
	}
	in_batch = false;
	published = now;
}

/* One update; outside a batch a refused one must leave readers where they were. */
static void update(bool insert, u128 key, unsigned len)
{
	int i = ref_find(&now, key, len), rc;
	uint8_t a[16];

	store(key, a);
	rc = insert ? fib6_insert(fib, a, (uint8_t)len, next_value)
	            : fib6_delete(fib, a, (uint8_t)len);
	if (!insert && i < 0) {
		MUST(rc == -ENOENT);
		return;
	}
	if (rc == -ENOSPC && !in_batch)
		return; /* refused: `now` and `published` stay */
	MUST(rc == 0);
	if (insert && i < 0) {
		i = (int)now.n++;
		now.key[i] = key;
		now.len[i] = (uint8_t)len;
	}
	if (insert)
		now.val[i] = next_value++;
	else
		ref_del(&now, i);
	if (!in_batch)
		published = now;
}

/* Every route out (in one batch: emptying needs no new arrays), then nothing may be left. */
static void fib_reset(void)
{
	struct fib6_stats st;

	if (in_batch)
		batch_close();
	fib6_batch_begin(fib);
	for (unsigned i = 0; i < now.n; i++) {
		uint8_t a[16];

		store(now.key[i], a);
		MUST(fib6_delete(fib, a, now.len[i]) == 0);
	}
	MUST(fib6_batch_end(fib) == 0);
	fib6_reclaim(fib);
	fib6_get_stats(fib, &st);
	MUST(st.routes == 0 && st.cnodes == 0 && st.nodes_used == 0 && st.leaves_used == 0);
	now.n = published.n = 0;
}

/*
 * Records of 18 octets: op, length, 16 octets of prefix (or address); the
 * first FIB_OPS_MAX of them (the rest is ignored), so that no input costs
 * more than a few hundred microseconds: issue 17 wants 10 M executions.
 */
#define FIB_OPS_MAX 16

static void fib_ops(const uint8_t *data, size_t size)
{
	bool short_seen = false;

	if (!fib && !(fib = fib6_create(2048, 8192)))
		abort();
	for (unsigned step = 0; size >= 18 && step < FIB_OPS_MAX; data += 18, size -= 18, step++) {
		/*
		 * A /L below the direct table's 18 bits paints 2^(18-L) slots, a /1
		 * 2^17: lengths 1..9 only from records 0xf0.., made /6../9 (at most 4 K
		 * slots) and once per input, later ones /10 (the /0 is one store).
		 * Shorter ones are test_fib6's (pick_len: /1, /8 among its edges).
		 * Else /10../128 with byte 0 a /48 (the commonest length routed), so
		 * that the bytes mutations favour (0, 0xff) make /48 and /65, cheap
		 * to paint and to path-copy, not a 256-slot /10 and a /12.
		 */
		unsigned len = data[0] >= 0xf0 ? data[1] % 129 : 10 + (data[1] + 38u) % 119;
		u128 key = load(data + 2);

		if (len && len < 10) {
			len = short_seen ? 10 : 6 + len % 4;
			short_seen = true;
		}

		switch (data[0] % 8) {
		case 0:
		case 1:
		case 2:
			if (now.n < REF_MAX)
				update(true, key & mask(len), len);
			break;
		case 3: /* an installed one mostly, else whatever the bytes say */
			if (now.n && data[1] < 200)
				update(false, now.key[data[1] % now.n], now.len[data[1] % now.n]);
			else
				update(false, key & mask(len), len);
			break;
		case 4:
			if (!in_batch) {
				fib6_batch_begin(fib);
				in_batch = true;
			}
			break;
		case 5:
			if (in_batch)
				batch_close();
			break;
		case 6:
			fib6_reclaim(fib);
			break;
		default:
			break;
		}
		check_lookups(key, step);
	}
	fib_reset();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] & 1)
		fib_ops(data + 1, size - 1);
	else
		packet(data + 1, size - 1, data[0]);
	return 0;
}
