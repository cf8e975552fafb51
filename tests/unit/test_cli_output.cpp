#include "output.hpp"

#include "util/error.hpp"

#include <doctest/doctest.h>

#include <fcntl.h>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

// zl::cli::main as main.cpp calls it, its output to /dev/null.
int run_zl(std::vector<std::string> args)
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
  ::close(out), ::close(err), ::close(null);
  return rc;
}

} // namespace

TEST_CASE("zl::cli::option_error")
{
  namespace po = boost::program_options;
  // tests/fuzz/regressions/cli/timeout-summary-threshold-value-placeholder: fuzz_cli ran
  // `zl summary --threshold <this>`, and boost's message for the bad value never came back.
  const std::string value = "11111%value%'111M\aM111111\xc0"
                            "f?\x91?";
  CHECK(run_zl({"summary", "--threshold", value}) == zl::k_exit_usage);
  CHECK(run_zl({"--backend-path", "%option%", "--bogus"}) == zl::k_exit_usage);
  CHECK(run_zl({"plan", "--level", "--prefix%prefix%"}) == zl::k_exit_usage);

  const po::invalid_option_value bad("%value%");
  CHECK(zl::cli::option_error(bad, {"--threshold", "%value%"}) ==
        "the argument '%value%' is not accepted here (an option's value cannot hold %value%)");
  const po::invalid_option_value plain("x");
  CHECK(zl::cli::option_error(plain, {"--threshold", "x"}) == std::string(plain.what()));
}
