// Files zl reads and writes: only regular files are opened for reading, what is read is capped,
// paths named by documents stay inside their folder, and writes never leave half a file.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace zl::util {

// The most zl reads of a small document (identity, plan, op list, receipt, shape file), and of a
// log. A larger file is refused with its name: no harness document comes near these sizes.
inline constexpr std::size_t k_document_limit = std::size_t{16} << 20;
inline constexpr std::size_t k_log_limit = std::size_t{2} << 30;

// Writes content to path through a temporary file in the same folder and a rename. The file
// gets the mode a plain creation would (0666 less the umask), like its siblings.
void write_file_atomic(const std::string& path, std::string_view content);

// Opens path for reading when it is a regular file (links followed), and never blocks on a FIFO
// or a device; the caller closes the descriptor. Throws Error naming the path otherwise.
int open_regular(const std::string& path);

// The whole file, at most limit bytes; throws Error naming the path when it cannot be read, is
// not a regular file or is larger.
std::string read_file(const std::string& path, std::size_t limit = k_document_limit);

// The first max bytes of a regular file (all of a shorter one).
std::string read_head(const std::string& path, std::size_t max);

// path (relative to root, or absolute) with its links resolved, when that lies inside root
// (itself resolved); throws Error naming what and the path when it leads outside. The file need
// not exist: the part of it that does is resolved.
std::string resolve_inside(const std::string& root, const std::string& path, std::string_view what);

// Creates path and its parents; throws Error naming the path on failure.
void make_dirs(const std::string& path);

// An absolute, lexically normal form of path (relative to the working directory). An absolute
// path never needs the working directory; a relative one when it is gone is a usage error.
std::string absolute(const std::string& path);

} // namespace zl::util
