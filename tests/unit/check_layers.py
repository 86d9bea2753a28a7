#!/usr/bin/python3
# SPDX-License-Identifier: BSD-2-Clause
"""The architecture's floors, checked on every #include "..." in the tree.

    lib/       the base: includes only lib/
    datapath/  includes datapath/ and lib/ (no libevent, libyang, net-snmp)
    config/    includes config/ and lib/
    daemon/    wires them together: anything but another folder's private headers
    mgmt/      front ends: never daemon/; datapath/ and config/ public headers only

Every include names its header by its path from the repository root
("datapath/fib/fib4.h"), never by a bare name, so no dependency hides behind
an -I flag.  A private header (*_priv.h) is for its own folder; tests/ may
reach into anything.

    check_layers.py [ROOT]      check the tree (default: $srcdir/../.. or .)
    check_layers.py --self-test plant a forbidden include in a scratch tree
                                and show the check catches each kind

Exit 0 when the tree obeys, 1 with one line per violation otherwise.
"""
import os
import re
import shutil
import sys
import tempfile

TOPS = ("lib", "datapath", "config", "daemon", "mgmt", "tests")
# What each floor may include (folders), private headers of others excluded.
ALLOWED = {
    "lib": {"lib"},
    "datapath": {"lib", "datapath"},
    "config": {"lib", "config"},
    "daemon": {"lib", "datapath", "config", "daemon", "mgmt"},
    "mgmt": {"lib", "datapath", "config", "mgmt"},
    "tests": set(TOPS),
}
# Headers configure writes into the build tree.
GENERATED = {"cellgate-build.h"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
SYSTEM_INCLUDE = re.compile(r'^\s*#\s*include\s+<([^>]+)>', re.M)
# Libraries the fast path and the base never link: their headers are refused there.
FORBIDDEN_SYSTEM = {
    "lib": ("event2/", "libyang/", "net-snmp/", "systemd/"),
    "datapath": ("event2/", "libyang/", "net-snmp/", "systemd/"),
    "config": ("event2/", "net-snmp/", "systemd/"),
}


def private_owner(header):
    """The folder a private header belongs to, or None for a public one."""
    if not os.path.basename(header).endswith("_priv.h"):
        return None
    return os.path.dirname(header)


def check_file(root, rel):
    floor = rel.split("/", 1)[0]
    errors = []
    with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
        text = f.read()
    for m in SYSTEM_INCLUDE.finditer(text):
        inc = m.group(1)
        if inc.startswith(FORBIDDEN_SYSTEM.get(floor, ())):
            line = text.count("\n", 0, m.start()) + 1
            errors.append(f"{rel}:{line}: <{inc}>: {floor}/ may not use that library")
    for m in INCLUDE.finditer(text):
        inc = m.group(1)
        line = text.count("\n", 0, m.start()) + 1
        where = f"{rel}:{line}"
        if inc in GENERATED:
            continue
        top = inc.split("/", 1)[0]
        if "/" not in inc or top not in TOPS:
            errors.append(f'{where}: "{inc}": name headers by their path from the '
                          f"repository root, not a bare name")
            continue
        if not os.path.exists(os.path.join(root, inc)):
            errors.append(f'{where}: "{inc}": no such header in the tree')
            continue
        if top not in ALLOWED[floor]:
            errors.append(f'{where}: "{inc}": {floor}/ may not include {top}/ '
                          f"(allowed: {', '.join(sorted(ALLOWED[floor]))})")
            continue
        owner = private_owner(inc)
        if owner and floor != "tests" and os.path.dirname(rel) != owner and \
                not os.path.dirname(rel).startswith(owner + "/"):
            errors.append(f'{where}: "{inc}": private header of {owner}/ '
                          f"used from {os.path.dirname(rel)}/")
    return errors


def check_tree(root):
    errors = []
    for top in TOPS:
        for dirpath, dirnames, files in os.walk(os.path.join(root, top)):
            dirnames.sort()
            for name in sorted(files):
                if name.endswith((".c", ".h")):
                    rel = os.path.relpath(os.path.join(dirpath, name), root)
                    errors.extend(check_file(root, rel.replace(os.sep, "/")))
    return errors


def self_test():
    """Each forbidden kind of include, planted in a scratch copy, must be caught."""
    root = repo_root(None)
    cases = [
        ("datapath/worker.c", '#include "daemon/control.h"\n', "datapath/ may not include daemon/"),
        ("datapath/ip4.c", '#include "config/config.h"\n', "datapath/ may not include config/"),
        ("mgmt/restconf/get.c", '#include "daemon/mgmt.h"\n', "mgmt/ may not include daemon/"),
        ("config/config.c", '#include "datapath/port.h"\n', "config/ may not include datapath/"),
        ("lib/addr.c", '#include "datapath/ip4.h"\n', "lib/ may not include datapath/"),
        ("daemon/rib.c", '#include "ip4.h"\n', "not a bare name"),
        ("mgmt/snmp/agent.c", '#include "datapath/worker_priv.h"\n', "private header"),
        ("datapath/arp.c", "#include <event2/event.h>\n", "may not use that library"),
    ]
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for top in TOPS:
            shutil.copytree(os.path.join(root, top), os.path.join(tmp, top),
                            ignore=shutil.ignore_patterns("*.o", "*.a", ".deps"))
        if check_tree(tmp):
            print("self-test: the unmodified copy already fails:", file=sys.stderr)
            for e in check_tree(tmp):
                print("  " + e, file=sys.stderr)
            return 1
        for rel, line, expect in cases:
            path = os.path.join(tmp, rel)
            with open(path, encoding="utf-8") as f:
                orig = f.read()
            with open(path, "w", encoding="utf-8") as f:
                f.write(line + orig)
            found = [e for e in check_tree(tmp) if e.startswith(rel + ":1:")]
            ok = any(expect in e for e in found)
            print(f"self-test: {rel} + {line.strip()}: "
                  f"{'caught' if ok else 'NOT CAUGHT'}" + (f" ({found[0]})" if found else ""))
            failures += not ok
            with open(path, "w", encoding="utf-8") as f:
                f.write(orig)
    return 1 if failures else 0


def repo_root(arg):
    if arg:
        return arg
    srcdir = os.environ.get("srcdir")
    if srcdir:
        return srcdir
    return os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def main(argv):
    if len(argv) > 1 and argv[1] == "--self-test":
        return self_test()
    root = repo_root(argv[1] if len(argv) > 1 else None)
    errors = check_tree(root)
    for e in errors:
        print(e)
    print(f"check_layers: {len(errors)} violation(s) in {root}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
