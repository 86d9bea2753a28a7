/* SPDX-License-Identifier: BSD-2-Clause */
#include "daemon/stats_fields.h"

#define F(type, name, member)                                                                      \
	{                                                                                          \
		name, offsetof(struct type, member)                                                \
	}

const struct stats_field port_counter_fields[] = {
    F(port_counters, "rx-packets", rx_packets),
    F(port_counters, "rx-octets", rx_octets),
    F(port_counters, "tx-packets", tx_packets),
    F(port_counters, "tx-octets", tx_octets),
    F(port_counters, "forwarded", forwarded),
    F(port_counters, "to-kernel", to_kernel),
    F(port_counters, "icmp-out", icmp_out),
    F(port_counters, "icmp-ratelimited", icmp_ratelimited),
    F(port_counters, "fragmented", fragmented),
    F(port_counters, "fragments-out", fragments_out),
    F(port_counters, "rx-gso-packets", rx_gso_packets),
    F(port_counters, "gso-segmented", gso_segmented),
    F(port_counters, "gso-segments-out", gso_segments_out),
    F(port_counters, "ipv6-in-packets", ip6_in_packets),
    F(port_counters, "ipv6-in-octets", ip6_in_octets),
    F(port_counters, "ipv6-forwarded", ip6_forwarded),
    F(port_counters, "ipv6-to-kernel", ip6_to_kernel),
    F(port_counters, "ipv6-discards", ip6_discards),
    F(port_counters, "ipv6-out-packets", ip6_out_packets),
    F(port_counters, "ipv6-out-octets", ip6_out_octets),
    F(port_counters, "ipv6-icmp-out", ip6_icmp_out),
    {NULL, 0},
};

const struct stats_field atm_port_counter_fields[] = {
    F(atm_port_counters, "frames-in", frames_in),
    F(atm_port_counters, "octets-in", octets_in),
    F(atm_port_counters, "frames-out", frames_out),
    F(atm_port_counters, "octets-out", octets_out),
    F(atm_port_counters, "cells-in", cells_in),
    F(atm_port_counters, "cells-out", cells_out),
    F(atm_port_counters, "non-pw-frames", non_pw_frames),
    F(atm_port_counters, "pw-bad-label", pw_bad_label),
    F(atm_port_counters, "pw-malformed", pw_malformed),
    F(atm_port_counters, "seq-errors", seq_errors),
    F(atm_port_counters, "unknown-vc-cells", unknown_vc_cells),
    F(atm_port_counters, "tx-full", tx_full),
    F(atm_port_counters, "host-tx", host_tx),
    F(atm_port_counters, "host-tx-drops", host_tx_drops),
    F(atm_port_counters, "no-vc", no_vc),
    F(atm_port_counters, "punted", punted),
    F(atm_port_counters, "punt-errors", punt_errors),
    F(atm_port_counters, "events-lost", events_lost),
    F(atm_port_counters, "vc-lost", vc_lost),
    {NULL, 0},
};

const struct stats_field vc_counter_fields[] = {
    F(vc_counters, "cells-in", cells_in),
    F(vc_counters, "clp0-cells-in", clp0_cells_in),
    F(vc_counters, "cells-out", cells_out),
    F(vc_counters, "clp0-cells-out", clp0_cells_out),
    F(vc_counters, "pdus-in", pdus_in),
    F(vc_counters, "pdus-out", pdus_out),
    F(vc_counters, "octets-in", octets_in),
    F(vc_counters, "octets-out", octets_out),
    F(vc_counters, "oam-in", oam_in),
    F(vc_counters, "oam-out", oam_out),
    F(vc_counters, "loopbacks-sent", lb_sent),
    F(vc_counters, "loopback-replies", lb_replies),
    F(vc_counters, "loopbacks-lost", lb_lost),
    F(vc_counters, "loopbacks-answered", lb_answered),
    F(vc_counters, "inatmarp-in", inatmarp_in),
    F(vc_counters, "inatmarp-out", inatmarp_out),
    F(vc_counters, "oper-changes", oper_changes),
    {NULL, 0},
};

void stats_fields_json(FILE *out, const struct stats_field *f, const void *base, bool yang)
{
	const char *q = yang ? "\"" : "";

	for (; f->name; f++)
		fprintf(out, ",\"%s\":%s%lu%s", f->name, q,
		        *(const uint64_t *)((const char *)base + f->off), q);
}

void stats_counters_sub(void *a, const void *b, size_t n)
{
	uint64_t *x = a;
	const uint64_t *y = b;

	for (size_t i = 0; i < n / sizeof(uint64_t); i++)
		x[i] -= y[i];
}
