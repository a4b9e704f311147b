#!/bin/sh
# Regenerate the build system from configure.ac and the Makefile.am fragments.
set -e
cd "$(dirname "$0")"
autoreconf -fi
