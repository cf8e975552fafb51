#include "exec/executor.hpp"

#include <doctest/doctest.h>

#include <csignal>

using namespace zl::exec;

TEST_CASE("zl::exec::signal_of")
{
  // Each stop escalates: an interrupt lets the op record itself, terminate is a timeout's,
  // kill ends it when the grace has passed. The process and warm executors send the same.
  CHECK(signal_of(Stop::interrupt) == SIGINT);
  CHECK(signal_of(Stop::terminate) == SIGTERM);
  CHECK(signal_of(Stop::kill) == SIGKILL);
}
