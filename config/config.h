/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The daemon's configuration as plain data, produced from the RFC 7951 JSON
 * startup file after libyang has validated it against mgmt/yang/cellgate.yang.
 * Addresses are IPv4 in host byte order.
 */
#ifndef CELLGATE_CONFIG_H
#define CELLGATE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <net/if.h>
#include <stdio.h>

#include "config/config_fpm.h"
#include "lib/port_settings.h"

#define CFG_ADDR_MAX  16  /* IPv4 addresses per port or subinterface */
#define CFG_ECMP_MAX  16  /* next hops per static route */
#define CFG_SUBIF_MAX 64  /* ATM subinterfaces in all; with the ports at most PORT_MAX */
#define CFG_PVC_MAX   256 /* PVCs in all */
#define CFG_PEER6_MAX 8   /* ipv6-peer-address entries per PVC */

struct cfg_addr4 {
	uint32_t addr;
	uint8_t plen;
};

struct cfg_addr6 {
	uint8_t addr[16]; /* network order */
	uint8_t plen;
};

enum cfg_port_kind { CFG_PORT_ETHERNET = 0, CFG_PORT_CELLPW, CFG_PORT_ATMSOCK };
enum cfg_subif_type { CFG_SUBIF_P2P = 0, CFG_SUBIF_MULTIPOINT };
/* RFC 2684 5.1, 6.1 (routed), 5.2, 6.2 (bridged Ethernet without FCS) */
enum cfg_atm_encap {
	CFG_ENCAP_LLC_SNAP = 0,
	CFG_ENCAP_VCMUX_IPV4,
	CFG_ENCAP_LLC_BRIDGED,
	CFG_ENCAP_VCMUX_BRIDGED,
	CFG_ENCAP_VCMUX_IPV6 /* 6.1 routed IPv6: point-to-point subinterfaces only */
};
#define CFG_ENCAP_NAMES {"llc-snap", "vc-mux-ipv4", "llc-bridged", "vc-mux-bridged", "vc-mux-ipv6"}

/* The octets an encapsulation puts in front of an IP packet in the AAL5 SDU. */
static inline unsigned cfg_encap_hdr_len(enum cfg_atm_encap e)
{
	static const unsigned len[] = {8, 0, 10 + 14, 2 + 14, 0};

	return len[e];
}
enum cfg_atm_service { CFG_SERVICE_UBR = 0, CFG_SERVICE_CBR };

/* Driver cellpw (RFC 4717 N-to-one cell mode): the Ethernet carrier is cfg_port.netdev. */
struct cfg_cellpw {
	uint8_t peer_mac[6]; /* far end of the pseudowire, unicast (mandatory) */
	uint32_t pw_label;   /* static MPLS label, both directions (16..1048575) */
	bool control_word;   /* RFC 4717 CW with sequence numbers, default true */
	uint32_t max_cells;  /* cells per frame, 1..172 (x 52 + 22 <= 9000), default 28 */
	uint32_t concat_us;  /* hold a partial frame at most this long, 0..10000, default 50 */
};

/* Driver atmsock: Linux ATM sockets (PF_ATMPVC). cfg_port.netdev is "". */
struct cfg_atmsock {
	int itf; /* ATM interface number (atm0 = 0) */
};

struct cfg_pvc {
	unsigned subif;                /* index into cfg.subifs */
	unsigned port;                 /* index into cfg.ports: that of the subinterface */
	uint16_t vpi, vci;             /* UNI: vpi 0..255, vci 32..65535 (0..31 reserved, I.361) */
	enum cfg_atm_encap encap;      /* default llc-snap */
	uint32_t mtu;                  /* IP MTU, 68..9180, default 9180 (RFC 2225) */
	enum cfg_atm_service service;  /* default ubr */
	uint32_t pcr;                  /* peak cell rate, cells/s; set for cbr; 0 = unshaped ubr */
	uint32_t queue_cells;          /* shaping queue limit, default 8192 */
	uint32_t reasm_timeout_ms;     /* default 2000 */
	bool oam_enabled;              /* originate F5 end-to-end loopbacks, default false */
	uint32_t oam_interval_ms;      /* default 10000 */
	uint32_t oam_retry_ms;         /* interval while a loopback is outstanding/failed, 1000 */
	uint32_t oam_down_count;       /* consecutive misses -> oper down, default 5 */
	uint32_t oam_up_count;         /* consecutive successes -> oper up, default 3 */
	bool inatmarp;                 /* send InATMARP; default: llc-snap on multipoint */
	uint32_t inatmarp_interval_ms; /* default 900000 (15 min, RFC 2225 8.5.1) */
	uint32_t peer_addr;            /* static IPv4 map (host order), 0 = none */
	/* ipv6-peer-address: static IPv6 map of a multipoint subinterface (RFC 2492 §3). */
	unsigned npeers6;
	uint8_t peers6[CFG_PEER6_MAX][16]; /* network order, in configuration order */
	char pcap[256]; /* capture AAL5 SDUs to this file of the capture directory, "" = off */
};

struct cfg_subif {
	char name[PORT_NAME_MAX]; /* also the TUN netdev name, e.g. "atm0.100" (<= 15 chars) */
	unsigned port;            /* index into cfg.ports of the ATM port */
	enum cfg_subif_type type;
	unsigned naddrs;
	struct cfg_addr4 addrs[CFG_ADDR_MAX];
	unsigned naddrs6; /* ipv6: point-to-point subinterfaces forward IPv6 with one */
	struct cfg_addr6 addrs6[CFG_ADDR_MAX];
};

struct cfg_port {
	char name[PORT_NAME_MAX];
	char driver[16];               /* "afpacket", "cellpw", "atmsock" */
	char netdev[IF_NAMESIZE];      /* the NIC; the cellpw carrier; "" for atmsock */
	struct port_settings settings; /* zero for atmsock */
	unsigned naddrs;               /* 0 on ATM ports: their subinterfaces have addresses */
	struct cfg_addr4 addrs[CFG_ADDR_MAX]; /* first one is the primary */
	unsigned naddrs6;                     /* port/ipv6: Ethernet ports forward IPv6 with one */
	struct cfg_addr6 addrs6[CFG_ADDR_MAX]; /* first one: the ICMPv6 and NS source */
	/* port/ipv6/nd (RFC 4861 6.3.2): BaseReachableTime, RetransTimer (ms); 0 = the default */
	uint32_t nd_reachable_ms, nd_retrans_ms;
	enum cfg_port_kind kind;              /* from driver */
	struct cfg_cellpw cellpw;             /* kind CFG_PORT_CELLPW */
	struct cfg_atmsock atmsock;           /* kind CFG_PORT_ATMSOCK */
};

enum cfg_route_action {
	CFG_ROUTE_FORWARD = 0,
	CFG_ROUTE_BLACKHOLE,  /* drop silently (counted) */
	CFG_ROUTE_UNREACHABLE /* drop, answer ICMP net unreachable */
};

struct cfg_nexthop {
	uint32_t gateway;         /* 0 = on-link (interface route) */
	char port[PORT_NAME_MAX]; /* Ethernet port or ATM subinterface; "" = resolve through
	                             the connected routes */
	uint8_t weight;           /* 1..255, default 1 */
};

/* routing/static-route6: as cfg_route, IPv6 (on-link: one next hop, gateway ::). */
struct cfg_nexthop6 {
	uint8_t gateway[16];
	char port[PORT_NAME_MAX]; /* Ethernet port or ATM subinterface; "" = through the
	                             connected prefixes */
	uint8_t weight;
};

struct cfg_route6 {
	uint8_t prefix[16];
	uint8_t plen;
	enum cfg_route_action action;
	unsigned nnexthops;
	struct cfg_nexthop6 nexthops[CFG_ECMP_MAX];
};

struct cfg_route {
	uint32_t prefix;
	uint8_t plen;
	enum cfg_route_action action;
	char interface[PORT_NAME_MAX]; /* on-link route: the port name, "" = none */
	unsigned nnexthops;
	struct cfg_nexthop nexthops[CFG_ECMP_MAX];
};

#define CFG_ARP_MAX_DEFAULT 65536u

#define CFG_CAPTURE_MAX_BYTES_DEFAULT (100ull << 20)
#define CFG_CAPTURE_MAX_S_DEFAULT     3600u

/* /cellgate/system/capture: where VC captures are written, and the limits of one. */
struct cfg_capture {
	char directory[256]; /* absolute; "" = RUNDIR/capture */
	uint64_t max_bytes;  /* per capture file, header included */
	uint32_t max_s;      /* per capture */
};

/* /cellgate/snmp: the AgentX subagent (RFC 2741), see mgmt/snmp/snmp.h. */
struct cfg_snmp {
	bool enabled; /* the container is present */
	char agentx_socket[256];  /* UNIX socket path, or tcp:127.0.0.1:705 and the like */
	uint32_t ping_interval_s; /* AgentX ping, and reconnect attempts while unconnected */
};

#define CFG_RESTCONF_BODY_DEFAULT     (1u << 20)
#define CFG_RESTCONF_CONNS_DEFAULT    64u
#define CFG_RESTCONF_ATTEMPTS_DEFAULT 5u
#define CFG_RESTCONF_INTERVAL_DEFAULT 60u

#define CFG_RC_LISTENERS 4 /* restconf/tcp-listener */
#define CFG_RC_USERS     8 /* restconf/user */

struct cfg_rc_listener {
	char address[46]; /* INET6_ADDRSTRLEN */
	uint16_t port;
	char certificate[256]; /* "" = plain HTTP (loopback only) */
	char private_key[256];
	char client_ca[256];
};

struct cfg_rc_user {
	char name[64];
	char password_hash[256]; /* crypt(3) */
};

/* The management API server (/cellgate/restconf); see daemon/config_mgmt.c. */
struct cfg_restconf {
	bool unix_disabled;     /* unix-socket/enabled false (zero = the defaults) */
	char unix_path[108];    /* "" = RUNDIR/restconf.sock */
	char unix_group[32];    /* "" = the daemon's group */
	uint32_t max_body_size; /* bytes, 0 = the default (CFG_RESTCONF_BODY_DEFAULT) */
	uint32_t max_conns;        /* per TCP listener, 0 = the default (CFG_RESTCONF_CONNS_DEFAULT) */
	uint32_t login_attempts;   /* failed Basic logins per source and interval, 0 = default */
	uint32_t login_interval_s; /* 0 = the default */
	unsigned nlisteners;
	struct cfg_rc_listener listeners[CFG_RC_LISTENERS];
	unsigned nusers;
	struct cfg_rc_user users[CFG_RC_USERS];
};

/* system/fib-algorithm; the names are the datapath's fib_algo names (datapath/fib/fib.h). */
enum cfg_fib_algorithm {
	CFG_FIB_POPTRIE,
	CFG_FIB_DIR_24_8,
};

const char *cfg_fib_algorithm_name(enum cfg_fib_algorithm a);

struct cfg {
	unsigned workers; /* datapath threads, default 1 */
	unsigned nworker_cpus;
	int worker_cpus[WORKER_MAX]; /* CPU per worker; none given = automatic */
	uint32_t icmp_rate;          /* ICMP errors per second per worker, default 100 */
	uint32_t icmp_burst;         /* bucket depth, default 50 */
	uint32_t arp_timeout_s;      /* reachable time of a learned entry, default 300 */
	uint32_t arp_retries;        /* requests before a neighbour is failed, default 3 */
	uint32_t arp_max_entries;    /* neighbour table size, default 65536 */
	bool ip_options_forward;     /* forward IPv4 with options (default: drop, counted) */
	struct cfg_capture capture;
	enum cfg_fib_algorithm fib_algorithm; /* system/fib-algorithm, default poptrie */

	unsigned nports;
	struct cfg_port ports[PORT_MAX];

	unsigned nroutes;
	struct cfg_route *routes; /* heap array of nroutes */
	unsigned nroutes6;
	struct cfg_route6 *routes6; /* heap array of nroutes6, sorted by prefix then length */

	unsigned nsubifs;
	struct cfg_subif subifs[CFG_SUBIF_MAX]; /* by port, then in configuration order */
	unsigned npvcs;
	struct cfg_pvc *pvcs; /* heap, sorted by port, vpi, vci */

	struct cfg_snmp snmp;
	struct cfg_restconf restconf;

	struct cfg_fpm fpm; /* FPM server for zebra (config_fpm.h) */
};

/*
 * Load and validate `path` (RFC 7951 JSON). On failure returns a negative
 * errno and writes a message naming the file, the data path and the reason
 * into errbuf. The yang search dir is where cellgate.yang lives.
 */
int cfg_load(const char *path, const char *yang_dir, struct cfg *out, char *errbuf, size_t errlen);

/* The same from a JSON string (tests, later RESTCONF bodies). */
int cfg_parse(const char *json, const char *yang_dir, struct cfg *out, char *errbuf, size_t errlen);

/* Print the configuration back, normalised (defaults filled, sorted), as RFC 7951 JSON. */
int cfg_print(const struct cfg *cfg, FILE *out);

void cfg_free(struct cfg *cfg);

/* Index of the port named `name`, or -1. */
int cfg_port_index(const struct cfg *cfg, const char *name);

/* Index of the ATM subinterface named `name`, or -1. */
int cfg_subif_index(const struct cfg *cfg, const char *name);

/*
 * qsort comparator for struct cfg_route: by prefix address, then length.
 * cfg_parse leaves routes in this order.
 */
int cfg_route_cmp(const void *a, const void *b);

/*
 * config_cmp.c, field by field (never memcmp: padding and bytes past a
 * string's end mean nothing). cfg_restart_only_diff: what of b differs
 * from a in what cannot change at runtime (ports and subinterfaces with
 * their IPv4 addresses, whether they have IPv6 ones and the first of those,
 * workers, the capture, RESTCONF, FPM and SNMP settings),
 * as a phrase for a message with its data path in *path; NULL when nothing
 * does. cfg_pvc_same: two PVCs the same in every field. A field added to
 * these structs is added to config_cmp.c as well.
 */
const char *cfg_restart_only_diff(const struct cfg *a, const struct cfg *b, const char **path);
bool cfg_pvc_same(const struct cfg_pvc *a, const struct cfg_pvc *b);
/* Order of cfg->routes6 (by prefix, then length), for bsearch; one route the same in every field. */
int cfg_route6_cmp(const void *a, const void *b);
bool cfg_route6_same(const struct cfg_route6 *x, const struct cfg_route6 *y);
/*
 * config6.c: port p's ND BaseReachableTime and RetransTimer (ms), the
 * defaults if unset: RFC 4861 §10's REACHABLE_TIME and RETRANS_TIMER (the
 * schema's defaults too).
 */
#define CFG_ND_REACHABLE_MS_DEFAULT 30000u
#define CFG_ND_RETRANS_MS_DEFAULT   1000u
uint32_t cfg_nd_reachable_ms(const struct cfg *c, unsigned p);
uint32_t cfg_nd_retrans_ms(const struct cfg *c, unsigned p);
/* config6.c: a (address and prefix length) is one of list[0..n). */
bool cfg_addr6_in(const struct cfg_addr6 *list, unsigned n, const struct cfg_addr6 *a);
/* The prefix of a: its address with the bits past plen cleared. */
void cfg_addr6_prefix(const struct cfg_addr6 *a, uint8_t net[16]);
/* ip is inside the on-link prefix of one of list[0..n). */
bool cfg_addr6_on_link(const struct cfg_addr6 *list, unsigned n, const uint8_t ip[16]);

struct ly_ctx;

/*
 * A parser that keeps its libyang contexts: cfg_parse without loading
 * cellgate.yang again each time (~25 ms), for callers that parse often
 * (every RESTCONF write). Its context can hold the caller's own trees too.
 * NULL on failure, with the reason in errbuf. Control thread only.
 */
struct cfg_parser;
struct cfg_parser *cfg_parser_new(const char *yang_dir, char *errbuf, size_t errlen);
void cfg_parser_free(struct cfg_parser *p);
struct ly_ctx *cfg_parser_ctx(const struct cfg_parser *p);
/* cfg_parse with p's contexts; messages start with "config: " as cfg_parse's do. */
int cfg_parser_parse(struct cfg_parser *p, const char *json, struct cfg *out, char *errbuf,
                     size_t errlen);

/*
 * A libyang context with yang_dir/cellgate.yang loaded and implemented,
 * shared by the config loader and the RESTCONF server. NULL on failure, with
 * errno set and a message naming the .yang file in errbuf. Free with
 * ly_ctx_destroy().
 */
struct ly_ctx *cfg_yang_ctx_new(const char *yang_dir, char *errbuf, size_t errlen);

#endif
