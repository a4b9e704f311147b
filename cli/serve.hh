// denpex serve: the diagnosis console over HTTP (libmicrohttpd).
#pragma once

#include <cstdint>

namespace cli {

extern const char *const serve_usage;

// Runs until SIGINT or SIGTERM. Returns the exit status.
int cmd_serve(int argc, char **argv);

} // namespace cli

// "512M", "2G", "1024": a size in bytes (defined in cli/denpex.cc).
bool parse_size(const char *s, uint64_t &out);
