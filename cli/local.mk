# cli: the denpex command, a thin spoke over libdiag (linked statically).
bin_PROGRAMS += denpex
denpex_SOURCES = %reldir%/denpex.cc
denpex_CXXFLAGS = $(AM_CXXFLAGS) $(JANSSON_CFLAGS)
denpex_LDADD = libdiag/libdiagcore.la
