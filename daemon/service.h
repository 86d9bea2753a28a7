/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Talking to the service manager (systemd, sd_notify(3)): READY=1 once ports
 * and listeners are up, STATUS= lines, and watchdog pings from the control
 * thread only while every worker shows progress. Without libsystemd, or
 * outside systemd, these do nothing.
 */
#ifndef CELLGATE_SERVICE_H
#define CELLGATE_SERVICE_H

#include <stdint.h>

#include "datapath/dataplane.h"

void service_ready(const char *status);
void service_stopping(void);

/*
 * Call from the control tick: pings the watchdog every half WatchdogSec,
 * but only if every worker's loop counter moved since the previous ping. A
 * stuck worker thus makes systemd restart the daemon.
 */
void service_watchdog_tick(const struct dataplane *dp, uint64_t now_ms);

#endif
