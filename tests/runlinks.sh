#!/bin/sh
# Ray session directories and W&B run directories (tests/data/ray,
# tests/data/wandb; their README.md says what each is shaped on): every
# CASE/ directory is diagnosed whole and its verdict compared with CASE.expect,
# one "key=value" per line: class, rank, host (first.*), victims.count,
# evidence.host (an initiating evidence line on that host), ray.KEY and
# wandb.KEY (links.*), nan (null: no nan field), nan.KEY.
set -u
: "${top_srcdir:=.}" "${top_builddir:=.}" "${PYTHON3:=python3}"
DENPEX="$top_builddir/denpex"
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for expect in "$top_srcdir"/tests/data/ray/*.expect "$top_srcdir"/tests/data/wandb/*.expect; do
	[ -f "$expect" ] || continue
	case_dir=${expect%.expect}
	name=$(basename "$(dirname "$expect")")/$(basename "$case_dir")
	if ! "$DENPEX" diagnose --json -q "$case_dir" >"$tmp/v.json" 2>"$tmp/err"; then
		fail=$((fail + 1))
		echo "FAIL $name: denpex exited non-zero: $(head -1 "$tmp/err")"
		continue
	fi
	if "$PYTHON3" - "$tmp/v.json" "$expect" >"$tmp/why" 2>&1 <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
links = v.get("links") or {}
def value(key):
    if key in ("class",):
        return v["class"]
    if key in ("rank", "host"):
        return v["first"][key]
    if key == "victims.count":
        return v["victims"]["count"]
    if key == "evidence.host":
        return sorted({e["host"] for e in v["evidence"] if e["role"] == "initiating" and e["host"]})
    if key == "nan":
        return v.get("nan")
    head, _, rest = key.partition(".")
    if head in ("ray", "wandb"):
        return (links.get(head) or {}).get(rest)
    if head == "nan":
        return (v.get("nan") or {}).get(rest)
    raise SystemExit("unknown key " + key)
def parse(s):
    if s == "null":
        return None
    if s in ("true", "false"):
        return s == "true"
    if s.isdigit() and (s == "0" or not s.startswith("0")):
        return int(s)
    return s
bad = []
for line in open(sys.argv[2]):
    line = line.strip()
    if not line or line.startswith("#"):
        continue
    key, _, want = line.partition("=")
    want, got = parse(want), value(key)
    ok = want in got if key == "evidence.host" else got == want
    if not ok:
        bad.append(f"{key}: want {want!r}, got {got!r}")
print("; ".join(bad))
sys.exit(1 if bad else 0)
PY
	then
		pass=$((pass + 1))
		echo "ok   $name"
	else
		fail=$((fail + 1))
		echo "FAIL $name: $(cat "$tmp/why")"
	fi
done

# Without conf/signatures/ray.yaml the wrappers are not victims and the pids
# are nobody's: the Ray cases must then fail (the signatures do the work).
mkdir -p "$tmp/conf/signatures"
cp "$top_srcdir"/conf/*.yaml "$tmp/conf/"
for f in "$top_srcdir"/conf/signatures/*.yaml; do
	[ "$(basename "$f")" = ray.yaml ] || cp "$f" "$tmp/conf/signatures/"
done
wrong=0
total=0
for expect in "$top_srcdir"/tests/data/ray/*.expect; do
	case_dir=${expect%.expect}
	total=$((total + 1))
	"$DENPEX" diagnose --json -q --conf "$tmp/conf" "$case_dir" >"$tmp/v.json" 2>/dev/null
	want_rank=$(sed -n 's/^rank=//p' "$expect")
	got_rank=$("$PYTHON3" -c 'import json,sys; print(json.load(open(sys.argv[1]))["first"]["rank"])' "$tmp/v.json" 2>/dev/null)
	[ "$got_rank" = "$want_rank" ] || wrong=$((wrong + 1))
done
if [ "$total" -gt 0 ] && [ "$wrong" -gt 0 ]; then
	pass=$((pass + 1))
	echo "ok   without ray.yaml $wrong of $total Ray cases lose their first rank"
else
	fail=$((fail + 1))
	echo "FAIL without ray.yaml all $total Ray cases still name the first rank: the test does not test ray.yaml"
fi

# The help, the man page and the README name both sources.
for doc in help man readme; do
	case $doc in
	help) "$DENPEX" diagnose --help >"$tmp/doc" 2>&1 ;;
	man) sed 's/\\-/-/g; s/\\f[BIRP]//g' "$top_srcdir/man/denpex.1" >"$tmp/doc" ;;
	readme) cat "$top_srcdir/README.md" >"$tmp/doc" ;;
	esac
	if grep -q "Ray session" "$tmp/doc" && grep -q "session_\*/logs" "$tmp/doc" &&
		grep -q "Weights & Biases" "$tmp/doc" && grep -q "wandb-summary.json" "$tmp/doc"; then
		pass=$((pass + 1))
		echo "ok   $doc names the Ray and W&B sources"
	else
		fail=$((fail + 1))
		echo "FAIL $doc does not name the Ray and W&B sources"
	fi
done

echo "runlinks: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
