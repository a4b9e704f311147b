#!/bin/sh
# Prints what denpex says for every golden case, to review before editing an
# expected.json by hand (expected verdicts come from reading the logs, never
# from this output).
set -u
DENPEX=${DENPEX:-./denpex}
for exp in tests/data/golden/*/expected.json tests/data/realworld/*/expected.json tests/data/example/*/expected.json; do
	[ -f "$exp" ] || continue
	dir=$(dirname "$exp")
	# shellcheck disable=SC2046
	printf '%s: ' "$dir"
	$DENPEX diagnose --json --quiet $(find "$dir" -type f ! -name expected.json | sort) |
		python3 -c 'import json,sys; v=json.load(sys.stdin); print(v["class"], v["first"]["rank"], v["first"]["host"], v["confidence"])'
done
