# SPDX-License-Identifier: BSD-2-Clause
"""The ATM segment of the lab: a second cellgated (a1, a remote ATM router)
reached from the router r over an RFC 4717 cell pseudowire on a veth, with a
host h4 behind it.

    h1 (10.0.1.2) --eth0-- [ r ] --atm0 (cellpw on r-a1)== a1-r (cellpw) [ a1 ] --eth0-- h4
    h2 (10.0.2.2) --eth1--                                                   (10.0.4.2, lo 10.44.0.1)

Subinterfaces (r side .1, a1 side .2):
    atm0.100  point-to-point  VC 0/100  10.1.0.0/30  OAM loopbacks from r
    atm0.200  multipoint      VC 0/200  10.2.0.0/24  peers learned by InATMARP
    atm0.300  point-to-point  VC 0/300  10.3.0.0/30  CBR, PCR 2000 cells/s

Also helpers that build cells, AAL5 PDUs and pseudowire frames in Python
(independent of the C code they test), for the bad-input tests.
"""

import struct

import lab

PW_LABEL = 100
CBR_PCR = 2000


class AtmTopology(lab.Topology):
    """Topology h1, h2 - r - a1 - h4."""

    def __init__(self, **kw):
        kw.setdefault("hosts", ("h1", "h2"))
        super().__init__(**kw)
        for n in ("a1", "h4"):
            self.ns[n] = "%s-%s" % (self.tag, n)

    def _create(self):
        # The base class creates every namespace in self.ns (a1 and h4 too).
        super()._create()
        a1, h4 = self.ns["a1"], self.ns["h4"]
        lab.run(["sysctl", "-qw", "net.ipv4.ip_forward=0"], ns=a1)
        # The carrier of the pseudowire: nothing but cells runs on it.
        lab.run(["ip", "-n", self.r, "link", "add", "r-a1", "type", "veth",
                 "peer", "name", "a1-r", "netns", a1])
        lab.run(["ip", "-n", a1, "link", "add", "a1-h4", "type", "veth",
                 "peer", "name", "h4-a1", "netns", h4])
        lab.run(["ip", "-n", h4, "addr", "add", "10.0.4.2/24", "dev", "h4-a1"])
        lab.run(["ip", "-n", h4, "addr", "add", "10.44.0.1/32", "dev", "lo"])
        if not self.offloads:
            lab.run(["ethtool", "-K", "h4-a1", "tso", "off", "gso", "off",
                     "gro", "off", "tx", "off"], ns=h4)
        lab.run(["ip", "-n", h4, "link", "set", "h4-a1", "up"])
        lab.run(["ip", "-n", h4, "route", "add", "default", "via", "10.0.4.1"])
        lab.run(["ip", "-n", self.r, "link", "set", "r-a1", "up"])
        lab.run(["ip", "-n", a1, "link", "set", "a1-r", "up"])
        lab.run(["ip", "-n", a1, "link", "set", "a1-h4", "up"])


def _subif(name, typ, addr, plen, pvcs):
    return {"name": name, "type": typ,
            "ipv4": {"address": [{"ip": addr, "prefix-length": plen}]},
            "pvc": pvcs}


def _pvc(vpi, vci, **extra):
    d = {"vpi": vpi, "vci": vci}
    d.update(extra)
    return d


def atm_port(carrier, peer_mac, side, oam=None, capture=None, extra_pvc=None):
    """The atm0 port of r (side 1) or a1 (side 2)."""
    oam = oam or {}
    p100 = _pvc(0, 100, oam=oam) if oam else _pvc(0, 100)
    p200 = _pvc(0, 200, inatmarp={"enabled": True, "interval": 1000})
    if capture:  # on the multipoint VC: the bulk TCP tests use 0/100
        p200["capture-file"] = capture
    p300 = _pvc(0, 300, shaping={"service-category": "cbr", "pcr": CBR_PCR,
                                 "queue-limit": 512})
    for p in (p100, p200, p300):
        p.update((extra_pvc or {}).get((p["vpi"], p["vci"]), {}))
    return {
        "name": "atm0", "driver": "cellpw", "netdev": carrier,
        "cellpw": {"peer-mac": peer_mac, "pw-label": PW_LABEL},
        "subinterface": [
            _subif("atm0.100", "point-to-point", "10.1.0.%d" % side, 30, [p100]),
            _subif("atm0.200", "multipoint", "10.2.0.%d" % side, 24, [p200]),
            _subif("atm0.300", "point-to-point", "10.3.0.%d" % side, 30, [p300]),
        ],
    }


def router_config(topo, oam=None, capture=None, extra_pvc=None, extra_system=None):
    """cellgated on r: h1/h2 on Ethernet, atm0 towards a1."""
    cfg = lab.default_config(extra_system=extra_system)
    c = cfg["cellgate:cellgate"]
    c["port"] = [p for p in c["port"] if p["name"] in ("eth0", "eth1")]
    c["port"].append(atm_port("r-a1", topo.mac("a1", "a1-r"), 1, oam=oam,
                              capture=capture, extra_pvc=extra_pvc))
    c["routing"]["static-route"] = [
        {"prefix": "10.0.4.0/24", "nexthop": [{"address": "10.1.0.2"}]},
        {"prefix": "10.44.0.0/24", "nexthop": [{"address": "10.2.0.2"}]},
        {"prefix": "10.88.0.0/16", "nexthop": [{"address": "10.1.0.2"}]},
    ]
    return cfg


def remote_config(topo, extra_pvc=None):
    """cellgated on a1: atm0 towards r, h4 on Ethernet."""
    ports = [
        {"name": "eth0", "driver": "afpacket", "netdev": "a1-h4",
         "ipv4": {"address": [{"ip": "10.0.4.1", "prefix-length": 24}]}},
        atm_port("a1-r", topo.mac("r", "r-a1"), 2, extra_pvc=extra_pvc),
    ]
    routes = [
        {"prefix": "10.0.1.0/24", "nexthop": [{"address": "10.1.0.1"}]},
        {"prefix": "10.0.2.0/24", "nexthop": [{"address": "10.1.0.1"}]},
        {"prefix": "10.44.0.0/24", "nexthop": [{"address": "10.0.4.2"}]},
    ]
    return {"cellgate:cellgate": {"system": {"workers": 1}, "port": ports,
                                  "routing": {"static-route": routes}}}


def vc_of(stats, port, vpi, vci):
    for v in stats.get("vcs", []):
        if v["port"] == port and v["vpi"] == vpi and v["vci"] == vci:
            return v
    raise KeyError("VC %s %d/%d not in stats.json" % (port, vpi, vci))


def atm_port_of(stats, name):
    for p in stats.get("atm-ports", []):
        if p["name"] == name:
            return p
    raise KeyError("ATM port %s not in stats.json" % name)


# --- cells, AAL5 and pseudowire frames, built independently in Python ----

def _crc32_table():
    t = []
    for i in range(256):
        c = i << 24
        for _ in range(8):
            c = ((c << 1) ^ 0x04C11DB7) if c & 0x80000000 else (c << 1)
        t.append(c & 0xffffffff)
    return t


_CRC_T = _crc32_table()


def aal5_crc32(data):
    """CRC-32/BZIP2, the AAL5 CPCS CRC (I.363.5 10.3)."""
    c = 0xffffffff
    for b in data:
        c = ((c << 8) & 0xffffffff) ^ _CRC_T[((c >> 24) ^ b) & 0xff]
    return c ^ 0xffffffff


assert aal5_crc32(b"123456789") == 0xFC891918


def aal5_pdu(sdu, length=None, bad_crc=False):
    """CPCS-PDU for sdu: pad, UU=0, CPI=0, Length, CRC-32."""
    pad = (-(len(sdu) + 8)) % 48
    body = sdu + bytes(pad) + struct.pack(">BBH", 0, 0,
                                          len(sdu) if length is None else length)
    crc = aal5_crc32(body)
    if bad_crc:
        crc ^= 1
    return body + struct.pack(">I", crc)


def cells_of(pdu, vpi, vci):
    """52-byte pseudowire cells (header word without HEC) of a CPCS-PDU."""
    out = []
    n = len(pdu) // 48
    for i in range(n):
        pti = 1 if i == n - 1 else 0
        hdr = (vpi << 20) | (vci << 4) | (pti << 1)
        out.append(struct.pack(">I", hdr) + pdu[48 * i:48 * (i + 1)])
    return out


def llc_ipv4(ip_packet):
    return bytes.fromhex("aaaa03000000" "0800") + ip_packet


def pw_frame(dst_mac, src_mac, cells, label=PW_LABEL, seq=0, cw=True):
    """Ethernet + MPLS (bottom of stack) + control word + cells."""
    eth = bytes.fromhex(dst_mac.replace(":", "")) + \
        bytes.fromhex(src_mac.replace(":", "")) + struct.pack(">H", 0x8847)
    mpls = struct.pack(">I", (label << 12) | (1 << 8) | 64)
    cwd = struct.pack(">I", seq & 0xffff) if cw else b""
    return eth + mpls + cwd + b"".join(cells)


def _main(argv):
    """Shell interface for tests/bench/rr-bench.sh.

    atmlab.py up OWNER_PID            build h1, h2 - r - a1 - h4; print shell variables
    atmlab.py config r|a1 TAG [CPU]   print cellgated's config for r or a1 of
                                      the topology TAG (worker on CPU)
    """
    import json
    import sys
    if len(argv) == 2 and argv[0] == "up":
        t = AtmTopology(owner_pid=int(argv[1])).create()
        print("LAB_TAG=%s" % t.tag)
        for name, ns in t.ns.items():
            print("NS_%s=%s" % (name.upper(), ns))
        return 0
    if len(argv) in (3, 4) and argv[0] == "config" and argv[1] in ("r", "a1"):
        t = AtmTopology()
        t.tag = argv[2]
        t.ns = {n: "%s-%s" % (t.tag, n) for n in ("r", "h1", "h2", "a1", "h4")}
        cfg = router_config(t) if argv[1] == "r" else remote_config(t)
        if len(argv) == 4:
            cfg["cellgate:cellgate"]["system"]["worker-cpu"] = [int(argv[3])]
        print(json.dumps(cfg, indent=2))
        return 0
    print(_main.__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    import sys
    sys.exit(_main(sys.argv[1:]))
