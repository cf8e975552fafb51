// The one exception type zl throws for errors a user can act on.
#pragma once

#include <stdexcept>
#include <string>

namespace zl {

// Exit codes, documented in `zl --help` and README.md.
enum ExitCode : int {
  k_exit_ok = 0,
  k_exit_usage = 2,         // bad option or configuration, backend not loadable
  k_exit_preflight = 3,     // a run's preflight check failed
  k_exit_regression = 6,    // zl summary --fail-on-regression tripped (4 and 5 are pytest's, passed through)
  k_exit_internal = 70,     // a bug in zl (EX_SOFTWARE)
  k_exit_interrupted = 130, // stopped by a stop signal (Ctrl-C, SIGTERM, SIGHUP): 128 + SIGINT
  k_exit_output = 74,       // standard output could not be written (EX_IOERR)
};

// An error whose message tells the user what went wrong and what to do. Caught once, in main.
class Error : public std::runtime_error
{
public:
  explicit Error(const std::string& message, int exit_code = k_exit_usage)
    : std::runtime_error(message), m_exit_code(exit_code)
  {}

  int exit_code() const noexcept { return m_exit_code; }

private:
  int m_exit_code;
};

} // namespace zl
