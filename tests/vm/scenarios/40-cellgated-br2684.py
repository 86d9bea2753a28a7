# SPDX-License-Identifier: BSD-2-Clause
"""Host-side checks of 40-cellgated-br2684.sh: the stats.json files it left."""
import json
import os


def _vc(stats, vci):
    for v in stats["vcs"]:
        if v["port"] == "atm0" and v["vpi"] == 0 and v["vci"] == vci:
            return v
    raise KeyError(f"VC 0/{vci} not in stats.json")


def _load(share, name):
    with open(os.path.join(share, name)) as f:
        return json.load(f)


def _delta(a, b, vci, key):
    return int(_vc(b, vci)[key]) - int(_vc(a, vci)[key])


def check(share, facts):
    out = []
    a, b = _load(share, "stats-before.json"), _load(share, "stats-after.json")
    # 10 echo requests of 84 octets in on VC 101 (VC-mux: the bare packet), out on 103
    # (VC-mux bridged: 2 + 14 octets more); the replies the other way. ARP on the
    # bridged VC, if the kernel probed meanwhile, is counted apart (inatmarp-in/out).
    arp_in = _delta(a, b, 103, "inatmarp-in")
    arp_out = _delta(a, b, 103, "inatmarp-out")
    want = {(101, "pdus-in"): 10, (101, "octets-in"): 840,
            (101, "pdus-out"): 10, (101, "octets-out"): 840,
            (103, "pdus-out"): 10 + arp_out, (103, "pdus-in"): 10 + arp_in}
    for (vci, key), n in want.items():
        got = _delta(a, b, vci, key)
        out.append((f"exact-{vci}-{key}", got == n, f"{got}, want {n}"))
    got = _delta(a, b, 103, "octets-out") - 44 * arp_out
    out.append(("exact-103-octets-out", got == 1000, f"{got}, want 1000 (10 x 84+16)"))
    for vci in (101, 103):
        got = int(_vc(b, vci)["discards-total"]) - int(_vc(a, vci)["discards-total"])
        out.append((f"exact-{vci}-no-discards", got == 0, f"{got}"))

    bad = _load(share, "stats-bad.json")
    disc = lambda vci: _vc(bad, vci)["discards"]
    d110, d111 = disc(110), disc(111)
    for vci, d, want in ((110, d110, {"unknown-encapsulation": 1, "short": 1, "oversize": 1,
                                      "abort": 0}),
                         (111, d111, {"bridged-not-for-us": 1, "unknown-encapsulation": 2,
                                      "short": 1})):
        for reason, n in want.items():
            out.append((f"bad-{vci}-{reason}", d.get(reason) == n, f"{d.get(reason)}, want {n}"))
    # Four SDUs on 0/110: an unknown PID, an LLC header alone, an empty one (the
    # kernel never delivers it: abort stays 0), 2008 octets (over the VC's 1508).
    arrived = int(_vc(bad, 110)["pdus-in"]) - int(_vc(b, 110)["pdus-in"])
    facts["bad.110.decapsulated"] = f"{arrived} of 4"
    facts["bad.110.all"] = ",".join(f"{k}={v}" for k, v in sorted(d110.items()) if v)
    facts["bad.111.all"] = ",".join(f"{k}={v}" for k, v in sorted(d111.items()) if v)

    added, deleted = _load(share, "stats-added.json"), _load(share, "stats-deleted.json")
    v121 = _vc(added, 121)
    out.append(("runtime-pvc-counted", int(v121["pdus-in"]) >= 6 and int(v121["pdus-out"]) >= 6,
                f"in {v121['pdus-in']} out {v121['pdus-out']}"))
    out.append(("runtime-pvc-deleted", all(v["vci"] != 121 for v in deleted["vcs"]),
                "0/121 still in stats.json" if any(v["vci"] == 121 for v in deleted["vcs"])
                else "gone"))
    gone = _load(share, "stats-gone.json")
    lost = int(next(p for p in gone["atm-ports"] if p["name"] == "atm0").get("vc-lost", -1))
    down = [v["vci"] for v in gone["vcs"] if v["oper"] == "down"]
    out.append(("far-side-gone-vc-lost", lost == 7, f"vc-lost {lost}, want 7"))
    out.append(("far-side-gone-oper-down", len(down) == 7, f"down: {down}"))
    return out
