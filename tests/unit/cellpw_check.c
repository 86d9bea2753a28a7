/* SPDX-License-Identifier: BSD-2-Clause */
/* The checks and buffers test_cellpw's cases share (cellpw_check.h). */
#include "tests/unit/cellpw_check.h"

#include <string.h>

#include "lib/wire.h"
#include "tests/unit/check.h"

struct h_tx tx;
struct h_pdu pdu;
struct pkt pkts[BURST_MAX];
const uint8_t llc_ip4[8] = {0xaa, 0xaa, 0x03, 0x00, 0x00, 0x00, 0x08, 0x00};
const uint8_t llc_ip6[8] = {0xaa, 0xaa, 0x03, 0x00, 0x00, 0x00, 0x86, 0xdd};

const uint8_t *vc_mac(uint16_t vc)
{
	static uint8_t mac[6];

	vc_mac_make(vc, mac);
	return mac;
}

/* The PDU carries prefix||ip on `vc`, in `ncells` cells, trailer and CRC right. */
void check_pdu(const struct h_pdu *p, unsigned vc, unsigned ncells, const uint8_t *prefix,
               size_t plen, const uint8_t *ip, size_t iplen)
{
	CHECK_EQ(p->vpi, h.dp.vcs[vc].cfg.vpi);
	CHECK_EQ(p->vci, h.dp.vcs[vc].cfg.vci);
	CHECK_EQ(p->ncells, ncells);
	CHECK(p->one_vc && p->auu_last_only && p->crc_ok && p->pad_zero);
	CHECK(p->uu == 0 && p->cpi == 0);
	CHECK_EQ(p->length, plen + iplen);
	CHECK(plen == 0 || !memcmp(p->cpcs, prefix, plen));
	CHECK(!memcmp(p->cpcs + plen, ip, iplen));
}

/* An SDU delivered as a frame: synthetic Ethernet header, received on the subinterface. */
void check_rx(const struct pkt *p, unsigned vc, uint16_t type, const uint8_t *l3, uint32_t len)
{
	CHECK_EQ(p->len, 14 + len);
	CHECK_EQ(p->in_port, h.dp.vcs[vc].cfg.subif);
	CHECK_EQ(p->l2_class, PKT_L2_HOST);
	CHECK(!memcmp(p->data, h.dp.ports[H_ATM].mac, 6));
	CHECK(!memcmp(p->data + 6, vc_mac((uint16_t)vc), 6));
	CHECK_EQ(rd16(p->data + 12), type);
	CHECK(!memcmp(p->data + 14, l3, len));
}

void send_ip(unsigned port, const uint8_t *dst_mac, const uint8_t *ip, uint32_t iplen)
{
	uint8_t f[14 + H_MTU + 64];

	h_sub_send(port, f, h_eth(f, dst_mac, ip, iplen));
}
