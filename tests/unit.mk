# tests/unit.mk: Check suites of libdiag, one binary per unit.
if HAVE_CHECK
DIAG_UNITS = tests/check_readers tests/check_signatures tests/check_diagnosis tests/check_passes tests/check_json tests/check_render
check_PROGRAMS += $(DIAG_UNITS)
TESTS += $(DIAG_UNITS)
tests_check_readers_SOURCES = tests/check_readers.cc
tests_check_readers_CPPFLAGS = $(TEST_CPPFLAGS)
tests_check_readers_CXXFLAGS = $(TEST_CXXFLAGS)
tests_check_readers_LDADD = $(TEST_LDADD)
tests_check_signatures_SOURCES = tests/check_signatures.cc
tests_check_signatures_CPPFLAGS = $(TEST_CPPFLAGS)
tests_check_signatures_CXXFLAGS = $(TEST_CXXFLAGS)
tests_check_signatures_LDADD = $(TEST_LDADD)
tests_check_diagnosis_SOURCES = tests/check_diagnosis.cc
tests_check_diagnosis_CPPFLAGS = $(TEST_CPPFLAGS)
tests_check_diagnosis_CXXFLAGS = $(TEST_CXXFLAGS)
tests_check_diagnosis_LDADD = $(TEST_LDADD)
tests_check_passes_SOURCES = tests/check_passes.cc
tests_check_passes_CPPFLAGS = $(TEST_CPPFLAGS)
tests_check_passes_CXXFLAGS = $(TEST_CXXFLAGS)
tests_check_passes_LDADD = $(TEST_LDADD)
tests_check_json_SOURCES = tests/check_json.cc
tests_check_json_CPPFLAGS = $(TEST_CPPFLAGS)
tests_check_json_CXXFLAGS = $(TEST_CXXFLAGS)
tests_check_json_LDADD = $(TEST_LDADD)
# The C API's report page too: c_api.cc is compiled in (no libtool wrapper).
tests_check_render_SOURCES = tests/check_render.cc libdiag/c_api.cc
tests_check_render_CPPFLAGS = $(TEST_CPPFLAGS)
tests_check_render_CXXFLAGS = $(TEST_CXXFLAGS)
tests_check_render_LDADD = $(TEST_LDADD)
endif

# Golden verdicts on hand-written bundles and the CLI's contract.
TESTS += tests/golden.sh tests/cli.sh tests/readme_ci.sh tests/signatures_installed.sh
EXTRA_DIST += tests/golden.sh tests/cli.sh tests/readme_ci.sh tests/signatures_installed.sh tests/update_golden.sh .ci/run
