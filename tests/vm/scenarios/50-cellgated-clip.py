# SPDX-License-Identifier: BSD-2-Clause
"""Host-side checks of 50-cellgated-clip.sh: InATMARP as the VC's counters tell it."""
import json
import os


def check(share, facts):
    with open(os.path.join(share, "stats.json")) as f:
        stats = json.load(f)
    vc = next(v for v in stats["vcs"] if v["vpi"] == 0 and v["vci"] == 109)
    d = {k: v for k, v in vc["discards"].items() if v}
    # 3 + 3 pings crossed the VC each way (plus the InATMARP exchange).
    ip_in = int(vc["pdus-in"]) - int(vc["inatmarp-in"])
    return [
        ("vc-peer-learned", vc["peer"] == "10.0.9.2", f"peer {vc['peer']}"),
        ("inatmarp-requests-sent", int(vc["inatmarp-out"]) >= 1, f"{vc['inatmarp-out']}"),
        ("inatmarp-replies-in", int(vc["inatmarp-in"]) >= 1, f"{vc['inatmarp-in']}"),
        ("clip-vc-no-discards", not d, f"{d}"),
        ("clip-vc-carried-both-pings", ip_in >= 6, f"{ip_in} IP SDUs in"),
    ]
