/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The plain settings and limits the configuration and the datapath share:
 * config/ fills them in from the YANG data, datapath/ acts on them, and
 * neither has to include the other.
 */
#ifndef CELLGATE_LIB_PORT_SETTINGS_H
#define CELLGATE_LIB_PORT_SETTINGS_H

#include <stdbool.h>
#include <stdint.h>

#define PORT_MAX      64 /* dataplane ports, ATM subinterfaces included */
#define WORKER_MAX    16 /* datapath threads */
#define PORT_NAME_MAX 32

/* Driver settings of a port (0 = driver default). */
struct port_settings {
	uint32_t rx_ring_frames; /* approximate RX ring capacity in frames */
	uint32_t tx_ring_frames; /* TX ring slots */
	bool promiscuous;
	bool qdisc_bypass; /* PACKET_QDISC_BYPASS on TX */
};

#endif
