#!/bin/sh
# The CLI contract: exit codes, one-line errors, stdin, JSON, and help that
# agrees with the man page.
set -u
: "${top_srcdir:=.}" "${top_builddir:=.}" "${PYTHON3:=python3}"
DENPEX="$top_builddir/denpex"
EXAMPLE="$top_srcdir/tests/data/example/multinode-xid"
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

check() { # name, condition result (0 = ok)
	if [ "$2" -eq 0 ]; then pass=$((pass + 1)); echo "ok   $1"; else fail=$((fail + 1)); echo "FAIL $1"; fi
}

# Exit 2 and exactly one line on stderr when nothing usable was given.
expect_usage_error() { # name, args...
	name=$1
	shift
	"$DENPEX" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	lines=$(wc -l <"$tmp/err")
	[ $rc -eq 2 ] && [ "$lines" -eq 1 ] && [ ! -s "$tmp/out" ]
	check "$name (rc=$rc, $lines stderr lines)" $?
}

expect_usage_error "no arguments to diagnose" diagnose
expect_usage_error "unknown option" diagnose --frobnicate "$EXAMPLE"
expect_usage_error "unknown command" frobnicate
expect_usage_error "missing file" diagnose "$tmp/does-not-exist"
head -c 65536 /dev/urandom | tr -d '\n' | tr 'a-z' '\000' >"$tmp/binary.bin"
expect_usage_error "binary file only" diagnose "$tmp/binary.bin"
: >"$tmp/empty.log"
expect_usage_error "empty file only" diagnose "$tmp/empty.log"
expect_usage_error "bad --max-bytes" diagnose --max-bytes lots "$EXAMPLE"
expect_usage_error "bad config dir" diagnose --conf "$tmp" "$EXAMPLE"

# A usable file next to an unreadable one: a warning, and a verdict.
"$DENPEX" diagnose "$tmp/does-not-exist" "$EXAMPLE" >"$tmp/out" 2>"$tmp/err"
rc=$?
grep -q "warning: .*does-not-exist" "$tmp/err" && [ $rc -eq 0 ] && grep -q "^denpex: " "$tmp/out"
check "skips the unreadable, diagnoses the rest" $?

# Stdin.
cat "$EXAMPLE/job.out" | "$DENPEX" diagnose --json - >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] && "$PYTHON3" -c 'import json,sys; v=json.load(open(sys.argv[1])); assert v["schema"]==1' "$tmp/out"
check "reads a pasted log from stdin" $?

# Gzip-compressed logs (rotated kernel logs, archived job output) read as
# their text: the same verdict from a gzipped copy of the example, from a
# gzip stream on stdin, and a warning for a truncated one.
mkdir -p "$tmp/gz"
cp "$EXAMPLE"/* "$tmp/gz/"
gzip -9 "$tmp/gz/job.out" "$tmp/gz/kern.node02.log"
"$DENPEX" diagnose --json "$EXAMPLE" >"$tmp/plain.json" 2>/dev/null
"$DENPEX" diagnose --json "$tmp/gz" >"$tmp/gz.json" 2>"$tmp/err"
"$PYTHON3" -c '
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert (a["class"], a["first"]["rank"], a["first"]["host"]) == (b["class"], b["first"]["rank"], b["first"]["host"]), (a["first"], b["first"])
assert any("job.out.gz:" in e["source"] for e in b["evidence"]), b["evidence"]' "$tmp/plain.json" "$tmp/gz.json" && [ ! -s "$tmp/err" ]
check "reads gzip-compressed logs as their text" $?
"$DENPEX" diagnose --json - <"$EXAMPLE/job.out" >"$tmp/in.json" 2>/dev/null
gzip -c "$EXAMPLE/job.out" | "$DENPEX" diagnose --json - >"$tmp/gzin.json" 2>/dev/null
"$PYTHON3" -c '
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a["class"] != "unknown" and (a["class"], a["first"]) == (b["class"], b["first"]), (a["class"], b["class"])' "$tmp/in.json" "$tmp/gzin.json"
check "reads a gzip stream from stdin" $?
size=$(wc -c <"$tmp/gz/job.out.gz")
head -c $((size / 2)) "$tmp/gz/job.out.gz" >"$tmp/half.log.gz"
"$DENPEX" diagnose "$tmp/half.log.gz" >/dev/null 2>"$tmp/err"
grep -q "warning: .*half.log.gz: the gzip data ends early" "$tmp/err"
check "a truncated gzip file is read as far as it goes, with a warning" $?

# An unrecognisable log still gives a verdict: unknown, exit 0.
printf 'hello\nworld\n' | "$DENPEX" diagnose --json - >"$tmp/out" 2>/dev/null
rc=$?
[ $rc -eq 0 ] && "$PYTHON3" -c 'import json,sys; v=json.load(open(sys.argv[1])); assert v["class"]=="unknown" and v["first"]["rank"] is None' "$tmp/out"
check "unknown is a verdict (exit 0, rank null)" $?

# Help agrees with the man page: every long option of diagnose is documented.
"$DENPEX" --help >"$tmp/help" 2>&1 && "$DENPEX" diagnose --help >"$tmp/dhelp" 2>&1 &&
	"$DENPEX" timeline --help >>"$tmp/dhelp" 2>&1 && "$DENPEX" fr --help >>"$tmp/dhelp" 2>&1 && "$DENPEX" serve --help >>"$tmp/dhelp" 2>&1 &&
	"$DENPEX" check-signatures --help >>"$tmp/dhelp" 2>&1
check "--help and every command's --help exit 0" $?
sed 's/\\-/-/g' "$top_srcdir/man/denpex.1" >"$tmp/man.txt"
missing=""
for opt in $(grep -o -- '--[a-z][a-z-]*' "$tmp/dhelp" | sort -u); do
	grep -q -F -- "$opt" "$tmp/man.txt" || missing="$missing $opt"
done
[ -z "$missing" ]
check "man page documents every option of every command${missing:+ (missing:$missing)}" $?
missing=""
for opt in $(grep -o -- '--[a-z][a-z-]*' "$tmp/man.txt" | sort -u); do
	grep -q -F -- "$opt" "$tmp/dhelp" "$tmp/help" || missing="$missing $opt"
done
[ -z "$missing" ]
check "every option in the man page exists${missing:+ (missing:$missing)}" $?

# Directories are walked.
"$DENPEX" diagnose --json "$EXAMPLE" >"$tmp/out" 2>/dev/null
"$PYTHON3" -c 'import json,sys; v=json.load(open(sys.argv[1])); assert v["class"]=="gpu_hardware", v["class"]' "$tmp/out"
check "walks a directory" $?

# check-signatures names the layer and file of every rule; a site rule that
# replaces a shipped one (by id) says which.
mkdir -p "$tmp/conf/signatures.d"
for n in signatures xid.yaml actions.yaml zones.yaml; do ln -s "$top_srcdir/conf/$n" "$tmp/conf/$n"; done
cat >"$tmp/conf/signatures.d/site.yaml" <<'EOF'
family: cuda
rules:
  - id: cuda.oom_text
    class: cuda_oom
    role: initiating
    literal: "out of memory"
    pattern: 'CUDA error: out of memory'
    samples: ["RuntimeError: CUDA error: out of memory"]
  - id: cuda.site_hbm
    class: cuda_oom
    role: initiating
    literal: "HBM exhausted"
    pattern: 'HBM exhausted'
    samples: ["HBM exhausted on device 3"]
EOF
"$DENPEX" check-signatures --conf "$tmp/conf" >"$tmp/out" 2>&1 &&
	grep -q '^site  *cuda\.oom_text  *.*signatures\.d/site\.yaml:[0-9]*  replaces .*/cuda\.yaml:[0-9]' "$tmp/out" &&
	grep -q '^site  *cuda\.site_hbm  *.*signatures\.d/site\.yaml:[0-9]*$' "$tmp/out" &&
	grep -q '^shipped  *cuda\.oom_exception ' "$tmp/out" && grep -q '(1 added, 1 replaced)$' "$tmp/out"
check "check-signatures shows each rule's layer" $?

# --strict fails on a site rule whose own sample a shipped rule wins (it
# would never see that line); without it the conflict is only printed.
mkdir -p "$tmp/strict/signatures.d"
for n in signatures xid.yaml actions.yaml zones.yaml; do ln -s "$top_srcdir/conf/$n" "$tmp/strict/$n"; done
cat >"$tmp/strict/signatures.d/site.yaml" <<'EOF'
family: site
rules:
  - id: site.any_oom
    class: cuda_oom
    role: initiating
    literal: "out of memory"
    pattern: 'out of memory'
    samples: ["RuntimeError: CUDA out of memory. Tried to allocate 2.00 MiB"]
EOF
"$DENPEX" check-signatures --conf "$tmp/strict" >"$tmp/out" 2>&1
loose=$?
"$DENPEX" check-signatures --strict --conf "$tmp/strict" >"$tmp/out" 2>&1
strict=$?
"$DENPEX" check-signatures --strict >/dev/null 2>&1
shipped=$?
[ $loose -eq 0 ] && [ $strict -eq 1 ] && [ $shipped -eq 0 ] && grep -q '^warning: .*site\.any_oom: sample is won by' "$tmp/out"
check "check-signatures --strict fails on a rule its own sample escapes ($loose/$strict/$shipped)" $?

# An action with its host unknown reads as words, not as a filled-in blank.
mkdir -p "$tmp/nodefail"
printf 'JobID|JobName|State|ExitCode|Start|End|Elapsed|NodeList\n71|train|NODE_FAIL|0:0|2026-01-01T10:00:00|2026-01-01T12:00:00|02:00:00|gpu[1-4]\n' >"$tmp/nodefail/sacct.txt"
action=$("$DENPEX" diagnose --json --quiet "$tmp/nodefail/sacct.txt" 2>&1 | "$PYTHON3" -c '
import json, sys
v = json.load(sys.stdin)
if v["class"] == "node_failure" and v["first"]["host"] is None:
    print(v["next_action"]["text"])')
case $action in "A node failed: "*) rc=0 ;; *) rc=1 ;; esac
check "an unknown host in an action reads as words ('$action')" $rc

# The timeline says why a fault was set aside: rank 1's traceback, printed
# by a handler that said it would retry, before rank 0's fatal error.
mkdir -p "$tmp/survived"
cat >"$tmp/survived/job.log" <<'LOG'
[rank1]: WARNING:trainer:failed to upload metrics, will retry in 30s
[rank1]: Traceback (most recent call last):
[rank1]:   File "upload.py", line 3, in push
[rank1]: KeyError: 'label'
[rank0]: RuntimeError: CUDA error: an illegal memory access was encountered
LOG
"$DENPEX" timeline "$tmp/survived/job.log" >"$tmp/tl.txt" 2>/dev/null
grep -A1 "KeyError" "$tmp/tl.txt" | grep -q '^    (set aside: a handler printed'
check "timeline says why a fault was set aside" $?
"$DENPEX" timeline --json "$tmp/survived/job.log" 2>/dev/null | "$PYTHON3" -c '
import json, sys
ev = json.load(sys.stdin)["events"]
aside = [e for e in ev if "KeyError" in e["text"]]
kept = [e for e in ev if "illegal memory" in e["text"]]
sys.exit(0 if aside and "handler" in aside[0].get("set_aside", "") and kept and "set_aside" not in kept[0] else 1)'
check "timeline --json gives set_aside on that fault only" $?

echo "cli: $pass passed, $fail failed"
[ $fail -eq 0 ]
