// SHA-256 of files, from OpenSSL.
#pragma once

#include <string>

namespace zl::receipt {

// Lower-case hex digest of the file's bytes. Throws Error naming the file when it cannot be read.
std::string sha256_file(const std::string& path);

// Lower-case hex digest of a string.
std::string sha256_text(const std::string& text);

} // namespace zl::receipt
