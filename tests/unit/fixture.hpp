// Helpers for unit tests that read files under tests/fixtures.
#pragma once

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace zl::test {

inline std::string fixture_path(const std::string& relative)
{
  return std::string(ZL_FIXTURE_DIR) + "/" + relative;
}

inline std::string read_fixture(const std::string& relative)
{
  std::ifstream in(fixture_path(relative), std::ios::binary);
  if (!in) {
    throw std::runtime_error("missing fixture " + fixture_path(relative));
  }
  std::ostringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

} // namespace zl::test
