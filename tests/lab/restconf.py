# SPDX-License-Identifier: BSD-2-Clause
"""A small RESTCONF client for the lab: curl over the daemon's UNIX socket
(the way an operator would), and a Prometheus text-format parser."""

import json
import os
import re
import subprocess

JSON = "application/yang-data+json"


class Response:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.body = body

    def json(self):
        return json.loads(self.body)

    def error(self):
        """The first RFC 8040 error of an error document."""
        return self.json()["ietf-restconf:errors"]["error"][0]

    def __repr__(self):
        return "<%d %s>" % (self.status, self.body[:300])


def sock(daemon):
    return os.path.join(daemon.rundir, "restconf.sock")


def request(daemon, method, path, body=None, ctype=JSON, timeout=30):
    """method path [body: dict, str or bytes] -> Response."""
    cmd = ["curl", "-s", "-S", "-i", "--max-time", str(timeout),
           "--unix-socket", sock(daemon), "-X", method,
           "-H", "Content-Type: " + ctype, "http://localhost" + path]
    data = None
    if body is not None:
        data = body if isinstance(body, (bytes, str)) else json.dumps(body)
        if isinstance(data, str):
            data = data.encode()
        cmd += ["--data-binary", "@-"]
    p = subprocess.run(cmd, input=data, capture_output=True, timeout=timeout + 5)
    if p.returncode != 0:
        raise RuntimeError("curl %s %s: %s" % (method, path, p.stderr.decode()))
    raw = p.stdout.decode(errors="replace")
    # Skip "HTTP/1.1 100 Continue" blocks curl prints for large bodies.
    while raw.startswith("HTTP/1.1 100"):
        raw = raw.split("\r\n\r\n", 1)[1]
    head, _, body = raw.partition("\r\n\r\n")
    lines = head.split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for ln in lines[1:]:
        k, _, v = ln.partition(":")
        headers[k.strip().lower()] = v.strip()
    return Response(status, headers, body)


def get(daemon, path, **kw):
    return request(daemon, "GET", "/restconf/data" + path, **kw)


def state(daemon):
    r = get(daemon, "/cellgate:cellgate/state")
    assert r.status == 200, r
    return r.json()["cellgate:state"]


def port_state(daemon, name):
    for p in state(daemon)["port"]:
        if p["name"] == name:
            return p
    raise KeyError(name)


_SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$')
_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def parse_metrics(text):
    """Prometheus text format 0.0.4 -> {(name, frozenset(labels)): value}.
    Checks what a scraper relies on: every sample's family was declared
    with HELP and TYPE before it, each family's samples are contiguous,
    values are numbers, counters end in _total (once), other families do
    not, a series without labels has no braces, a histogram has its
    _bucket (le, ending at +Inf), _sum and _count."""
    samples, types, seen_done, current, helped = {}, {}, set(), None, set()
    for line in text.splitlines():
        if not line:
            continue
        if line.startswith("# HELP "):
            helped.add(line.split(" ", 3)[2])
            continue
        if line.startswith("# TYPE "):
            _, _, name, typ = line.split(" ", 3)
            assert name not in types, "family %s declared twice" % name
            assert name in helped, "family %s has no HELP" % name
            assert typ in ("counter", "gauge", "histogram"), line
            assert name.endswith("_total") == (typ == "counter"), line
            assert not name.endswith("_total_total"), line
            types[name] = typ
            if current:
                seen_done.add(current)
            current = name
            continue
        assert not line.startswith("#"), line
        m = _SAMPLE.match(line)
        assert m, "unparsable sample line: %r" % line
        name, labels, value = m.group(1), m.group(3), m.group(4)
        assert labels is None or labels, "empty braces: %r" % line
        family = name
        if types.get(current) == "histogram" and name in (
                current + "_bucket", current + "_sum", current + "_count"):
            family = current
        assert family == current, "sample %s outside its family block" % name
        assert family not in seen_done
        lab = frozenset(_LABEL.findall(labels or ""))
        key = (name, lab)
        assert key not in samples, "duplicate sample %r" % (key,)
        samples[key] = float(value)
    for name, typ in types.items():
        if typ == "histogram":
            assert (name + "_bucket", frozenset([("le", "+Inf")])) in samples, name
            assert (name + "_count", frozenset()) in samples, name
    return samples


def metric(samples, name, **labels):
    return samples[(name, frozenset((k, str(v)) for k, v in labels.items()))]
