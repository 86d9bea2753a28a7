/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The FIB algorithm a test's dataplane uses: CELLGATE_FIB_ALGORITHM names it
 * (dir-24-8, poptrie), as the lab's config builder reads the same variable,
 * so a suite runs once per algorithm; unset, the daemon's default.
 *   CELLGATE_FIB_ALGORITHM=dir-24-8 make check
 */
#ifndef CELLGATE_TEST_FIB_ENV_H
#define CELLGATE_TEST_FIB_ENV_H

#include <stdio.h>
#include <stdlib.h>

#include "datapath/fib/fib.h"

static inline const struct fib_algo *test_fib_algo(void)
{
	const char *name = getenv("CELLGATE_FIB_ALGORITHM");
	const struct fib_algo *a;

	if (!name || !*name)
		return FIB_ALGO_DEFAULT;
	a = fib_algo_find(name);
	if (!a) {
		fprintf(stderr, "CELLGATE_FIB_ALGORITHM=%s: no such FIB algorithm\n", name);
		exit(2);
	}
	return a;
}

#endif
