/* SPDX-License-Identifier: BSD-2-Clause */
/* A minimal test harness: CHECK prints the failing expression and counts it. */
#ifndef CELLGATE_TEST_CHECK_H
#define CELLGATE_TEST_CHECK_H

#include <stdio.h>

/*
 * One pair of counters per test program, however many files its cases are
 * spread over: every file that includes this defines them weak, and the
 * linker keeps one.
 */
__attribute__((weak)) int check_failed, check_passed;

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (cond) {                                                                        \
			check_passed++;                                                            \
		} else {                                                                           \
			check_failed++;                                                            \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);   \
		}                                                                                  \
	} while (0)

#define CHECK_EQ(a, b)                                                                             \
	do {                                                                                       \
		long long _a = (long long)(a), _b = (long long)(b);                                \
		if (_a == _b) {                                                                    \
			check_passed++;                                                            \
		} else {                                                                           \
			check_failed++;                                                            \
			fprintf(stderr, "%s:%d: CHECK failed: %s == %s (%lld != %lld)\n",          \
			        __FILE__, __LINE__, #a, #b, _a, _b);                               \
		}                                                                                  \
	} while (0)

static inline int check_report(const char *name)
{
	printf("%s: %d checks passed, %d failed\n", name, check_passed, check_failed);
	return check_failed ? 1 : 0;
}

#endif
