#!/bin/sh
# denpex serve under hostile requests (tests/console/hostile.py), on loopback.
: "${top_srcdir:=.}" "${top_builddir:=.}" "${PYTHON3:=python3}"
export top_srcdir top_builddir
exec timeout 300 "$PYTHON3" "$top_srcdir/tests/console/hostile.py"
