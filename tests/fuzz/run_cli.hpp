// zl::cli::main (what main.cpp calls) in-process on an argument vector, its standard output and
// error sent to /dev/null meanwhile: for fuzz_cli.cpp and the unit tests that replay its findings.
#pragma once

#include "app.hpp"

#include <fcntl.h>
#include <string>
#include <unistd.h>
#include <vector>

namespace zl::fuzz {

inline int run_cli(std::vector<std::string> args)
{
  std::vector<char*> argv;
  std::string name = "zl";
  argv.push_back(name.data());
  for (auto& a : args) {
    argv.push_back(a.data());
  }
  argv.push_back(nullptr);
  const int out = ::dup(STDOUT_FILENO), err = ::dup(STDERR_FILENO), null = ::open("/dev/null", O_WRONLY);
  ::dup2(null, STDOUT_FILENO);
  ::dup2(null, STDERR_FILENO);
  const int rc = zl::cli::main(static_cast<int>(argv.size() - 1), argv.data());
  ::dup2(out, STDOUT_FILENO);
  ::dup2(err, STDERR_FILENO);
  ::close(out);
  ::close(err);
  ::close(null);
  return rc;
}

} // namespace zl::fuzz
