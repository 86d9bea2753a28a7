/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The loop-lag timer (loopmon.h). One-shot, armed again from its own
 * callback: lag = when it ran - when it was due, which a persistent timer
 * would hide (libevent re-bases a late persistent timer on "now").
 */
#include <event2/event.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/loopmon.h"
#include "lib/clock.h"
#include "lib/log.h"

const uint32_t loopmon_bounds_us[LOOPMON_BUCKETS] = {
    500, 1000, 2000, 5000, 10000, 20000, 50000, 100000, 200000, 500000, 1000000, 5000000};

struct loopmon {
	struct event *ev;
	uint64_t due_us; /* monotonic */
	uint64_t cpu_us; /* the thread's CPU time when armed */
	struct loopmon_stats st;
	struct log_limit stall_log;
};

static uint32_t clamp32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

void loopmon_record(struct loopmon_stats *s, uint64_t now_ms, uint64_t rt_ms, uint64_t lag_us,
                    uint64_t busy_us)
{
	uint32_t lag = clamp32(lag_us), busy = clamp32(busy_us < lag_us ? busy_us : lag_us);
	uint64_t sec = now_ms / 1000 + 1;
	unsigned slot = (unsigned)(sec % LOOPMON_WINDOW_S);

	s->ticks++;
	s->lag_total_us += lag;
	for (unsigned i = 0; i < LOOPMON_BUCKETS; i++)
		s->le[i] += lag <= loopmon_bounds_us[i];
	if (lag > s->lag_max_us || !s->lag_max_rt_ms) {
		s->lag_max_us = lag;
		s->lag_max_rt_ms = rt_ms;
	}
	if (busy > s->busy_max_us)
		s->busy_max_us = busy;
	if (s->win[slot].second != sec) {
		s->win[slot].second = sec;
		s->win[slot].max_us = s->win[slot].busy_max_us = 0;
	}
	if (lag > s->win[slot].max_us)
		s->win[slot].max_us = lag;
	if (busy > s->win[slot].busy_max_us)
		s->win[slot].busy_max_us = busy;
}

uint32_t loopmon_recent_us(const struct loopmon_stats *s, uint64_t now_ms, bool busy)
{
	uint64_t sec = now_ms / 1000 + 1;
	uint32_t max = 0;

	for (unsigned i = 0; i < LOOPMON_WINDOW_S; i++) {
		uint32_t v = busy ? s->win[i].busy_max_us : s->win[i].max_us;
		if (s->win[i].second && s->win[i].second + LOOPMON_WINDOW_S > sec && v > max)
			max = v;
	}
	return max;
}

static uint64_t thread_cpu_us(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID) / 1000;
}

static void loopmon_arm(struct loopmon *lm, uint64_t now_us)
{
	struct timeval tv = {.tv_sec = 0, .tv_usec = LOOPMON_INTERVAL_MS * 1000};

	lm->due_us = now_us + LOOPMON_INTERVAL_MS * 1000;
	lm->cpu_us = thread_cpu_us();
	event_add(lm->ev, &tv);
}

static void loopmon_tick(evutil_socket_t fd, short what, void *arg)
{
	struct loopmon *lm = arg;
	uint64_t now_us = mono_us(), lag = now_us > lm->due_us ? now_us - lm->due_us : 0;
	uint64_t busy = thread_cpu_us() - lm->cpu_us;

	(void)fd;
	(void)what;
	loopmon_record(&lm->st, now_us / 1000, realtime_ms(), lag, busy);
	if (lag >= LOOPMON_STALL_US && log_limit_pass(&lm->stall_log, now_us / 1000000, "loop"))
		log_warnx("control loop: a %d ms timer ran %lu ms late: the loop was stalled "
		          "(FPM, timers, management and the watchdog waited as long)",
		          LOOPMON_INTERVAL_MS, (unsigned long)(lag / 1000));
	loopmon_arm(lm, now_us);
}

struct loopmon *loopmon_start(struct event_base *base)
{
	struct loopmon *lm = calloc(1, sizeof(*lm));

	if (lm)
		lm->ev = evtimer_new(base, loopmon_tick, lm);
	if (!lm || !lm->ev) {
		log_warnx("control loop: out of memory: no loop-lag gauge");
		free(lm);
		return NULL;
	}
	loopmon_arm(lm, mono_us());
	return lm;
}

void loopmon_stop(struct loopmon *lm)
{
	if (!lm)
		return;
	log_limit_flush(&lm->stall_log, "loop");
	event_free(lm->ev);
	free(lm);
}

const struct loopmon_stats *loopmon_stats(const struct loopmon *lm)
{
	static const struct loopmon_stats none;

	return lm ? &lm->st : &none;
}
