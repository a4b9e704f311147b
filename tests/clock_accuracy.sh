#!/bin/sh
# One clock for all ranks, measured: the same 300 simulated failures twice,
# once with every node's clock true and once with offsets up to 60 s and
# drift up to 50 ppm. First-rank accuracy with skew must stay within one
# point of the accuracy without it, and the offsets denpex recovers must
# match the simulator's (tests/sim/clock_score.py). The suites are noise-free
# (--noise none): this test measures clocks; tests/accuracy.sh measures noise.
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
PYTHON3=${PYTHON3:-python3}
DENPEX=${DENPEX:-$top_builddir/denpex}
count=${DENPEX_SUITE_COUNT:-300}
seed=${DENPEX_CLOCK_SEED:-3}
sim="$top_srcdir/tests/sim/denpex_sim.py"
[ -x "$DENPEX" ] || { echo "clock: ERROR: $DENPEX is not built"; exit 99; }
work=$(mktemp -d "${TMPDIR:-/tmp}/denpex-clock.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT

run_suite() { # name skew drift -> prints first-rank accuracy
	name=$1
	mkdir -p "$work/$name/bundles" "$work/$name/truth" "$work/$name/verdicts"
	"$PYTHON3" "$sim" suite --count "$count" --seed "$seed" --out "$work/$name/bundles" \
		--truth-dir "$work/$name/truth" --quiet --skew-max "$2" --drift-ppm "$3" --noise none || return 1
	for dir in "$work/$name/bundles"/*/; do
		dir=${dir%/}
		"$DENPEX" diagnose --json "$dir" >"$work/$name/verdicts/${dir##*/}.json" 2>/dev/null
	done
	"$PYTHON3" "$top_srcdir/tests/sim/score.py" --truth-dir "$work/$name/truth" \
		--verdict-dir "$work/$name/verdicts" --min-class 0 --min-first 0 --show 0 >"$work/$name.score"
	awk '$1 == "overall" { sub("%", "", $4); print $4 }' "$work/$name.score"
}

true_clock=$(run_suite true 0 0) || { echo "clock: ERROR: simulator failed"; exit 99; }
skewed=$(run_suite skewed 60 50) || { echo "clock: ERROR: simulator failed"; exit 99; }
echo "clock: first-rank accuracy, true clocks: $true_clock%, skewed clocks (60 s, 50 ppm): $skewed%"
"$PYTHON3" "$top_srcdir/tests/sim/clock_score.py" --truth-dir "$work/skewed/truth" --verdict-dir "$work/skewed/verdicts"
clock_rc=$?
if awk -v a="$true_clock" -v b="$skewed" 'BEGIN { d = a - b; exit !(d <= 1.0) }'; then
	echo "clock: skew costs at most one point of first-rank accuracy: PASS"
	skew_rc=0
else
	echo "clock: skew costs more than one point of first-rank accuracy: FAIL"
	skew_rc=1
fi
[ $clock_rc -eq 0 ] && [ $skew_rc -eq 0 ]
