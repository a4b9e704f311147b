#!/bin/sh
# Independent accuracy test (issue 11): the same measure as tests/accuracy.sh, on logs
# from a second simulator, tests/sim/independent_sim.py, written without reading the
# engine, its signatures or tests/sim/denpex_sim.py (its line shapes come from
# FORMATS.md, DESIGN.md and public issue threads).  Two fixed-seed suites: DEV (seed 1)
# and HELD-OUT (seed 1000, whose misses are not listed: its totals are the measure).
# Every bundle is diagnosed with `denpex diagnose --json` and scored with
# tests/sim/score.py: class, first rank, and first host where the truth names one.
#
# Fails when class, first-rank or first-host accuracy of either suite falls below its
# floor.  Measured (h/indsim, 2026-12-03, 120 cases per suite, class / first rank /
# first host %): first version of the simulator dev 99.2 / 95.0 / 95.9, held-out
# 98.3 / 93.3 / 94.8; this version (shipper layout, tqdm-glued lines, NUL-padded and
# truncated files of a dead node, DeepSpeed launcher endgame) dev 98.3 / 94.2 / 94.8,
# held-out 98.3 / 91.7 / 92.4.  The engine was then worked on the dev misses of seeds
# 1, 2 and 3 (never on seed 1000's): dev 99.2 / 99.2 / 99.0, held-out 99.2 / 95.8 / 96.7;
# unseen seeds 2000 and 3000, measured once each, 98.3 / 97.5 / 97.8 and 97.5 / 91.7 /
# 93.9.  Next round, worked on the dev misses of new seeds 4-7 (never on seeds 1000,
# 2000 or 3000): dev 100 / 99.2 / 100, held-out 100 / 98.3 / 98.9; unseen seeds 2000
# and 3000 99.2 / 99.2 / 98.9 and 100 / 95.0 / 98.0.  The floors are just below the
# lower suite.  Raise them as the engine improves; never lower them to make a change
# pass.
floor_class=${DENPEX_FLOOR_CLASS:-0.985}
floor_first=${DENPEX_FLOOR_FIRST:-0.97}
floor_host=${DENPEX_FLOOR_HOST:-0.98}
#
# Environment (set by tests/local.mk): top_srcdir, top_builddir, PYTHON3,
# DENPEX_CONF_DIR.  Optional: DENPEX (binary to test), DENPEX_IND_COUNT (cases per
# suite, default 120), DENPEX_KEEP=1 (keep the work dir), DENPEX_CASE_TIMEOUT (seconds
# per case, default 120), DENPEX_SHOW_HELDOUT=1 (list the held-out misses).
#
# The truth is written to a sibling directory, never inside a bundle.

top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
PYTHON3=${PYTHON3:-python3}
DENPEX=${DENPEX:-$top_builddir/denpex}
count=${DENPEX_IND_COUNT:-120}
case_timeout=${DENPEX_CASE_TIMEOUT:-120}
sim="$top_srcdir/tests/sim/independent_sim.py"
score="$top_srcdir/tests/sim/score.py"

if [ ! -x "$DENPEX" ]; then
    echo "independent_accuracy: ERROR: $DENPEX is not built"
    exit 99
fi
if ! "$PYTHON3" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 7) else 1)' 2>/dev/null; then
    echo "independent_accuracy: SKIP: no usable python3 ($PYTHON3)"
    exit 77
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/denpex-indacc.XXXXXX") || exit 99
cleanup() {
    if [ "${DENPEX_KEEP:-0}" = 1 ]; then
        echo "independent_accuracy: work dir kept: $work"
    else
        rm -rf "$work"
    fi
}
trap cleanup EXIT
trap 'exit 99' HUP INT TERM

have_timeout=no
command -v timeout >/dev/null 2>&1 && have_timeout=yes

run_suite() { # name seed
    mkdir -p "$work/$1/bundles" "$work/$1/truth" "$work/$1/verdicts" || return 99
    "$PYTHON3" "$sim" suite --count "$count" --seed "$2" \
        --out "$work/$1/bundles" --truth-dir "$work/$1/truth" --quiet || return 99
    for dir in "$work/$1/bundles"/*/; do
        dir=${dir%/}
        name=${dir##*/}
        out="$work/$1/verdicts/$name"
        if [ "$have_timeout" = yes ]; then
            timeout "$case_timeout" "$DENPEX" diagnose --json "$dir" >"$out.json" 2>"$out.err"
        else
            "$DENPEX" diagnose --json "$dir" >"$out.json" 2>"$out.err"
        fi
        echo $? >"$out.rc"
    done
    return 0
}

start=$(date +%s)
run_suite dev 1 &
pid_d=$!
run_suite heldout 1000 &
pid_h=$!
wait $pid_d || { echo "independent_accuracy: ERROR: simulator failed (dev suite)"; exit 99; }
wait $pid_h || { echo "independent_accuracy: ERROR: simulator failed (held-out suite)"; exit 99; }
echo "independent_accuracy: generated and diagnosed dev (seed 1) and held-out (seed 1000) suites, $count cases each, in $(($(date +%s) - start)) s"

# every case must have produced a verdict (exit 0); a crash or refusal is a failure too
bad=0
for s in dev heldout; do
    for rcf in "$work/$s/verdicts"/*.rc; do
        if [ "$(cat "$rcf")" != 0 ]; then
            echo "independent_accuracy: $s/$(basename "$rcf" .rc): denpex exited $(cat "$rcf")"
            bad=1
        fi
    done
done

rc=$bad
for s in dev heldout; do
    show=40
    [ "$s" = heldout ] && [ "${DENPEX_SHOW_HELDOUT:-}" != 1 ] && show=0
    "$PYTHON3" "$score" --label "independent-$s" --truth-dir "$work/$s/truth" --verdict-dir "$work/$s/verdicts" \
        --min-class "$floor_class" --min-first "$floor_first" --min-host "$floor_host" --show "$show"
    r=$?
    if [ $r -ne 0 ] && [ $r -ne 1 ]; then
        echo "independent_accuracy: ERROR: scorer failed ($r)"
        exit 99
    fi
    [ $r -ne 0 ] && rc=1
    echo
done
echo "independent_accuracy: floors class $floor_class, first rank $floor_first, first host $floor_host: $([ $rc -eq 0 ] && echo ok || echo FAIL)"
exit $rc
