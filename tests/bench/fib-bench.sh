#!/bin/sh
# FIB4 benchmark on a real-shaped table: the IPv4 networks of the libloc
# database (Debian package libloc-database, ~1.07M prefixes).
#   tests/bench/fib-bench.sh [CPU]      (FIB_BENCH=path/to/fib_bench to override)
set -eu

cpu=${1:-0}
here=$(dirname "$0")
bench=${FIB_BENCH:-}
if [ -z "$bench" ]; then
	for b in ./tests/bench/fib_bench "$here/fib_bench"; do
		if [ -x "$b" ]; then
			bench=$b
			break
		fi
	done
fi
if [ -z "$bench" ]; then
	echo "fib-bench: fib_bench not built (make tests/bench/fib_bench)" >&2
	exit 1
fi
if ! command -v location >/dev/null 2>&1; then
	echo "fib-bench: 'location' not found: apt-get install location libloc-database" >&2
	exit 77
fi

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
# "net:   1.0.0.0/24" records; IPv6 nets contain ':' and are left out.
location dump | awk '$1 == "net:" && $2 !~ /:/ { print $2 }' >"$tmp"
if [ ! -s "$tmp" ]; then
	echo "fib-bench: no IPv4 nets in 'location dump' output" >&2
	exit 1
fi
"$bench" "$tmp" "$cpu"
