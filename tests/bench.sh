#!/bin/sh
# Benchmark: denpex diagnose against rg, grep -F and cat on the same files.
#
# For each size it generates a bundle with the scenario simulator, reads it
# once so that every tool finds it in the page cache, then times (median of
# RUNS runs each, whole processes, the tools taking turns round by round):
#   denpex diagnose FILES                      read, parse, align, diagnose, print
#   rg -F -c -f LITERALS FILES                 ripgrep, the signatures' literals
#   LC_ALL=C grep -F -c -f LITERALS FILES      GNU grep, the same literals
#   cat FILES >/dev/null                       the floor: moving the bytes
# (output of the others goes to a file: GNU grep stops at its first match
# when writing to /dev/null)
# (LITERALS: `denpex check-signatures --literals`), and prints throughput,
# the ratios denpex/rg, denpex/grep and denpex/cat (of throughputs: above 1
# means denpex is faster) and denpex's peak RSS, with the targets beside
# them. It prints figures; it never fails on time.
#
# Usage: tests/bench.sh [--small] [--runs N] [--keep] [--dir DIR]
#   --small   one small bundle (32 MB, 64 ranks): the size `make check` runs
#   --runs N  runs per tool and size (default 5)
#   --keep    keep the bundles in DIR and reuse them on the next run
#   --dir DIR where bundles are written (default $TMPDIR or /tmp)
# Default sizes: 100 MB / 64 ranks, 1 GB / 512 ranks, 1 GB / 4096 ranks,
# 4 GB / 512 ranks (about 6 GB of disk at the peak with --keep).
#
# Environment (set by make): top_srcdir, top_builddir, PYTHON3,
# DENPEX_CONF_DIR; DENPEX and BENCH_RUN override the binaries.

top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
PYTHON3=${PYTHON3:-python3}
DENPEX=${DENPEX:-$top_builddir/denpex}
BENCH_RUN=${BENCH_RUN:-$top_builddir/tests/bench_run}
sim="$top_srcdir/tests/sim/denpex_sim.py"

small=no
runs=5
keep=no
dir=${TMPDIR:-/tmp}
while [ $# -gt 0 ]; do
    case $1 in
    --small) small=yes ;;
    --runs) runs=$2; shift ;;
    --keep) keep=yes ;;
    --dir) dir=$2; shift ;;
    *) echo "usage: $0 [--small] [--runs N] [--keep] [--dir DIR]" >&2; exit 99 ;;
    esac
    shift
done

for f in "$DENPEX" "$BENCH_RUN"; do
    if [ ! -x "$f" ]; then
        echo "bench: $f is not built (make denpex tests/bench_run)"
        exit 99
    fi
done
if ! "$PYTHON3" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 7) else 1)' 2>/dev/null; then
    echo "bench: SKIP: no usable python3 ($PYTHON3)"
    exit 77
fi
have_rg=no; command -v rg >/dev/null 2>&1 && have_rg=yes
have_grep=no; command -v grep >/dev/null 2>&1 && have_grep=yes

work=$(mktemp -d "$dir/denpex-bench-work.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
trap 'exit 99' HUP INT TERM

lits="$work/literals"
if ! "$DENPEX" check-signatures --literals >"$lits" || [ ! -s "$lits" ]; then
    echo "bench: ERROR: denpex check-signatures --literals failed"
    exit 99
fi

# name ranks bytes rss-target-MiB
if [ $small = yes ]; then
    sizes="32MB 64 32000000 64"
else
    sizes="100MB 64 100000000 64
1GB 512 1000000000 64
1GB 4096 1000000000 256
4GB 512 4000000000 64"
fi

echo "bench: $(nproc 2>/dev/null || echo ?) CPUs, $runs runs each (median), $(wc -l <"$lits") literals"
echo "bench: targets: denpex/rg >= 1.00, denpex/cat >= 0.33 (within 3x of cat), RSS under the cap shown"
printf '%-6s %5s %10s | %9s %9s %9s %9s | %6s %6s %6s | %8s %s\n' \
    size ranks bytes denpex rg grep cat d/rg d/grep d/cat RSS/MiB "(MB/s; ratios of throughput)"
status=0
echo "$sizes" | while read -r name ranks bytes cap; do
    [ -n "$name" ] || continue
    bundle="$dir/denpex-bench-$ranks-$bytes"
    if [ $keep = no ] || [ ! -f "$bundle/.complete" ]; then
        rm -rf "$bundle"
        if ! "$PYTHON3" "$sim" --seed 7 --ranks "$ranks" --noise-bytes "$bytes" \
             --out "$bundle" --truth "$work/truth.json" >/dev/null; then
            echo "bench: ERROR: simulator failed for $name"
            exit 99
        fi
        : >"$bundle/.complete"
    fi
    files=$(find "$bundle" -type f ! -name .complete | LC_ALL=C sort)
    total=$(cat $files | wc -c)
    cat $files >/dev/null    # into the page cache
    # The tools take turns, one run each per round, so that a machine
    # whose speed drifts (a shared host) slows them alike; medians after.
    : >"$work/times"
    d_rss=0
    round=0
    while [ $round -lt "$runs" ]; do
        round=$((round + 1))
        # shellcheck disable=SC2086
        d=$("$BENCH_RUN" -n 1 --out "$work/out" -- "$DENPEX" diagnose $files)
        set -- $d
        if [ "$3" != 0 ]; then
            echo "bench: ERROR: denpex diagnose exited $3 on $name"
            exit 1
        fi
        echo "d $1" >>"$work/times"
        [ "$2" -gt "$d_rss" ] && d_rss=$2
        [ $have_rg = yes ] && echo "r $("$BENCH_RUN" -n 1 --out "$work/out" -- rg --no-config -F -c -f "$lits" $files | cut -d' ' -f1)" >>"$work/times"
        [ $have_grep = yes ] && echo "g $("$BENCH_RUN" -n 1 --out "$work/out" -- env LC_ALL=C grep -F -c -f "$lits" $files | cut -d' ' -f1)" >>"$work/times"
        echo "c $("$BENCH_RUN" -n 1 -- cat $files | cut -d' ' -f1)" >>"$work/times"
    done
    median() {
        v=$(awk -v k="$1" '$1 == k { print $2 }' "$work/times" | sort -g)
        n=$(echo "$v" | grep -c .)
        if [ "$n" -eq 0 ]; then echo -; else echo "$v" | sed -n "$(( (n + 1) / 2 ))p"; fi
    }
    d_t=$(median d); r_t=$(median r); g_t=$(median g); c_t=$(median c)
    awk -v n="$name" -v r="$ranks" -v b="$total" -v d="$d_t" -v rg="$r_t" -v g="$g_t" -v c="$c_t" \
        -v rss="$d_rss" -v cap="$cap" 'function mbs(t) { return t == "-" || t <= 0 ? "-" : sprintf("%.0f", b / 1e6 / t) }
        function ratio(t) { return t == "-" || d <= 0 ? "-" : sprintf("%.2f", t / d) }
        BEGIN {
            printf "%-6s %5s %10s | %9s %9s %9s %9s | %6s %6s %6s | %8.1f (cap %d)\n",
                n, r, b, mbs(d), mbs(rg), mbs(g), mbs(c), ratio(rg), ratio(g), ratio(c), rss / 1024, cap
        }'
    if [ $keep = no ]; then
        rm -rf "$bundle"
    fi
done || status=$?
exit $status
