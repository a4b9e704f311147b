#!/bin/sh
# Benchmark: denpex diagnose against rg, grep -F and cat on the same files.
#
# For each size it generates a bundle with the scenario simulator, reads it
# once so that every tool finds it in the page cache, then times (the least
# of RUNS runs each: on a shared machine the least is the least disturbed;
# whole processes, the tools taking turns round by round):
#   denpex diagnose FILES                      read, parse, align, diagnose, print
#   rg -F -c -f LITERALS FILES                 ripgrep, the signatures' literals
#   rg -c -e ADMIN FILES                       ripgrep, an admin's 10-keyword search
#   LC_ALL=C grep -F -c -f LITERALS FILES      GNU grep, the same literals
#   cat FILES >/dev/null                       the floor: moving the bytes
# (output of the others goes to a file: GNU grep stops at its first match
# when writing to /dev/null)
# (LITERALS: `denpex check-signatures --literals`; ADMIN: what an admin would
# type, "Xid|out of memory|...|nan"), and prints throughput, the ratios
# denpex/rg, denpex/admin (rg with ADMIN), denpex/grep and denpex/cat (of
# throughputs: above 1 means denpex is faster) and denpex's peak RSS, with
# the targets beside them; then where denpex's time went (one more run with
# DENPEX_TIMING=1: scan, tail reads, diagnosis; with several large files the
# scan, tail and context times are summed over the threads that chose their
# lines ahead, so they may add up to more than the total). It prints figures;
# it never fails on time.
#
# A bundle of "files" is the simulator's job output split into one file per
# rank (tests/sim/split_ranks.py), as `srun --label --output=%t` leaves it,
# beside the kernel logs: there rg reads on every CPU.
#
# Usage: tests/bench.sh [--small] [--runs N] [--keep] [--dir DIR] [--only NAME]
#   --small   one small bundle (32 MB, 64 ranks): the size `make check` runs
#   --runs N  runs per tool and size (default 5)
#   --keep    keep the bundles in DIR and reuse them on the next run
#   --dir DIR where bundles are written (default $TMPDIR or /tmp)
#   --only S  only the sizes whose "SIZE/RANKS/LAYOUT" contains S (e.g. 1GB/512)
# Default sizes: 100 MB / 64 ranks, 1 GB / 512 ranks, 1 GB / 512 rank files,
# 1 GB / 4096 ranks, 4 GB / 512 ranks (about 7 GB of disk at the peak with
# --keep).
#
# Environment (set by make): top_srcdir, top_builddir, PYTHON3,
# DENPEX_CONF_DIR; DENPEX and BENCH_RUN override the binaries.

top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
PYTHON3=${PYTHON3:-python3}
DENPEX=${DENPEX:-$top_builddir/denpex}
BENCH_RUN=${BENCH_RUN:-$top_builddir/tests/bench_run}
sim="$top_srcdir/tests/sim/denpex_sim.py"
split="$top_srcdir/tests/sim/split_ranks.py"
admin='Xid|out of memory|Watchdog caught|NCCL WARN|Traceback|Killed process|CANCELLED AT|Segmentation fault|illegal memory access|nan'

small=no
runs=5
keep=no
dir=${TMPDIR:-/tmp}
only=
while [ $# -gt 0 ]; do
    case $1 in
    --small) small=yes ;;
    --runs) runs=$2; shift ;;
    --keep) keep=yes ;;
    --dir) dir=$2; shift ;;
    --only) only=$2; shift ;;
    *) echo "usage: $0 [--small] [--runs N] [--keep] [--dir DIR] [--only SIZE]" >&2; exit 99 ;;
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

# denpex's compiled Vectorscan database, kept between its runs as
# the user's cache keeps it (DENPEX_CACHE_DIR): its first run compiles.
DENPEX_CACHE_DIR="$work/cache"
export DENPEX_CACHE_DIR

lits="$work/literals"
if ! "$DENPEX" check-signatures --literals >"$lits" || [ ! -s "$lits" ]; then
    echo "bench: ERROR: denpex check-signatures --literals failed"
    exit 99
fi

# name ranks bytes rss-target-MiB layout (one: as simulated; files: a file per rank)
if [ $small = yes ]; then
    sizes="32MB 64 32000000 64 one"
else
    sizes="100MB 64 100000000 64 one
1GB 512 1000000000 64 one
1GB 512 1000000000 64 files
1GB 4096 1000000000 256 one
4GB 512 4000000000 64 one"
fi

echo "bench: $(nproc 2>/dev/null || echo ?) CPUs, $runs runs each (least), $(wc -l <"$lits") literals"
# Why the scan keeps its literal set (issue 17): how few anchors could
# stand in for the fault literals in a two-stage scan.
if "$DENPEX" check-signatures --fault-literals >"$work/fault-literals" 2>/dev/null; then
    echo "bench: prefilter: $("$PYTHON3" "$top_srcdir/tests/prefilter_anchors.py" "$work/fault-literals")" \
         "(Vectorscan keeps a 10-keyword search's speed up to about 16)"
fi
echo "bench: targets: d/rg >= 1.00 (rg with denpex's literals), d/admin >= 0.50 (within 2x of an admin's rg), RSS under the cap shown"
printf '%-6s %5s %5s %10s | %7s %7s %7s %7s %7s | %5s %7s %6s %5s | %7s %s\n' \
    size ranks files bytes denpex rg admin grep cat d/rg d/admin d/grep d/cat RSS/MiB "(MB/s; ratios of throughput)"
status=0
echo "$sizes" | while read -r name ranks bytes cap layout; do
    [ -n "$name" ] || continue
    case "$name/$ranks/$layout" in *"$only"*) ;; *) continue ;; esac
    bundle="$dir/denpex-bench-$ranks-$bytes-$layout"
    if [ $keep = no ] || [ ! -f "$bundle/.complete" ]; then
        rm -rf "$bundle"
        # Room for the bundle (and, for rank files, its split copy).
        free_kb=$(df -Pk "$dir" | awk 'NR == 2 { print $4 }')
        need_kb=$((bytes / 1024 * 2 + 1048576))
        if [ -n "$free_kb" ] && [ "$free_kb" -lt "$need_kb" ]; then
            echo "$name/$ranks/$layout: skipped, $((free_kb / 1024)) MiB free in $dir, $((need_kb / 1024)) MiB needed"
            continue
        fi
        if ! "$PYTHON3" "$sim" --seed 7 --ranks "$ranks" --noise-bytes "$bytes" \
             --out "$bundle" --truth "$work/truth.json" >/dev/null; then
            echo "bench: ERROR: simulator failed for $name"
            exit 99
        fi
        if [ "$layout" = files ] && ! "$PYTHON3" "$split" "$bundle" >/dev/null; then
            echo "bench: ERROR: splitting $name into rank files failed"
            exit 99
        fi
        : >"$bundle/.complete"
    fi
    files=$(find "$bundle" -type f ! -name .complete | LC_ALL=C sort)
    nfiles=$(echo "$files" | grep -c .)
    # shellcheck disable=SC2086
    total=$(cat $files | wc -c)
    # shellcheck disable=SC2086
    cat $files >/dev/null    # into the page cache
    # The tools take turns, one run each per round, so that a machine
    # whose speed drifts (a shared host) slows them alike.
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
        # shellcheck disable=SC2086
        [ $have_rg = yes ] && echo "r $("$BENCH_RUN" -n 1 --out "$work/out" -- rg --no-config -F -c -f "$lits" $files | cut -d' ' -f1)" >>"$work/times"
        # shellcheck disable=SC2086
        [ $have_rg = yes ] && echo "a $("$BENCH_RUN" -n 1 --out "$work/out" -- rg --no-config -c -e "$admin" $files | cut -d' ' -f1)" >>"$work/times"
        # shellcheck disable=SC2086
        [ $have_grep = yes ] && echo "g $("$BENCH_RUN" -n 1 --out "$work/out" -- env LC_ALL=C grep -F -c -f "$lits" $files | cut -d' ' -f1)" >>"$work/times"
        # shellcheck disable=SC2086
        echo "c $("$BENCH_RUN" -n 1 -- cat $files | cut -d' ' -f1)" >>"$work/times"
    done
    least() {
        v=$(awk -v k="$1" '$1 == k { print $2 }' "$work/times" | sort -g | head -n 1)
        if [ -z "$v" ]; then echo -; else echo "$v"; fi
    }
    d_t=$(least d); r_t=$(least r); a_t=$(least a); g_t=$(least g); c_t=$(least c)
    awk -v n="$name" -v r="$ranks" -v nf="$nfiles" -v b="$total" -v d="$d_t" -v rg="$r_t" -v a="$a_t" \
        -v g="$g_t" -v c="$c_t" -v rss="$d_rss" -v cap="$cap" '
        function mbs(t) { return t == "-" || t <= 0 ? "-" : sprintf("%.0f", b / 1e6 / t) }
        function ratio(t) { return t == "-" || d <= 0 ? "-" : sprintf("%.2f", t / d) }
        BEGIN {
            printf "%-6s %5s %5s %10s | %7s %7s %7s %7s %7s | %5s %7s %6s %5s | %7.1f (cap %d)\n",
                n, r, nf, b, mbs(d), mbs(rg), mbs(a), mbs(g), mbs(c), ratio(rg), ratio(a), ratio(g), ratio(c),
                rss / 1024, cap
        }'
    # Where denpex's time went: one more run, its split on standard error.
    # shellcheck disable=SC2086
    split_line=$(DENPEX_TIMING=1 "$DENPEX" diagnose $files 2>&1 >/dev/null | grep '^denpex: timing' | tail -n 1)
    [ -n "$split_line" ] && echo "       ${split_line#denpex: }"
    if [ $keep = no ]; then
        rm -rf "$bundle"
    fi
done || status=$?
exit $status
