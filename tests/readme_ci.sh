#!/bin/sh
# README.md's two commands and .ci/run must not drift apart: CI installs the
# same packages and runs exactly the README's test command.
set -u
: "${top_srcdir:=.}"
readme="$top_srcdir/README.md"
ci="$top_srcdir/.ci/run"
pass=0
fail=0
check() { if [ "$2" -eq 0 ]; then pass=$((pass + 1)); echo "ok   $1"; else fail=$((fail + 1)); echo "FAIL $1"; fi; }
cmds=$(awk '/^```sh$/{n++; getline; if (n<=2) print; }' "$readme")
first=$(printf '%s\n' "$cmds" | sed -n 1p)
second=$(printf '%s\n' "$cmds" | sed -n 2p)
[ -n "$first" ] && [ -n "$second" ]
check "README has two commands" $?
grep -qxF -- "$second" "$ci"
check ".ci/run runs the README's test command verbatim" $?
pkgs_readme=$(printf '%s\n' "$first" | sed 's/.*--no-install-recommends \([^&]*\) &&.*/\1/')
grep -qF -- "--no-install-recommends $pkgs_readme" "$ci"
check ".ci/run installs the README's packages" $?
case "$first" in *"./denpex diagnose tests/data/example/"*) true ;; *) false ;; esac
check "the first command ends by diagnosing the bundled example" $?
ex=$(printf '%s\n' "$first" | sed 's/.*\.\/denpex diagnose //')
[ -e "$top_srcdir/$ex" ]
check "the bundled example exists" $?
echo "readme: $pass passed, $fail failed"
[ $fail -eq 0 ]
