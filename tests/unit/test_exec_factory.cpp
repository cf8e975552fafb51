#include "exec/factory.hpp"

#include "util/error.hpp"

#include <doctest/doctest.h>

using namespace zl;

TEST_CASE("zl::exec::make_executor: process by name; an unknown name is refused naming the accepted ones")
{
  exec::ExecutorSetup setup;
  setup.devices.resize(2);
  const auto process = exec::make_executor("process", setup);
  REQUIRE(process != nullptr);
  CHECK(process->name() == "process");
  CHECK(exec::default_executor(false) == "warm");
  CHECK(exec::default_executor(true) == "process"); // --isolate-tuner-cache needs a fresh process
  try {
    exec::make_executor("slurm", setup);
    FAIL("accepted an unknown executor");
  } catch (const Error& e) {
    CHECK(e.exit_code() == 2);
    CHECK(std::string(e.what()).find("--executor slurm") != std::string::npos);
    CHECK(std::string(e.what()).find("process") != std::string::npos);
  }
}
