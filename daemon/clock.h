/* Milliseconds for the control thread's timers (monotonic) and for timestamps (wall clock). */
#ifndef CELLGATE_CLOCK_H
#define CELLGATE_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t clock_ms(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* For intervals and timeouts: never jumps. */
static inline uint64_t mono_ms(void)
{
	return clock_ms(CLOCK_MONOTONIC);
}

/* For timestamps shown to operators (last change, discontinuity time). */
static inline uint64_t realtime_ms(void)
{
	return clock_ms(CLOCK_REALTIME);
}

#endif
