# tests/timestamp.mk: Check suite for libdiag/reading/timestamp.
if HAVE_CHECK
check_PROGRAMS += tests/check_timestamp
TESTS += tests/check_timestamp
tests_check_timestamp_SOURCES = tests/check_timestamp.cc
tests_check_timestamp_CPPFLAGS = $(TEST_CPPFLAGS)
tests_check_timestamp_CXXFLAGS = $(TEST_CXXFLAGS)
tests_check_timestamp_LDADD = $(TEST_LDADD)
endif
