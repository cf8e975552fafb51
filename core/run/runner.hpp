// Carrying out a plan: the run folder, pytest in its own process group, and the record left
// behind however the run ends.
#pragma once

#include "run/plan.hpp"

namespace zl::run {

// pytest's exit status as zl reports it: passed through, except pytest's 2 (interrupted or
// collection errors) and 3 (internal error), which would read as zl's usage error and
// preflight failure; they become 12 and 13.
int map_pytest_exit(int pytest_exit);

// Writes the run folder, runs pytest once, and returns zl's exit code. SIGINT and SIGTERM stop
// pytest's whole process group; the folder still gets run_identity.json (status interrupted)
// and zl exits 130.
int execute(const Plan& plan);

} // namespace zl::run
