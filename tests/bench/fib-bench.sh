#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# IPv4 FIB benchmark, DIR-24-8 and Poptrie side by side in one run, on a
# real-shaped table: the IPv4 networks of the libloc database (Debian
# package libloc-database, ~1.07M prefixes) with their origin AS.
#   tests/bench/fib-bench.sh [CPU] [choice]   (FIB_BENCH=path/to/fib_bench to override)
# Lookups run pinned to CPU; the update-under-lookup run puts its control
# thread on the other CPU of the pair (CPU ^ 1). Two passes: routes mapped to
# 64 next-hop groups by origin AS (a router's values), the full report; then
# one value per route (the worst case for a compressed table), load, memory
# and random and in-table lookups only.
# "choice": instead, the measurement behind the structure's design
# (fib_bench_choice: static Poptrie and DXR builds next to DIR-24-8).
set -eu

cpu=${1:-0}
mode=${2:-}
here=$(dirname "$0")
bench=${FIB_BENCH:-}
[ "$mode" = choice ] && bench=${FIB_BENCH_CHOICE:-}
if [ -z "$bench" ]; then
	name=fib_bench
	[ "$mode" = choice ] && name=fib_bench_choice
	for b in ./tests/bench/$name "$here/$name"; do
		if [ -x "$b" ]; then
			bench=$b
			break
		fi
	done
fi
if [ -z "$bench" ]; then
	echo "fib-bench: $name not built (make tests/bench/$name)" >&2
	exit 1
fi
if ! command -v location >/dev/null 2>&1; then
	echo "fib-bench: 'location' not found: apt-get install location libloc-database" >&2
	exit 77
fi

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
# "net:   1.0.0.0/24" records, each maybe followed by "aut-num: N"; IPv6 nets
# contain ':' and are left out.
location dump | awk '
	$1 == "net:" { if (net != "") print net, asn; net = ($2 ~ /:/) ? "" : $2; asn = 0; next }
	$1 == "aut-num:" { asn = $2 }
	END { if (net != "") print net, asn }' >"$tmp"
if [ ! -s "$tmp" ]; then
	echo "fib-bench: no IPv4 nets in 'location dump' output" >&2
	exit 1
fi
if [ "$mode" = choice ]; then
	"$bench" "$tmp" "$cpu" 64
	exit
fi
echo "== $(uname -m), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "== routes in 64 next-hop groups (by origin AS)"
"$bench" "$tmp" "$cpu" 64
echo "== one value per route"
"$bench" "$tmp" "$cpu" 0 short
