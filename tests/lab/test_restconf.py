# SPDX-License-Identifier: BSD-2-Clause
"""RESTCONF (RFC 8040) and /metrics against a running cellgated, with curl
over its UNIX socket: GET of config and state, every write method, every
kind of bad request, concurrent writers, and Prometheus numbers that agree
with RESTCONF's. The router is the lab's (h1 - r - h2, h3)."""

import json
import os
import shutil
import stat
import subprocess
import threading
import xml.etree.ElementTree as ET

import pytest

import lab
import restconf as rc

R = "/cellgate:cellgate"
ROUTES = R + "/routing"


def warm(topo, router):
    """Resolve h2 first: packets that wait for ARP are held, a full hold queue drops."""
    topo.exec("h1", ["ping", "-c", "1", "-W", "2", "10.0.2.2"])
    assert lab.wait_for(lambda: any(n["address"] == "10.0.2.2" and n["state"] == "reachable"
                                    for n in rc.state(router).get("neighbor", [])), 5)


def route_uri(prefix):
    return ROUTES + "/static-route=" + prefix.replace("/", "%2F")


def startup(router):
    with open(router.cfg) as f:
        return json.load(f)


def startup_routes(router):
    return {r["prefix"]: r for r in
            startup(router)["cellgate:cellgate"]["routing"]["static-route"]}


def fib_route(router, prefix):
    r = rc.get(router, R + "/state/fib/route=" + prefix.replace("/", "%2F"))
    return r.json()["cellgate:route"][0] if r.status == 200 else None


# --- reading -----------------------------------------------------------------

def test_socket_is_0660(router):
    st = os.stat(rc.sock(router))
    assert stat.S_ISSOCK(st.st_mode)
    assert stat.S_IMODE(st.st_mode) == 0o660


def test_get_config_is_the_startup_config(router):
    r = rc.get(router, ROUTES)
    assert r.status == 200 and r.headers["content-type"] == rc.JSON
    got = {x["prefix"] for x in r.json()["cellgate:routing"]["static-route"]}
    assert got == {"10.20.0.0/24", "10.99.0.0/24", "10.66.0.0/16", "10.77.0.0/24"}
    r = rc.get(router, R + "/port=eth1/ipv4")
    assert r.json()["cellgate:ipv4"]["address"] == [{"ip": "10.0.2.1", "prefix-length": 24}]


def test_get_root_wraps_in_ietf_restconf_data(router):
    d = rc.get(router, "").json()
    top = d["ietf-restconf:data"]["cellgate:cellgate"]
    assert "system" in top and "state" in top and top["system"]["workers"] == 1


def test_content_and_depth(router):
    cfg = rc.get(router, "?content=config").json()["ietf-restconf:data"]["cellgate:cellgate"]
    assert "state" not in cfg and "port" in cfg
    st = rc.get(router, "?content=nonconfig").json()["ietf-restconf:data"]["cellgate:cellgate"]
    assert list(st) == ["state"]
    d1 = rc.get(router, R + "/system?depth=1").json()
    assert d1 == {"cellgate:system": {}} or d1 == {}
    d2 = rc.get(router, R + "/port=eth0?depth=2").json()["cellgate:port"][0]
    assert d2["name"] == "eth0" and "netdev" in d2 and "address" not in json.dumps(d2)
    assert rc.get(router, R + "?depth=0").status == 400
    assert rc.get(router, R + "?bogus=1").status == 400
    assert rc.get(router, R + "?fields=a(b)").status == 400


def test_fields(router):
    p = rc.get(router, R + "/state/port=eth0?fields=rx-packets;drop/packets").json()
    p = p["cellgate:port"][0]
    assert set(p) == {"name", "rx-packets", "drop"}
    assert set(p["drop"][0]) == {"reason", "packets"}
    st = rc.get(router, R + "/state?fields=port/name;fib/routes").json()["cellgate:state"]
    assert set(st) == {"port", "fib"} and set(st["fib"]) == {"routes"}
    assert [x["name"] for x in st["port"]] == ["eth0", "eth1", "eth2"]


def test_xml(router):
    """RFC 8040 5.2: XML when the client accepts only XML, XML bodies accepted."""
    import xml.etree.ElementTree as ET
    ns = "{urn:cellgate:params:xml:ns:yang:cellgate}"
    r = rc.request(router, "GET", "/restconf/data" + R + "/system",
                   ctype="application/yang-data+xml")
    assert r.headers["content-type"] == rc.JSON  # Accept decides, not Content-Type
    cmd = ["curl", "-s", "--unix-socket", rc.sock(router), "-H",
           "Accept: application/yang-data+xml",
           "http://localhost/restconf/data" + R + "/system"]
    import subprocess
    doc = ET.fromstring(subprocess.run(cmd, capture_output=True, timeout=10).stdout)
    assert doc.tag == ns + "system" and doc.find(ns + "workers").text == "1"
    body = ('<system xmlns="urn:cellgate:params:xml:ns:yang:cellgate">'
            '<icmp-rate-limit>150</icmp-rate-limit></system>')
    r = rc.request(router, "PATCH", "/restconf/data" + R + "/system", body,
                   ctype="application/yang-data+xml")
    assert r.status == 204, r
    assert startup(router)["cellgate:cellgate"]["system"]["icmp-rate-limit"] == 150
    bad = ('<static-route xmlns="urn:cellgate:params:xml:ns:yang:cellgate">'
           '<prefix>10.61.0.1/24</prefix><action>blackhole</action></static-route>')
    r = rc.request(router, "POST", "/restconf/data" + ROUTES, bad,
                   ctype="application/yang-data+xml")
    assert r.status == 400 and "host bits" in r.error()["error-message"]
    assert r.error()["error-path"] == \
        "/cellgate:cellgate/routing/static-route[prefix='10.61.0.1/24']/prefix", r.error()
    cmd = ["curl", "-s", "--unix-socket", rc.sock(router), "-H",
           "Accept: application/yang-data+xml", "http://localhost/restconf/data" + R + "/nope"]
    err = ET.fromstring(subprocess.run(cmd, capture_output=True, timeout=10).stdout)
    rns = "{urn:ietf:params:xml:ns:yang:ietf-restconf}"
    assert err.tag == rns + "errors"
    assert err.find(rns + "error/" + rns + "error-tag").text == "unknown-element"


def test_state_counts_forwarded_traffic(topo, router):
    warm(topo, router)
    before = rc.port_state(router, "eth0")
    lab.send_udp(topo, "h1", "10.0.2.2", count=20)
    assert lab.wait_for(lambda: int(rc.port_state(router, "eth0")["forwarded"]) >=
                        int(before["forwarded"]) + 20, timeout=5)
    after = rc.port_state(router, "eth0")
    # The same snapshot code as the SIGUSR1 dump: the numbers agree.
    dump = router.port(router.stats(), "eth0")
    assert int(after["forwarded"]) <= dump["forwarded"]
    drops = {d["reason"]: int(d["packets"]) for d in after["drop"]}
    assert sum(drops.values()) == int(after["drops-total"])
    assert "no-route" in drops and "ttl-expired" in drops


def test_state_fib_neighbors_workers(topo, router):
    warm(topo, router)
    st = rc.state(router)
    routes = {r["prefix"]: r for r in st["fib"]["route"]}
    assert routes["10.66.0.0/16"]["type"] == "blackhole"
    assert routes["10.66.0.0/16"]["source"] == "static"
    assert routes["10.20.0.0/24"]["nexthop"] == [
        {"address": "10.0.2.2", "interface": "eth1", "weight": 1}]
    assert routes["10.0.1.0/24"]["source"] == "connected"
    assert int(st["fib"]["routes"]) == len(routes)
    assert any(n["address"] == "10.0.2.2" and n["state"] == "reachable"
               for n in st["neighbor"])
    # FPM listens by default (routing/fpm); no zebra runs in this lab.
    assert st["fpm"]["state"] == "listening"
    assert len(st["worker"]) == 1


def test_unknown_paths(router):
    r = rc.get(router, R + "/nope")
    assert r.status == 400 and r.error()["error-tag"] == "unknown-element"
    r = rc.get(router, "/nomodule:x")
    assert r.status == 400 and r.error()["error-tag"] == "unknown-namespace"
    r = rc.get(router, "/cellgate")
    assert r.status == 400  # the first node must name its module
    r = rc.get(router, route_uri("10.123.0.0/24"))
    assert r.status == 404
    assert r.error()["error-path"] == \
        "/cellgate:cellgate/routing/static-route[prefix='10.123.0.0/24']"
    r = rc.request(router, "GET", "/nothing/here")
    assert r.status == 404
    r = rc.get(router, R + "/port=eth0,extra")
    assert r.status == 400


# --- writing -----------------------------------------------------------------

def test_post_creates_route_applies_and_persists(topo, router):
    body = {"cellgate:static-route": [{"prefix": "10.88.0.0/24", "action": "blackhole"}]}
    r = rc.request(router, "POST", "/restconf/data" + ROUTES, body)
    assert r.status == 201, r
    assert r.headers["location"] == "/restconf/data" + route_uri("10.88.0.0/24")
    assert fib_route(router, "10.88.0.0/24")["type"] == "blackhole"
    assert startup_routes(router)["10.88.0.0/24"]["action"] == "blackhole"
    # It forwards (drops) at once, no restart.
    before = int(rc.port_state(router, "eth0")["drop"][11]["packets"])
    lab.send_udp(topo, "h1", "10.88.0.9", count=5)
    assert lab.wait_for(lambda: int(rc.port_state(router, "eth0")["drop"][11]["packets"])
                        >= before + 5, timeout=5)
    # Again: it exists.
    r = rc.request(router, "POST", "/restconf/data" + ROUTES, body)
    assert r.status == 409 and r.error()["error-tag"] == "data-exists"


def test_put_replaces_and_patch_merges(router):
    uri = "/restconf/data" + route_uri("10.89.0.0/24")
    r = rc.request(router, "PUT", uri, {"cellgate:static-route": [
        {"prefix": "10.89.0.0/24", "nexthop": [{"address": "10.0.2.2"}]}]})
    assert r.status == 201, r
    r = rc.request(router, "PUT", uri, {"cellgate:static-route": [
        {"prefix": "10.89.0.0/24", "nexthop": [{"address": "10.0.3.2"}]}]})
    assert r.status == 204, r
    assert [n["address"] for n in fib_route(router, "10.89.0.0/24")["nexthop"]] == ["10.0.3.2"]
    # PATCH merges: the nexthop list gains an entry (ECMP).
    r = rc.request(router, "PATCH", uri, {"cellgate:static-route": [
        {"prefix": "10.89.0.0/24", "nexthop": [{"address": "10.0.2.2"}]}]})
    assert r.status == 204, r
    assert sorted(n["address"] for n in fib_route(router, "10.89.0.0/24")["nexthop"]) == \
        ["10.0.2.2", "10.0.3.2"]
    # The body must be the target named by the URI.
    r = rc.request(router, "PUT", uri, {"cellgate:static-route": [
        {"prefix": "10.90.0.0/24", "action": "blackhole"}]})
    assert r.status == 400
    r = rc.request(router, "DELETE", uri)
    assert r.status == 204
    assert fib_route(router, "10.89.0.0/24") is None
    assert "10.89.0.0/24" not in startup_routes(router)
    r = rc.request(router, "DELETE", uri)
    assert r.status == 409 and r.error()["error-tag"] == "data-missing"


def test_patch_system_setting_applies(router):
    r = rc.request(router, "PATCH", "/restconf/data" + R + "/system",
                   {"cellgate:system": {"icmp-burst": 17}})
    assert r.status == 204, r
    assert rc.get(router, R + "/system/icmp-burst").json() == {"cellgate:icmp-burst": 17}
    assert startup(router)["cellgate:cellgate"]["system"]["icmp-burst"] == 17


def _unchanged(router, fn):
    before = open(router.cfg, "rb").read()
    fib_before = rc.get(router, R + "/state/fib/route").json()
    r = fn()
    assert open(router.cfg, "rb").read() == before, "startup file changed"
    assert rc.get(router, R + "/state/fib/route").json() == fib_before
    return r


def test_invalid_json_is_400_and_changes_nothing(router):
    r = _unchanged(router, lambda: rc.request(router, "POST", "/restconf/data" + ROUTES,
                                              '{"cellgate:static-route": [{"prefix": '))
    assert r.status == 400 and r.error()["error-tag"] == "malformed-message"


def test_metadata_in_a_body_is_400_and_the_daemon_lives(router):
    # libyang 2.1.30 dereferenced NULL parsing a top-level "@name" member into
    # a parent node: this PUT killed cellgated (found by fuzz_restconf).
    for method, path in (("PUT", route_uri("10.89.0.0/24")), ("POST", ROUTES),
                         ("PATCH", ROUTES)):
        for body in ('{"@cellgate:static-route": {}}',
                     '{"\\u0040cellgate:static-route": {}}'):
            r = _unchanged(router, lambda: rc.request(router, method, "/restconf/data" + path,
                                                      body))
            assert r.status == 400 and r.error()["error-tag"] == "malformed-message", (
                method, body, r.status, r.body)
    assert router.proc.poll() is None
    assert rc.get(router, ROUTES).status == 200


def test_schema_violations_name_the_path(router):
    r = _unchanged(router, lambda: rc.request(router, "PATCH", "/restconf/data" + R + "/system",
                                              {"cellgate:system": {"icmp-burst": 0}}))
    assert r.status == 400
    assert r.error()["error-path"] == "/cellgate:cellgate/system/icmp-burst"
    r = _unchanged(router, lambda: rc.request(router, "POST", "/restconf/data" + ROUTES, {
        "cellgate:static-route": [{"prefix": "10.91.0.0/24"}]}))
    assert r.status == 400 and "nexthop or an interface" in r.error()["error-message"]
    r = _unchanged(router, lambda: rc.request(router, "POST", "/restconf/data" + ROUTES, {
        "cellgate:static-route": [{"prefix": "10.92.0.0/24", "bogus": 1}]}))
    assert r.status == 400
    r = _unchanged(router, lambda: rc.request(router, "POST", "/restconf/data" + ROUTES, {
        "cellgate:static-route": [{"prefix": "10.93.0.1/24", "action": "blackhole"}]}))
    assert r.status == 400 and "host bits" in r.error()["error-message"]
    assert r.error()["error-path"] == \
        "/cellgate:cellgate/routing/static-route[prefix='10.93.0.1/24']/prefix", r.error()
    r = _unchanged(router, lambda: rc.request(router, "POST", "/restconf/data" + ROUTES, {
        "cellgate:static-route": [{"prefix": "10.94.0.0/24",
                                   "interface": "nosuchport"}]}))
    assert r.status == 400 and "nosuchport" in r.error()["error-message"]


def test_unreachable_gateway_is_rolled_back(router):
    r = _unchanged(router, lambda: rc.request(router, "POST", "/restconf/data" + ROUTES, {
        "cellgate:static-route": [{"prefix": "10.95.0.0/24",
                                   "nexthop": [{"address": "192.0.2.1"}]}]}))
    assert r.status == 400
    assert r.error()["error-path"] == \
        "/cellgate:cellgate/routing/static-route[prefix='10.95.0.0/24']"
    # A PUT of the whole routing container with one bad route among good
    # ones: the good ones must not stay installed either.
    body = {"cellgate:routing": {"static-route": [
        {"prefix": "10.96.0.0/24", "action": "blackhole"},
        {"prefix": "10.97.0.0/24", "nexthop": [{"address": "192.0.2.1"}]}]}}
    r = _unchanged(router, lambda: rc.request(router, "PUT", "/restconf/data" + ROUTES, body))
    assert r.status == 400
    assert fib_route(router, "10.96.0.0/24") is None
    assert fib_route(router, "10.66.0.0/16")["type"] == "blackhole"


def test_runtime_unsupported_change_is_501(router):
    r = _unchanged(router, lambda: rc.request(
        router, "PATCH", "/restconf/data" + R + "/port=eth0",
        {"cellgate:port": [{"name": "eth0", "promiscuous": True}]}))
    assert r.status == 501 and r.error()["error-tag"] == "operation-not-supported"


def test_fib_algorithm_change_needs_restart(router):
    # The workers' FIB is built once, at startup: switching structure is a restart.
    running = rc.get(router, R + "/state/fib").json()["cellgate:fib"]["algorithm"]
    other = "dir-24-8" if running == "poptrie" else "poptrie"
    r = _unchanged(router, lambda: rc.request(
        router, "PATCH", "/restconf/data" + R + "/system",
        {"cellgate:system": {"fib-algorithm": other}}))
    assert r.status == 501 and r.error()["error-tag"] == "operation-not-supported", r
    assert "FIB algorithm" in r.error()["error-message"], r
    assert rc.get(router, R + "/state/fib").json()["cellgate:fib"]["algorithm"] == running


def test_state_is_read_only(router):
    r = rc.request(router, "PUT", "/restconf/data" + R + "/state/fib",
                   {"cellgate:fib": {}})
    assert r.status == 405


def test_oversized_body_is_413(router):
    """Over max-body-size: 413 with an RFC 8040 error document (error-tag
    too-big), decided from Content-Length, not libevent's HTML page."""
    big = b'{"cellgate:system": {"icmp-burst": 5' + b" " * (2 << 20) + b"}}"
    r = _unchanged(router, lambda: rc.request(router, "PATCH", "/restconf/data" + R + "/system",
                                              big))
    assert r.status == 413
    assert r.headers["content-type"] == rc.JSON, r.headers
    e = r.error()
    assert e["error-tag"] == "too-big", e
    assert "limit is 1048576" in e["error-message"], e
    # The same in XML when only XML is accepted.
    cmd = ["curl", "-s", "--unix-socket", rc.sock(router), "-X", "PATCH",
           "-H", "Accept: application/yang-data+xml", "-H", "Content-Type: " + rc.JSON,
           "--data-binary", "@-", "http://localhost/restconf/data" + R + "/system"]
    out = subprocess.run(cmd, input=big, capture_output=True, timeout=30).stdout
    err = ET.fromstring(out)
    rns = "{urn:ietf:params:xml:ns:yang:ietf-restconf}"
    assert err.find(rns + "error/" + rns + "error-tag").text == "too-big"


_HEAD_ONLY = r"""
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(sys.argv[2].encode().decode("unicode_escape").encode())
s.settimeout(3)
t0 = time.monotonic()
try:
    data = s.recv(65536)
except socket.timeout:
    data = b""
print(round(time.monotonic() - t0, 2))
print(data.decode(errors="replace"))
"""


def raw_unix(router, head):
    p = subprocess.run([lab.PYTHON, "-c", _HEAD_ONLY, rc.sock(router), head],
                       capture_output=True, text=True, timeout=20)
    took, _, reply = p.stdout.partition("\n")
    return float(took or 99), reply


def test_refused_before_the_body_is_sent(router):
    """A declared 100 MB body is refused at once, none of it read; a body
    without Content-Length (chunked) gets 411; both as RFC 8040 documents."""
    took, reply = raw_unix(router, "PUT /restconf/data/cellgate:cellgate HTTP/1.1\\r\\n"
                                   "Host: x\\r\\nContent-Type: application/yang-data+json\\r\\n"
                                   "Content-Length: 100000000\\r\\n\\r\\n")
    assert reply.startswith("HTTP/1.1 413"), reply
    assert took < 2 and '"error-tag":"too-big"' in reply, (took, reply)
    assert "connection: close" in reply.lower()
    took, reply = raw_unix(router, "POST /restconf/data/cellgate:cellgate/routing HTTP/1.1\\r\\n"
                                   "Host: x\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n")
    assert reply.startswith("HTTP/1.1 411"), reply
    assert "application/yang-data+json" in reply and "Content-Length" in reply
    st = rc.state(router)["restconf"]
    assert int(st["bodies-refused"]) >= 2


def test_wrong_media_type_is_415(router):
    r = rc.request(router, "PATCH", "/restconf/data" + R + "/system", "icmp-burst=5",
                   ctype="application/x-www-form-urlencoded")
    assert r.status == 415


def test_two_concurrent_writers(router):
    """Two clients POST routes at the same time: every route lands, in the
    FIB and in the startup file, and the file stays valid JSON."""
    errors = []

    def writer(base):
        for i in range(8):
            p = "10.%d.%d.0/24" % (base, i)
            r = rc.request(router, "POST", "/restconf/data" + ROUTES,
                           {"cellgate:static-route": [{"prefix": p, "action": "blackhole"}]})
            if r.status != 201:
                errors.append((p, r))

    ts = [threading.Thread(target=writer, args=(b,)) for b in (201, 202)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors
    saved = startup_routes(router)
    for b in (201, 202):
        for i in range(8):
            p = "10.%d.%d.0/24" % (b, i)
            assert p in saved
            assert fib_route(router, p)["type"] == "blackhole"


# --- operations --------------------------------------------------------------

def test_clear_counters(topo, router):
    warm(topo, router)
    lab.send_udp(topo, "h1", "10.0.2.2", count=5)
    assert lab.wait_for(lambda: int(rc.port_state(router, "eth0")["forwarded"]) >= 5, 5)
    old = rc.port_state(router, "eth0")
    r = rc.request(router, "POST", "/restconf/operations/cellgate:clear-counters",
                   {"cellgate:input": {"port": "eth0"}})
    assert r.status == 204, r
    new = rc.port_state(router, "eth0")
    assert int(new["forwarded"]) < int(old["forwarded"])
    assert new["discontinuity-time"] > old["discontinuity-time"]
    assert rc.port_state(router, "eth1")["discontinuity-time"] == old["discontinuity-time"]
    # The dump reads the same snapshot: cleared there too.
    assert router.port(router.stats(), "eth0")["forwarded"] < int(old["forwarded"])
    r = rc.request(router, "POST", "/restconf/operations/cellgate:clear-counters",
                   {"cellgate:input": {"port": "nope"}})
    assert r.status == 400 and "nope" in r.error()["error-message"]
    r = rc.request(router, "POST", "/restconf/operations/cellgate:clear-counters", "")
    assert r.status == 204


def test_operation_errors(router):
    r = rc.request(router, "POST", "/restconf/operations/cellgate:nope", "")
    assert r.status == 404
    r = rc.request(router, "POST", "/restconf/operations/cellgate:vc-ping",
                   {"cellgate:input": {"port": "eth0"}})
    assert r.status == 400 and r.error()["error-path"].endswith("vpi")
    r = rc.request(router, "POST", "/restconf/operations/cellgate:vc-ping",
                   {"cellgate:input": {"port": "eth0", "vpi": 0, "vci": 100}})
    assert r.status == 400 and "no PVC" in r.error()["error-message"]
    r = rc.request(router, "POST", "/restconf/operations/cellgate:vc-ping", '{"x": 1}')
    assert r.status == 400
    r = rc.request(router, "GET", "/restconf/operations/cellgate:clear-counters")
    assert r.status == 405


# --- metrics -----------------------------------------------------------------

def test_metrics_parse_and_equal_restconf(topo, router):
    lab.send_udp(topo, "h1", "10.0.2.2", count=3)
    lab.send_udp(topo, "h1", "10.66.1.1", count=3)
    s1 = rc.state(router)
    m = rc.request(router, "GET", "/metrics")
    s2 = rc.state(router)
    assert m.status == 200 and m.headers["content-type"].startswith("text/plain; version=0.0.4")
    samples = rc.parse_metrics(m.body)

    def between(path_get, metric_value):
        a, b = path_get(s1), path_get(s2)
        assert a <= metric_value <= b, (a, metric_value, b)

    for p in s1["port"]:
        name = p["name"]

        def port_of(s, name=name):
            return next(x for x in s["port"] if x["name"] == name)

        for leaf in ("rx-packets", "tx-packets", "forwarded", "to-kernel"):
            between(lambda s, leaf=leaf: int(port_of(s)[leaf]),
                    rc.metric(samples, "cellgate_port_%s_total" % leaf.replace("-", "_"),
                              port=name))
        # A leaf named ...-total is a counter once: _total, not _total_total.
        between(lambda s: int(port_of(s)["drops-total"]),
                rc.metric(samples, "cellgate_port_drops_total", port=name))
        for d in p["drop"]:
            between(lambda s, r=d["reason"]: int(next(x["packets"] for x in port_of(s)["drop"]
                                                      if x["reason"] == r)),
                    rc.metric(samples, "cellgate_port_drop_packets_total", port=name,
                              reason=d["reason"]))
    assert rc.metric(samples, "cellgate_fib_routes") == int(s1["fib"]["routes"])
    assert rc.metric(samples, "cellgate_fib_source_routes", source="static") == \
        int(s1["fib"]["source"][3]["routes"])
    assert rc.metric(samples, "cellgate_fpm_state", state="listening") == 1
    assert rc.metric(samples, "cellgate_port_drop_packets_total", port="eth0",
                     reason="blackhole") >= 3


def test_metrics_pass_promtool(topo, router):
    """Prometheus' own linter (`promtool check metrics`, Debian's prometheus)
    on a real scrape: names, suffixes, HELP/TYPE, the loop-lag histogram."""
    assert shutil.which("promtool"), "promtool missing: tests/deps.sh installs prometheus"
    lab.send_udp(topo, "h1", "10.66.1.1", count=2)
    m = rc.request(router, "GET", "/metrics")
    assert m.status == 200
    p = subprocess.run(["promtool", "check", "metrics"], input=m.body, capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 0 and not (p.stdout + p.stderr).strip(), p.stdout + p.stderr
    assert "{}" not in m.body and "_total_total" not in m.body
    assert "# TYPE cellgate_loop_lag_seconds histogram" in m.body
