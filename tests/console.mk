# The diagnosis console (issue 14): hostile requests against denpex serve,
# and the page and report.html in headless Chromium. Both start and stop
# their own server on a free loopback port.
TESTS += tests/console_hostile.sh tests/console_browser.sh
EXTRA_DIST += tests/console_hostile.sh tests/console_browser.sh \
	tests/console/server.py tests/console/hostile.py tests/console/browser.py
CLEANFILES += tests/console-paste.png tests/console-verdict.png \
	tests/console-report-16.png tests/console-report-4096.png
