// The `process` executor: one fresh `zl run` child per op, in a process group of its own, so a
// stop reaches the op's whole tree. What `zl batch` has always done.
#pragma once

#include "exec/executor.hpp"
#include "exec/invocation.hpp"

#include <memory>
#include <mutex>
#include <vector>

namespace zl::exec {

class ProcessExecutor : public Executor
{
public:
  ProcessExecutor(ZlCommand zl, size_t slots);

  std::string name() const override { return "process"; }
  // Starts `zl run` (run_argv) with stdout and stderr into launch.log_path, tells on_group its
  // pid at once and waits for it. A zl that cannot be started ends with exit code 127 and the
  // reason in the log.
  OpEnd run(const OpLaunch& launch) override;
  // interrupt: SIGINT to the op's group (its zl forwards it to pytest and records the run as
  // interrupted); terminate: SIGTERM; kill: SIGKILL. Nothing once the child has been waited for.
  void stop(size_t slot, Stop how) override;

private:
  struct Slot
  {
    std::mutex m;
    int pgid = 0; // the running child's group; 0 before it exists and once it has ended
  };

  ZlCommand m_zl;
  std::vector<std::unique_ptr<Slot>> m_slots;
};

} // namespace zl::exec
