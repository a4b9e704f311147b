#!/bin/sh
# Metamorphic check on the real-log corpus: each case's verdict (class,
# first rank, first host) must survive changes that do not change what
# happened: its first host renamed everywhere, CRLF line ends, job.log named
# slurm-N.out, the files given in reverse order, a case of one file
# on standard input (tests/sim/invariance_realworld.py).
# It reads no truth, so it covers the dev and the held-out split alike.
# The cases' own verdicts come from tests/realworld.sh's run, which make
# orders first (tests/realworld.mk), where they are this build's.

top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
PYTHON3=${PYTHON3:-python3}
DENPEX=${DENPEX:-$top_builddir/denpex}
corpus=${REALWORLD_CORPUS:-$top_srcdir/tests/data/realworld}

if [ ! -x "$DENPEX" ]; then
	echo "realworld_invariance: ERROR: $DENPEX is not built"
	exit 99
fi
"$PYTHON3" "$top_srcdir/tests/sim/invariance_realworld.py" --denpex "$DENPEX" --corpus "$corpus" \
	--base "$top_builddir/tests/realworld.verdicts.json"
rc=$?
[ $rc -eq 2 ] && exit 99
exit $rc
