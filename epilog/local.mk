# denpex-epilog: the Slurm Epilog / EpilogSlurmctld program (issue 5).
# Needs libslurm (slurm_load_job, slurmdb_job_modify); configure decides.
if BUILD_EPILOG
sbin_PROGRAMS += denpex-epilog
endif
denpex_epilog_SOURCES = \
	%reldir%/main.cc \
	%reldir%/run.hh %reldir%/run.cc \
	%reldir%/run_state.hh %reldir%/run_state.cc \
	%reldir%/job_context.hh %reldir%/job_context.cc \
	%reldir%/gathering.hh %reldir%/gathering.cc \
	%reldir%/diagnosing.hh %reldir%/diagnosing.cc \
	%reldir%/job_report.hh %reldir%/job_report.cc \
	%reldir%/verdict_comment.hh %reldir%/verdict_comment.cc \
	%reldir%/bounded_child.hh %reldir%/bounded_child.cc \
	%reldir%/worker_record.hh %reldir%/worker_record.cc \
	%reldir%/config.hh %reldir%/config.cc \
	%reldir%/log.hh %reldir%/log.cc \
	%reldir%/expand.hh %reldir%/expand.cc \
	%reldir%/comment.hh %reldir%/comment.cc \
	%reldir%/safe_read.hh %reldir%/safe_read.cc \
	%reldir%/report.hh %reldir%/report.cc \
	%reldir%/own_files.hh %reldir%/own_files.cc \
	%reldir%/kmsg.hh %reldir%/kmsg.cc \
	%reldir%/attribution.hh %reldir%/attribution.cc \
	%reldir%/spool_trust.hh %reldir%/spool_trust.cc \
	%reldir%/comment_queue.hh %reldir%/comment_queue.cc \
	%reldir%/slurm_io.hh %reldir%/slurm_io.cc \
	%reldir%/gpu_health_collect.hh %reldir%/gpu_health_collect.cc \
	$(NULL)
denpex_epilog_CXXFLAGS = $(AM_CXXFLAGS) $(SLURM_CFLAGS) $(CURL_CFLAGS) $(JANSSON_CFLAGS)
denpex_epilog_LDADD = libdiag/libdenpexdiag.la $(SLURM_LIBS) $(CURL_LIBS) $(JANSSON_LIBS)

# The man pages name the configuration file where this build looks for it
# ($(sysconfdir)/denpex/denpex.yaml: /etc/denpex/... with --sysconfdir=/etc).
man_MANS = man/denpex-epilog.8 man/denpex.yaml.5
EXTRA_DIST += man/denpex-epilog.8.in man/denpex.yaml.5.in
CLEANFILES += man/denpex-epilog.8 man/denpex.yaml.5
man/denpex-epilog.8: $(srcdir)/man/denpex-epilog.8.in Makefile
	$(AM_V_GEN)$(MKDIR_P) man && sed -e 's|@sysconfdir[@]|$(sysconfdir)|g' -e 's|@pkgdatadir[@]|$(pkgdatadir)|g' $(srcdir)/man/denpex-epilog.8.in >$@.tmp && mv -f $@.tmp $@
man/denpex.yaml.5: $(srcdir)/man/denpex.yaml.5.in Makefile
	$(AM_V_GEN)$(MKDIR_P) man && sed -e 's|@sysconfdir[@]|$(sysconfdir)|g' $(srcdir)/man/denpex.yaml.5.in >$@.tmp && mv -f $@.tmp $@
