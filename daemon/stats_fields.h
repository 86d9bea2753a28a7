/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Names of the datapath counters, one table per counter struct, shared by
 * every reader of a stats snapshot: the SIGUSR1 dump (stats_json.c), the
 * RESTCONF state tree (mgmt_state.c) and through it /metrics. One list, so
 * the views cannot drift apart. The names are the YANG leaf names of
 * cellgate.yang (port-counters, atm-port-counters, vc-counters groupings).
 */
#ifndef CELLGATE_STATS_FIELDS_H
#define CELLGATE_STATS_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "datapath/stats.h"

struct stats_field {
	const char *name;
	size_t off; /* of a uint64_t in the struct */
};

extern const struct stats_field port_counter_fields[]; /* struct port_counters, drops excluded */
extern const struct stats_field atm_port_counter_fields[]; /* struct atm_port_counters */
extern const struct stats_field vc_counter_fields[]; /* struct vc_counters, discards excluded */

/*
 * Each field of `base` as a JSON member ,"name":value (a comma before every
 * member); `yang` quotes the values, as RFC 7951 section 6.1 wants 64-bit
 * integers in YANG JSON.
 */
void stats_fields_json(FILE *out, const struct stats_field *f, const void *base, bool yang);

/* Counter-wise a -= b over n bytes of uint64_t counters (the clear-counters baseline). */
void stats_counters_sub(void *a, const void *b, size_t n);

#endif
