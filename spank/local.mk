# spank_denpex.so: the SPANK plugin (issue 4). Built only when configure found
# slurm/spank.h (BUILD_SPANK); installed into $(slurmplugindir)
# (--with-slurm-plugindir, default $(libdir)/slurm).
#
# Flags: -module -avoid-version -shared plus a version script that
# exports only the plugin symbols; never -no-undefined and never $(SLURM_LIBS):
# the spank_* and slurm_* symbols come from srun/slurmd/slurmstepd at load time.
spank_sources = \
	%reldir%/spank_denpex.hh \
	%reldir%/spank_denpex.cc \
	%reldir%/options.cc \
	%reldir%/plugin_config.cc \
	%reldir%/local.cc \
	%reldir%/remote.cc \
	%reldir%/task_env.cc \
	%reldir%/records.cc \
	%reldir%/spool.cc \
	$(NULL)

EXTRA_DIST += %reldir%/spank_denpex.map conf/plugstack.conf.d/denpex.conf.in
dist_man_MANS += man/spank_denpex.8

if BUILD_SPANK
slurmplugin_LTLIBRARIES += %reldir%/spank_denpex.la
%canon_reldir%_spank_denpex_la_SOURCES = $(spank_sources)
%canon_reldir%_spank_denpex_la_CPPFLAGS = $(AM_CPPFLAGS) $(SLURM_CFLAGS)
%canon_reldir%_spank_denpex_la_CXXFLAGS = $(AM_CXXFLAGS) -fvisibility=hidden
%canon_reldir%_spank_denpex_la_LDFLAGS = $(AM_LDFLAGS) -module -avoid-version -shared \
	-Wl,--version-script=$(srcdir)/%reldir%/spank_denpex.map
EXTRA_%canon_reldir%_spank_denpex_la_DEPENDENCIES = %reldir%/spank_denpex.map

# The one-line enablement snippet for plugstack.conf.d/, with the plugin's
# installed path; installed as $(pkgdatadir)/plugstack.conf.d/denpex.conf
# (copy or link it into /etc/slurm/plugstack.conf.d/).
denpexplugstackdir = $(pkgdatadir)/plugstack.conf.d
nodist_denpexplugstack_DATA = conf/plugstack.conf.d/denpex.conf
CLEANFILES += conf/plugstack.conf.d/denpex.conf
conf/plugstack.conf.d/denpex.conf: $(srcdir)/conf/plugstack.conf.d/denpex.conf.in Makefile
	$(AM_V_GEN)$(MKDIR_P) conf/plugstack.conf.d && \
	sed -e 's|@slurmplugindir[@]|$(slurmplugindir)|g' \
		$(srcdir)/conf/plugstack.conf.d/denpex.conf.in >$@.tmp && mv -f $@.tmp $@
endif
