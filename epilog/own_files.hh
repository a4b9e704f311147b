// Listing and reading, as root, what the epilog itself made or has verified
// (its state and staging dirs, the plugin's root-owned markers, its comment
// queue): never through a symbolic link, never blocking on a FIFO, bounded in
// entries and bytes. A user's files are read by safe_read, as the user.
#pragma once

#include <sys/stat.h>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace denpex::epilog {

// The names in the directory dirfd/sub (sub "" : dirfd itself), without "."
// and ".."; with hidden false also without the other dot names. At most max
// names; empty when it cannot be opened.
std::vector<std::string> dir_names(int dirfd, const std::string &sub, size_t max, bool hidden = true);

// At most max bytes of dirfd/name when it opens without following a link and
// accept (if given) takes its fstat; nullopt otherwise.
std::optional<std::string> read_own_file(int dirfd, const std::string &name, size_t max,
					 const std::function<bool(const struct stat &)> &accept = {});

} // namespace denpex::epilog
