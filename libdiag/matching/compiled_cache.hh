// A per-user file cache of compiled matchers (the fault scan's Vectorscan
// database, matching/buffer_literals.hh): compiling it takes about 10 ms of
// every diagnosis of a large input; reading it back takes microseconds.
//
// Trusted only as the user's own: the directory and the file must be owned
// by the effective user and writable by no one else, the file regular and
// reached without a symlink; anything else is ignored (and never written
// to). A file holds its key in full (what was compiled, and by which
// compiler version) and is used only where that key is the one asked for,
// byte for byte, and whose bytes pass its checksum (a file cut short or
// damaged); a file that does not load only costs a compile. Every
// failure is silent: the cache only ever saves time.
#pragma once

#include <string>

namespace diag::compiled_cache {

// The cache directory: DENPEX_CACHE_DIR (empty: no cache), else
// $XDG_CACHE_HOME/denpex, else $HOME/.cache/denpex (relative paths: none;
// for root or a set-id process, only DENPEX_CACHE_DIR). Empty where there
// is none.
std::string directory();

// The bytes stored under key (name: a file name, [A-Za-z0-9._-]; key: the
// whole of what the bytes were made from), or false. At most max_bytes.
bool load(const std::string &dir, const std::string &name, const std::string &key, std::string &bytes,
	  size_t max_bytes = 16u << 20);

// Stores bytes under key (written whole to a private temporary file, then
// renamed over name); false where it could not (nothing is left behind).
// Creates dir (0700) where missing, inside a parent of the user's own.
bool store(const std::string &dir, const std::string &name, const std::string &key, const std::string &bytes);

} // namespace diag::compiled_cache
