# cli: the denpex command, a thin spoke over libdiag (linked statically),
# and denpex serve, the diagnosis console (libmicrohttpd).
bin_PROGRAMS += denpex
denpex_SOURCES = %reldir%/denpex.cc %reldir%/serve.hh %reldir%/serve.cc
nodist_denpex_SOURCES = %reldir%/console_js.h
denpex_CXXFLAGS = $(AM_CXXFLAGS) $(JANSSON_CFLAGS) $(MHD_CFLAGS)
denpex_LDADD = libdiag/libdiagcore.la $(MHD_LIBS)

# The console's script, compiled in like the page's stylesheet
# (libdiag/local.mk): one binary is the whole console, nothing to install
# beside it or to find at run time.
BUILT_SOURCES += %reldir%/console_js.h
$(denpex_OBJECTS): %reldir%/console_js.h
CLEANFILES += %reldir%/console_js.h
EXTRA_DIST += %reldir%/console.js
%reldir%/console_js.h: %reldir%/console.js
	$(AM_V_GEN)$(MKDIR_P) $(@D) && { echo 'static const unsigned char console_js_bytes[] = {'; \
	  od -An -v -tx1 <$< | sed 's/\([0-9a-f][0-9a-f]\)/0x\1,/g'; echo '0x00};'; } >$@-t && mv $@-t $@
