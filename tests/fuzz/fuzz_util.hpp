// What the fuzz targets share: a private folder for the parsers that read files, and the split of
// one input into the several files a reader takes together.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace zl::fuzz {

// One folder per process under $TMPDIR, made on first use and left for the OS to clean: libFuzzer
// ends a run with _exit, so no destructor would run anyway.
inline const std::string& scratch()
{
  static const std::string dir = [] {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/zl-fuzz-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw std::runtime_error("mkdtemp failed");
    }
    return pattern;
  }();
  return dir;
}

inline void put_file(const std::string& path, std::string_view content)
{
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
}

// The parts of an input separated by k_part_separator (the dictionaries name it, so the fuzzer
// finds it); at most max_parts, the last keeping any further separators.
inline constexpr std::string_view k_part_separator = "\n=====\n";

inline std::vector<std::string_view> split_parts(std::string_view input, std::size_t max_parts)
{
  std::vector<std::string_view> parts;
  while (parts.size() + 1 < max_parts) {
    const auto at = input.find(k_part_separator);
    if (at == std::string_view::npos) {
      break;
    }
    parts.push_back(input.substr(0, at));
    input.remove_prefix(at + k_part_separator.size());
  }
  parts.push_back(input);
  parts.resize(max_parts);
  return parts;
}

inline std::string_view as_text(const std::uint8_t* data, std::size_t size)
{
  return {reinterpret_cast<const char*>(data), size};
}

} // namespace zl::fuzz
