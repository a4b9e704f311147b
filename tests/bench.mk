# tests/bench.mk: the benchmark (tests/bench.sh, `make bench` for every size,
# its small size in `make check`) and the peak-RSS test.
check_PROGRAMS += tests/bench_run
tests_bench_run_SOURCES = tests/bench_run.cc
tests_bench_run_CXXFLAGS = $(AM_CXXFLAGS)

if HAVE_PYTHON3
TESTS += tests/bench-small.sh tests/rss.sh
endif
EXTRA_DIST += tests/bench.sh tests/bench-small.sh tests/rss.sh tests/prefilter_anchors.py

.PHONY: bench
bench: denpex$(EXEEXT) tests/bench_run$(EXEEXT)
	TZ=UTC top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
	PYTHON3='$(PYTHON3)' DENPEX_CONF_DIR='$(abs_top_srcdir)/conf' \
	$(SHELL) $(abs_top_srcdir)/tests/bench.sh $(BENCH_FLAGS)
