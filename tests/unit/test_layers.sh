#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# make check: every #include of the source tree obeys the architecture's
# floors (tests/unit/check_layers.py); exits 1 with one line per violation.
exec /usr/bin/python3 "${srcdir:-.}/tests/unit/check_layers.py" "${srcdir:-.}"
