# denpex-epilog: the Slurm Epilog / EpilogSlurmctld program (issue 5).
# Needs libslurm (slurm_load_job, slurmdb_job_modify); configure decides.
if BUILD_EPILOG
sbin_PROGRAMS += denpex-epilog
endif
denpex_epilog_SOURCES = \
	%reldir%/main.cc \
	%reldir%/config.hh %reldir%/config.cc \
	%reldir%/log.hh %reldir%/log.cc \
	%reldir%/expand.hh %reldir%/expand.cc \
	%reldir%/comment.hh %reldir%/comment.cc \
	%reldir%/safe_read.hh %reldir%/safe_read.cc \
	%reldir%/report.hh %reldir%/report.cc \
	%reldir%/kmsg.hh %reldir%/kmsg.cc \
	%reldir%/attribution.hh %reldir%/attribution.cc \
	%reldir%/spool_trust.hh %reldir%/spool_trust.cc \
	%reldir%/comment_queue.hh %reldir%/comment_queue.cc \
	%reldir%/slurm_io.hh %reldir%/slurm_io.cc \
	$(NULL)
denpex_epilog_CXXFLAGS = $(AM_CXXFLAGS) $(SLURM_CFLAGS) $(YAML_CFLAGS)
denpex_epilog_LDADD = libdiag/libdenpexdiag.la $(SLURM_LIBS) $(YAML_LIBS)

dist_man_MANS += man/denpex-epilog.8 man/denpex.yaml.5
