#!/bin/sh
# Peak memory does not grow with bytes read: denpex diagnose on a simulated
# 1 GB, 512-rank bundle must stay under 64 MiB of peak RSS (getrusage of the
# child, via tests/bench_run; not a timing test).
#
# Environment: DENPEX_RSS_BYTES (default 1000000000), DENPEX_RSS_RANKS
# (default 512), DENPEX_RSS_CAP_KIB (default 65536).

top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
PYTHON3=${PYTHON3:-python3}
DENPEX=${DENPEX:-$top_builddir/denpex}
BENCH_RUN=${BENCH_RUN:-$top_builddir/tests/bench_run}
bytes=${DENPEX_RSS_BYTES:-1000000000}
ranks=${DENPEX_RSS_RANKS:-512}
cap=${DENPEX_RSS_CAP_KIB:-65536}

for f in "$DENPEX" "$BENCH_RUN"; do
    [ -x "$f" ] || { echo "rss: $f is not built"; exit 99; }
done
if ! "$PYTHON3" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 7) else 1)' 2>/dev/null; then
    echo "rss: SKIP: no usable python3 ($PYTHON3)"
    exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/denpex-rss.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
trap 'exit 99' HUP INT TERM

if ! "$PYTHON3" "$top_srcdir/tests/sim/denpex_sim.py" --seed 7 --ranks "$ranks" \
     --noise-bytes "$bytes" --out "$work/bundle" --truth "$work/truth.json" >/dev/null; then
    echo "rss: ERROR: simulator failed"
    exit 99
fi
out=$("$BENCH_RUN" -n 1 --max-rss-kib "$cap" -- "$DENPEX" diagnose "$work/bundle")
rc=$?
set -- $out
echo "rss: $(du -sh "$work/bundle" | cut -f1) bundle, $ranks ranks: peak RSS $2 KiB, cap $cap KiB, $1 s"
case $rc in
0) exit 0 ;;
1) echo "rss: FAIL: peak RSS over the cap"; exit 1 ;;
*) echo "rss: FAIL: denpex diagnose exited $3"; exit 1 ;;
esac
