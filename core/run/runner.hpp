// Carrying out a plan: the run folder, pytest in its own process group, and the record left
// behind however the run ends.
#pragma once

#include "results/op_state.hpp"
#include "run/launch.hpp"
#include "run/plan.hpp"

#include <functional>

namespace zl::run {

// zl run's exit status when pytest was killed by a signal zl did not send (SIGSEGV, SIGABRT,
// an outside SIGKILL): that of the crashed state.
inline constexpr int k_exit_benchmark_signaled = *results::exit_code_of(results::OpState::crashed);

// pytest's exit status as zl reports it: passed through, except pytest's 2 (interrupted or
// collection errors) and 3 (internal error), which would read as zl's usage error and
// preflight failure; they become 12 and 13.
int map_pytest_exit(int pytest_exit);

// zl run: writes the run folder, runs pytest once in a fresh process, and returns zl's exit
// code; the output goes to zl's standard output and error as well as run.log. SIGINT, SIGTERM
// and SIGHUP are passed to pytest's whole process group, SIGKILL follows after the grace period
// (at once on a second signal); the folder still gets run_identity.json (status interrupted)
// and zl exits 130. What pytest leaves running is ended once it exits.
int execute(const Plan& plan);

// The same run folder, record and identity with any launcher and output sinks. stopped: asked
// before pytest starts; true records the run as interrupted without starting it.
int execute(const Plan& plan, Launcher& launcher, const Sinks& sinks, const std::function<bool()>& stopped);

} // namespace zl::run
