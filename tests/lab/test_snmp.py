# SPDX-License-Identifier: BSD-2-Clause
"""SNMP: cellgated's AgentX subagent under a real snmpd (atmlab.py topology).

snmpd (master agentx) and snmptrapd run in the router's namespace with
private configuration, sockets and ports under a temporary directory.
cellgated starts first, with no snmpd: it must run and connect when snmpd
appears, and again after snmpd restarts, within its ping interval. Every
table is walked (by numeric OID: Debian ships no ATM-MIB or ATM2-MIB text);
counters must move exactly by what the pings sent, computed from the
packet sizes (RFC 2684 LLC/SNAP header, AAL5 trailer, 48-byte cells); a VC
that OAM takes down must read down and send cgVcOperDown to snmptrapd.
"""

import os
import re
import signal
import shutil
import subprocess
import tempfile
import time

import pytest

import atmlab
import lab
import restconf as rc
from conftest import start_router
from test_atm import capture_name, ping, topo, wait_ping  # noqa: F401 (fixtures)

PING_INTERVAL = 2  # seconds: the subagent's AgentX ping and reconnect period
SNMPD_PORT = 1161
TRAPD_PORT = 1162
COMMUNITY = "cellgate-ro"  # etc/cellgate-snmpd.conf
TRAP_COMMUNITY = "cellgate-traps"
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

ATM_MIB = ".1.3.6.1.2.1.37.1"
ATM_VCL = ATM_MIB + ".7.1"            # atmVclEntry (RFC 2515)
AAL5_VCC = ATM_MIB + ".12.1"          # aal5VccEntry (RFC 2515)
ATM_VCL_STAT = ATM_MIB + ".14.1.11.1"  # atmVclStatEntry (RFC 3606)
AAL5_VCL_STAT = ATM_MIB + ".14.1.12.1"  # atmAal5VclStatEntry (RFC 3606)
CG = ".1.3.6.1.4.1.32473"             # CELLGATE-MIB
CG_SYSTEM = CG + ".1.1"
CG_FPM = CG + ".1.2"
CG_PORT = CG + ".1.3.1"
CG_PORT_DROP = CG + ".1.4.1"
CG_ATM_PORT = CG + ".1.5.1"
CG_VC = CG + ".1.6.1"
CG_VC_DROP = CG + ".1.7.1"
CG_INATMARP = CG + ".1.8.1"
SYS_UPTIME = ".1.3.6.1.2.1.1.3.0"

# cgVcEntry columns (mibs/CELLGATE-MIB.txt)
VC_OPER, VC_LAST_CHANGE = 4, 5
VC_CELLS_IN, VC_CLP0_IN, VC_CELLS_OUT, VC_CLP0_OUT = 7, 8, 9, 10
VC_PDUS_IN, VC_PDUS_OUT, VC_OCTETS_IN, VC_OCTETS_OUT = 11, 12, 13, 14
VC_OAM_IN, VC_OAM_OUT = 16, 17


def sdu_len(icmp_data):
    """AAL5 SDU of one ping over an LLC/SNAP VC: LLC/SNAP 8 + IPv4 20 + ICMP 8 + data."""
    return 8 + 20 + 8 + icmp_data


def cells_of(sdu):
    """Cells of an AAL5 CPCS-PDU: SDU + 8-byte trailer, padded to 48 (I.363.5)."""
    return (sdu + 8 + 47) // 48


class Snmp:
    """snmpd and snmptrapd in the router's namespace, and the net-snmp tools."""

    def __init__(self, topo):
        self.topo = topo
        self.dir = tempfile.mkdtemp(prefix="cglab-snmp-")
        self.socket = os.path.join(self.dir, "agentx.sock")
        self.snmpd = self.trapd = None
        self.env = dict(os.environ, MIBS="", SNMP_PERSISTENT_DIR=self.dir + "/persist")
        # The shipped snippet, pointed at this lab: private socket, loopback
        # manager and trap sink, a port of our own; plus a write community,
        # so that refusing writes is the subagent's doing, not snmpd's.
        with open(os.path.join(ROOT, "etc", "cellgate-snmpd.conf")) as f:
            conf = f.read()
        for old, new in (("/var/agentx/master", self.socket),
                         ("192.0.2.0/24", "127.0.0.1"),
                         ("trap2sink 192.0.2.10", "trap2sink 127.0.0.1:%d" % TRAPD_PORT)):
            assert old in conf, "etc/cellgate-snmpd.conf has no %r" % old
            conf = conf.replace(old, new)
        conf += ("agentaddress udp:127.0.0.1:%d\n"
                 "rwcommunity private 127.0.0.1\n" % SNMPD_PORT)
        with open(os.path.join(self.dir, "snmpd.conf"), "w") as f:
            f.write(conf)
        with open(os.path.join(self.dir, "snmptrapd.conf"), "w") as f:
            f.write("authCommunity log %s\n" % TRAP_COMMUNITY)
        self.trap_log = os.path.join(self.dir, "snmptrapd.log")

    def start_snmpd(self):
        self.snmpd_log = open(os.path.join(self.dir, "snmpd.log"), "a")
        self.snmpd = self.topo.popen(
            "r", ["snmpd", "-f", "-Lo", "-C", "-c", os.path.join(self.dir, "snmpd.conf"),
                  "-p", os.path.join(self.dir, "snmpd.pid")],
            stdout=self.snmpd_log, stderr=subprocess.STDOUT, env=self.env)
        ok = lab.wait_for(lambda: os.path.exists(self.socket) or self.snmpd.poll() is not None,
                          timeout=10, interval=0.05)
        assert ok and self.snmpd.poll() is None, "snmpd did not start:\n" + self.log()
        return time.monotonic()

    def stop_snmpd(self):
        if self.snmpd and self.snmpd.poll() is None:
            self.snmpd.terminate()
            self.snmpd.wait(timeout=10)
        self.snmpd = None

    def start_trapd(self):
        self.trapd = self.topo.popen(
            "r", ["snmptrapd", "-f", "-Lf", self.trap_log, "-C", "-c",
                  os.path.join(self.dir, "snmptrapd.conf"), "-On", "-n",
                  "udp:127.0.0.1:%d" % TRAPD_PORT],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=self.env)
        assert lab.wait_for(lambda: os.path.exists(self.trap_log), timeout=10), \
            "snmptrapd did not start"

    def stop(self):
        self.stop_snmpd()
        if self.trapd and self.trapd.poll() is None:
            self.trapd.terminate()
            self.trapd.wait(timeout=10)

    def log(self):
        with open(os.path.join(self.dir, "snmpd.log"), errors="replace") as f:
            return f.read()

    def traps(self):
        try:
            with open(self.trap_log, errors="replace") as f:
                return f.read()
        except FileNotFoundError:
            return ""

    def _tool(self, tool, args, community=COMMUNITY, check=True):
        p = self.topo.exec("r", [tool, "-v2c", "-c", community, "-On", "-Oe", "-t", "2",
                                 "-r", "1", "127.0.0.1:%d" % SNMPD_PORT] + list(args),
                           timeout=60)
        if check:
            assert p.returncode == 0, "%s %s: %s%s" % (tool, args, p.stdout, p.stderr)
        return p

    def walk(self, oid, bulk=True):
        """{oid: (type, value)} under oid, by GETBULK (snmpbulkwalk) or GETNEXT."""
        out = {}
        p = self._tool("snmpbulkwalk", ["-Cr25", oid]) if bulk else \
            self._tool("snmpwalk", [oid])
        for line in p.stdout.splitlines():
            m = re.match(r"^(\.[\d.]+) = (?:(\S+): )?(.*)$", line)
            # A walk that reaches the end of snmpd's view prints endOfMibView
            # against the last OID it had: not an instance.
            if m and not m.group(3).startswith("No more variables left"):
                out[m.group(1)] = (m.group(2), _value(m.group(2), m.group(3)))
        return out

    def get(self, *oids, check=True):
        """[(type, value)] for each oid; type is None for noSuch*."""
        p = self._tool("snmpget", list(oids), check=check)
        res = []
        for line in p.stdout.splitlines():
            m = re.match(r"^(\.[\d.]+) = (?:(\S+): )?(.*)$", line)
            if m:
                res.append((m.group(2), _value(m.group(2), m.group(3))))
        return res

    def answers(self):
        p = self._tool("snmpget", [CG_SYSTEM + ".2.0"], check=False)
        return p.returncode == 0 and "Gauge32" in p.stdout


def _value(typ, text):
    if typ in ("Counter32", "Counter64", "Gauge32", "INTEGER"):
        return int(text.split()[0])
    if typ == "Timeticks":
        return int(re.match(r"\((\d+)\)", text).group(1))
    if typ == "STRING":
        return text.strip('"')
    return text


@pytest.fixture(scope="module")
def snmp(request, topo):  # noqa: F811
    s = Snmp(topo)

    def fin():
        s.stop()
        shutil.rmtree(s.dir, ignore_errors=True)
    request.addfinalizer(fin)
    return s


@pytest.fixture(scope="module")
def routers(request, topo, cellgated_bin, snmp):  # noqa: F811
    """a1 and r as in test_atm, r with the subagent on; snmpd not started yet."""
    oam = {"enabled": True, "interval": 500, "retry-interval": 250,
           "down-count": 3, "up-count": 2}
    a1 = start_router(request, topo, cellgated_bin,
                      config=atmlab.remote_config(topo), ns="a1")
    cfg = atmlab.router_config(topo, oam=oam)
    cfg["cellgate:cellgate"]["snmp"] = {"agentx-socket": snmp.socket,
                                        "ping-interval": PING_INTERVAL}
    r = start_router(request, topo, cellgated_bin, config=cfg)
    return r, a1


@pytest.fixture(scope="module")
def ifindex(topo):  # noqa: F811
    return lambda dev: topo.link("r", dev)["ifindex"]


def snmp_session(r):
    """The subagent's session as RESTCONF reports it (/cellgate/state/snmp)."""
    return rc.state(r)["snmp"]["state"]


def vc_idx(ifindex, vci, vpi=0):
    return ".%d.%d.%d" % (ifindex("atm0"), vpi, vci)


def test_runs_without_snmpd_then_connects(topo, routers, snmp):  # noqa: F811
    """Started before snmpd: forwards, then registers once snmpd is there."""
    r, _ = routers
    assert wait_ping(topo, "h1", "10.0.4.2"), "no forwarding while snmpd is absent"
    assert r.alive()
    assert "subagent connected" not in r.log()
    assert snmp_session(r) == "connecting"
    t0 = snmp.start_snmpd()
    ok = lab.wait_for(snmp.answers, timeout=PING_INTERVAL + 5, interval=0.1)
    took = time.monotonic() - t0
    assert ok, "subagent never answered through snmpd:\n" + r.log()[-2000:]
    assert took <= PING_INTERVAL + 1.5, "connected %.1f s after snmpd started" % took
    assert "AgentX subagent connected" in r.log()
    assert snmp_session(r) == "connected"


def test_walk_atm_mib_tables(routers, snmp, ifindex):
    """ATM-MIB atmVclTable (walked by GETNEXT) and aal5VccTable (GETBULK):
    three VCs on atm0's ifIndex."""
    vcl = snmp.walk(ATM_VCL, bulk=False)
    rows = {vc_idx(ifindex, v) for v in (100, 200, 300)}
    for col, want in ((3, 1), (8, 3), (9, 9188), (10, 9188), (11, 7)):
        for row in rows:
            assert vcl[ATM_VCL + ".%d" % col + row][1] == want, (col, row, vcl)
    for row in rows:
        assert vcl[ATM_VCL + ".4" + row] == ("INTEGER", 1)  # oper up
        assert vcl[ATM_VCL + ".5" + row][0] == "Timeticks"
    assert len(vcl) == 7 * 3, sorted(vcl)
    aal5 = snmp.walk(AAL5_VCC)
    assert len(aal5) == 3 * 3 and all(t == "Counter32" for t, _ in aal5.values()), aal5


def test_walk_atm2_mib_tables(routers, snmp, ifindex):
    stat = snmp.walk(ATM_VCL_STAT)
    assert len(stat) == 7 * 3, sorted(stat)
    row = vc_idx(ifindex, 100)
    # Cells both ways already (OAM loopbacks every 500 ms); no policing.
    assert stat[ATM_VCL_STAT + ".1" + row][1] > 0
    assert stat[ATM_VCL_STAT + ".5" + row][1] > 0
    assert stat[ATM_VCL_STAT + ".3" + row][1] == 0 and stat[ATM_VCL_STAT + ".7" + row][1] == 0
    aal5 = snmp.walk(AAL5_VCL_STAT)
    assert len(aal5) == 4 * 3, sorted(aal5)


def test_walk_cellgate_mib(topo, routers, snmp, ifindex):  # noqa: F811
    r, _ = routers
    system = snmp.walk(CG_SYSTEM)
    st = r.stats()
    assert system[CG_SYSTEM + ".2.0"] == ("Gauge32", st["fib"]["routes"])
    assert system[CG_SYSTEM + ".3.0"] == ("Gauge32", st["fib"]["nexthops"])
    fpm = snmp.walk(CG_FPM)
    # The FPM server listens by default (routing/fpm); no zebra here: listening(2),
    # as RESTCONF says too.
    assert fpm[CG_FPM + ".1.0"] == ("INTEGER", 2), fpm
    st = rc.state(r)["fpm"]
    assert st["state"] == "listening"
    assert len(fpm) == 10
    # The replay: stale routes (Gauge32) and settled (TruthValue), as RESTCONF says.
    assert fpm[CG_FPM + ".9.0"] == ("Gauge32", int(st["stale-routes"])), fpm
    assert fpm[CG_FPM + ".10.0"] == ("INTEGER", 1 if st["settled"] else 2), fpm
    ports = snmp.walk(CG_PORT)
    names = {v[1] for k, v in ports.items() if k.startswith(CG_PORT + ".2.")}
    assert names == {"eth0", "eth1", "atm0", "atm0.100", "atm0.200", "atm0.300"}, names
    netdev = {"eth0": "r-h1", "eth1": "r-h2"}
    for name in names:
        assert ports[CG_PORT + ".2.%d" % ifindex(netdev.get(name, name))][1] == name
    assert ports[CG_PORT + ".3.%d" % ifindex("atm0")][1] == 2  # atm
    assert ports[CG_PORT + ".3.%d" % ifindex("atm0.200")][1] == 3  # atmSubinterface
    drops = snmp.walk(CG_PORT_DROP)
    assert len(drops) == 6 * 34 * 2  # ports x CgPortDropCause values x (reason name, count)
    assert drops[CG_PORT_DROP + ".2.%d.11" % ifindex("r-h1")][1] == "no-route"
    atm = snmp.walk(CG_ATM_PORT)
    assert len(atm) == 17 and atm[CG_ATM_PORT + ".5.%d" % ifindex("atm0")][1] > 0
    vcs = snmp.walk(CG_VC)
    assert len(vcs) == 22 * 3
    assert vcs[CG_VC + ".3" + vc_idx(ifindex, 200)][1] == ifindex("atm0.200")
    assert all(t == "Counter64" for k, (t, _) in vcs.items()
               if int(k[len(CG_VC) + 1:].split(".")[0]) in range(6, 24))
    vc_drops = snmp.walk(CG_VC_DROP)
    # VCs x CgVcDropCause values x (name, count): 17 causes, short, bridged-not-for-us and
    # oam-location the last three; the state lists the same reasons.
    reasons = len(rc.state(r)["vc"][0]["discard"])
    assert reasons == 17, reasons
    assert len(vc_drops) == 3 * 17 * 2, len(vc_drops)
    assert vc_drops[CG_VC_DROP + ".2" + vc_idx(ifindex, 100) + ".1"][1] == "crc"
    # InATMARP: VC 0/200 learns 10.2.0.2 (interval 1 s)
    row = vc_idx(ifindex, 200)
    arp = lab.wait_for(lambda: (lambda w: w if CG_INATMARP + ".1" + row in w else None)(
        snmp.walk(CG_INATMARP)), timeout=10, interval=0.5)
    assert arp, "no InATMARP entry for VC 0/200"
    assert arp[CG_INATMARP + ".1" + row] == ("IpAddress", "10.2.0.2"), arp
    assert arp[CG_INATMARP + ".2" + row] == ("INTEGER", 2)  # learned
    assert len(arp) == 3  # only 0/200 has a far end


def test_names_resolve_with_cellgate_mib(routers, snmp, ifindex):
    """snmpget by name, with CELLGATE-MIB (and the SMI stand-ins) on the MIB path."""
    mibdirs = ":".join(["/usr/share/snmp/mibs", os.path.join(ROOT, "tests/snmp/base-mibs"),
                        os.path.join(ROOT, "mibs")])
    p = snmp.topo.exec("r", ["snmpget", "-v2c", "-c", COMMUNITY, "-M", mibdirs, "-m",
                             "CELLGATE-MIB", "127.0.0.1:%d" % SNMPD_PORT,
                             "CELLGATE-MIB::cgVcOperStatus" + vc_idx(ifindex, 100),
                             "CELLGATE-MIB::cgPortName.%d" % ifindex("atm0")],
                       timeout=30)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "cgVcOperStatus" in p.stdout and "up(1)" in p.stdout, p.stdout
    assert 'cgPortName.%d = STRING: atm0' % ifindex("atm0") in p.stdout, p.stdout


def _vc(snmp, ifindex, vci, cols):
    row = vc_idx(ifindex, vci)
    vals = snmp.get(*[CG_VC + ".%d" % c + row for c in cols] +
                    [ATM_VCL_STAT + ".5" + row, AAL5_VCL_STAT + ".2" + row,
                     AAL5_VCL_STAT + ".4" + row])
    return dict(zip(list(cols) + ["c32_cells_out", "c32_pdus_out", "c32_octets_out"],
                    [v for _, v in vals]))


@pytest.mark.parametrize("size,count", [(100, 10), (1000, 5)])
def test_counters_move_exactly_with_pings(topo, routers, snmp, ifindex,  # noqa: F811
                                          size, count):
    """N pings h1 -> h4 over VC 0/100: N SDUs each way of sdu_len(size)
    octets, cells_of(sdu) cells each; OAM cells on the same VC counted apart."""
    cols = (VC_CELLS_IN, VC_CLP0_IN, VC_CELLS_OUT, VC_CLP0_OUT, VC_PDUS_IN, VC_PDUS_OUT,
            VC_OCTETS_IN, VC_OCTETS_OUT, VC_OAM_IN, VC_OAM_OUT)
    assert wait_ping(topo, "h1", "10.0.4.2")
    before = _vc(snmp, ifindex, 100, cols)
    got, p = ping(topo, "h1", "10.0.4.2", count=count, size=size, interval="0.05")
    assert got == count, p.stdout
    after = _vc(snmp, ifindex, 100, cols)
    d = {k: after[k] - before[k] for k in before}
    sdu, cells = sdu_len(size), cells_of(sdu_len(size))
    print("%d pings of %d data bytes over VC 0/100: SDU %d octets = %d cells each way; "
          "deltas: pdus out/in %d/%d, octets out/in %d/%d, cells out/in %d/%d "
          "(OAM cells out/in %d/%d)" %
          (count, size, sdu, cells, d[VC_PDUS_OUT], d[VC_PDUS_IN], d[VC_OCTETS_OUT],
           d[VC_OCTETS_IN], d[VC_CELLS_OUT], d[VC_CELLS_IN], d[VC_OAM_OUT], d[VC_OAM_IN]))
    assert d[VC_PDUS_OUT] == count and d[VC_PDUS_IN] == count, d
    assert d[VC_OCTETS_OUT] == count * sdu and d[VC_OCTETS_IN] == count * sdu, d
    assert d[VC_CELLS_OUT] - d[VC_OAM_OUT] == count * cells, d
    assert d[VC_CELLS_IN] - d[VC_OAM_IN] == count * cells, d
    assert d[VC_CLP0_OUT] == d[VC_CELLS_OUT] and d[VC_CLP0_IN] == d[VC_CELLS_IN], d
    # ATM2-MIB's Counter32 objects move with the Counter64 ones.
    assert (d["c32_cells_out"] % 2**32) == d[VC_CELLS_OUT], d
    assert d["c32_pdus_out"] == count and d["c32_octets_out"] == count * sdu, d


def test_snmp_and_stats_dump_agree(topo, routers, snmp, ifindex):  # noqa: F811
    """One snapshot API: with the VC idle, SNMP and stats.json give the same counts."""
    r, _ = routers
    row = vc_idx(ifindex, 300)  # no OAM on 0/300: nothing moves while idle
    st = atmlab.vc_of(r.stats(), "atm0", 0, 300)
    vals = [v for _, v in snmp.get(*[CG_VC + ".%d" % c + row for c in
                                     (VC_CELLS_IN, VC_CELLS_OUT, VC_PDUS_IN, VC_PDUS_OUT,
                                      VC_OCTETS_IN, VC_OCTETS_OUT, 15)])]
    assert vals == [st["cells-in"], st["cells-out"], st["pdus-in"], st["pdus-out"],
                    st["octets-in"], st["octets-out"], st["discards-total"]], (vals, st)
    eth0 = lab.port_of(r, "eth0")
    port = [v for _, v in snmp.get(CG_PORT + ".4.%d" % ifindex("r-h1"),
                                   CG_PORT + ".15.%d" % ifindex("r-h1"))]
    # h1 is quiet between pings; the stats dump is taken first.
    assert port[0] >= eth0["rx-packets"] and port[1] == eth0["drops-total"], (port, eth0)


def test_oam_down_shows_and_notifies(topo, routers, snmp, ifindex):  # noqa: F811
    """Far end silent: VC 0/100 goes down by OAM; the tables say so and
    snmptrapd receives cgVcOperDown, then cgVcOperUp when it answers again."""
    r, a1 = routers
    snmp.start_trapd()
    row = vc_idx(ifindex, 100)
    oper = [ATM_VCL + ".4" + row, CG_VC + ".4" + row]
    assert [v for _, v in snmp.get(*oper)] == [1, 1]
    a1.proc.send_signal(signal.SIGSTOP)
    try:
        down = lab.wait_for(lambda: [v for _, v in snmp.get(*oper)] == [2, 2],
                            timeout=10, interval=0.2)
        vals = snmp.get(ATM_VCL + ".5" + row, CG_VC + ".5" + row, SYS_UPTIME)
    finally:
        a1.proc.send_signal(signal.SIGCONT)
    assert down, "VC 0/100 never read down over SNMP"
    last, cg_last, uptime = [v for _, v in vals]
    assert last == cg_last and 0 < last <= uptime and uptime - last < 1000, vals
    trap = lab.wait_for(lambda: CG + ".0.1" in snmp.traps(), timeout=5)
    assert trap, "no cgVcOperDown at snmptrapd:\n" + snmp.traps()
    t = snmp.traps()
    assert re.search(re.escape(CG_VC + ".4" + row) + r" = INTEGER: 2", t), t
    assert re.search(re.escape(CG_VC + ".3" + row) + r" = INTEGER: %d" %
                     ifindex("atm0.100"), t), t
    up = lab.wait_for(lambda: CG + ".0.2" in snmp.traps(), timeout=10, interval=0.2)
    assert up, "no cgVcOperUp after the far end came back:\n" + snmp.traps()
    assert [v for _, v in snmp.get(*oper)] == [1, 1]
    assert "cgVcOperDown sent" in r.log() and "cgVcOperUp sent" in r.log()


def test_snmpd_restart_subagent_returns(routers, snmp):
    """snmpd restarted: the subagent registers again within its ping interval."""
    r, _ = routers
    snmp.stop_snmpd()
    # RESTCONF's view of the session follows (net-snmp notices at its next ping).
    assert lab.wait_for(lambda: snmp_session(r) == "connecting", timeout=PING_INTERVAL + 5,
                        interval=0.2), snmp_session(r)
    t0 = snmp.start_snmpd()
    ok = lab.wait_for(snmp.answers, timeout=PING_INTERVAL + 5, interval=0.1)
    took = time.monotonic() - t0
    assert ok, "subagent not back after snmpd restarted:\n" + r.log()[-2000:]
    assert took <= PING_INTERVAL + 1.5, "back %.1f s after snmpd restarted" % took
    assert r.alive()


FEED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fpmfeed.py")


def test_hung_snmpd_blocks_nothing(topo, routers, snmp):  # noqa: F811
    """snmpd SIGSTOPped (it keeps its socket, accepts connections and never
    answers) for three ping intervals: forwarding, RESTCONF and FPM go on as
    before, the subagent drops the session, and is back once snmpd runs."""
    r, _ = routers
    assert lab.wait_for(snmp.answers, timeout=PING_INTERVAL + 5, interval=0.2)
    assert wait_ping(topo, "h1", "10.0.4.2")
    pinger = topo.popen("h1", ["ping", "-n", "-q", "-c", "40", "-i", "0.2", "-W", "1",
                               "10.0.4.2"], stdout=subprocess.PIPE, text=True)
    feed = None
    snmp.snmpd.send_signal(signal.SIGSTOP)
    try:
        slowest, t_end, t_routes = 0.0, time.monotonic() + 3 * PING_INTERVAL + 1, None
        while time.monotonic() < t_end:
            t0 = time.monotonic()
            fpm_state = rc.state(r)["fpm"]
            slowest = max(slowest, time.monotonic() - t0)
            if feed is None and time.monotonic() > t_end - 2 * PING_INTERVAL:
                # zebra's part, played by fpmfeed: routes arrive and are applied now.
                feed = topo.popen("r", [lab.PYTHON, FEED, "127.0.0.1", "2620", "routes4", "50"],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
                t_feed = time.monotonic()
            elif feed and t_routes is None and int(fpm_state["routes-ipv4"]) >= 50:
                t_routes = time.monotonic() - t_feed
            time.sleep(0.05)
        print("snmpd stopped: slowest RESTCONF GET of the state %.3f s; 50 FPM routes in "
              "%s s" % (slowest, "%.2f" % t_routes if t_routes is not None else "-"))
        assert slowest < 0.5, slowest
        assert t_routes is not None and t_routes < 1.0, t_routes
        assert snmp_session(r) == "connecting", "the hung master's session was kept"
        assert "does not answer" in r.log()
        out, _ = pinger.communicate(timeout=30)
        assert " 40 received" in out, out
    finally:
        snmp.snmpd.send_signal(signal.SIGCONT)
        if feed:
            feed.communicate(input="", timeout=10)
        if pinger.poll() is None:
            pinger.kill()
    ok = lab.wait_for(snmp.answers, timeout=2 * PING_INTERVAL + 5, interval=0.2)
    assert ok, "subagent not back after snmpd resumed:\n" + r.log()[-2000:]
    assert snmp_session(r) == "connected"


def test_read_only_and_bad_requests(routers, snmp, ifindex):
    """Writes are refused; odd instances answer noSuch*; the daemon stays up."""
    r, _ = routers
    row = vc_idx(ifindex, 100)
    p = snmp._tool("snmpset", [ATM_VCL + ".3" + row, "i", "2"], community="private",
                   check=False)
    assert p.returncode != 0 and re.search(r"notWritable|noAccess|noCreation",
                                           p.stdout + p.stderr), p.stdout + p.stderr
    res = snmp.get(ATM_VCL + ".4.%d.0.100.7" % ifindex("atm0"),  # index too long
                   ATM_VCL + ".4.4294967295.0.100",              # no such ifIndex
                   ATM_VCL + ".99" + row,                        # no such column
                   CG_SYSTEM + ".2.1",                           # scalar without .0
                   check=False)
    assert [t for t, _ in res] == [None] * 4, res
    p = snmp._tool("snmpgetnext", [ATM_VCL + ".4.4294967295", CG + ".1.8.1.3.4294967295",
                                   CG + ".1.1"], check=False)
    assert p.returncode == 0, p.stdout + p.stderr
    assert r.alive() and snmp.answers()


def test_v3_authpriv_user_of_the_snippet(routers, snmp, ifindex):
    """etc/cellgate-snmpd.conf's SNMPv3 user reads cellgated's tables with
    authPriv (SHA-256, AES); a wrong privacy secret gets nothing."""
    def get(priv):
        return snmp.topo.exec("r", ["snmpget", "-v3", "-u", "nms", "-l", "authPriv",
                                    "-a", "SHA-256", "-A", "change-this-auth-secret",
                                    "-x", "AES", "-X", priv, "-On", "-t", "1", "-r", "0",
                                    "127.0.0.1:%d" % SNMPD_PORT,
                                    CG_PORT + ".2.%d" % ifindex("atm0"),
                                    ATM_VCL + ".8" + vc_idx(ifindex, 100)], timeout=30)
    p = get("change-this-priv-secret")
    assert p.returncode == 0, p.stdout + p.stderr
    assert 'STRING: "atm0"' in p.stdout and "INTEGER: 3" in p.stdout, p.stdout
    p = get("not-the-priv-secret")
    assert p.returncode != 0 and "atm0" not in p.stdout, p.stdout
