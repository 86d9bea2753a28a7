/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The one clock API of cellgate. Monotonic time for intervals, timeouts and
 * deadlines (never jumps); CLOCK_MONOTONIC_COARSE where a tick-resolution
 * reading is enough and the call must be cheap (the workers read it once per
 * burst); the wall clock only for timestamps shown to operators (last change,
 * discontinuity times, capture files).
 */
#ifndef CELLGATE_LIB_CLOCK_H
#define CELLGATE_LIB_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t mono_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

static inline uint64_t mono_us(void)
{
	return mono_ns() / 1000;
}

static inline uint64_t mono_ms(void)
{
	return mono_ns() / 1000000;
}

/* Seconds as a double, for benchmarks and rates. */
static inline double mono_s(void)
{
	return (double)mono_ns() * 1e-9;
}

/* Milliseconds at the kernel tick's resolution (1-4 ms), from the vDSO without a TSC read. */
static inline uint64_t mono_coarse_ms(void)
{
	return clock_ns(CLOCK_MONOTONIC_COARSE) / 1000000;
}

/* CLOCK_REALTIME in milliseconds: for timestamps, never for intervals. */
static inline uint64_t realtime_ms(void)
{
	return clock_ns(CLOCK_REALTIME) / 1000000;
}

#endif
