# tests/fuzz: one libFuzzer target per reader of user bytes (issue 19).
#
# ./configure --enable-fuzzing (clang-14, libclang-rt-14-dev) links them with
# libFuzzer: `make fuzz FUZZ_SECONDS=N` fuzzes each for N seconds, and each
# test of make check replays the target's seeds and regressions and then
# fuzzes it for FUZZ_CHECK_SECONDS (3). Without it (gcc, the default) each
# target is a plain program (replay_main.cc) and make check replays the
# same seeds and regressions, so what fuzzing found stays a test.
#
# Per target NAME: NAME.cc (LLVMFuzzerTestOneInput), NAME.seeds (globs of
# seed files under the top source dir, tests/data first), NAME.dict (the
# format's tokens) and regressions/NAME/ (inputs that once crashed it).
FUZZ_CORE = text_log event_scan gzip_text sacct torchelastic plugin_records fr_pickle fr_json \
	signatures knowledge epilog_config
FUZZ_SPANK = spank_options spank_plugstack
if BUILD_SPANK
FUZZ_NAMES = $(FUZZ_CORE) $(FUZZ_SPANK)
else
FUZZ_NAMES = $(FUZZ_CORE)
endif

if ENABLE_FUZZING
FUZZ_ENGINE = libfuzzer
fuzz_driver =
else
FUZZ_ENGINE = replay
fuzz_driver = %reldir%/replay_main.cc
endif
fuzz_cppflags = $(TEST_CPPFLAGS) -I$(top_srcdir)/%reldir%
fuzz_cxxflags = $(AM_CXXFLAGS) $(PCRE2_CFLAGS) $(JANSSON_CFLAGS) $(YAML_CFLAGS)
fuzz_ldflags = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
fuzz_ldadd = libdiag/libdiagcore.la $(JANSSON_LIBS)
fuzz_headers = %reldir%/fuzz_target.hh %reldir%/fuzz_rules.hh %reldir%/fr_report_renders.hh

check_PROGRAMS += %reldir%/text_log %reldir%/event_scan %reldir%/gzip_text %reldir%/sacct %reldir%/torchelastic %reldir%/plugin_records \
	%reldir%/fr_pickle %reldir%/fr_json %reldir%/signatures %reldir%/knowledge %reldir%/epilog_config

%canon_reldir%_text_log_SOURCES = %reldir%/text_log.cc $(fuzz_headers) $(fuzz_driver)
%canon_reldir%_text_log_CPPFLAGS = $(fuzz_cppflags)
%canon_reldir%_text_log_CXXFLAGS = $(fuzz_cxxflags)
%canon_reldir%_text_log_LDFLAGS = $(fuzz_ldflags)
%canon_reldir%_text_log_LDADD = $(fuzz_ldadd)
%canon_reldir%_event_scan_SOURCES = %reldir%/event_scan.cc $(fuzz_headers) $(fuzz_driver)
%canon_reldir%_event_scan_CPPFLAGS = $(fuzz_cppflags)
%canon_reldir%_event_scan_CXXFLAGS = $(fuzz_cxxflags)
%canon_reldir%_event_scan_LDFLAGS = $(fuzz_ldflags)
%canon_reldir%_event_scan_LDADD = $(fuzz_ldadd)
%canon_reldir%_gzip_text_SOURCES = %reldir%/gzip_text.cc $(fuzz_headers) $(fuzz_driver)
%canon_reldir%_gzip_text_CPPFLAGS = $(fuzz_cppflags)
%canon_reldir%_gzip_text_CXXFLAGS = $(fuzz_cxxflags)
%canon_reldir%_gzip_text_LDFLAGS = $(fuzz_ldflags)
%canon_reldir%_gzip_text_LDADD = $(fuzz_ldadd)
%canon_reldir%_sacct_SOURCES = %reldir%/sacct.cc $(fuzz_headers) $(fuzz_driver)
%canon_reldir%_sacct_CPPFLAGS = $(fuzz_cppflags)
%canon_reldir%_sacct_CXXFLAGS = $(fuzz_cxxflags)
%canon_reldir%_sacct_LDFLAGS = $(fuzz_ldflags)
%canon_reldir%_sacct_LDADD = $(fuzz_ldadd)
%canon_reldir%_torchelastic_SOURCES = %reldir%/torchelastic.cc $(fuzz_headers) $(fuzz_driver)
%canon_reldir%_torchelastic_CPPFLAGS = $(fuzz_cppflags)
%canon_reldir%_torchelastic_CXXFLAGS = $(fuzz_cxxflags)
%canon_reldir%_torchelastic_LDFLAGS = $(fuzz_ldflags)
%canon_reldir%_torchelastic_LDADD = $(fuzz_ldadd)
%canon_reldir%_plugin_records_SOURCES = %reldir%/plugin_records.cc $(fuzz_headers) $(fuzz_driver)
%canon_reldir%_plugin_records_CPPFLAGS = $(fuzz_cppflags)
%canon_reldir%_plugin_records_CXXFLAGS = $(fuzz_cxxflags)
%canon_reldir%_plugin_records_LDFLAGS = $(fuzz_ldflags)
%canon_reldir%_plugin_records_LDADD = $(fuzz_ldadd)
%canon_reldir%_fr_pickle_SOURCES = %reldir%/fr_pickle.cc $(fuzz_headers) $(fuzz_driver)
%canon_reldir%_fr_pickle_CPPFLAGS = $(fuzz_cppflags)
%canon_reldir%_fr_pickle_CXXFLAGS = $(fuzz_cxxflags)
%canon_reldir%_fr_pickle_LDFLAGS = $(fuzz_ldflags)
%canon_reldir%_fr_pickle_LDADD = $(fuzz_ldadd)
%canon_reldir%_fr_json_SOURCES = %reldir%/fr_json.cc $(fuzz_headers) $(fuzz_driver)
%canon_reldir%_fr_json_CPPFLAGS = $(fuzz_cppflags)
%canon_reldir%_fr_json_CXXFLAGS = $(fuzz_cxxflags)
%canon_reldir%_fr_json_LDFLAGS = $(fuzz_ldflags)
%canon_reldir%_fr_json_LDADD = $(fuzz_ldadd)
%canon_reldir%_signatures_SOURCES = %reldir%/signatures.cc $(fuzz_headers) $(fuzz_driver)
%canon_reldir%_signatures_CPPFLAGS = $(fuzz_cppflags)
%canon_reldir%_signatures_CXXFLAGS = $(fuzz_cxxflags)
%canon_reldir%_signatures_LDFLAGS = $(fuzz_ldflags)
%canon_reldir%_signatures_LDADD = $(fuzz_ldadd)
%canon_reldir%_knowledge_SOURCES = %reldir%/knowledge.cc $(fuzz_headers) $(fuzz_driver)
%canon_reldir%_knowledge_CPPFLAGS = $(fuzz_cppflags)
%canon_reldir%_knowledge_CXXFLAGS = $(fuzz_cxxflags)
%canon_reldir%_knowledge_LDFLAGS = $(fuzz_ldflags)
%canon_reldir%_knowledge_LDADD = $(fuzz_ldadd)
# The epilog's parser (libdiag's YAML loader behind denpex_conf_parse; no libslurm).
%canon_reldir%_epilog_config_SOURCES = %reldir%/epilog_config.cc epilog/config.hh epilog/config.cc libdiag/c_api.cc \
	$(fuzz_headers) $(fuzz_driver)
%canon_reldir%_epilog_config_CPPFLAGS = $(fuzz_cppflags) -I$(top_srcdir)/libdiag
%canon_reldir%_epilog_config_CXXFLAGS = $(fuzz_cxxflags)
%canon_reldir%_epilog_config_LDFLAGS = $(fuzz_ldflags)
%canon_reldir%_epilog_config_LDADD = $(fuzz_ldadd) $(YAML_LIBS)

if BUILD_SPANK
# The plugin's sources with the fake SPANK API, as check_spank links them.
check_PROGRAMS += %reldir%/spank_options %reldir%/spank_plugstack
fuzz_spank_sources = %reldir%/fuzz_target.hh tests/spank_stub.c $(spank_sources) $(fuzz_driver)
fuzz_spank_cppflags = $(TEST_CPPFLAGS) -I$(top_srcdir)/%reldir% $(SLURM_CFLAGS) -I$(top_srcdir)/spank
%canon_reldir%_spank_options_SOURCES = %reldir%/spank_options.cc $(fuzz_spank_sources)
%canon_reldir%_spank_options_CPPFLAGS = $(fuzz_spank_cppflags)
%canon_reldir%_spank_options_LDFLAGS = $(fuzz_ldflags)
%canon_reldir%_spank_plugstack_SOURCES = %reldir%/spank_plugstack.cc $(fuzz_spank_sources)
%canon_reldir%_spank_plugstack_CPPFLAGS = $(fuzz_spank_cppflags)
%canon_reldir%_spank_plugstack_LDFLAGS = $(fuzz_ldflags)
endif

TEST_EXTENSIONS += .seeds
SEEDS_LOG_COMPILER = $(SHELL) $(srcdir)/%reldir%/run.sh $(FUZZ_ENGINE) check
FUZZ_TESTS = %reldir%/text_log.seeds %reldir%/event_scan.seeds %reldir%/gzip_text.seeds %reldir%/sacct.seeds %reldir%/torchelastic.seeds \
	%reldir%/plugin_records.seeds %reldir%/fr_pickle.seeds %reldir%/fr_json.seeds \
	%reldir%/signatures.seeds %reldir%/knowledge.seeds %reldir%/epilog_config.seeds
if BUILD_SPANK
FUZZ_TESTS += %reldir%/spank_options.seeds %reldir%/spank_plugstack.seeds
endif
TESTS += $(FUZZ_TESTS)

FUZZ_SECONDS = 60
if ENABLE_FUZZING
fuzz: $(check_PROGRAMS)
	@fail=0; for t in $(FUZZ_NAMES); do \
	  top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' TZ=UTC \
	    $(SHELL) $(srcdir)/%reldir%/run.sh $(FUZZ_ENGINE) fuzz $$t $(FUZZ_SECONDS) || fail=1; \
	done; exit $$fail
else
fuzz:
	@echo "make fuzz needs ./configure --enable-fuzzing (clang-14, libclang-rt-14-dev)" >&2; exit 1
endif
.PHONY: fuzz

EXTRA_DIST += %reldir%/run.sh %reldir%/replay_main.cc %reldir%/seeds %reldir%/regressions \
	%reldir%/text_log.seeds %reldir%/event_scan.seeds %reldir%/gzip_text.seeds %reldir%/sacct.seeds %reldir%/torchelastic.seeds %reldir%/plugin_records.seeds \
	%reldir%/fr_pickle.seeds %reldir%/fr_json.seeds %reldir%/signatures.seeds %reldir%/knowledge.seeds \
	%reldir%/epilog_config.seeds %reldir%/spank_options.seeds %reldir%/spank_plugstack.seeds \
	%reldir%/text_log.dict %reldir%/event_scan.dict %reldir%/gzip_text.dict %reldir%/sacct.dict %reldir%/torchelastic.dict %reldir%/plugin_records.dict \
	%reldir%/fr_pickle.dict %reldir%/fr_json.dict %reldir%/signatures.dict %reldir%/knowledge.dict \
	%reldir%/epilog_config.dict %reldir%/spank_options.dict %reldir%/spank_plugstack.dict

clean-local: clean-fuzz
clean-fuzz:
	-rm -rf %reldir%/corpus %reldir%/artifacts %reldir%/*.log
.PHONY: clean-fuzz
