# libdiag: the diagnosis library. Its folders follow the data:
#   model/     what flows through: the class vocabulary, events, evidence
#   config/    YAML documents with line numbers (signatures, tables, config)
#   reading/   sources: sniffing, line reader, gzip, cleaning, prefixes, timestamps,
#              the readers of job logs, sacct, torchelastic and plugin records
#   matching/  the literal prefilter, PCRE2, signatures as data
#   fr/        PyTorch flight-recorder dumps: unpickler, dumps, analysis
#   aligning/  who ran where, the common clock, the rank map, the merged timeline
#   deciding/  the diagnosis, and the tables that give a class its action
#   rendering/ the verdict as JSON, text and the job's Comment, all strict UTF-8
# pipeline.cc runs them in that order; c_api.cc is the C ABI for the epilog.
# The code is one convenience library, linked into the installed shared
# library and statically into the CLI and the tests, which then run without
# libtool wrapper scripts.
noinst_LTLIBRARIES += libdiag/libdiagcore.la
lib_LTLIBRARIES += libdiag/libdenpexdiag.la
include_HEADERS = libdiag/denpex_diag.h

libdiag_libdiagcore_la_SOURCES = \
	%reldir%/model/failure_class.hh %reldir%/model/failure_class.cc \
	%reldir%/model/event.hh \
	%reldir%/model/evidence.hh %reldir%/model/evidence.cc \
	%reldir%/model/run_links.hh \
	%reldir%/config/yaml_doc.hh %reldir%/config/yaml_doc.cc \
	%reldir%/config/conf_c_api.cc \
	%reldir%/reading/source_sniff.hh %reldir%/reading/source_sniff.cc \
	%reldir%/reading/line_reader.hh %reldir%/reading/line_reader.cc \
	%reldir%/reading/text_clean.hh %reldir%/reading/text_clean.cc \
	%reldir%/reading/line_prefix.hh %reldir%/reading/line_prefix.cc \
	%reldir%/reading/timestamp.hh %reldir%/reading/timestamp.cc \
	%reldir%/reading/text_log_reader.hh %reldir%/reading/text_log_reader.cc \
	%reldir%/reading/rank_rounds.hh %reldir%/reading/rank_rounds.cc \
	%reldir%/reading/stack_dumps.hh %reldir%/reading/stack_dumps.cc \
	%reldir%/reading/stop_tracebacks.hh %reldir%/reading/stop_tracebacks.cc \
	%reldir%/reading/command_sections.hh %reldir%/reading/command_sections.cc \
	%reldir%/reading/event_scan.hh %reldir%/reading/event_scan.cc %reldir%/reading/timed_filter.hh \
	%reldir%/reading/file_prefetch.hh %reldir%/reading/file_prefetch.cc \
	%reldir%/reading/fd_io.hh %reldir%/reading/fd_io.cc \
	%reldir%/reading/gzip_text.hh %reldir%/reading/gzip_text.cc \
	%reldir%/reading/sacct_reader.hh %reldir%/reading/sacct_reader.cc \
	%reldir%/reading/qacct_record.hh %reldir%/reading/qacct_record.cc \
	%reldir%/reading/slurm_nodelist.hh %reldir%/reading/slurm_nodelist.cc \
	%reldir%/reading/launch_hosts.hh %reldir%/reading/launch_hosts.cc \
	%reldir%/reading/torchelastic_reader.hh %reldir%/reading/torchelastic_reader.cc \
	%reldir%/reading/plugin_records.hh %reldir%/reading/plugin_records.cc \
	%reldir%/model/gpu_health.hh \
	%reldir%/reading/gpu_health_readers.hh %reldir%/reading/gpu_health_sniff.cc \
	%reldir%/reading/dcgm_exporter_reader.cc %reldir%/reading/dcgmi_reader.cc \
	%reldir%/reading/nvidia_smi_reader.cc \
	%reldir%/reading/ray_session.hh %reldir%/reading/ray_session.cc \
	%reldir%/reading/wandb_run.hh %reldir%/reading/wandb_run.cc \
	%reldir%/matching/literal_set.hh %reldir%/matching/literal_set.cc \
	%reldir%/matching/buffer_literals.hh %reldir%/matching/buffer_literals.cc \
	%reldir%/matching/compiled_cache.hh %reldir%/matching/compiled_cache.cc \
	%reldir%/matching/regex.hh %reldir%/matching/regex.cc \
	%reldir%/matching/signature.hh %reldir%/matching/signature.cc \
	%reldir%/fr/fr_pickle.hh %reldir%/fr/fr_pickle.cc \
	%reldir%/fr/fr_dump.hh %reldir%/fr/fr_dump.cc \
	%reldir%/fr/fr_analysis.hh %reldir%/fr/fr_analysis.cc \
	%reldir%/fr/fr_bridge.hh %reldir%/fr/fr_bridge.cc \
	%reldir%/aligning/clock.hh %reldir%/aligning/clock.cc \
	%reldir%/aligning/rank_map.hh %reldir%/aligning/rank_map.cc \
	%reldir%/aligning/rank_layout.hh %reldir%/aligning/rank_layout.cc \
	%reldir%/aligning/identities.hh %reldir%/aligning/identities.cc \
	%reldir%/aligning/host_aliases.hh %reldir%/aligning/host_aliases.cc \
	%reldir%/aligning/timeline.hh %reldir%/aligning/timeline.cc \
	%reldir%/aligning/progress_clock.hh %reldir%/aligning/progress_clock.cc \
	%reldir%/deciding/knowledge.hh %reldir%/deciding/knowledge.cc \
	%reldir%/deciding/decision.hh %reldir%/deciding/context.hh \
	%reldir%/deciding/exits.hh %reldir%/deciding/exits.cc \
	%reldir%/deciding/host_resolution.cc \
	%reldir%/deciding/reclaimed_node.cc \
	%reldir%/deciding/starved_node.cc \
	%reldir%/deciding/peer_fault.cc \
	%reldir%/deciding/mutual_link_errors.cc \
	%reldir%/deciding/link_fault_rank.cc \
	%reldir%/deciding/xid_meaning.cc \
	%reldir%/deciding/relevance.cc \
	%reldir%/deciding/slurm_last_word.cc \
	%reldir%/deciding/fault_choice.cc \
	%reldir%/deciding/common_mode.cc \
	%reldir%/deciding/hang_structure.cc \
	%reldir%/deciding/stall_report.cc \
	%reldir%/deciding/stopped_while_hung.cc \
	%reldir%/deciding/stalled_before_end.cc \
	%reldir%/deciding/decide.cc \
	%reldir%/deciding/launch_phase.cc \
	%reldir%/deciding/nan_origin.cc \
	%reldir%/deciding/confidence.cc \
	%reldir%/deciding/diagnose.hh %reldir%/deciding/diagnose.cc \
	%reldir%/deciding/corroboration.hh %reldir%/deciding/corroboration.cc \
	%reldir%/rendering/utf8.hh %reldir%/rendering/utf8.cc \
	%reldir%/rendering/verdict.hh %reldir%/rendering/verdict.cc \
	%reldir%/rendering/links.hh %reldir%/rendering/links.cc \
	%reldir%/rendering/explain.hh \
	%reldir%/rendering/wording.cc \
	%reldir%/rendering/next_action.cc \
	%reldir%/rendering/evidence_pick.cc \
	%reldir%/rendering/markup_escape.hh %reldir%/rendering/markup_escape.cc \
	%reldir%/rendering/timeline_svg.hh %reldir%/rendering/timeline_svg.cc \
	%reldir%/rendering/report_html.hh %reldir%/rendering/report_html.cc \
	%reldir%/rendering/metrics.hh %reldir%/rendering/metrics.cc \
	%reldir%/pipeline.hh %reldir%/pipeline.cc \
	$(NULL)
nodist_libdiag_libdiagcore_la_SOURCES = %reldir%/rendering/page_css.h
libdiag_libdiagcore_la_CXXFLAGS = $(AM_CXXFLAGS) -fPIC $(HS_CFLAGS) $(PCRE2_CFLAGS) $(JANSSON_CFLAGS) $(YAML_CFLAGS) $(EXPAT_CFLAGS) $(ZLIB_CFLAGS)
libdiag_libdiagcore_la_LIBADD = $(HS_LIBS) $(PCRE2_LIBS) $(JANSSON_LIBS) $(YAML_LIBS) $(EXPAT_LIBS) $(ZLIB_LIBS) -lpthread

libdiag_libdenpexdiag_la_SOURCES = %reldir%/denpex_diag.h %reldir%/c_api.cc
libdiag_libdenpexdiag_la_CXXFLAGS = $(AM_CXXFLAGS)
libdiag_libdenpexdiag_la_LIBADD = libdiag/libdiagcore.la
libdiag_libdenpexdiag_la_LDFLAGS = $(AM_LDFLAGS) -version-info 0:0:0 -no-undefined \
	-Wl,--version-script=$(top_srcdir)/%reldir%/libdiag.map
EXTRA_DIST += %reldir%/libdiag.map

# The page's stylesheet, compiled in as bytes: report.html is written by
# the root epilog, which must not depend on a file found at run time.
# (od and sed: POSIX, nothing more to install.)
BUILT_SOURCES += %reldir%/rendering/page_css.h
# ... also when only one target is made (BUILT_SOURCES serves all and check).
$(libdiag_libdiagcore_la_OBJECTS): %reldir%/rendering/page_css.h
CLEANFILES += %reldir%/rendering/page_css.h
EXTRA_DIST += %reldir%/rendering/page.css
%reldir%/rendering/page_css.h: %reldir%/rendering/page.css
	$(AM_V_GEN)$(MKDIR_P) $(@D) && { echo 'static const unsigned char page_css_bytes[] = {'; \
	  od -An -v -tx1 <$< | sed 's/\([0-9a-f][0-9a-f]\)/0x\1,/g'; echo '0x00};'; } >$@-t && mv $@-t $@
