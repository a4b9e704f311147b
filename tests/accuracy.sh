#!/bin/sh
# Accuracy test: generate two fixed-seed scenario suites with the simulator -- the
# TUNING suite (seed 1) and a HELD-OUT suite (seed 1000, not to be looked at while
# tuning) -- diagnose every bundle with `denpex diagnose --json`, and score the
# verdicts against the ground truth: class, first rank, and first host where the
# truth names one, per class and per noise kind (tests/sim/score.py).
#
# Fails when class, first-rank or first-host accuracy of either suite falls below
# its floor.  The target is 0.95 each (issue 11).  The floors below are a
# regression guard: what the engine measured (sim branch, issue 11, fourth
# round: tuning 100.0/99.7/99.6, held-out 100.0/98.3/98.7), just below the lower
# suite. Raise them as the engine improves; never lower them to make a change pass.
floor_class=${DENPEX_FLOOR_CLASS:-0.995}
floor_first=${DENPEX_FLOOR_FIRST:-0.98}
floor_host=${DENPEX_FLOOR_HOST:-0.985}
#
# Environment (set by tests/local.mk): top_srcdir, top_builddir, PYTHON3,
# DENPEX_CONF_DIR.  Optional: DENPEX (binary to test), DENPEX_SUITE_COUNT /
# DENPEX_SUITE_SEED (tuning suite, default 300 / 1), DENPEX_HELDOUT_COUNT /
# DENPEX_HELDOUT_SEED (held-out suite, default 300 / 1000; count 0 skips it),
# DENPEX_SIM_NOISE (mixed = default, none = the noise-free suites of before, or a
# comma list of kinds), DENPEX_KEEP=1 (keep the work dir), DENPEX_CASE_TIMEOUT
# (seconds per case, default 120), DENPEX_SHOW_HELDOUT=1 (list the held-out misses).
#
# The truth is written to a sibling directory, never inside a bundle, so denpex
# cannot read it.

top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
PYTHON3=${PYTHON3:-python3}
DENPEX=${DENPEX:-$top_builddir/denpex}
tuning_count=${DENPEX_SUITE_COUNT:-300}
tuning_seed=${DENPEX_SUITE_SEED:-1}
heldout_count=${DENPEX_HELDOUT_COUNT:-300}
heldout_seed=${DENPEX_HELDOUT_SEED:-1000}
noise=${DENPEX_SIM_NOISE:-mixed}
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

have_timeout=no
if command -v timeout >/dev/null 2>&1; then
    have_timeout=yes
fi

generate() { # name count seed
    mkdir -p "$work/$1/bundles" "$work/$1/truth" "$work/$1/verdicts" || return 1
    "$PYTHON3" "$sim" suite --count "$2" --seed "$3" --noise "$noise" \
        --out "$work/$1/bundles" --truth-dir "$work/$1/truth" --quiet
}

diagnose_all() { # name
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
}

suites="tuning"
[ "$heldout_count" -gt 0 ] && suites="tuning heldout"

# the two suites side by side (two cores)
start=$(date +%s)
generate tuning "$tuning_count" "$tuning_seed" &
pid_t=$!
if [ "$heldout_count" -gt 0 ]; then
    generate heldout "$heldout_count" "$heldout_seed" &
    pid_h=$!
    wait $pid_h || { echo "accuracy: ERROR: simulator failed (held-out suite)"; exit 99; }
fi
wait $pid_t || { echo "accuracy: ERROR: simulator failed (tuning suite)"; exit 99; }
gen=$(date +%s)
echo "accuracy: generated tuning ($tuning_count cases, seed $tuning_seed) and held-out ($heldout_count cases, seed $heldout_seed) suites, noise $noise, in $((gen - start)) s"

pids=
for s in $suites; do
    diagnose_all "$s" &
    pids="$pids $!"
done
for p in $pids; do
    wait "$p"
done
diag=$(date +%s)
echo "accuracy: diagnosed both suites in $((diag - gen)) s"

rc=0
for s in $suites; do
    # The held-out suite's misses are not listed (its totals are the measure;
    # a list of its cases is what one would tune on). DENPEX_SHOW_HELDOUT=1 lists them.
    show=40
    [ "$s" = heldout ] && [ "${DENPEX_SHOW_HELDOUT:-}" != 1 ] && show=0
    "$PYTHON3" "$score" --label "$s" --truth-dir "$work/$s/truth" --verdict-dir "$work/$s/verdicts" \
        --min-class "$floor_class" --min-first "$floor_first" --min-host "$floor_host" --show "$show"
    r=$?
    if [ $r -ne 0 ] && [ $r -ne 1 ]; then
        echo "accuracy: ERROR: scorer failed ($r)"
        exit 99
    fi
    [ $r -ne 0 ] && rc=1
    echo
done
echo "accuracy: floors class $floor_class, first rank $floor_first, first host $floor_host (target 0.95 each): $([ $rc -eq 0 ] && echo ok || echo FAIL)"
exit $rc
