# tests/records.mk: the plugin -> library hand-off (doc/handoff.md), tested
# with both sides' code: spank/records.cc writes, libdiag reads and aligns.
if BUILD_SPANK
if HAVE_CHECK
check_PROGRAMS += %reldir%/check_records
TESTS += %reldir%/check_records
%canon_reldir%_check_records_SOURCES = %reldir%/check_records.cc spank/records.cc
%canon_reldir%_check_records_CPPFLAGS = $(TEST_CPPFLAGS) $(SLURM_CFLAGS) -I$(top_srcdir)/spank
%canon_reldir%_check_records_CXXFLAGS = $(TEST_CXXFLAGS)
%canon_reldir%_check_records_LDADD = $(TEST_LDADD)
endif
endif
