/* SPDX-License-Identifier: BSD-2-Clause */
#include "cellgate-build.h"

#include <stdbool.h>
#include <stdio.h>
#ifdef HAVE_SYSTEMD
#include <systemd/sd-daemon.h>
#endif

#include "lib/log.h"
#include "daemon/service.h"

#ifdef HAVE_SYSTEMD
static void notify(const char *msg)
{
	int r = sd_notify(0, msg);

	if (r < 0)
		log_warnx("sd_notify \"%s\": error %d", msg, r);
}
#else
static void notify(const char *msg)
{
	(void)msg;
}
#endif

void service_ready(const char *status)
{
	char msg[256];

	snprintf(msg, sizeof(msg), "READY=1\nSTATUS=%s", status);
	notify(msg);
}


void service_stopping(void)
{
	notify("STOPPING=1\nSTATUS=stopping");
}

void service_watchdog_tick(const struct dataplane *dp, uint64_t now_ms)
{
#ifdef HAVE_SYSTEMD
	static int enabled = -1;
	static uint64_t interval_ms, last_ms, last_loops[WORKER_MAX];
	uint64_t usec;

	if (enabled < 0) {
		enabled = sd_watchdog_enabled(0, &usec) > 0;
		interval_ms = enabled ? usec / 2000 : 0;
		if (enabled && interval_ms == 0)
			interval_ms = 1;
	}
	if (!enabled || now_ms - last_ms < interval_ms)
		return;
	bool progress = true;
	for (unsigned w = 0; w < dp->nworkers; w++) {
		uint64_t loops = dp_worker_loops(dp, w);
		if (loops == last_loops[w]) {
			progress = false;
			log_warnx("watchdog: worker %u made no progress in %lu ms: not pinging systemd",
			          w, (unsigned long)(now_ms - last_ms));
		}
		last_loops[w] = loops;
	}
	last_ms = now_ms;
	if (progress)
		notify("WATCHDOG=1");
#else
	(void)dp;
	(void)now_ms;
#endif
}
