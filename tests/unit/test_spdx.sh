#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# make check: every source file carries an SPDX licence line
# (tests/unit/check_spdx.py), and the checker finds one that does not.
set -e
src=${srcdir:-.}
/usr/bin/python3 "$src/tests/unit/check_spdx.py" "$src"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '/* no licence line */\nint x;\n' >"$tmp/bad.c"
if /usr/bin/python3 "$src/tests/unit/check_spdx.py" "$tmp" >/dev/null; then
	echo "check_spdx.py did not notice $tmp/bad.c" >&2
	exit 1
fi
