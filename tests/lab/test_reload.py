# SPDX-License-Identifier: BSD-2-Clause
"""SIGHUP reloads the startup file through the same validate -> apply path as
a RESTCONF write: a new static route takes effect at once; an invalid file,
or a change that needs a restart, leaves the running state as it was and the
log says why."""

import json
import signal

import lab
import restconf as rc


def _write(d, cfg):
    with open(d.cfg, "w") as f:
        json.dump(cfg, f, indent=2)


def _routes(d):
    return {r["prefix"] for r in rc.state(d)["fib"]["route"]}


def _hup(d, marker):
    d.proc.send_signal(signal.SIGHUP)
    assert lab.wait_for(lambda: d.log().count(marker) >= 1, timeout=5), d.log()[-1500:]


def test_sighup_applies_a_valid_file(start_daemon):
    cfg = lab.default_config()
    d = start_daemon(config=cfg)
    assert "192.0.2.0/24" not in _routes(d)
    cfg["cellgate:cellgate"]["routing"]["static-route"].append(
        {"prefix": "192.0.2.0/24", "nexthop": [{"address": "10.0.2.2"}]})
    cfg["cellgate:cellgate"]["system"]["icmp-rate-limit"] = 7
    _write(d, cfg)
    _hup(d, "SIGHUP: configuration reloaded")
    assert "192.0.2.0/24" in _routes(d)
    got = rc.get(d, "/cellgate:cellgate/system/icmp-rate-limit").json()
    assert got["cellgate:icmp-rate-limit"] == 7, got
    # And removed again by the next reload.
    cfg["cellgate:cellgate"]["routing"]["static-route"].pop()
    _write(d, cfg)
    d.proc.send_signal(signal.SIGHUP)
    assert lab.wait_for(lambda: "192.0.2.0/24" not in _routes(d), timeout=5)


def test_sighup_with_a_bad_file_changes_nothing(start_daemon):
    cfg = lab.default_config()
    d = start_daemon(config=cfg)
    before = _routes(d)
    # Invalid JSON for the schema: nothing may change, the daemon lives on.
    bad = json.loads(json.dumps(cfg))
    bad["cellgate:cellgate"]["routing"]["static-route"].append(
        {"prefix": "198.51.100.0/24", "nexthop": [{"address": "10.0.2.2"}]})
    bad["cellgate:cellgate"]["system"]["icmp-burst"] = 0  # out of range
    _write(d, bad)
    _hup(d, "the running configuration is unchanged")
    assert d.alive()
    assert _routes(d) == before
    assert "icmp-burst" in d.log()
    # A change that needs a restart (a port's netdev) is refused the same way.
    moved = json.loads(json.dumps(cfg))
    moved["cellgate:cellgate"]["port"][0]["promiscuous"] = True
    moved["cellgate:cellgate"]["routing"]["static-route"].append(
        {"prefix": "198.51.100.0/24", "nexthop": [{"address": "10.0.2.2"}]})
    _write(d, moved)
    d.proc.send_signal(signal.SIGHUP)
    assert lab.wait_for(lambda: d.log().count("the running configuration is unchanged") >= 2,
                        timeout=5), d.log()[-1500:]
    assert "cannot be changed at runtime" in d.log()
    assert _routes(d) == before
    _write(d, cfg)  # leave the file as the daemon runs it
