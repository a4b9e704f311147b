#!/bin/sh
# Golden verdicts: every case directory under tests/data/golden and
# tests/data/example holds a bundle and expected.json ({"class": ...,
# "first_rank": R or null, optionally "first_host"}); denpex must agree.
set -u
: "${top_srcdir:=.}" "${top_builddir:=.}" "${PYTHON3:=python3}"
DENPEX="$top_builddir/denpex"
pass=0
fail=0
for exp in "$top_srcdir"/tests/data/golden/*/expected.json \
	   "$top_srcdir"/tests/data/example/*/expected.json; do
	[ -f "$exp" ] || continue
	dir=$(dirname "$exp")
	name=$(basename "$dir")
	files=$(find "$dir" -type f ! -name expected.json | sort)
	# shellcheck disable=SC2086
	out=$("$DENPEX" diagnose --json --quiet $files 2>&1)
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "FAIL $name: denpex exited $rc: $out"
		fail=$((fail + 1))
		continue
	fi
	if verdict=$(printf '%s' "$out" | "$PYTHON3" -c '
import json, sys
exp = json.load(open(sys.argv[1]))
got = json.load(sys.stdin)
bad = []
if got["class"] != exp["class"]:
    bad.append("class %s, expected %s" % (got["class"], exp["class"]))
if "first_rank" in exp and got["first"]["rank"] != exp["first_rank"]:
    bad.append("first rank %s, expected %s" % (got["first"]["rank"], exp["first_rank"]))
if "first_host" in exp and got["first"]["host"] != exp["first_host"]:
    bad.append("first host %s, expected %s" % (got["first"]["host"], exp["first_host"]))
if "confidence" in exp and got["confidence"] != exp["confidence"]:
    bad.append("confidence %s, expected %s" % (got["confidence"], exp["confidence"]))
print("; ".join(bad) if bad else "%s rank %s" % (got["class"], got["first"]["rank"]))
sys.exit(1 if bad else 0)
' "$exp"); then
		echo "ok   $name: $verdict"
		pass=$((pass + 1))
	else
		echo "FAIL $name: $verdict"
		fail=$((fail + 1))
	fi
done
echo "golden: $pass passed, $fail failed"
[ $((pass + fail)) -gt 0 ] || { echo "no golden cases found"; exit 1; }
[ $fail -eq 0 ]
