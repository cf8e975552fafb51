// Files written so that an interruption never leaves half of one.
#pragma once

#include <string>
#include <string_view>

namespace zl::util {

// Writes content to path through a temporary file in the same folder and a rename.
void write_file_atomic(const std::string& path, std::string_view content);

// The whole file; throws Error naming the path when it cannot be read.
std::string read_file(const std::string& path);

// Creates path and its parents; throws Error naming the path on failure.
void make_dirs(const std::string& path);

// An absolute, lexically normal form of path (relative to the working directory).
std::string absolute(const std::string& path);

} // namespace zl::util
