/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The loop-lag gauge's bookkeeping (daemon/loopmon.c), fed by hand: the
 * cumulative buckets, the maximum and when it was, the 10 s window of
 * lag-recent sliding on, and the busy part never above the lag.
 */
#include <string.h>

#include "daemon/loopmon.h"
#include "tests/unit/check.h"

int main(void)
{
	struct loopmon_stats s;

	memset(&s, 0, sizeof(s));
	CHECK_EQ(loopmon_recent_us(&s, 5000, false), 0);
	loopmon_record(&s, 1000, 111, 300, 100);     /* t = 1 s: 0.3 ms late */
	loopmon_record(&s, 2000, 222, 42000, 50000); /* 42 ms, busy "50" capped to 42 */
	loopmon_record(&s, 2500, 333, 7000, 0);      /* 7 ms, all the kernel's */
	CHECK_EQ(s.ticks, 3);
	CHECK_EQ(s.lag_total_us, 300 + 42000 + 7000);
	CHECK_EQ(s.lag_max_us, 42000);
	CHECK_EQ(s.lag_max_rt_ms, 222);
	CHECK_EQ(s.busy_max_us, 42000);
	/* Cumulative: each bucket counts every lag up to its bound. */
	for (unsigned i = 0; i < LOOPMON_BUCKETS; i++) {
		unsigned want = (300 <= loopmon_bounds_us[i]) + (42000 <= loopmon_bounds_us[i]) +
		                (7000 <= loopmon_bounds_us[i]);
		CHECK_EQ(s.le[i], want);
		CHECK(i == 0 || loopmon_bounds_us[i] > loopmon_bounds_us[i - 1]);
	}
	CHECK_EQ(s.le[LOOPMON_BUCKETS - 1], 3);
	/* The window: 42 ms stays "recent" until 10 s after its second, then goes. */
	CHECK_EQ(loopmon_recent_us(&s, 2600, false), 42000);
	CHECK_EQ(loopmon_recent_us(&s, 2600, true), 42000);
	CHECK_EQ(loopmon_recent_us(&s, 11999, false), 42000);
	CHECK_EQ(loopmon_recent_us(&s, 12000, false), 0);
	/* A slot reused ten seconds on forgets what it held. */
	loopmon_record(&s, 12100, 444, 900, 800);
	CHECK_EQ(loopmon_recent_us(&s, 12100, false), 900);
	CHECK_EQ(loopmon_recent_us(&s, 12100, true), 800);
	CHECK_EQ(s.lag_max_us, 42000); /* the maximum is since the start */
	return check_report("test_loopmon");
}
