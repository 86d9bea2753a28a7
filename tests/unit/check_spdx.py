# SPDX-License-Identifier: BSD-2-Clause
"""Every source file of the tree names its licence (SPDX-License-Identifier in
its first five lines): code, build files, scripts, the YANG module, the MIB,
man pages, shipped configuration. Data files (JSON, expected outputs, fuzz
seeds, Markdown, the IETF's base MIBs, Debian's control files) are exempt.
Usage: check_spdx.py SRCDIR; exits 1 listing the files without one."""
import os
import sys

CODE_EXT = (".c", ".h", ".py", ".sh", ".am", ".ac", ".yang", ".8", ".service", ".conf",
            ".bash", "-MIB.txt")
CODE_NAMES = ("run", "rules", "daemons.cellgate", "skip-allow.txt")
SKIP_DIRS = {".git", "build", "build-san", "build-fuzz", "_build", "_inst", "autom4te.cache", "m4", "corpus",
             "base-mibs", "__pycache__", ".deps"}
GENERATED = {"config.h", "cellgate-build.h", "Makefile.am.inc"}


def wanted(name):
    return name.endswith(CODE_EXT) or name in CODE_NAMES


def missing(root):
    out = []
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if x not in SKIP_DIRS and not x.startswith("cellgate-")]
        for f in files:
            p = os.path.join(d, f)
            if not wanted(f) or f in GENERATED and d == root:
                continue
            with open(p, errors="replace") as fh:
                head = "".join(fh.readline() for _ in range(5))
            if "SPDX-License-Identifier:" not in head:
                out.append(os.path.relpath(p, root))
    return sorted(out)


if __name__ == "__main__":
    bad = missing(sys.argv[1] if len(sys.argv) > 1 else ".")
    for p in bad:
        print(f"{p}: no SPDX-License-Identifier in its first five lines")
    sys.exit(1 if bad else 0)
