/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * FPM wire format as FRR's zebra (dplane_fpm_nl) sends it: a stream of frames,
 * each a 4-byte header (u8 version = 1, u8 type = 1 for netlink, u16 length
 * in network order, header included) followed by one or more rtnetlink
 * messages in host byte order. This module decodes one frame, or one netlink
 * message, into plain structs. It is a pure function of its input: no state,
 * no allocation, no logging; every length is checked and a malformed input
 * yields an error code naming what was wrong.
 */
#ifndef CELLGATE_FPM_NL_H
#define CELLGATE_FPM_NL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FPM_HDR_LEN       4
#define FPM_PROTO_VERSION 1
#define FPM_MSG_NETLINK   1
#define FPM_FRAME_MAX     65535 /* the length field is 16 bits */

/* Paths one route may carry; zebra's MULTIPATH_NUM is 64 on Debian's build. */
#define FPM_PATHS_MAX 64
/* Members of one next-hop group object. */
#define FPM_GROUP_MAX 256

/*
 * What was wrong with a frame or a message. The FPM_E_HDR_* ones break the
 * stream itself (the session is ended); FPM_E_NLMSG ends the frame (the rest
 * of it is skipped); the others reject one message.
 */
#define FPM_ERRORS(X)                                                                              \
	X(HDR_VERSION, "header-version", "FPM header version is not 1")                            \
	X(HDR_TYPE, "header-type", "FPM header type is not netlink (1)")                           \
	X(HDR_LENGTH, "header-length", "FPM header length shorter than the header")                \
	X(NLMSG, "nlmsg-length", "netlink message length outside its frame")                       \
	X(SHORT, "short", "message shorter than its rtmsg/nhmsg header")                           \
	X(ATTR, "attribute-length", "attribute length outside its message")                        \
	X(ATTR_SIZE, "attribute-size", "attribute payload of the wrong size for its type")         \
	X(PREFIX, "prefix", "prefix length above the family's, missing destination, host bits")    \
	X(MULTIPATH, "multipath", "RTA_MULTIPATH entry shorter than rtnexthop or outside it")      \
	X(PATHS, "too-many-paths", "more paths than FPM_PATHS_MAX")                                \
	X(GROUP, "nexthop-group", "NHA_GROUP empty, not whole entries, or too many entries")       \
	X(NH_ID, "nexthop-id", "next-hop object without NHA_ID, or id 0")

enum fpm_err {
	FPM_OK = 0,
#define X(id, name, desc) FPM_E_##id,
	FPM_ERRORS(X)
#undef X
	    FPM_E__MAX
};

extern const char *const fpm_err_name[FPM_E__MAX];

/* Netlink message types the decoder tells apart (stats: messages by type). */
enum fpm_msg_type {
	FPM_MSG_NEWROUTE = 0,
	FPM_MSG_DELROUTE,
	FPM_MSG_NEWNEXTHOP,
	FPM_MSG_DELNEXTHOP,
	FPM_MSG_OTHER, /* e.g. RTM_NEWNEIGH for EVPN: counted, skipped */
	FPM_MSG__MAX
};

extern const char *const fpm_msg_name[FPM_MSG__MAX];

/* One path of a route, or the single next hop of a next-hop object. */
struct fpm_path {
	uint8_t gw_family; /* AF_INET / AF_INET6 (RTA_VIA may differ from the route's); 0 = none */
	uint8_t weight;    /* 1..256 - 1: rtnh_hops + 1, capped at 255 */
	int32_t oif;       /* 0 = none */
	uint8_t gw[16];    /* network order */
};

struct fpm_route {
	uint8_t family; /* AF_INET or AF_INET6 */
	uint8_t dst_len;
	uint8_t type;     /* rtm_type: RTN_UNICAST, RTN_BLACKHOLE, ... */
	uint8_t protocol; /* rtm_protocol: who made it in zebra (kernel, static, bgp...) */
	bool encap;     /* RTA_ENCAP(_TYPE) on the route or a path: labels, not forwardable here */
	uint32_t table; /* RTA_TABLE if present, else rtm_table */
	uint32_t priority;
	uint32_t nh_id;  /* RTA_NH_ID (next-hop-group mode), 0 = paths inline */
	uint8_t dst[16]; /* network order, host bits clear */
	unsigned npaths;
	struct fpm_path paths[FPM_PATHS_MAX]; /* last: the decoder clears only what precedes it */
};

struct fpm_nh_member {
	uint32_t id;
	uint16_t weight; /* 1..256 */
};

struct fpm_nhobj {
	uint32_t id;
	uint8_t family;
	bool blackhole;
	bool encap;           /* NHA_ENCAP or NHA_FDB: nothing cellgated forwards to */
	struct fpm_path path; /* gateway/oif when not a group or blackhole */
	unsigned ngroup;      /* > 0: a group of other objects */
	struct fpm_nh_member group[FPM_GROUP_MAX];
};

struct fpm_msg {
	enum fpm_msg_type type;
	uint16_t nl_type;
	union {
		struct fpm_route route; /* NEWROUTE, DELROUTE */
		struct fpm_nhobj nhobj; /* NEWNEXTHOP, DELNEXTHOP */
	};
};

/*
 * Check the frame header at buf. Returns the frame's total length (>= 4,
 * header included) once len holds all of it, 0 while more bytes are needed,
 * or -FPM_E_HDR_* when the header is invalid.
 */
long fpm_frame_check(const uint8_t *buf, size_t len);

/* The netlink messages of one frame payload (the bytes after the header). */
struct fpm_frame_iter {
	const uint8_t *p; /* 4-byte aligned */
	int rem;
};

/*
 * 1 and *msg, *len = the next message (len = its nlmsg_len), 0 at the end of
 * the frame, -FPM_E_NLMSG when a message length runs outside the frame or
 * stray bytes follow the last message (the rest of the frame is unusable).
 */
int fpm_frame_next(struct fpm_frame_iter *it, const void **msg, size_t *len);

/*
 * Decode one netlink message of len bytes (as fpm_frame_next gives it, at a
 * 4-byte aligned address). FPM_OK with *out filled (out->type FPM_MSG_OTHER
 * for types it does not decode), or the reason it is malformed.
 */
enum fpm_err fpm_nl_decode(const void *nlh, size_t len, struct fpm_msg *out);

#endif
