#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# FIB6 benchmark on a real-shaped table: the IPv6 networks of the libloc
# database (Debian package libloc-database, ~220k prefixes), with fib4 on its
# IPv4 networks and the memory's latency measured beside it as anchors.
#   tests/bench/fib6-bench.sh [CPU]      (FIB6_BENCH=path/to/fib6_bench to override)
set -eu

cpu=${1:-1}
here=$(dirname "$0")
bench=${FIB6_BENCH:-}
if [ -z "$bench" ]; then
	for b in ./tests/bench/fib6_bench "$here/fib6_bench"; do
		if [ -x "$b" ]; then
			bench=$b
			break
		fi
	done
fi
if [ -z "$bench" ]; then
	echo "fib6-bench: fib6_bench not built (make tests/bench/fib6_bench)" >&2
	exit 1
fi
if ! command -v location >/dev/null 2>&1; then
	echo "fib6-bench: 'location' not found: apt-get install location libloc-database" >&2
	exit 77
fi

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# "net:   2001:db8::/32" records; IPv6 nets contain ':'.
location dump | awk -v d="$dir" '$1 == "net:" { print $2 > (d "/" ($2 ~ /:/ ? "v6" : "v4")) }'
if [ ! -s "$dir/v6" ]; then
	echo "fib6-bench: no IPv6 nets in 'location dump' output" >&2
	exit 1
fi
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) online;" \
	"L3 $(lscpu | awk -F: '/L3 cache/ { gsub(/^ +/, "", $2); print $2 }'); load: $(cut -d' ' -f1-3 /proc/loadavg)"
"$bench" "$dir/v6" "$cpu" "$dir/v4"
