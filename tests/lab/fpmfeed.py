# SPDX-License-Identifier: BSD-2-Clause
"""A minimal FPM client (what zebra's dplane_fpm_nl sends), for tests that
play zebra or something pretending to be it: FPM frames (RFC-less: version
1, type 1 = netlink, 16-bit length including the 4-byte header, big-endian)
holding netlink RTM_NEWROUTE / RTM_DELROUTE messages in host byte order.

Run as a script inside a namespace (ip netns exec NS python3 fpmfeed.py
HOST PORT ACTION...) so the test process itself stays outside:
  hold            connect and wait until stdin closes
  routes4 N       N IPv4 /24s 10.200.0.0/24.. via 10.0.2.2, then hold
  routes6 N       N IPv6 /48s 2001:db8:X::/48, then hold
It prints "connected" once connected, "closed" if the server closes the
connection, and exits when stdin closes.
"""

import select
import socket
import struct
import sys

RTM_NEWROUTE, RTM_DELROUTE = 24, 25
RTA_DST, RTA_GATEWAY = 1, 5
AF_INET, AF_INET6 = 2, 10


def attr(kind, data):
    n = 4 + len(data)
    return struct.pack("=HH", n, kind) + data + b"\0" * ((4 - n % 4) % 4)


def route(family, dst, plen, gw=None, delete=False):
    # rtmsg: family, dst_len, src_len, tos, table (main), protocol (zebra
    # static, 196), scope, type (unicast), flags
    rtm = struct.pack("=BBBBBBBBI", family, plen, 0, 0, 254, 196, 0,
                      0 if delete else 1, 0)
    body = rtm + attr(RTA_DST, dst) + (attr(RTA_GATEWAY, gw) if gw else b"")
    return struct.pack("=IHHII", 16 + len(body),
                       RTM_DELROUTE if delete else RTM_NEWROUTE,
                       0x501, 0, 0) + body


def frame(msgs):
    payload = b"".join(msgs)
    return struct.pack("!BBH", 1, 1, 4 + len(payload)) + payload


def routes4(n):
    gw = socket.inet_aton("10.0.2.2")
    return [frame([route(AF_INET, bytes([10, 200 + i // 256, i % 256, 0]), 24, gw)])
            for i in range(n)]


def routes6(n):
    return [frame([route(AF_INET6, bytes([0x20, 0x01, 0x0d, 0xb8, i >> 8, i & 255])
                         + bytes(10), 48)]) for i in range(n)]


def main():
    host, port, action = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    s = socket.create_connection((host, port), timeout=5)
    print("connected", flush=True)
    if action in ("routes4", "routes6"):
        n = int(sys.argv[4])
        for f in (routes4(n) if action == "routes4" else routes6(n)):
            s.sendall(f)
        print("sent", flush=True)
    s.setblocking(False)
    while True:
        r, _, _ = select.select([s, sys.stdin], [], [], 1.0)
        if sys.stdin in r:
            return
        if s in r:
            try:
                data = s.recv(4096)
            except (ConnectionResetError, BlockingIOError, TimeoutError, OSError):
                data = b""
            if not data:
                print("closed", flush=True)
                return


if __name__ == "__main__":
    main()
