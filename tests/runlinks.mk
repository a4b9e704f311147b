# tests/runlinks.mk: Ray session and W&B run directories (tests/data/ray,
# tests/data/wandb) diagnosed whole and compared with their CASE.expect, and
# the Check suite of their readers and the verdict's links.
TESTS += tests/runlinks.sh
EXTRA_DIST += tests/runlinks.sh
if HAVE_CHECK
check_PROGRAMS += tests/check_runlinks
TESTS += tests/check_runlinks
tests_check_runlinks_SOURCES = tests/check_runlinks.cc
tests_check_runlinks_CPPFLAGS = $(TEST_CPPFLAGS)
tests_check_runlinks_CXXFLAGS = $(TEST_CXXFLAGS)
tests_check_runlinks_LDADD = $(TEST_LDADD)
endif
