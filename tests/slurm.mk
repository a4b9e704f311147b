# tests/slurm.mk: the Slurm integration tests (tests/slurm/*.sh, root; a
# SKIP outside CI when not root, a failure in CI), after the testbed's own
# guard against leftovers (testbed_selftest.sh), as one chain,
# tests/slurm/integration.tap, first in TESTS. They share one testbed and run
# one at a time; as one make test started first they are latency-bound in
# one job slot from the start while the CPU-bound tests use the other. Each
# is still a test of its own: `make check TESTS=tests/slurm/torch_integration.sh`.
DENPEX_SLURM_CHAIN = testbed_selftest
if BUILD_SPANK
DENPEX_SLURM_CHAIN += spank_integration
endif
if BUILD_EPILOG
DENPEX_SLURM_CHAIN += epilog_integration torch_integration
if BUILD_SPANK
DENPEX_SLURM_CHAIN += trust_integration fault_integration
endif
endif
TESTS += tests/slurm/integration.tap
EXTRA_DIST += tests/slurm/integration.tap tests/slurm/testbed_selftest.sh
TAP_LOG_COMPILER = $(SHELL)
TAP_LOG_DRIVER = env AM_TAP_AWK='$(AWK)' $(SHELL) $(top_srcdir)/build-aux/tap-driver.sh
AM_TESTS_ENVIRONMENT += DENPEX_SLURM_CHAIN='$(DENPEX_SLURM_CHAIN)'; export DENPEX_SLURM_CHAIN;
CLEANFILES += tests/slurm/testbed_selftest.log tests/slurm/spank_integration.log tests/slurm/epilog_integration.log \
	tests/slurm/torch_integration.log tests/slurm/trust_integration.log \
	tests/slurm/fault_integration.log
