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

#include <stdint.h>
#include <stdio.h>

/* s as a quoted JSON string: '"' and '\' escaped, control characters as \u00XX. */
void json_str_put(FILE *out, const char *s);

/* ,"name":"value" (value escaped), the member form the documents are built from. */
void json_member_str(FILE *out, const char *name, const char *value);

/* ,"name":"2026-12-01T10:00:00.000Z": a yang:date-and-time (RFC 6991) in UTC. */
void json_member_time(FILE *out, const char *name, uint64_t realtime_ms);

#endif
