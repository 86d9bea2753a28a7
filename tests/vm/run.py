#!/usr/bin/python3
# SPDX-License-Identifier: BSD-2-Clause
"""Run the ATM VM lab: every scenario in tests/vm/scenarios/ (or those named),
one qemu boot each, and print one line per check and the totals.

    tests/vm/run.py [--build DIR] [--work DIR] [--out DIR] [SCENARIO...]

--build: where cellgated/cellgatectl come from (default: build/ of the repo).
--work: scratch space (default: $CACHE/work); --out: a copy of each guest's
console log and shared files (default: none). The last line is "N passed,
M failed"; exit 0 if none failed, 77 (with the reason) if qemu cannot run here.
"""
import argparse
import glob
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmlab  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(vmlab.ROOT, "build"))
    ap.add_argument("--work")
    ap.add_argument("--out")
    ap.add_argument("scenarios", nargs="*")
    args = ap.parse_args()
    paths = [os.path.join(vmlab.HERE, "scenarios", s if s.endswith(".sh") else s + ".sh")
             for s in args.scenarios] or sorted(
        glob.glob(os.path.join(vmlab.HERE, "scenarios", "*.sh")))
    try:
        lab = vmlab.Lab(args.work or os.path.join(
            os.environ.get("CELLGATE_VM_CACHE") or
            os.path.join(os.environ.get("XDG_CACHE_HOME") or "/var/tmp", "cellgate-vm"),
            "work-%d" % os.getpid()), args.build)
    except vmlab.SkipLab as e:
        print(f"VM LAB SKIPPED, qemu cannot run here: {e}", flush=True)
        return 77
    passed = failed = 0
    try:
        for path in paths:
            name = os.path.splitext(os.path.basename(path))[0]
            try:
                (checks, facts), share, log, secs = lab.boot(path)
            except (RuntimeError, OSError) as e:
                checks, facts, share, log, secs = [("setup", False, str(e))], {}, None, None, 0
            for k, v in sorted(facts.items()):
                print(f"   {name}: {k}={v}")
            for check, ok, why in checks:
                print(f"{'PASS' if ok else 'FAIL'} {name}/{check}" + (f": {why}" if why else ""))
                passed += ok
                failed += not ok
            print(f"== {name}: {sum(c[1] for c in checks)}/{len(checks)} in {secs:.1f} s",
                  flush=True)
            if args.out and log:
                dst = os.path.join(args.out, name)
                shutil.rmtree(dst, ignore_errors=True)
                shutil.copytree(share, dst)
                shutil.copy(log, os.path.join(dst, "console.log"))
    finally:
        if not args.work:
            shutil.rmtree(lab.work, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
