# libdiag: the diagnosis library, and the denpex CLI built on it. The code is
# one convenience library, linked into the installed shared library (C API
# for the epilog) and statically into the CLI and the tests, which then run
# without libtool wrapper scripts.
noinst_LTLIBRARIES += libdiag/libdiagcore.la
lib_LTLIBRARIES += libdiag/libdenpexdiag.la
include_HEADERS = libdiag/denpex_diag.h

libdiag_libdiagcore_la_SOURCES = \
	%reldir%/failure_class.hh %reldir%/failure_class.cc \
	%reldir%/timestamp.hh %reldir%/timestamp.cc \
	%reldir%/line_reader.hh %reldir%/line_reader.cc \
	%reldir%/text_clean.hh %reldir%/text_clean.cc \
	%reldir%/regex.hh %reldir%/regex.cc \
	%reldir%/literal_set.hh %reldir%/literal_set.cc \
	%reldir%/yaml_doc.hh %reldir%/yaml_doc.cc \
	%reldir%/signature.hh %reldir%/signature.cc \
	%reldir%/knowledge.hh %reldir%/knowledge.cc \
	%reldir%/line_prefix.hh %reldir%/line_prefix.cc \
	%reldir%/event.hh \
	%reldir%/source_sniff.hh %reldir%/source_sniff.cc \
	%reldir%/text_log_reader.hh %reldir%/text_log_reader.cc \
	%reldir%/sacct_reader.hh %reldir%/sacct_reader.cc \
	%reldir%/torchelastic_reader.hh %reldir%/torchelastic_reader.cc \
	%reldir%/rank_map.hh %reldir%/rank_map.cc \
	%reldir%/evidence.hh %reldir%/evidence.cc \
	%reldir%/clock.hh %reldir%/clock.cc \
	%reldir%/diagnose.hh %reldir%/diagnose.cc \
	%reldir%/verdict.hh %reldir%/verdict.cc \
	%reldir%/pipeline.hh %reldir%/pipeline.cc \
	%reldir%/timeline.hh %reldir%/timeline.cc \
	%reldir%/plugin_records.hh %reldir%/plugin_records.cc \
	%reldir%/fr_bridge.hh %reldir%/fr_bridge.cc \
	%reldir%/fr_pickle.hh %reldir%/fr_pickle.cc \
	%reldir%/fr_dump.hh %reldir%/fr_dump.cc \
	%reldir%/fr_analysis.hh %reldir%/fr_analysis.cc \
	$(NULL)
libdiag_libdiagcore_la_CXXFLAGS = $(AM_CXXFLAGS) -fPIC $(PCRE2_CFLAGS) $(JANSSON_CFLAGS) $(YAML_CFLAGS)
libdiag_libdiagcore_la_LIBADD = $(PCRE2_LIBS) $(JANSSON_LIBS) $(YAML_LIBS) -lpthread

libdiag_libdenpexdiag_la_SOURCES = %reldir%/denpex_diag.h %reldir%/c_api.cc
libdiag_libdenpexdiag_la_CXXFLAGS = $(AM_CXXFLAGS)
libdiag_libdenpexdiag_la_LIBADD = libdiag/libdiagcore.la
libdiag_libdenpexdiag_la_LDFLAGS = $(AM_LDFLAGS) -version-info 0:0:0 -no-undefined \
	-Wl,--version-script=$(top_srcdir)/%reldir%/libdiag.map
EXTRA_DIST += %reldir%/libdiag.map

bin_PROGRAMS += denpex
denpex_SOURCES = %reldir%/cli/denpex.cc
denpex_CXXFLAGS = $(AM_CXXFLAGS) $(JANSSON_CFLAGS)
denpex_LDADD = libdiag/libdiagcore.la
