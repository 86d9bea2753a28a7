/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * atmvm_tool: the probes and peers the ATM VM lab runs inside the guest, on the
 * Linux ATM stack (atm.ko + atmtcp.ko, itf 0 and 1 joined by atmtcp over
 * loopback). Built statically at test time (tests/vm/vmlab.py); the RFC 2684
 * code it uses is cellgate's own (datapath/atm/rfc2684*.c), so the responder
 * checks that code against the kernel's br2684.
 *
 *   atmvm_tool xfer A B VPI VCI            AAL5 PDUs of 1..8192 octets both ways
 *   atmvm_tool qos ITF VPI VCI ubr|cbr PCR SO_ATMQOS + connect, and what the kernel kept
 *   atmvm_tool aal0 A B VPI VCI            raw cells (ATM_AAL0) between A and B
 *   atmvm_tool farclose A B VPI VCI        what A sees after B closes the VC
 *   atmvm_tool respond ITF VPI VCI ENCAP IP MAC SECS
 *              ENCAP llc|vcmux|llc-br|vcmux-br: answer ICMP echo (and ARP when
 *              bridged) for IP; prints every SDU and, at the end, the totals
 *   atmvm_tool send ITF VPI VCI HEX...     one SDU per HEX argument
 *   atmvm_tool dump ITF VPI VCI SECS       print the SDUs received
 *   atmvm_tool itfgone ITF VPI VCI SECS    what a PVC socket sees when its interface goes
 *   atmvm_tool inarp ITF VPI VCI IP SECS   InATMARP (RFC 2225) request on an LLC VC,
 *                                          answer requests with IP; print who answered
 *
 * Output lines are "key=value" facts the scenario scripts grep; exit 0 = as
 * expected (probes: the call sequence ran; xfer/respond: all good).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/atm.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "datapath/atm/inatmarp.h"
#include "datapath/atm/rfc2684.h"

#ifndef PF_ATMPVC
#define PF_ATMPVC 8
#endif
#ifndef SOL_ATM
#define SOL_ATM 264
#endif

#define SDU_MAX 9188

struct vcaddr {
	int itf, vpi, vci;
};

static void qos_fill(struct atm_qos *q, unsigned char aal, int cls, int pcr, int max_sdu)
{
	memset(q, 0, sizeof(*q));
	q->aal = aal;
	q->txtp.traffic_class = (unsigned char)cls;
	q->txtp.max_sdu = max_sdu;
	if (cls == ATM_CBR)
		q->txtp.pcr = q->txtp.min_pcr = q->txtp.max_pcr = pcr;
	else
		q->txtp.max_pcr = pcr ? pcr : ATM_MAX_PCR;
	q->rxtp = q->txtp;
}

/* A connected PVC socket, or -errno; *step names the call that failed. */
static int pvc_open_qos(const struct vcaddr *a, const struct atm_qos *q, const char **step)
{
	struct sockaddr_atmpvc sa;
	int s = socket(PF_ATMPVC, SOCK_DGRAM, 0), err;

	*step = "socket";
	if (s < 0)
		return -errno;
	memset(&sa, 0, sizeof(sa));
	sa.sap_family = AF_ATMPVC;
	sa.sap_addr.itf = (short)a->itf;
	sa.sap_addr.vpi = (short)a->vpi;
	sa.sap_addr.vci = a->vci;
	*step = "SO_ATMQOS";
	if (setsockopt(s, SOL_ATM, SO_ATMQOS, q, sizeof(*q)) < 0)
		goto fail;
	*step = "connect";
	if (connect(s, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		goto fail;
	return s;
fail:
	err = errno;
	close(s);
	return -err;
}

static int pvc_open(const struct vcaddr *a, unsigned char aal, int max_sdu)
{
	struct atm_qos q;
	const char *step;
	int s;

	qos_fill(&q, aal, ATM_UBR, 0, max_sdu);
	s = pvc_open_qos(a, &q, &step);
	if (s < 0)
		printf("open %d.%d.%d aal%d: %s: %s\n", a->itf, a->vpi, a->vci, aal, step,
		       strerror(-s));
	return s;
}

/* Wait up to ms for s to be readable; the poll revents. */
static int wait_in(int s, int ms)
{
	struct pollfd p = {.fd = s, .events = POLLIN};

	return poll(&p, 1, ms) > 0 ? p.revents : 0;
}

static int xfer_one(int tx, int rx, size_t len, unsigned seed, const char *dir)
{
	static unsigned char out[SDU_MAX], in[SDU_MAX + 16];
	ssize_t n;

	for (size_t i = 0; i < len; i++)
		out[i] = (unsigned char)(seed * 31 + i * 7);
	if ((n = write(tx, out, len)) != (ssize_t)len) {
		printf("xfer %s len=%zu: write %zd (%s)\n", dir, len, n, strerror(errno));
		return 1;
	}
	if (!(wait_in(rx, 3000) & POLLIN)) {
		printf("xfer %s len=%zu: nothing received\n", dir, len);
		return 1;
	}
	n = read(rx, in, sizeof(in));
	if (n != (ssize_t)len || memcmp(in, out, len)) {
		printf("xfer %s len=%zu: got %zd octets%s\n", dir, len, n,
		       n == (ssize_t)len ? ", different" : "");
		return 1;
	}
	return 0;
}

static int cmd_xfer(const struct vcaddr *a, const struct vcaddr *b)
{
	static const size_t sizes[] = {1, 40, 48, 1500, 4096, 8192, SDU_MAX};
	static unsigned char big[SDU_MAX + 1];
	int sa = pvc_open(a, ATM_AAL5, SDU_MAX), sb = pvc_open(b, ATM_AAL5, SDU_MAX), fails = 0;
	ssize_t n;

	if (sa < 0 || sb < 0)
		return 1;
	for (unsigned i = 0; i < sizeof(sizes) / sizeof(*sizes); i++) {
		fails += xfer_one(sa, sb, sizes[i], i, "A->B");
		fails += xfer_one(sb, sa, sizes[i], i + 100, "B->A");
	}
	n = write(sa, big, sizeof(big));
	printf("xfer oversize=%zd errno=%s\n", n, n < 0 ? strerror(errno) : "-");
	fails += !(n < 0 && errno == EMSGSIZE);
	printf("xfer failures=%d\n", fails);
	return fails != 0;
}

static int cmd_qos(const struct vcaddr *a, const char *cls, int pcr)
{
	struct atm_qos q, got;
	socklen_t len = sizeof(got);
	const char *step;
	int s;

	qos_fill(&q, ATM_AAL5, strcmp(cls, "cbr") ? ATM_UBR : ATM_CBR, pcr, SDU_MAX);
	s = pvc_open_qos(a, &q, &step);
	if (s < 0) {
		printf("qos %s pcr=%d: %s: %s\n", cls, pcr, step, strerror(-s));
		return 0;
	}
	memset(&got, 0, sizeof(got));
	getsockopt(s, SOL_ATM, SO_ATMQOS, &got, &len);
	printf("qos %s pcr=%d: ok kept class=%d pcr=%d min_pcr=%d max_pcr=%d max_sdu=%d\n", cls,
	       pcr, got.txtp.traffic_class, got.txtp.pcr, got.txtp.min_pcr, got.txtp.max_pcr,
	       got.txtp.max_sdu);
	close(s);
	return 0;
}

static void hex(const char *what, const unsigned char *p, size_t n)
{
	printf("%s", what);
	for (size_t i = 0; i < n; i++)
		printf("%02x", p[i]);
	printf("\n");
}

/* One cell A->B on AAL0 sockets: PTI 5 (end-to-end OAM), header word in host order. */
static void aal0_cell(int sa, int sb, const struct vcaddr *a)
{
	unsigned char cell[ATM_AAL0_SDU], in[128];
	unsigned int hdr = (unsigned)a->vpi << ATM_HDR_VPI_SHIFT |
	                   (unsigned)a->vci << ATM_HDR_VCI_SHIFT | 5u << ATM_HDR_PTI_SHIFT;
	ssize_t n;

	memcpy(cell, &hdr, 4);
	memset(cell + 4, 0x6a, 48);
	cell[4] = 0x18; /* I.610 fault management, loopback */
	n = write(sa, cell, sizeof(cell));
	printf("aal0 write52=%zd errno=%s\n", n, n < 0 ? strerror(errno) : "-");
	n = write(sa, cell, 48);
	printf("aal0 write48=%zd errno=%s\n", n, n < 0 ? strerror(errno) : "-");
	while (wait_in(sb, 1000) & POLLIN) {
		n = read(sb, in, sizeof(in));
		printf("aal0 read=%zd\n", n);
		if (n > 0)
			printf("aal0 size=%zd\n", n);
		if (n > 0)
			hex("aal0 cell=", in, (size_t)n);
	}
}

static int cmd_aal0(const struct vcaddr *a, const struct vcaddr *b)
{
	int sa = pvc_open(a, ATM_AAL0, 0), sb = pvc_open(b, ATM_AAL0, 0), s5;
	struct vcaddr a2 = *a;

	printf("aal0 open A=%s B=%s\n", sa >= 0 ? "ok" : "fail", sb >= 0 ? "ok" : "fail");
	if (sa >= 0 && sb >= 0)
		aal0_cell(sa, sb, a);
	/* The same VC as an AAL5 socket already has: OAM next to the data? */
	a2.vci = a->vci + 1;
	s5 = pvc_open(&a2, ATM_AAL5, SDU_MAX);
	if (s5 >= 0) {
		int s0 = pvc_open(&a2, ATM_AAL0, 0);
		printf("aal0 beside-aal5=%s\n", s0 >= 0 ? "ok" : "refused");
		if (s0 >= 0)
			close(s0);
		close(s5);
	}
	return 0;
}

static int cmd_farclose(const struct vcaddr *a, const struct vcaddr *b)
{
	int sa = pvc_open(a, ATM_AAL5, SDU_MAX), sb = pvc_open(b, ATM_AAL5, SDU_MAX), rev;
	char buf[64];
	ssize_t n;

	if (sa < 0 || sb < 0)
		return 1;
	close(sb);
	usleep(200000);
	rev = wait_in(sa, 1000);
	printf("farclose poll revents=0x%x%s%s%s\n", rev, rev & POLLIN ? " IN" : "",
	       rev & POLLERR ? " ERR" : "", rev & POLLHUP ? " HUP" : "");
	n = send(sa, "hello", 5, MSG_DONTWAIT);
	printf("farclose send=%zd errno=%s\n", n, n < 0 ? strerror(errno) : "-");
	n = recv(sa, buf, sizeof(buf), MSG_DONTWAIT);
	printf("farclose recv=%zd errno=%s\n", n, n < 0 ? strerror(errno) : "-");
	/* The far end back: does A's VC carry again? */
	sb = pvc_open(b, ATM_AAL5, SDU_MAX);
	n = sb >= 0 ? send(sa, "again", 5, 0) : -1;
	printf("farclose reopen=%s delivered=%s\n", sb >= 0 ? "ok" : "fail",
	       sb >= 0 && (wait_in(sb, 1000) & POLLIN) && recv(sb, buf, sizeof(buf), 0) == 5
	           ? "yes"
	           : "no");
	return 0;
}

static int cmd_itfgone(const struct vcaddr *a, int secs)
{
	int s = pvc_open(a, ATM_AAL5, SDU_MAX), rev;
	char buf[64];
	ssize_t n;

	if (s < 0)
		return 1;
	printf("itfgone ready\n");
	rev = wait_in(s, secs * 1000);
	printf("itfgone poll revents=0x%x%s%s%s\n", rev, rev & POLLIN ? " IN" : "",
	       rev & POLLERR ? " ERR" : "", rev & POLLHUP ? " HUP" : "");
	n = recv(s, buf, sizeof(buf), MSG_DONTWAIT);
	printf("itfgone recv=%zd errno=%s\n", n, n < 0 ? strerror(errno) : "-");
	n = recv(s, buf, sizeof(buf), MSG_DONTWAIT);
	printf("itfgone recv2=%zd errno=%s\n", n, n < 0 ? strerror(errno) : "-");
	n = send(s, "x", 1, MSG_DONTWAIT);
	printf("itfgone send=%zd errno=%s\n", n, n < 0 ? strerror(errno) : "-");
	return 0;
}

static int parse_encap(const char *s, enum rfc2684_encap *e)
{
	static const char *const names[] = {"llc", "vcmux", "vcmux6", "llc-br", "vcmux-br"};

	for (unsigned i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (!strcmp(s, names[i])) {
			*e = (enum rfc2684_encap)i;
			return 0;
		}
	return -1;
}

static uint16_t csum(const unsigned char *p, size_t n)
{
	uint32_t s = 0;

	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

struct responder {
	int s;
	enum rfc2684_encap e;
	uint32_t ip; /* network order */
	unsigned char mac[6];
	unsigned rx, echo, arp, bad, other;
};

/* Send payload (IP or ARP) back with this VC's encapsulation; bridged: to `dst`. */
static void respond_send(struct responder *r, uint16_t type, const unsigned char *dst,
                         const unsigned char *pl, size_t len)
{
	unsigned char out[SDU_MAX + 32];
	size_t h = 0;

	if (r->e == RFC2684_LLC_ROUTED) {
		memcpy(out, rfc2684_llc_header(type), RFC2684_LLC_LEN);
		h = RFC2684_LLC_LEN;
	} else if (r->e == RFC2684_LLC_BRIDGED || r->e == RFC2684_VCMUX_BRIDGED) {
		h = rfc2684_bridged_hdr(r->e, out);
		memcpy(out + h, dst, 6);
		memcpy(out + h + 6, r->mac, 6);
		out[h + 12] = (unsigned char)(type >> 8);
		out[h + 13] = (unsigned char)type;
		h += RFC2684_ETH_LEN;
	}
	memcpy(out + h, pl, len);
	if (send(r->s, out, h + len, 0) < 0)
		printf("respond send: %s\n", strerror(errno));
}

static void respond_ip(struct responder *r, const unsigned char *eth, unsigned char *ip, size_t len)
{
	size_t ihl = (size_t)(ip[0] & 15) * 4, tot;

	if (len < 20 || (ip[0] >> 4) != 4 || ihl < 20 || len < ihl + 8) {
		r->bad++;
		return;
	}
	tot = (size_t)(ip[2] << 8 | ip[3]);
	if (tot > len || memcmp(ip + 16, &r->ip, 4) || ip[9] != 1 || ip[ihl] != 8) {
		r->other++;
		return;
	}
	/* Echo reply: swap the addresses, type 0, both checksums again. */
	memcpy(ip + 16, ip + 12, 4);
	memcpy(ip + 12, &r->ip, 4);
	ip[8] = 64;
	ip[10] = ip[11] = 0;
	uint16_t c = csum(ip, ihl);
	ip[10] = (unsigned char)(c >> 8);
	ip[11] = (unsigned char)c;
	ip[ihl] = 0;
	ip[ihl + 2] = ip[ihl + 3] = 0;
	c = csum(ip + ihl, tot - ihl);
	ip[ihl + 2] = (unsigned char)(c >> 8);
	ip[ihl + 3] = (unsigned char)c;
	respond_send(r, 0x0800, eth ? eth + 6 : NULL, ip, tot);
	r->echo++;
}

/* Bridged: Ethernet ARP (RFC 826) for our address gets a reply. */
static void respond_arp(struct responder *r, const unsigned char *eth, const unsigned char *a,
                        size_t len)
{
	unsigned char rep[28];

	if (!eth || len < 28 || a[7] != 1 || memcmp(a + 24, &r->ip, 4)) {
		r->other++;
		return;
	}
	memcpy(rep, a, 6);
	rep[6] = 0;
	rep[7] = 2;
	memcpy(rep + 8, r->mac, 6);
	memcpy(rep + 14, &r->ip, 4);
	memcpy(rep + 18, a + 8, 10); /* their MAC and IP become the target */
	respond_send(r, 0x0806, eth + 6, rep, sizeof(rep));
	r->arp++;
}

static void respond_sdu(struct responder *r, unsigned char *sdu, size_t len)
{
	uint16_t type;
	size_t hl;
	bool bridged = r->e == RFC2684_LLC_BRIDGED || r->e == RFC2684_VCMUX_BRIDGED;
	int rc = rfc2684_decap(r->e, sdu, len, &type, &hl);

	r->rx++;
	printf("respond rx len=%zu rc=%d type=0x%04x ", len, rc, rc ? 0 : type);
	hex("head=", sdu, len < 24 ? len : 24);
	if (rc) {
		r->bad++;
		return;
	}
	const unsigned char *eth = bridged ? sdu + hl - RFC2684_ETH_LEN : NULL;
	if (type == 0x0800)
		respond_ip(r, eth, sdu + hl, len - hl);
	else if (type == 0x0806 && bridged)
		respond_arp(r, eth, sdu + hl, len - hl);
	else
		r->other++;
}

static int cmd_respond(const struct vcaddr *a, char **argv)
{
	static unsigned char buf[SDU_MAX + 64];
	struct responder r = {0};
	struct in_addr in;
	time_t end;
	unsigned m[6];

	if (parse_encap(argv[0], &r.e) || inet_pton(AF_INET, argv[1], &in) != 1 ||
	    sscanf(argv[2], "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2], &m[3], &m[4], &m[5]) != 6)
		return 2;
	r.ip = in.s_addr;
	for (int i = 0; i < 6; i++)
		r.mac[i] = (unsigned char)m[i];
	end = time(NULL) + atoi(argv[3]);
	if ((r.s = pvc_open(a, ATM_AAL5, SDU_MAX)) < 0)
		return 1;
	printf("respond ready %d.%d.%d %s\n", a->itf, a->vpi, a->vci, argv[0]);
	while (time(NULL) < end) {
		if (!(wait_in(r.s, 200) & POLLIN))
			continue;
		ssize_t n = recv(r.s, buf, sizeof(buf), 0);
		if (n > 0)
			respond_sdu(&r, buf, (size_t)n);
	}
	printf("respond rx=%u echo=%u arp=%u bad=%u other=%u\n", r.rx, r.echo, r.arp, r.bad,
	       r.other);
	return 0;
}

static int cmd_send(const struct vcaddr *a, int argc, char **argv)
{
	static unsigned char sdu[SDU_MAX];
	int s = pvc_open(a, ATM_AAL5, SDU_MAX), fails = 0;

	if (s < 0)
		return 1;
	for (int i = 0; i < argc; i++) {
		size_t n = strlen(argv[i]) / 2;
		unsigned v;

		for (size_t j = 0; j < n && j < sizeof(sdu); j++)
			sdu[j] = sscanf(argv[i] + 2 * j, "%2x", &v) == 1 ? (unsigned char)v : 0;
		if (send(s, sdu, n, 0) != (ssize_t)n) {
			printf("send %zu octets: %s\n", n, strerror(errno));
			fails++;
		}
	}
	usleep(500000); /* atmtcp drops what is in flight when the VC closes */
	close(s);
	printf("send sdus=%d failures=%d\n", argc, fails);
	return fails != 0;
}

static int cmd_dump(const struct vcaddr *a, int secs)
{
	static unsigned char buf[SDU_MAX + 64];
	int s = pvc_open(a, ATM_AAL5, SDU_MAX);
	time_t end = time(NULL) + secs;
	unsigned n = 0;

	if (s < 0)
		return 1;
	while (time(NULL) < end) {
		if (!(wait_in(s, 200) & POLLIN))
			continue;
		ssize_t len = recv(s, buf, sizeof(buf), 0);
		printf("dump len=%zd ", len);
		hex("sdu=", buf, len > 64 ? 64 : (size_t)(len > 0 ? len : 0));
		n++;
	}
	printf("dump sdus=%u\n", n);
	return 0;
}

/* One (In)ATMARP SDU: answer a request, report a reply. */
static void inarp_rx(int s, const unsigned char *sdu, size_t len, uint32_t me, unsigned *got)
{
	const uint8_t *llc = rfc2684_llc_header(0x0806);
	struct inatmarp m, rep = {.op = INATMARP_OP_REPLY, .spa = me};
	unsigned char out[64];
	struct in_addr in;
	int rc;

	if (len < RFC2684_LLC_LEN || memcmp(sdu, llc, RFC2684_LLC_LEN)) {
		hex("inarp other sdu=", sdu, len > 24 ? 24 : len);
		return;
	}
	rc = inatmarp_parse(sdu + RFC2684_LLC_LEN, len - RFC2684_LLC_LEN, &m);
	hex("inarp rx=", sdu, len);
	if (rc) {
		printf("inarp parse=%d\n", rc);
		return;
	}
	in.s_addr = htonl(m.spa);
	printf("inarp op=%u spa=%s\n", m.op, inet_ntoa(in));
	if (m.op == INATMARP_OP_REPLY)
		(*got)++;
	if (m.op == INATMARP_OP_REQUEST) {
		rep.tpa = m.spa;
		memcpy(out, llc, RFC2684_LLC_LEN);
		size_t n =
		    inatmarp_build(out + RFC2684_LLC_LEN, sizeof(out) - RFC2684_LLC_LEN, &rep);
		if (send(s, out, RFC2684_LLC_LEN + n, 0) > 0)
			printf("inarp answered\n");
	}
}

static int cmd_inarp(const struct vcaddr *a, const char *ip, int secs)
{
	static unsigned char buf[SDU_MAX + 64];
	struct in_addr in;
	struct inatmarp req = {.op = INATMARP_OP_REQUEST};
	unsigned char out[64];
	unsigned got = 0;
	time_t end = time(NULL) + secs, next = 0;
	int s = pvc_open(a, ATM_AAL5, SDU_MAX);

	if (s < 0 || inet_pton(AF_INET, ip, &in) != 1)
		return 1;
	req.spa = ntohl(in.s_addr);
	memcpy(out, rfc2684_llc_header(0x0806), RFC2684_LLC_LEN);
	size_t n = RFC2684_LLC_LEN + inatmarp_build(out + RFC2684_LLC_LEN, 56, &req);
	while (time(NULL) < end) {
		if (time(NULL) >= next && !got) {
			send(s, out, n, 0);
			next = time(NULL) + 2;
		}
		if (!(wait_in(s, 200) & POLLIN))
			continue;
		ssize_t len = recv(s, buf, sizeof(buf), 0);
		if (len > 0)
			inarp_rx(s, buf, (size_t)len, req.spa, &got);
	}
	printf("inarp replies=%u\n", got);
	return 0;
}

static int vc_arg(char **argv, struct vcaddr *a)
{
	a->itf = atoi(argv[0]);
	a->vpi = atoi(argv[1]);
	a->vci = atoi(argv[2]);
	return 0;
}

int main(int argc, char **argv)
{
	struct vcaddr a, b;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 6 && (!strcmp(argv[1], "xfer") || !strcmp(argv[1], "aal0") ||
	                  !strcmp(argv[1], "farclose"))) {
		a.itf = atoi(argv[2]);
		b.itf = atoi(argv[3]);
		a.vpi = b.vpi = atoi(argv[4]);
		a.vci = b.vci = atoi(argv[5]);
		if (!strcmp(argv[1], "xfer"))
			return cmd_xfer(&a, &b);
		return !strcmp(argv[1], "aal0") ? cmd_aal0(&a, &b) : cmd_farclose(&a, &b);
	}
	if (argc == 7 && !strcmp(argv[1], "qos") && !vc_arg(argv + 2, &a))
		return cmd_qos(&a, argv[5], atoi(argv[6]));
	if (argc == 9 && !strcmp(argv[1], "respond") && !vc_arg(argv + 2, &a))
		return cmd_respond(&a, argv + 5);
	if (argc >= 6 && !strcmp(argv[1], "send") && !vc_arg(argv + 2, &a))
		return cmd_send(&a, argc - 5, argv + 5);
	if (argc == 6 && !strcmp(argv[1], "itfgone") && !vc_arg(argv + 2, &a))
		return cmd_itfgone(&a, atoi(argv[5]));
	if (argc == 7 && !strcmp(argv[1], "inarp") && !vc_arg(argv + 2, &a))
		return cmd_inarp(&a, argv[5], atoi(argv[6]));
	if (argc == 6 && !strcmp(argv[1], "dump") && !vc_arg(argv + 2, &a))
		return cmd_dump(&a, atoi(argv[5]));
	fprintf(stderr, "usage: see the head of tests/vm/guest/atmvm_tool.c\n");
	return 2;
}
