#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# AAL5 SAR and CRC-32 throughput on one core (tests/bench/sar_bench.c).
#   tests/bench/sar-bench.sh [CPU]      (SAR_BENCH=path/to/sar_bench to override)
# Targets: CRC-32 >= 10 GB/s/core, SAR >= 10 Gbit/s/core at 1500-byte SDUs.
set -eu

cpu=${1:-1}
here=$(dirname "$0")
bench=${SAR_BENCH:-}
if [ -z "$bench" ]; then
	for b in ./tests/bench/sar_bench "$here/sar_bench"; do
		if [ -x "$b" ]; then
			bench=$b
			break
		fi
	done
fi
if [ -z "$bench" ]; then
	echo "sar-bench: sar_bench not built (make tests/bench/sar_bench)" >&2
	exit 1
fi
model=$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
echo "CPU: ${model:-unknown}; kernel $(uname -r)"
exec taskset -c "$cpu" "$bench" "$cpu"
