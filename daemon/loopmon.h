/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The control loop's own health: a timer armed every LOOPMON_INTERVAL_MS
 * measures how late it fires. That lag is the time the loop spent in other
 * work without coming back to it; everything the control thread does
 * (FPM, neighbour and OAM timers, RESTCONF, SNMP, the watchdog ping) waits
 * that long too. Published in RESTCONF state (/cellgate/state/loop),
 * /metrics and CELLGATE-MIB; a lag of a second or more is logged.
 */
#ifndef CELLGATE_LOOPMON_H
#define CELLGATE_LOOPMON_H

#include <stdbool.h>
#include <stdint.h>

#define LOOPMON_INTERVAL_MS 10
#define LOOPMON_WINDOW_S    10      /* lag-recent: the worst of the last this many seconds */
#define LOOPMON_STALL_US    1000000 /* a lag this long is logged */
#define LOOPMON_BUCKETS     12

/* Bucket upper bounds in microseconds (cumulative buckets, like Prometheus'). */
extern const uint32_t loopmon_bounds_us[LOOPMON_BUCKETS];

struct loopmon_stats {
	uint64_t ticks, lag_total_us;
	uint32_t lag_max_us;
	/*
	 * busy: the part of a lag the control thread was itself running (its CPU
	 * time from arming to firing, at most the lag): work that did not yield.
	 * The rest of a lag is time the kernel did not run the thread at all
	 * (other processes on the CPUs).
	 */
	uint32_t busy_max_us;
	uint64_t lag_max_rt_ms;       /* CLOCK_REALTIME of lag_max, 0 = none */
	uint64_t le[LOOPMON_BUCKETS]; /* ticks with lag <= loopmon_bounds_us[i] */
	struct {
		uint64_t second; /* monotonic second + 1 the slot holds, 0 = none */
		uint32_t max_us, busy_max_us;
	} win[LOOPMON_WINDOW_S];
};

/*
 * One timer run with `lag_us`, of which the thread ran `busy_us`, at monotonic
 * `now_ms` (and CLOCK_REALTIME `rt_ms`).
 */
void loopmon_record(struct loopmon_stats *s, uint64_t now_ms, uint64_t rt_ms, uint64_t lag_us,
                    uint64_t busy_us);
/* The worst lag (busy: its busy part) of the last LOOPMON_WINDOW_S seconds before `now_ms`. */
uint32_t loopmon_recent_us(const struct loopmon_stats *s, uint64_t now_ms, bool busy);

struct event_base;
struct loopmon;

/* Start measuring on `base`. NULL on ENOMEM (logged): the daemon runs without the gauge. */
struct loopmon *loopmon_start(struct event_base *base);
void loopmon_stop(struct loopmon *lm);
/* NULL-safe: zeros when not running. */
const struct loopmon_stats *loopmon_stats(const struct loopmon *lm);

#endif
