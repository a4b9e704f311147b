#!/bin/sh
# Every rule file in conf/signatures is one that `make install` and
# `make dist` ship (conf/local.mk lists them by name): a file left off that
# list works in the tree and is missing from every installation.
set -u
: "${top_srcdir:?}"
fail=0
for f in "$top_srcdir"/conf/signatures/*.yaml; do
	name=signatures/$(basename "$f")
	if ! grep -q "%reldir%/$name" "$top_srcdir/conf/local.mk"; then
		echo "FAIL: conf/$name is not in conf/local.mk's dist_denpexsig_DATA"
		fail=1
	fi
done
n=$(ls "$top_srcdir"/conf/signatures/*.yaml | wc -l)
[ "$n" -gt 0 ] || { echo "FAIL: no rule files in $top_srcdir/conf/signatures"; fail=1; }
[ $fail -eq 0 ] && echo "PASS: all $n rule files are installed"
exit $fail
