# tests/sanitized.mk: what runs under ASan+UBSan (issue 19). tests/sanitized.sh
# (a test of the ordinary build) makes a copy of the tree, configures it
# with --enable-sanitizers in a temporary directory and runs
# `make check-sanitized` there: the unit suites, the golden verdicts, the
# CLI contract, the FR mutation fuzzer and the fuzz targets' seeds and
# regressions (fuzzed for a few seconds each where clang and libFuzzer are
# there). The Slurm integration tests are not in it: a sanitized plugin
# cannot be loaded by an uninstrumented slurmstepd.
SANITIZED_TESTS = tests/golden.sh tests/cli.sh tests/fr_fuzz $(FUZZ_TESTS)
if HAVE_CHECK
SANITIZED_TESTS += $(DIAG_UNITS) tests/check_timestamp tests/check_fr
if BUILD_SPANK
SANITIZED_TESTS += tests/check_spank tests/dlopen_plugin
endif
if BUILD_EPILOG
SANITIZED_TESTS += tests/check_epilog
endif
endif

check-sanitized:
	$(MAKE) $(AM_MAKEFLAGS) check TESTS='$(SANITIZED_TESTS)'
.PHONY: check-sanitized

if !ENABLE_SANITIZERS
TESTS += tests/sanitized.sh
endif
EXTRA_DIST += tests/sanitized.sh
