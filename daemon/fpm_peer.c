/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Who may be the FPM session, and noticing when it is gone. A process that
 * reaches the FPM port and becomes the session owns the FIB, so: one
 * session at a time (fpm.c refuses a second connection while the first is
 * alive), only from the configured peer addresses, and a peer that goes
 * silent without closing (its host died) is found dead by TCP keepalive,
 * after which zebra's own reconnects get in again.
 */
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>

#include "daemon/fpm_priv.h"
#include "lib/addr.h"

void fpm_addr_str(const struct sockaddr_storage *ss, char *buf, size_t sz)
{
	char a[INET6_ADDRSTRLEN];

	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)ss;
		inet_str(AF_INET, &s4->sin_addr, a, sizeof(a));
		snprintf(buf, sz, "%s:%u", a, ntohs(s4->sin_port));
	} else {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;
		inet_str(AF_INET6, &s6->sin6_addr, a, sizeof(a));
		snprintf(buf, sz, "[%s]:%u", a, ntohs(s6->sin6_port));
	}
}

/* The peer's address as 16 bytes, IPv4 as IPv4-mapped IPv6 (a dual-stack listener's form). */
static void addr_key(const struct sockaddr_storage *ss, struct in6_addr *out)
{
	static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

	if (ss->ss_family == AF_INET) {
		memcpy(out->s6_addr, mapped, 12);
		memcpy(out->s6_addr + 12, &((const struct sockaddr_in *)ss)->sin_addr, 4);
	} else {
		*out = ((const struct sockaddr_in6 *)ss)->sin6_addr;
	}
}

bool fpm_peer_allowed(const struct cfg_fpm *cfg, const struct sockaddr_storage *ss)
{
	struct in6_addr peer, want;
	struct in_addr v4;

	if (!cfg->npeers)
		return true;
	addr_key(ss, &peer);
	for (unsigned i = 0; i < cfg->npeers; i++) {
		if (inet_pton(AF_INET, cfg->peers[i], &v4) == 1) {
			struct sockaddr_storage t = {.ss_family = AF_INET};
			((struct sockaddr_in *)&t)->sin_addr = v4;
			addr_key(&t, &want);
		} else if (inet_pton(AF_INET6, cfg->peers[i], &want) != 1) {
			continue; /* the schema allows only numeric addresses */
		}
		if (!memcmp(&peer, &want, sizeof(peer)))
			return true;
	}
	return false;
}

void fpm_peer_keepalive(int fd, unsigned dead_s)
{
	/* Three unanswered probes, the last one about dead_s after the peer went quiet. */
	int on = 1, cnt = 3, intvl = dead_s / 6 ? (int)(dead_s / 6) : 1;
	int idle = (int)dead_s - cnt * intvl > 0 ? (int)dead_s - cnt * intvl : 1;
	unsigned user_timeout = dead_s * 1000;

	/* Best effort: without them the session still works, and ends when the peer closes. */
	(void)setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof(on));
	(void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
	(void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
	(void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
	/* RFC 5482: also bounds how long keepalive failure may take (tcp(7)). */
	(void)setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &user_timeout, sizeof(user_timeout));
}

static bool listen_is_loopback(const char *addr)
{
	struct in_addr a4;
	struct in6_addr a6;

	if (inet_pton(AF_INET, addr, &a4) == 1)
		return (ntohl(a4.s_addr) >> 24) == 127;
	return inet_pton(AF_INET6, addr, &a6) == 1 && IN6_IS_ADDR_LOOPBACK(&a6);
}

void fpm_peer_log_policy(const struct fpm_server *s)
{
	char list[CFG_FPM_PEERS_MAX * (INET6_ADDRSTRLEN + 1)] = "";
	size_t n = 0;

	for (unsigned i = 0; i < s->cfg.npeers; i++)
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", i ? " " : "",
		                      s->cfg.peers[i]);
	if (s->cfg.npeers)
		log_info("fpm: sessions only from %s", list);
	else if (!listen_is_loopback(s->cfg.address))
		log_warnx("fpm: listening on %s with no allowed-peer: any host that reaches it "
		          "can program the FIB (set routing/fpm/allowed-peer)",
		          s->listen_str);
}
