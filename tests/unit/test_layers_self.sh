#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# make check: the layering check itself fails when a forbidden include is
# planted in a scratch copy of the tree (check_layers.py --self-test).
srcdir=${srcdir:-.}
export srcdir
exec /usr/bin/python3 "$srcdir/tests/unit/check_layers.py" --self-test
