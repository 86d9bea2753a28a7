# SPDX-License-Identifier: BSD-2-Clause
"""IPv6 in management (issue 16 item 7): RESTCONF state, /metrics and
cellgatectl over the IPv6 lab of test_ipv6.py (h1 - r - h2, addresses on
both ports, two static IPv6 routes, neighbours resolved by cellgated).

What a reader learns here: the port's IPv6 addresses are in
/cellgate/state/port/ipv6-address; the IPv6 routes are a list of their own
(fib/route6), streamed in slices like the IPv4 list and spliced into a GET
of the whole state; the IPv6 neighbours (neighbor6) carry their RFC 4861
state and the MAC the host really has; the neighbour discovery counters
(nd) and the IPv6 route counts (fib/ipv6) are the numbers of the daemon's
own stats dump; /metrics has them as cellgate_nd_* and cellgate_fib_ipv6_*,
IPv6 drops as reasons ip6-* of cellgate_port_drop_packets_total.
"""

import ipaddress
import json
import shutil
import subprocess

import pytest

import lab
import restconf as rc
from conftest import start_router
from test_cellgatectl import run as cellgatectl
from test_ipv6 import v6_config
from test_snmp import CG, Snmp



MANY = 6000  # extra static IPv6 blackhole routes


@pytest.fixture(scope="module")
def topo_options():
    return {"hosts": ("h1", "h2"), "ipv6": True}


@pytest.fixture(scope="module")
def snmp(request, topo):
    """snmpd (master agentx) in the router's namespace, as test_snmp.py runs it."""
    s = Snmp(topo)

    def fin():
        s.stop()
        shutil.rmtree(s.dir, ignore_errors=True)
    request.addfinalizer(fin)
    s.start_snmpd()
    return s


@pytest.fixture(scope="module")
def router(request, topo, cellgated_bin, snmp):
    # As in test_ipv6: the kernel must not answer transit IPv6 itself.
    topo.exec("r", ["ip", "-6", "route", "add", "blackhole", "default",
                    "metric", "4294967295"], check=True)
    cfg = v6_config()
    # Enough IPv6 routes that the route6 list takes several slices (4096
    # routes a turn of the event loop at most, asked 256 at a time).
    cfg["cellgate:cellgate"]["routing"]["static-route6"] += [
        {"prefix": "2001:db8:f000:%x::/64" % i, "action": "blackhole"}
        for i in range(MANY)]
    cfg["cellgate:cellgate"]["snmp"] = {"agentx-socket": snmp.socket, "ping-interval": 2}
    d = start_router(request, topo, cellgated_bin, config=cfg)
    # Traffic both ways: cellgated resolves h1 and h2 (host routes of source
    # neighbor), and one packet is dropped by the blackhole route.
    for src, dst in (("h1", "2001:db8:2::2"), ("h2", "2001:db8:1::2"),
                     ("h1", "2001:db8:66::1")):
        topo.exec(src, ["ping", "-6", "-n", "-c", "2", "-i", "0.2", "-W", "1", dst],
                  timeout=20)
    return d


def canon(a):
    """An IPv6 address or prefix in RFC 5952 form (what libyang prints)."""
    return str(ipaddress.ip_interface(a)) if "/" in a else str(ipaddress.ip_address(a))


def kernel_neighbours(topo, ns):
    """{address: lladdr} of `ip -6 neigh` in namespace ns (entries with one)."""
    p = topo.exec(ns, ["ip", "-6", "-j", "neigh", "show"], check=True)
    return {canon(n["dst"]): n["lladdr"].lower() for n in json.loads(p.stdout or "[]")
            if "lladdr" in n}


def test_port_ipv6_addresses(router):
    cfg = {p["name"]: p for p in v6_config()["cellgate:cellgate"]["port"]}
    for name in ("eth0", "eth1"):
        st = rc.port_state(router, name)
        want = [{"ip": canon(a["ip"]), "prefix-length": a["prefix-length"]}
                for a in cfg[name]["ipv6"]["address"]]
        assert st["ipv6-address"] == want, st.get("ipv6-address")


def test_route6_list_matches_stats(router):
    """Every installed IPv6 route once, and as many as the FIB6 holds (the
    stats dump counts them in the FIB6 itself, RESTCONF in the RIB6)."""
    r = rc.get(router, "/cellgate:cellgate/state/fib/route6")
    assert r.status == 200, r
    assert r.headers.get("transfer-encoding") == "chunked", r.headers
    routes = r.json()["cellgate:route6"]
    prefixes = [x["prefix"] for x in routes]
    assert len(prefixes) == len(set(prefixes)), prefixes
    s = router.stats()
    assert len(routes) == s["fib6"]["routes"], (prefixes, s["fib6"])
    by = {}
    for x in routes:
        by[x["source"]] = by.get(x["source"], 0) + 1
    # Installed per source: as many as the stats dump counts (no prefix
    # is given by two sources in this configuration).
    for src, n in s["fib6"]["by-source"].items():
        assert by.get(src, 0) == n, (src, by, s["fib6"]["by-source"])
    assert by["static"] == 2 + MANY, by
    idx = {x["prefix"]: x for x in routes}
    assert idx["2001:db8:f000:%x::/64" % (MANY - 1)]["type"] == "blackhole"
    st = idx["2001:db8:20::/48"]
    assert st["source"] == "static" and st["type"] == "gateway", st
    assert st["nexthop"] == [{"address": "2001:db8:2::2", "interface": "eth1",
                              "weight": 1}], st
    assert idx["2001:db8:66::/48"]["type"] == "blackhole"
    conn = idx["2001:db8:1::/64"]
    assert conn["source"] == "connected" and conn["type"] == "connected", conn
    assert conn["nexthop"] == [{"interface": "eth0", "weight": 1}], conn
    assert idx["2001:db8:1::1/128"]["type"] == "local"
    host = idx["2001:db8:2::2/128"]
    assert host["source"] == "neighbor" and host["type"] == "gateway", host


def test_route6_spliced_into_state(router):
    """A GET of the whole state streams both route lists into one document
    libyang's yanglint accepts, with the placeholders replaced."""
    r = rc.get(router, "/cellgate:cellgate/state")
    assert r.status == 200, r
    assert "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff" not in r.body
    assert "255.255.255.255/32" not in r.body
    st = r.json()["cellgate:state"]
    alone = rc.get(router, "/cellgate:cellgate/state/fib/route6").json()["cellgate:route6"]
    assert sorted(x["prefix"] for x in st["fib"]["route6"]) == \
        sorted(x["prefix"] for x in alone)
    assert st["fib"]["route"], "the IPv4 list is still there"
    x = rc.get(router, "/cellgate:cellgate/state/fib",
               ctype="application/yang-data+xml")
    assert x.status == 200
    d = rc.request(router, "GET", "/restconf/data/cellgate:cellgate/state/fib?depth=2")
    assert d.status == 200, d
    assert all(set(e) == {"prefix"} for e in d.json()["cellgate:fib"]["route6"]), d.body[:400]


def key6(prefix):
    n = ipaddress.ip_network(prefix)
    return (n.network_address.packed, n.prefixlen)


def route6_page(router, query):
    r = rc.get(router, "/cellgate:cellgate/state/fib/route6?" + query)
    assert r.status == 200, (query, r.body[:400])
    return [x["prefix"] for x in r.json()["cellgate:route6"]], r.headers


def test_route6_list_in_prefix_order(router):
    """The route6 list comes in the IPv4 list's order: by address, then by
    length (2001:db8:1::/64 before its 2001:db8:1::1/128)."""
    r = rc.get(router, "/cellgate:cellgate/state/fib/route6")
    prefixes = [x["prefix"] for x in r.json()["cellgate:route6"]]
    assert prefixes == sorted(prefixes, key=key6), prefixes[:20]
    assert prefixes.index("2001:db8:1::/64") < prefixes.index("2001:db8:1::1/128")


def test_route6_one_entry(router):
    """A GET of one route6 entry by its key, as route=KEY for IPv4."""
    r = rc.get(router, "/cellgate:cellgate/state/fib/route6=2001%3Adb8%3A20%3A%3A%2F48")
    assert r.status == 200, r.body[:400]
    (e,) = r.json()["cellgate:route6"]
    assert e["prefix"] == "2001:db8:20::/48" and e["source"] == "static", e
    assert e["nexthop"] == [{"address": "2001:db8:2::2", "interface": "eth1", "weight": 1}]
    r = rc.get(router, "/cellgate:cellgate/state/fib/route6=2001%3Adb8%3A20%3A%3A%2F48/source")
    assert r.status == 200 and r.json() == {"cellgate:source": "static"}, r.body[:400]
    r = rc.get(router, "/cellgate:cellgate/state/fib/route6=2001%3Adb8%3A77%3A%3A%2F48")
    assert r.status == 404, r


def test_route6_paging(router):
    """limit, cursor and offset as on the IPv4 list: pages that follow
    each other make the whole list, each saying how many remain and where
    the next one starts (Cellgate-Next-Cursor, an IPv6 prefix)."""
    whole = [x["prefix"] for x in rc.get(
        router, "/cellgate:cellgate/state/fib/route6").json()["cellgate:route6"]]
    got, cursor = [], None
    while True:
        page, h = route6_page(router, "limit=1000" + ("&cursor=" + cursor if cursor else ""))
        got += page
        assert int(h["cellgate-remaining"]) == len(whole) - len(got), h
        cursor = h.get("cellgate-next-cursor")
        if not cursor:
            break
        assert cursor == whole[len(got)], (cursor, whole[len(got)])
    assert got == whole
    page, h = route6_page(router, "offset=10&limit=5")
    assert page == whole[10:15] and h["cellgate-next-cursor"] == whole[15], h


def test_route6_prefix_and_longer(router):
    """prefix=P: P alone; prefix=P&longer: P and everything more specific,
    in order; an IPv4 prefix on the route6 list (or IPv6 on route) is refused."""
    page, _ = route6_page(router, "prefix=2001:db8:20::/48")
    assert page == ["2001:db8:20::/48"], page
    page, h = route6_page(router, "prefix=2001:db8:f000::/48&longer")
    assert page == [canon("2001:db8:f000:%x::/64" % i) for i in range(MANY)], page[:5]
    assert h["cellgate-remaining"] == "0" and "cellgate-next-cursor" not in h, h
    page, h = route6_page(router, "prefix=2001:db8:f000::/48&longer&offset=%d" % (MANY - 2))
    assert page == [canon("2001:db8:f000:%x::/64" % i) for i in (MANY - 2, MANY - 1)], page
    r = rc.get(router, "/cellgate:cellgate/state/fib/route6?prefix=2001:db8:77::/48")
    assert r.status == 404, r
    r = rc.get(router, "/cellgate:cellgate/state/fib/route6?cursor=10.0.0.0/8")
    assert r.status == 400 and "IPv6 prefixes" in r.error()["error-message"], r.body
    r = rc.get(router, "/cellgate:cellgate/state/fib/route?prefix=2001:db8::/32")
    assert r.status == 400 and "IPv4 prefixes" in r.error()["error-message"], r.body


def test_fib_ipv6_counts(router):
    s = router.stats()
    f = rc.get(router, "/cellgate:cellgate/state/fib/ipv6").json()["cellgate:ipv6"]
    assert int(f["routes"]) == s["fib6"]["routes"]
    assert int(f["errors"]) == s["fib6"]["errors"] == 0
    src = {x["name"]: int(x["routes"]) for x in f["source"]}
    for name, n in s["fib6"]["by-source"].items():
        assert src[name] == n, (name, src, s["fib6"]["by-source"])


def test_neighbor6_state_and_mac(topo, router):
    """The hosts cellgated resolved, reachable, with the MAC each host's
    interface really has; where the router's kernel knows the neighbour
    too, both agree on the MAC."""
    r = rc.get(router, "/cellgate:cellgate/state/neighbor6")
    assert r.status == 200, r
    ns = {(n["interface"], n["address"]): n for n in r.json()["cellgate:neighbor6"]}
    s = router.stats()
    assert len(ns) == len(s["neighbors6"]) == s["nd"]["entries"]
    for e in s["neighbors6"]:
        n = ns[(e["port"], canon(e["address"]))]
        assert n["state"] == e["state"], (n, e)
    kernel = kernel_neighbours(topo, "r")
    compared = 0
    for (port, addr), host, ifn in (("eth1", "2001:db8:2::2"), "h2", "h2-r"), \
                                   (("eth0", "2001:db8:1::2"), "h1", "h1-r"):
        n = ns[(port, addr)]
        # RFC 4861 7.3.3: the MAC is in use in all of these.
        assert n["state"] in ("reachable", "stale", "delay", "probe"), n
        assert n["mac"] == topo.mac(host, ifn).lower(), n
        if addr in kernel:
            assert kernel[addr] == n["mac"], (kernel, n)
            compared += 1
    # The kernel learns h1 from its solicitations for the router's address.
    assert compared, kernel


def test_nd_counters_match_stats(router):
    nd = rc.get(router, "/cellgate:cellgate/state/nd").json()["cellgate:nd"]
    s = router.stats()["nd"]
    assert int(nd["solicitations-sent"]) == s["requests-sent"] >= 2
    assert int(nd["advertisements-learned"]) >= s["replies-learned"] >= 2
    assert int(nd["entries"]) == s["entries"]
    for k in ("resolve-failed", "send-errors", "table-full"):
        assert int(nd[k]) == s[k], k


def test_port_ipv6_counters(topo, router):
    """The per-port IPv6 counters follow the accounting rule of IPv6 alone,
    count what h1 sent through, and are the stats dump's numbers."""
    s0 = rc.port_state(router, "eth0")
    e10 = rc.port_state(router, "eth1")
    p = topo.exec("h1", ["ping", "-6", "-n", "-c", "5", "-i", "0.2", "-s", "100",
                         "-W", "1", "2001:db8:2::2"], timeout=20)
    assert p.returncode == 0, p.stdout + p.stderr
    s1 = rc.port_state(router, "eth0")
    e11 = rc.port_state(router, "eth1")
    d = {k: int(s1[k]) - int(s0[k]) for k in s1 if k.startswith("ipv6-") and k != "ipv6-address"}
    # 5 echo requests in (148-byte datagrams: 40 + 8 + 100), forwarded to eth1;
    # eth1 sends them, and forwards the 5 replies back out of eth0.
    assert d["ipv6-forwarded"] >= 5 and d["ipv6-in-packets"] >= 5, d
    assert d["ipv6-in-octets"] >= 5 * 148, d
    assert int(e11["ipv6-out-packets"]) - int(e10["ipv6-out-packets"]) >= 5
    assert int(e11["ipv6-out-octets"]) - int(e10["ipv6-out-octets"]) >= 5 * 148
    assert d["ipv6-out-packets"] >= 5, d
    st = router.stats()
    for name in ("eth0", "eth1"):
        c = rc.port_state(router, name)
        js = lab.port_of(router, name, st)
        assert int(c["ipv6-in-packets"]) == int(c["ipv6-forwarded"]) + \
            int(c["ipv6-to-kernel"]) + int(c["ipv6-discards"]), c
        assert int(c["ipv6-in-packets"]) <= int(c["rx-packets"])
        assert js["ipv6-in-packets"] == js["ipv6-forwarded"] + js["ipv6-to-kernel"] + \
            js["ipv6-discards"], js
        for k in ("ipv6-in-packets", "ipv6-forwarded", "ipv6-discards"):
            assert js[k] <= int(c[k]), (k, js[k], c[k])  # the dump came first
    # The blackhole pings of the fixture are IPv6 discards of eth0.
    assert int(rc.port_state(router, "eth0")["ipv6-discards"]) >= 2


def test_metrics_ipv6(router):
    m = rc.request(router, "GET", "/metrics")
    assert m.status == 200
    samples = rc.parse_metrics(m.body)
    s = router.stats()
    assert rc.metric(samples, "cellgate_fib_ipv6_routes") == s["fib6"]["routes"]
    assert rc.metric(samples, "cellgate_fib_ipv6_source_routes", source="static") == \
        s["fib6"]["by-source"]["static"]
    assert rc.metric(samples, "cellgate_nd_entries") == s["nd"]["entries"]
    assert rc.metric(samples, "cellgate_nd_solicitations_sent_total") >= 2
    assert rc.metric(samples, "cellgate_port_drop_packets_total", port="eth0",
                     reason="blackhole") >= 2
    assert rc.metric(samples, "cellgate_port_ipv6_forwarded_total", port="eth0") >= 5
    assert rc.metric(samples, "cellgate_port_ipv6_in_octets_total", port="eth0") > 0
    assert rc.metric(samples, "cellgate_port_ipv6_discards_total", port="eth0") >= 2
    assert ("cellgate_port_drop_packets_total",
            frozenset([("port", "eth0"), ("reason", "ip6-hop-limit")])) in samples
    for name, _ in samples:
        assert "route6" not in name and "neighbor6" not in name and "ipv6_address" not in name
    assert shutil.which("promtool"), "promtool missing: tests/deps.sh installs prometheus"
    p = subprocess.run(["promtool", "check", "metrics"], input=m.body, capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 0 and not (p.stdout + p.stderr).strip(), p.stdout + p.stderr


def test_cellgatectl_show_ipv6_routes(router):
    """One row per route6 entry, sorted by address then length, with the
    source, type and next hops RESTCONF gives."""
    code, out, err = cellgatectl(rc.sock(router), "show", "ipv6", "routes")
    assert code == 0, err
    rows = [ln.split(None, 3) for ln in out.splitlines()[1:]]
    api = {x["prefix"]: x for x in
           rc.get(router, "/cellgate:cellgate/state/fib/route6").json()["cellgate:route6"]}
    assert sorted(r[0] for r in rows) == sorted(api), (out, sorted(api))
    keys = [(ipaddress.ip_network(r[0]).network_address.packed,
             ipaddress.ip_network(r[0]).prefixlen) for r in rows]
    assert keys == sorted(keys), out
    for r in rows:
        assert r[1] == api[r[0]]["source"] and r[2] == api[r[0]]["type"], r
    static = [r for r in rows if r[0] == "2001:db8:20::/48"][0]
    assert static[3] == "2001:db8:2::2 via eth1", static


def test_cellgatectl_show_ipv6_routes_longer_limit_cursor(router):
    """show ipv6 routes P longer --limit N: the first N of P's routes and
    where to go on (--cursor), as show routes does for IPv4."""
    s = rc.sock(router)
    code, out, err = cellgatectl(s, "show", "ipv6", "routes", "2001:db8:f000::/48", "longer",
                                 "--limit", "2")
    lines = out.splitlines()
    assert code == 0, err
    assert [ln.split()[0] for ln in lines[1:3]] == ["2001:db8:f000::/64",
                                                   "2001:db8:f000:1::/64"], out
    assert lines[3].startswith("(%d more; continue with --cursor " % (MANY - 2)), out
    cursor = lines[3].split("--cursor ")[1].rstrip(")")
    code, out, err = cellgatectl(s, "show", "ipv6", "routes", "2001:db8:f000::/48", "longer",
                                 "--limit", "2", "--cursor", cursor)
    assert [ln.split()[0] for ln in out.splitlines()[1:3]] == ["2001:db8:f000:2::/64",
                                                              "2001:db8:f000:3::/64"], out
    code, out, err = cellgatectl(s, "show", "ipv6", "routes", "2001:db8:20::/48")
    assert code == 0 and out.splitlines()[1].split()[:2] == ["2001:db8:20::/48", "static"], out


def test_cellgatectl_show_ipv6_neighbors(topo, router):
    code, out, err = cellgatectl(rc.sock(router), "show", "ipv6", "neighbors")
    assert code == 0, err
    rows = {(f[0], f[1]): f for f in (ln.split() for ln in out.splitlines()[1:])}
    assert rows[("eth1", "2001:db8:2::2")][3] == topo.mac("h2", "h2-r").lower(), out
    assert rows[("eth0", "2001:db8:1::2")][3] == topo.mac("h1", "h1-r").lower(), out
    assert len(rows) == router.stats()["nd"]["entries"], out
    code, out, err = cellgatectl(rc.sock(router), "show", "counters")
    assert code == 0 and "  IPv6: in " in out, out


# cgPortIpv6Entry columns (mibs/CELLGATE-MIB.txt), AUGMENTS cgPortEntry: by ifIndex.
CG_PORT6 = CG + ".1.9.1"
PORT6_COLS = ("ipv6-in-packets", "ipv6-in-octets", "ipv6-forwarded", "ipv6-to-kernel",
              "ipv6-discards", "ipv6-out-packets", "ipv6-out-octets", "ipv6-icmp-out")


def test_snmp_port_ipv6_table(topo, router, snmp):
    """cgPortIpv6Table through snmpd: a row per port, by its netdev's
    ifIndex, each column the RESTCONF counter of the same name (read
    around the walk: counters only grow), the IPv6 accounting rule."""
    assert lab.wait_for(snmp.answers, timeout=10, interval=0.2), snmp.log()[-2000:]
    # The table is the agent's last: a walk ends in endOfMibView, which the
    # tools print over the last instance's value; its rows, then a GET.
    walk = snmp.walk(CG_PORT6)
    before = {n: rc.port_state(router, n) for n in ("eth0", "eth1")}
    oids = ["%s.%d.%d" % (CG_PORT6, col, before[n]["ifindex"])
            for n in ("eth0", "eth1") for col in range(1, len(PORT6_COLS) + 1)]
    got = dict(zip(oids, snmp.get(*oids)))
    after = {n: rc.port_state(router, n) for n in ("eth0", "eth1")}
    assert sorted(walk) == sorted(oids), sorted(walk)
    for name in ("eth0", "eth1"):
        idx = after[name]["ifindex"]
        row = {}
        for col, leaf in enumerate(PORT6_COLS, 1):
            typ, val = got["%s.%d.%d" % (CG_PORT6, col, idx)]
            assert typ == "Counter64", (col, typ, got)
            assert int(before[name][leaf]) <= val <= int(after[name][leaf]), (name, leaf, val)
            row[leaf] = val
        assert row["ipv6-forwarded"] >= 4, row  # the fixture's pings, at least
        assert row["ipv6-in-packets"] == row["ipv6-forwarded"] + row["ipv6-to-kernel"] + \
            row["ipv6-discards"], row
