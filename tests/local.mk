# Tests: Check unit suites (one binary per unit), golden and simulator tests,
# and the Slurm integration tests. Fragments per area keep owners apart.
TEST_EXTENSIONS = .sh .tap
SH_LOG_COMPILER = $(SHELL)
AM_TESTS_ENVIRONMENT = \
	TZ=UTC; export TZ; \
	CK_DEFAULT_TIMEOUT=60; export CK_DEFAULT_TIMEOUT; \
	top_srcdir='$(abs_top_srcdir)'; export top_srcdir; \
	top_builddir='$(abs_top_builddir)'; export top_builddir; \
	PYTHON3='$(PYTHON3)'; export PYTHON3; \
	DENPEX_CONF_DIR='$(abs_top_srcdir)/conf'; export DENPEX_CONF_DIR; \
	DENPEX_CACHE_DIR='$(abs_top_builddir)/tests/cache'; export DENPEX_CACHE_DIR;

# The tests' own cache of compiled matchers (DENPEX_CACHE_DIR), not the user's.
clean-local:
	-rm -rf tests/cache

TEST_CPPFLAGS = $(AM_CPPFLAGS) -DTEST_DATADIR='"$(abs_top_srcdir)/tests/data"' \
	-DTEST_CONFDIR='"$(abs_top_srcdir)/conf"'
TEST_CXXFLAGS = $(AM_CXXFLAGS) $(CHECK_CFLAGS) $(PCRE2_CFLAGS) $(JANSSON_CFLAGS) $(YAML_CFLAGS)
TEST_LDADD = libdiag/libdiagcore.la $(CHECK_LIBS) $(JANSSON_LIBS)

EXTRA_DIST += %reldir%/ck_cxx.hh %reldir%/ck_bundle.hh %reldir%/data

# make -j2 starts tests in this order: the longest first (the Slurm
# cluster's, the real-log corpus, the sanitized build's, the corpus's
# invariance check), so that the short ones fill in beside them at the end
# instead of one long one running alone. The invariance check reads
# realworld.sh's verdicts (realworld.mk): make passes over a test whose
# prerequisite still runs and comes back to it only at the end of the
# list, so it is listed where realworld.sh, short, is done by then.
include %reldir%/slurm.mk
include %reldir%/realworld.mk
include %reldir%/sanitized.mk
if HAVE_PYTHON3
TESTS += tests/realworld_invariance.sh
endif
include %reldir%/unit.mk
include %reldir%/timestamp.mk
include %reldir%/fr.mk
include %reldir%/sim.mk
include %reldir%/runlinks.mk
include %reldir%/spank.mk
include %reldir%/epilog.mk
include %reldir%/metrics.mk
include %reldir%/bench.mk
include %reldir%/console.mk
include %reldir%/records.mk
include %reldir%/fuzz/local.mk
