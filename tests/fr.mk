# tests/fr.mk: the flight-recorder reader (libdiag/fr/): Check unit tests on
# fixtures written by fr_writer.py (committed under data/fr), and a bounded
# fuzz run of the unpickler, dump decoder and analysis.
if HAVE_CHECK
check_PROGRAMS += tests/check_fr
TESTS += tests/check_fr
tests_check_fr_SOURCES = tests/check_fr.cc
tests_check_fr_CPPFLAGS = $(TEST_CPPFLAGS)
tests_check_fr_CXXFLAGS = $(TEST_CXXFLAGS)
tests_check_fr_LDADD = $(TEST_LDADD)
endif

# Runs ~20000 mutated inputs or 20 s, whichever comes first
# (FR_FUZZ_ITERATIONS / FR_FUZZ_SECONDS change that).
check_PROGRAMS += tests/fr_fuzz
TESTS += tests/fr_fuzz
tests_fr_fuzz_SOURCES = tests/fr_fuzz.cc tests/fuzz/fr_report_renders.hh
tests_fr_fuzz_CPPFLAGS = $(TEST_CPPFLAGS)
tests_fr_fuzz_CXXFLAGS = $(AM_CXXFLAGS) $(JANSSON_CFLAGS)
tests_fr_fuzz_LDADD = libdiag/libdiagcore.la $(JANSSON_LIBS)

EXTRA_DIST += tests/fr_writer.py
