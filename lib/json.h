/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Writing JSON strings (RFC 8259 section 7) into the documents the daemon
 * builds by hand: the state tree RESTCONF parses, the stats dump. Any text
 * that comes from outside the daemon (netdev names, file names, peer
 * addresses) goes through json_str_put, so a quote or a control character
 * in it cannot break the document.
 */
#ifndef CELLGATE_LIB_JSON_H
#define CELLGATE_LIB_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * The inside of a JSON string for s ('"' and '\' escaped, control
 * characters and DEL as \u00XX), handed to put in pieces: runs of plain
 * characters whole. For writers that are not a FILE (an evbuffer).
 */
void json_escape(const char *s, void (*put)(void *arg, const char *p, size_t n), void *arg);

/* s as a quoted JSON string, escaped as json_escape does. */
void json_str_put(FILE *out, const char *s);

/* ,"name":"value" (value escaped), the member form the documents are built from. */
void json_member_str(FILE *out, const char *name, const char *value);

/* ,"name":"2026-12-01T10:00:00.000Z": a yang:date-and-time (RFC 6991) in UTC. */
void json_member_time(FILE *out, const char *name, uint64_t realtime_ms);

#endif
