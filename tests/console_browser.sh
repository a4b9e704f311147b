#!/bin/sh
# The console and report.html in headless Chromium (tests/console/browser.py).
# Needs Debian's chromium, chromium-driver and python3-selenium (README's
# install command): without them this fails, it does not skip.
: "${top_srcdir:=.}" "${top_builddir:=.}" "${PYTHON3:=python3}"
export top_srcdir top_builddir
# Debian's selenium is in the system python, which another python3 on PATH may hide.
py=""
for p in "$PYTHON3" /usr/bin/python3; do
	if "$p" -c 'import selenium' 2>/dev/null; then py=$p; break; fi
done
if [ -z "$py" ] || ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
	echo "FAIL: the browser test needs chromium, chromium-driver and python3-selenium (see README.md)"
	exit 1
fi
exec timeout 600 "$py" "$top_srcdir/tests/console/browser.py"
