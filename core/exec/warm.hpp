// The warm executor (`zl batch --executor warm`): one long-lived worker per slot (device) that
// pays Python's imports once and runs op after op (core/exec/worker.hpp). Each op still gets
// zl run's checks, run folder and identity (run::run_checked, run::execute); the identity
// records the worker's pid and how many ops it ran before. A worker that dies takes only its
// op with it (crashed); the next op starts a fresh one.
#pragma once

#include "exec/executor.hpp"
#include "exec/factory.hpp"
#include "exec/worker.hpp"
#include "util/escalation.hpp"

#include <memory>
#include <mutex>
#include <vector>

namespace zl::exec {

// Refuses what a warm worker cannot give: --isolate-tuner-cache (why: warm.cpp). Throws Error
// (exit 2) naming the fix.
void check_warm_request(const run::Request& request);

// The modules a worker imports once at start: the backend's torch module and flag_gems
// (where the backend has a torch module), then ZL_WARM_PRELOAD's comma list.
std::vector<std::string> warm_preload(const loader::Module& backend);

class WarmExecutor : public Executor
{
public:
  // One slot per device of setup; setup.backend must be set.
  explicit WarmExecutor(const ExecutorSetup& setup);
  ~WarmExecutor() override;
  std::string name() const override { return "warm"; }
  OpEnd run(const OpLaunch& launch) override;
  void stop(size_t slot, Stop how) override;
  void shutdown() override;

private:
  struct Slot
  {
    std::mutex m;         // guards pgid, stopped, interrupt (stop() comes from another thread)
    int pgid = 0;         // the worker's group while one runs
    bool stopped = false; // stop() was asked during the current op
    // Begun by the op's first interrupt: KILL follows when the op has not ended within the grace.
    util::Escalation interrupt;
    std::unique_ptr<Worker> worker;      // only the slot's thread touches it
    std::vector<std::string> worker_env; // what the worker was started with: another op's differs
  };
  class Launcher;

  const loader::Module& m_backend;
  ZlCommand m_zl; // the `zl run` each op stands for is recorded as its command
  std::vector<std::unique_ptr<Slot>> m_slots;
};

} // namespace zl::exec
