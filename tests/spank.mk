# tests/spank.mk: tests of spank_denpex.so (issue 4).
#   check_spank           Check suite: plugstack arguments, --denpex/$DENPEX, task
#                         environment decisions, records, spool dir, whole callback
#                         sequences per context; links the plugin sources with
#                         tests/spank_stub.c (a fake SPANK API).
#   dlopen_plugin         the built .so loads with RTLD_NOW next to the stub and
#                         exports only plugin_* / slurm_spank_*.
#   slurm/spank_integration.sh  real Slurm (tests/slurm/testbed): srun/sbatch with
#                         the plugin installed; needs root (exit 77 otherwise);
#                         run in the Slurm chain (tests/slurm.mk).
EXTRA_DIST += %reldir%/spank_stub.c %reldir%/slurm/testbed %reldir%/slurm/spank_integration.sh

if BUILD_SPANK
if HAVE_CHECK
check_PROGRAMS += %reldir%/check_spank
TESTS += %reldir%/check_spank
%canon_reldir%_check_spank_SOURCES = %reldir%/check_spank.cc %reldir%/spank_stub.c $(spank_sources)
%canon_reldir%_check_spank_CPPFLAGS = $(TEST_CPPFLAGS) $(SLURM_CFLAGS) -I$(top_srcdir)/spank
%canon_reldir%_check_spank_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
%canon_reldir%_check_spank_CXXFLAGS = $(AM_CXXFLAGS) $(CHECK_CFLAGS)
%canon_reldir%_check_spank_LDADD = $(CHECK_LIBS)
endif

check_PROGRAMS += %reldir%/dlopen_plugin
TESTS += %reldir%/dlopen_plugin
%canon_reldir%_dlopen_plugin_SOURCES = %reldir%/dlopen_plugin.cc %reldir%/spank_stub.c
%canon_reldir%_dlopen_plugin_CPPFLAGS = $(AM_CPPFLAGS) $(SLURM_CFLAGS)
# The plugin's spank_*/slurm_* references resolve against this executable's stub.
%canon_reldir%_dlopen_plugin_LDFLAGS = $(AM_LDFLAGS) -export-dynamic
%canon_reldir%_dlopen_plugin_LDADD = -ldl
endif
