#include "output.hpp"

#include "../fuzz/run_cli.hpp"
#include "util/error.hpp"

#include <doctest/doctest.h>

#include <string>

TEST_CASE("zl::cli::option_error")
{
  namespace po = boost::program_options;
  // tests/fuzz/regressions/cli/timeout-summary-threshold-value-placeholder: fuzz_cli ran
  // `zl summary --threshold <this>`, and boost's message for the bad value never came back.
  const std::string value = "11111%value%'111M\aM111111\xc0"
                            "f?\x91?";
  CHECK(zl::fuzz::run_cli({"summary", "--threshold", value}) == zl::k_exit_usage);
  CHECK(zl::fuzz::run_cli({"--backend-path", "%option%", "--bogus"}) == zl::k_exit_usage);
  CHECK(zl::fuzz::run_cli({"plan", "--level", "--prefix%prefix%"}) == zl::k_exit_usage);

  const po::invalid_option_value bad("%value%");
  CHECK(zl::cli::option_error(bad, {"--threshold", "%value%"}) ==
        "the argument '%value%' is not accepted here (an option's value cannot hold %value%)");
  const po::invalid_option_value plain("x");
  CHECK(zl::cli::option_error(plain, {"--threshold", "x"}) == std::string(plain.what()));
}
