# SPDX-License-Identifier: BSD-2-Clause
"""Changes accepted over RESTCONF are in the startup file the moment the
reply is sent: they survive kill -9, and a rejected change never gets
there. The restarted daemon also replaces the socket the killed one left."""

import json
import os
import signal

import lab
import restconf as rc

ROUTES = "/restconf/data/cellgate:cellgate/routing"


def test_change_survives_kill9_and_rejected_one_does_not(start_daemon):
    d = start_daemon(check_accounting=False)
    r = rc.request(d, "POST", ROUTES, {"cellgate:static-route": [
        {"prefix": "10.123.0.0/24", "action": "unreachable"}]})
    assert r.status == 201, r
    r = rc.request(d, "PATCH", "/restconf/data/cellgate:cellgate/system",
                   {"cellgate:system": {"arp-timeout": 77}})
    assert r.status == 204, r
    # Rejected: a gateway no connected subnet reaches.
    r = rc.request(d, "POST", ROUTES, {"cellgate:static-route": [
        {"prefix": "10.124.0.0/24", "nexthop": [{"address": "192.0.2.7"}]}]})
    assert r.status == 400, r
    os.kill(d.proc.pid, signal.SIGKILL)
    d.proc.wait(timeout=5)
    assert not [f for f in os.listdir(os.path.dirname(d.cfg))
                if f.startswith("cellgated.json.")], "temporary file left behind"
    with open(d.cfg) as f:
        saved = json.load(f)["cellgate:cellgate"]
    prefixes = {x["prefix"]: x for x in saved["routing"]["static-route"]}
    assert prefixes["10.123.0.0/24"]["action"] == "unreachable"
    assert "10.124.0.0/24" not in prefixes
    assert saved["system"]["arp-timeout"] == 77
    # Restart from that very file (Daemon.start writes d.config back to it).
    d.config = {"cellgate:cellgate": saved}
    os.unlink(os.path.join(d.rundir, "cellgated.pid"))  # left by the killed daemon
    assert os.path.exists(rc.sock(d))  # and its socket, which must not block the restart
    d.start()
    route = rc.get(d, "/cellgate:cellgate/state/fib/route=10.123.0.0%2F24")
    assert route.status == 200 and route.json()["cellgate:route"][0]["type"] == "unreachable"
    assert rc.get(d, "/cellgate:cellgate/system/arp-timeout").json() == \
        {"cellgate:arp-timeout": 77}


def test_state_with_odd_netdev_names(topo, start_daemon):
    """A netdev may be named with a '"' or a '\\' (Linux refuses only '/',
    ':' and white space): the state document and the stats dump stay valid
    JSON and carry the name as it is."""
    odd, peer = 'r"q\\x', "r-oddpeer"
    topo.exec("r", ["ip", "link", "add", odd, "type", "veth", "peer", "name", peer],
              check=True)
    try:
        cfg = lab.default_config()
        cfg["cellgate:cellgate"]["port"].append(
            {"name": "odd", "driver": "afpacket", "netdev": odd,
             "ipv4": {"address": [{"ip": "10.0.9.1", "prefix-length": 24}]}})
        d = start_daemon(cfg, check_accounting=False)
        r = rc.get(d, "/cellgate:cellgate/state")
        assert r.status == 200, r
        ports = {p["name"]: p for p in r.json()["cellgate:state"]["port"]}
        assert ports["odd"]["netdev"] == odd
        assert [p for p in d.stats()["ports"] if p["name"] == "odd"][0]["netdev"] == odd
        m = rc.request(d, "GET", "/metrics")
        assert m.status == 200, m
    finally:
        topo.exec("r", ["ip", "link", "del", peer])
