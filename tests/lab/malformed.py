#!/usr/bin/python3
# SPDX-License-Identifier: BSD-2-Clause
"""Send malformed IPv4 frames at a router port (run inside the sender's netns).

    malformed.py --iface h1-r --dmac ROUTER_MAC --src 10.0.1.2 --dst 10.0.2.2 \
                 --count K KIND [KIND ...]

KIND (each maps to one cellgated drop reason):
  bad-checksum    valid header, wrong checksum            -> ip-checksum
  truncated       IPv4 ethertype, 10 bytes of IP          -> ip-truncated
  ihl-short       IHL = 4                                  -> ip-header-length
  total-length    total length 1000, frame carries ~50    -> ip-total-length
  options         IHL = 6 (4 bytes of NOP/EOL options)    -> ip-options
  version6        version 6 in an IPv4-ethertype frame     -> ip-version
Every frame is built as bytes, checked to have exactly the intended defect,
and sent K times with sendp().  Prints "sent KIND K" lines.
"""

import argparse
import struct
import sys

from scapy.all import IP, UDP, Ether, Raw, conf, sendp  # noqa: E402

conf.verb = 0


def ip_checksum(hdr):
    if len(hdr) % 2:
        hdr += b"\0"
    s = sum(struct.unpack("!%dH" % (len(hdr) // 2), hdr))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def good_ip(src, dst, payload=b"cellgate-malformed-test"):
    """A correct IPv4/UDP packet as bytes (UDP to the discard port)."""
    return bytes(IP(src=src, dst=dst, ttl=64) / UDP(sport=40000, dport=9) /
                 Raw(payload))


def set_checksum(pkt, ihl_bytes):
    pkt = bytearray(pkt)
    pkt[10:12] = b"\0\0"
    pkt[10:12] = struct.pack("!H", ip_checksum(bytes(pkt[:ihl_bytes])))
    return bytes(pkt)


def build(kind, src, dst):
    """Return the IPv4 part (bytes after the Ethernet header) for kind."""
    p = bytearray(good_ip(src, dst))
    if kind == "bad-checksum":
        good = struct.unpack("!H", bytes(p[10:12]))[0]
        assert ip_checksum(bytes(p[:20])) == 0
        p[10:12] = struct.pack("!H", good ^ 0x5A5A)
        assert ip_checksum(bytes(p[:20])) != 0
        return bytes(p)
    if kind == "truncated":
        return bytes(p[:10])
    if kind == "ihl-short":
        p[0] = 0x44
        return set_checksum(p, 20)
    if kind == "total-length":
        p[2:4] = struct.pack("!H", 1000)
        assert len(p) < 1000
        return set_checksum(p, 20)
    if kind == "options":
        # IHL 6: one 32-bit word of options (three NOPs and End of List).
        p = p[:20] + b"\x01\x01\x01\x00" + p[20:]
        p[0] = 0x46
        p[2:4] = struct.pack("!H", len(p))
        return set_checksum(p, 24)
    if kind == "version6":
        p[0] = 0x65
        return set_checksum(p, 20)
    raise ValueError("unknown kind %r" % kind)


# No "runt" (< 14 bytes) kind: AF_PACKET pads a short send to at least the
# Ethernet header, and the receiving veth delivered such frames as 60 bytes.
KINDS = ("bad-checksum", "truncated", "ihl-short", "total-length", "options",
         "version6")


def frame(kind, smac, dmac, src, dst):
    eth = bytes(Ether(src=smac, dst=dmac, type=0x0800))
    return eth + build(kind, src, dst)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--iface", required=True)
    ap.add_argument("--dmac", required=True)
    ap.add_argument("--smac", default=None)
    ap.add_argument("--src", default="10.0.1.2")
    ap.add_argument("--dst", default="10.0.2.2")
    ap.add_argument("--count", type=int, default=10)
    ap.add_argument("--interval", type=float, default=0.0)
    ap.add_argument("kinds", nargs="+", choices=KINDS + ("all",))
    a = ap.parse_args()
    smac = a.smac
    if smac is None:
        with open("/sys/class/net/%s/address" % a.iface) as f:
            smac = f.read().strip()
    kinds = KINDS if a.kinds == ["all"] else a.kinds
    for kind in kinds:
        f = frame(kind, smac, a.dmac, a.src, a.dst)
        # Raw: scapy must not "fix" the defect by re-building the header.
        sendp(Raw(f), iface=a.iface,
              count=a.count, inter=a.interval)
        print("sent %s %d (%d bytes)" % (kind, a.count, len(f)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
