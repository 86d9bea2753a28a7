# SPDX-License-Identifier: BSD-2-Clause
"""HTTP over cellgated's RESTCONF UNIX socket for the scale benchmark and
the scale lab test: one request per call, timed, the body streamed through
a callback (chunked or not) so a reply of hundreds of megabytes is never
held.  Standard library only."""

import http.client
import json
import socket
import threading
import time


class _UnixConnection(http.client.HTTPConnection):
    def __init__(self, path, timeout):
        super().__init__("localhost", timeout=timeout)
        self._path = path

    def connect(self):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(self.timeout)
        s.connect(self._path)
        self.sock = s


class Reply:
    def __init__(self, status, headers, body, elapsed, nbytes, first_byte):
        self.status = status
        self.headers = headers  # lower-case names
        self.body = body        # bytes, or None when streamed to a callback
        self.elapsed = elapsed  # seconds, request sent to last byte
        self.nbytes = nbytes
        self.first_byte = first_byte

    def json(self):
        return json.loads(self.body)

    def __repr__(self):
        return "<%d %r>" % (self.status, (self.body or b"")[:300])


def request(sock, method, path, body=None, timeout=600, sink=None,
            ctype="application/yang-data+json"):
    """One request; sink(bytes) receives the body piecewise (else kept)."""
    t0 = time.monotonic()
    c = _UnixConnection(sock, timeout)
    try:
        hdrs = {"Content-Type": ctype} if body is not None else {}
        if isinstance(body, (dict, list)):
            body = json.dumps(body)
        c.request(method, path, body=body, headers=hdrs)
        r = c.getresponse()
        first = time.monotonic() - t0
        keep = []
        n = 0
        while True:
            piece = r.read1(1 << 20) if hasattr(r, "read1") else r.read(1 << 20)
            if not piece:
                break
            n += len(piece)
            if sink:
                sink(piece)
            else:
                keep.append(piece)
        headers = {k.lower(): v for k, v in r.getheaders()}
        return Reply(r.status, headers, None if sink else b"".join(keep),
                     time.monotonic() - t0, n, first)
    finally:
        c.close()


def get(sock, path, **kw):
    return request(sock, "GET", path, **kw)


class Prober(threading.Thread):
    """GETs `path` every `interval` seconds until stopped; keeps each
    request's latency (s) and status, to show how long a small request
    waits while something big runs."""

    def __init__(self, sock, path, interval=0.02, timeout=120):
        super().__init__(daemon=True)
        self.sock, self.path = sock, path
        self.interval, self.timeout = interval, timeout
        self.lat, self.bad = [], []
        self._halt = threading.Event()

    def run(self):
        while not self._halt.is_set():
            t = time.monotonic()
            try:
                r = get(self.sock, self.path, timeout=self.timeout)
                if r.status != 200:
                    self.bad.append(r.status)
            except OSError as e:
                self.bad.append(str(e))
            self.lat.append(time.monotonic() - t)
            self._halt.wait(max(0.0, self.interval - (time.monotonic() - t)))

    def stop(self):
        self._halt.set()
        self.join()
        return self


class RssSampler(threading.Thread):
    """VmRSS of a process every `interval` seconds (KiB): the peak of a run."""

    def __init__(self, pid, interval=0.01):
        super().__init__(daemon=True)
        self.pid, self.interval = pid, interval
        self.peak_kb = 0
        self._halt = threading.Event()

    def run(self):
        while not self._halt.is_set():
            self.peak_kb = max(self.peak_kb, rss_kb(self.pid))
            self._halt.wait(self.interval)

    def stop(self):
        self._halt.set()
        self.join()
        self.peak_kb = max(self.peak_kb, rss_kb(self.pid))
        return self


def rss_kb(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def pct(values, p):
    """The p-th percentile (nearest rank) of values; 0 for none."""
    if not values:
        return 0.0
    v = sorted(values)
    k = max(0, min(len(v) - 1, int(round(p / 100.0 * len(v) + 0.5)) - 1))
    return v[k]


def median(values):
    return pct(values, 50)
