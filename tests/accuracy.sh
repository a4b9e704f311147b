#!/bin/sh
# Accuracy test: generate the fixed-seed scenario suite with the simulator,
# diagnose every bundle with `denpex diagnose --json`, and score the verdicts
# against the ground truth (class and first rank, >= 95% each).
#
# Environment (set by tests/local.mk): top_srcdir, top_builddir, PYTHON3,
# DENPEX_CONF_DIR.  Optional: DENPEX (binary to test), DENPEX_SUITE_COUNT
# (default 300), DENPEX_SUITE_SEED (default 1), DENPEX_KEEP=1 (keep the work
# dir), DENPEX_CASE_TIMEOUT (seconds per case, default 120).
#
# The truth is written to a sibling directory, never inside a bundle, so denpex
# cannot read it.

top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
PYTHON3=${PYTHON3:-python3}
DENPEX=${DENPEX:-$top_builddir/denpex}
count=${DENPEX_SUITE_COUNT:-300}
seed=${DENPEX_SUITE_SEED:-1}
case_timeout=${DENPEX_CASE_TIMEOUT:-120}
sim="$top_srcdir/tests/sim/denpex_sim.py"
score="$top_srcdir/tests/sim/score.py"

if [ ! -x "$DENPEX" ]; then
    echo "accuracy: ERROR: $DENPEX is not built"
    exit 99
fi
if ! "$PYTHON3" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 7) else 1)' 2>/dev/null; then
    echo "accuracy: SKIP: no usable python3 ($PYTHON3)"
    exit 77
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/denpex-accuracy.XXXXXX") || exit 99
cleanup() {
    if [ "${DENPEX_KEEP:-0}" = 1 ]; then
        echo "accuracy: work dir kept: $work"
    else
        rm -rf "$work"
    fi
}
trap cleanup EXIT
trap 'exit 99' HUP INT TERM

bundles="$work/bundles"
truth="$work/truth"
verdicts="$work/verdicts"
mkdir -p "$bundles" "$truth" "$verdicts" || exit 99

start=$(date +%s)
if ! "$PYTHON3" "$sim" suite --count "$count" --seed "$seed" --out "$bundles" --truth-dir "$truth" --quiet; then
    echo "accuracy: ERROR: simulator failed"
    exit 99
fi
gen=$(date +%s)
echo "accuracy: generated $count scenarios (seed $seed) in $((gen - start)) s"

have_timeout=no
if command -v timeout >/dev/null 2>&1; then
    have_timeout=yes
fi

for dir in "$bundles"/*/; do
    dir=${dir%/}
    name=${dir##*/}
    if [ "$have_timeout" = yes ]; then
        timeout "$case_timeout" "$DENPEX" diagnose --json "$dir" >"$verdicts/$name.json" 2>"$verdicts/$name.err"
    else
        "$DENPEX" diagnose --json "$dir" >"$verdicts/$name.json" 2>"$verdicts/$name.err"
    fi
    echo $? >"$verdicts/$name.rc"
done
diag=$(date +%s)
echo "accuracy: diagnosed $count bundles in $((diag - gen)) s"

"$PYTHON3" "$score" --truth-dir "$truth" --verdict-dir "$verdicts"
rc=$?
if [ $rc -ne 0 ] && [ $rc -ne 1 ]; then
    echo "accuracy: ERROR: scorer failed ($rc)"
    exit 99
fi
exit $rc
