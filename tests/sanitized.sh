#!/bin/sh
# The unit suites, golden verdicts, CLI contract and fuzz targets' seeds and
# regressions under ASan+UBSan (tests/sanitized.mk): a copy of the tree
# (make distdir) is configured with this build's options plus
# --enable-sanitizers in a temporary directory, built, and checked there
# with `make check-sanitized`. Where clang and libFuzzer are installed
# (clang-14, libclang-rt-14-dev) it is --enable-fuzzing instead, which
# sanitizes the same way with clang and also fuzzes each target for
# FUZZ_CHECK_SECONDS (3), from every FUZZ_SEED_STRIDE-th seed (8; 1: all).
# SANITIZED_JOBS (2) is make's -j there.
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/denpex-sanitized.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
# A make of its own: not the outer make's jobs or variables.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
jobs=${SANITIZED_JOBS:-2}
start=$(date +%s)

make -s -C "$top_builddir" distdir distdir="$tmp/src" >"$tmp/distdir.log" 2>&1 ||
	{ cat "$tmp/distdir.log"; echo "sanitized: make distdir failed"; exit 1; }
# This build's configure arguments, without the options chosen here.
eval "set -- $("$top_builddir/config.status" --config)"
for a do
	shift
	case $a in --enable-sanitizers | --enable-fuzzing | --disable-sanitizers | --disable-fuzzing | -q | --quiet) ;;
	*) set -- "$@" "$a" ;;
	esac
done
mkdir "$tmp/build" && cd "$tmp/build" || exit 1
mode=--enable-fuzzing
if ! "$tmp/src/configure" -q "$@" $mode >configure.log 2>&1; then
	grep -q -e '--enable-fuzzing needs' config.log configure.log ||
		{ tail -n 30 configure.log; echo "sanitized: configure $mode failed"; exit 1; }
	echo "sanitized: no clang with libFuzzer here: gcc's ASan+UBSan, the fuzz targets replay only"
	mode=--enable-sanitizers
	"$tmp/src/configure" -q "$@" $mode >configure.log 2>&1 ||
		{ tail -n 30 configure.log; echo "sanitized: configure $mode failed"; exit 1; }
fi
echo "sanitized: configure $* $mode"
if ! make -j"$jobs" >build.log 2>&1; then
	grep -E -B2 -A8 'error|Error' build.log | head -n 80
	echo "sanitized: build failed"
	exit 1
fi
built=$(date +%s)
echo "sanitized: built in $((built - start)) s"
# ASan and UBSan make the suites two to three times slower; Check's
# per-test timeouts grow with them.
CK_TIMEOUT_MULTIPLIER=${CK_TIMEOUT_MULTIPLIER:-4}
FR_FUZZ_SECONDS=${FR_FUZZ_SECONDS:-10}
# The fuzz targets' seeds include every job.log of the real-log corpus:
# under ASan every eighth one (the plain build's tests replay them all).
FUZZ_SEED_STRIDE=${FUZZ_SEED_STRIDE:-8}
export CK_TIMEOUT_MULTIPLIER
export FR_FUZZ_SECONDS
export FUZZ_SEED_STRIDE
make -j"$jobs" check-sanitized >check.log 2>&1
rc=$?
grep -E '^(PASS|FAIL|ERROR|XPASS|SKIP|# )' check.log
# Where the time went: each test's seconds (its log's birth to last write).
find tests -name '*.log' ! -name test-suite.log | while read -r log; do
	b=$(stat -c %W "$log" 2>/dev/null) m=$(stat -c %Y "$log" 2>/dev/null)
	[ "${b:-0}" -gt 0 ] && echo "$((m - b)) s ${log%.log}"
done | sort -rn | head -n 8 | sed 's/^/sanitized: slowest: /'
if [ $rc -ne 0 ]; then
	# The logs of what failed, for CI's output.
	for log in $(find tests -name '*.log'); do
		trs=${log%.log}.trs
		[ -f "$trs" ] && grep -q ':test-result: \(FAIL\|ERROR\|XPASS\)' "$trs" && { echo "--- $log"; tail -n 80 "$log"; }
	done
	grep -q '^# TOTAL' check.log || tail -n 60 check.log
fi
echo "sanitized: tests in $(($(date +%s) - built)) s, $(($(date +%s) - start)) s in all"
exit $rc
