// The admin report: verdict JSON and a text report, written atomically
// (temp file, fsync, rename) into a root-owned directory.
#pragma once

#include <sys/types.h>

#include <string>

namespace denpex::epilog {

// mkdir -p path (last component with mode), then checks that the directory
// is ours, not a symlink, and not writable by group or others. When the last
// component sits in a directory anyone may write to and is not our
// directory (a user made it first, or a symlink), it is removed and made
// afresh: a user must not be able to switch diagnosis off.
bool ensure_private_dir(const std::string &path, mode_t mode, std::string &err);

// Removes parent/name and everything under it without following symlinks.
void remove_tree(int parent, const std::string &name, int depth = 0);

// Writes data to dir/name through a temp file in dir and rename().
bool write_atomic(const std::string &dir, const std::string &name, const std::string &data,
		  mode_t mode, std::string &err);

} // namespace denpex::epilog
