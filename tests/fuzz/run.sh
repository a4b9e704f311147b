#!/bin/sh
# Runs one fuzz target of tests/fuzz (see local.mk).
#
#   run.sh ENGINE check  tests/fuzz/NAME.seeds   # a test of make check
#   run.sh ENGINE fuzz   NAME SECONDS            # make fuzz
#
# ENGINE is "replay" (built without --enable-fuzzing: the target replays the
# files it is given) or "libfuzzer". check feeds the target its seeds (the
# globs of NAME.seeds, paths under the top source directory) and every file
# of tests/fuzz/regressions/NAME/; under libFuzzer it then fuzzes for
# FUZZ_CHECK_SECONDS (default 3). fuzz fuzzes for SECONDS, starting from the
# seeds, the regressions and the corpus it left in the build tree before.
# A crash leaves its input under tests/fuzz/artifacts/NAME/ in the build
# tree: fix it, and add the input to tests/fuzz/regressions/NAME/.
set -u
engine=$1
mode=$2
: "${top_srcdir:?}" "${top_builddir:?}"
case $mode in
check) name=$(basename "$3" .seeds); seconds=${FUZZ_CHECK_SECONDS:-3} ;;
fuzz) name=$3; seconds=$4 ;;
*) echo "run.sh: unknown mode $mode" >&2; exit 2 ;;
esac
bin=$top_builddir/tests/fuzz/$name
src=$top_srcdir/tests/fuzz
[ -x "$bin" ] || { echo "$bin: not built" >&2; exit 1; }

# The seed and regression files, one per line (no path has a blank). In
# check mode FUZZ_SEED_STRIDE=K (default 1) keeps every K-th seed only, the
# same ones every run; the regressions are always all there. The sanitized
# build sets it (tests/sanitized.sh): under ASan the real-log corpus is the
# longest part of make check, and the plain build replays every seed anyway.
stride=1
[ "$mode" = check ] && stride=${FUZZ_SEED_STRIDE:-1}
case $stride in '' | *[!0-9]* | 0) echo "run.sh: FUZZ_SEED_STRIDE must be a positive number" >&2; exit 2 ;; esac
inputs() {
	(cd "$top_srcdir" && grep -v '^#' "tests/fuzz/$name.seeds" | while read -r g; do
		[ -n "$g" ] || continue
		for f in $g; do [ -f "$f" ] && echo "$top_srcdir/$f"; done
	done) | awk -v k="$stride" '(NR - 1) % k == 0'
	[ -d "$src/regressions/$name" ] && find "$src/regressions/$name" -type f | LC_ALL=C sort
	return 0
}
nseeds=$(inputs | wc -l)
[ "$nseeds" -gt 0 ] || { echo "$name: no seeds" >&2; exit 1; }

if [ "$mode" = check ]; then
	echo "$name: replaying $nseeds seed and regression inputs$([ "$stride" = 1 ] || echo " (one seed in $stride)")"
	# shellcheck disable=SC2046 # one word per file
	"$bin" $(inputs) || exit 1
	[ "$engine" = libfuzzer ] || exit 0
fi
[ "$engine" = libfuzzer ] || { echo "make fuzz needs ./configure --enable-fuzzing (clang-14, libclang-rt-14-dev)" >&2; exit 1; }

corpus=$top_builddir/tests/fuzz/corpus/$name
artifacts=$top_builddir/tests/fuzz/artifacts/$name
mkdir -p "$corpus" "$artifacts"
# Seeds go into the corpus under names of their paths, so reruns add none twice.
inputs | while read -r f; do
	cp "$f" "$corpus/seed-$(printf '%s' "${f#"$top_srcdir"/}" | tr '/' '_')"
done
dict=
[ -f "$src/$name.dict" ] && dict=-dict=$src/$name.dict
echo "$name: fuzzing for $seconds s from $(ls "$corpus" | wc -l) corpus inputs"
# -timeout: an input that takes this long counts as a hang (a sanitized
# build on a busy machine is slow, hence generous); -rss_limit_mb bounds
# what one input may make the reader allocate.
"$bin" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=2048 -max_len=65536 \
	-print_final_stats=1 $dict -artifact_prefix="$artifacts/" "$corpus" 2>"$artifacts/../$name.log"
rc=$?
grep -E '^(#[0-9]+.*(DONE|pulse)|stat::|Done [0-9]+ runs)' "$artifacts/../$name.log" | tail -n 8
if [ $rc -ne 0 ]; then
	tail -n 60 "$artifacts/../$name.log"
	echo "$name: FAILED (exit $rc); input(s) in $artifacts/" >&2
	exit 1
fi
exit 0
