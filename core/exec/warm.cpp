#include "exec/warm.hpp"

#include "run/runner.hpp"
#include "util/error.hpp"
#include "util/process.hpp"
#include "util/string.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <fstream>

namespace zl::exec {

namespace {

// What differs from op to op by design (its plan, its pytest options): the worker gets them
// with each op, and they do not call for a new worker.
bool is_op_variable(const std::string& entry)
{
  return entry.rfind("ZL_PLAN=", 0) == 0 || entry.rfind("PYTEST_ADDOPTS=", 0) == 0;
}

} // namespace

// Why --isolate-tuner-cache is refused rather than given per op: FlagGems reads
// FLAGGEMS_CACHE_DIR once per process (flag_gems/utils/code_cache.py: cache_dir_path() is an
// lru_cache), and `import flag_gems` already generates code and opens its tuner database there;
// Triton keeps compiled kernels and its autotuners' choices in memory. A worker that imported
// them before the op would carry one op's cache into the next, and an "isolated" identity would
// not be true. A fresh process per op is the only honest isolation.
void check_warm_request(const run::Request& request)
{
  if (request.isolate_tuner_cache) {
    throw Error("--isolate-tuner-cache needs a fresh process per op (FlagGems and Triton fix their cache folders "
                "and keep tuned configs in memory once imported): use --executor process with it");
  }
}

std::vector<std::string> warm_preload(const loader::Module& backend)
{
  std::vector<std::string> preload;
  if (*backend.desc.torch_module != '\0') {
    preload = {backend.desc.torch_module, "flag_gems"};
  }
  if (const char* extra = std::getenv("ZL_WARM_PRELOAD"); extra != nullptr) {
    for (const auto& m : util::split(extra, ',')) {
      if (!m.empty()) {
        preload.push_back(m);
      }
    }
  }
  return preload;
}

// Hands a plan to the slot's worker, starting one when there is none (or the one there was
// started for another environment).
class WarmExecutor::Launcher : public run::Launcher
{
public:
  Launcher(Slot& slot, const loader::Module& backend, const OpLaunch& op) : m_slot(slot), m_backend(backend), m_op(op)
  {}
  std::string name() const override { return "warm"; }
  std::string note;

  run::Launched launch(const run::Plan& plan, const run::Sinks& sinks) override
  {
    auto env = run::child_environment(plan);
    std::vector<std::string> worker_env;
    std::copy_if(env.begin(), env.end(), std::back_inserter(worker_env),
                 [](const auto& e) { return !is_op_variable(e); });
    if (m_slot.worker && (!m_slot.worker->alive() || m_slot.worker_env != worker_env)) {
      retire();
    }
    run::Launched launched;
    launched.executor.name = "warm";
    if (!m_slot.worker) {
      try {
        m_slot.worker = std::make_unique<Worker>(plan.argv[0], worker_env, warm_preload(m_backend),
                                                 m_backend.desc.torch_module, sinks, [this](int pid) { publish(pid); });
      } catch (const Error& e) {
        retire();
        if (!stopped()) {
          launched.crash = e.what();
          note = e.what();
        }
        launched.result.stop_requested = stopped();
        return launched;
      }
      m_slot.worker_env = worker_env;
      for (const auto& failed : m_slot.worker->failed_imports()) {
        sinks.err(fmt::format("zl: the warm worker could not import {} (each op imports it itself)\n", failed));
      }
    } else {
      publish(m_slot.worker->pid());
    }
    const std::vector<std::string> args(plan.argv.begin() + 3, plan.argv.end()); // after python -m pytest
    launched = m_slot.worker->run_op(args, env, plan.run_dir, sinks, [this] { escalate(); });
    launched.result.stop_requested = stopped();
    if (launched.result.stop_requested) {
      launched.crash.clear(); // the worker died of zl's own stop
    }
    note = launched.crash;
    if (note.empty() && !launched.executor.recycled.empty()) {
      note = "the op left what its worker cannot undo (" + util::join(launched.executor.recycled, "; ") +
             "); the next op gets a new worker";
    }
    if (!m_slot.worker->alive() || launched.result.stop_requested) {
      retire(); // a stopped op's worker may be anywhere in its work: never reuse it
    }
    return launched;
  }

  bool stopped()
  {
    std::lock_guard<std::mutex> lock(m_slot.m);
    return m_slot.stopped;
  }

private:
  void publish(int pid)
  {
    {
      std::lock_guard<std::mutex> lock(m_slot.m);
      m_slot.pgid = pid;
    }
    if (m_op.on_group) {
      m_op.on_group(pid);
    }
  }
  // An interrupt the op does not answer within the grace period is followed by SIGKILL, as
  // zl run does with its pytest.
  void escalate()
  {
    std::lock_guard<std::mutex> lock(m_slot.m);
    // stop() sent the interrupt itself; from the grace's end, KILL on every tick until the op ends.
    if (m_slot.interrupt.stage(util::Escalation::Clock::now()) == SIGKILL && m_slot.pgid > 0) {
      ::kill(-m_slot.pgid, SIGKILL);
    }
  }
  void retire()
  {
    {
      std::lock_guard<std::mutex> lock(m_slot.m);
      m_slot.pgid = 0;
    }
    m_slot.worker.reset();
  }

  Slot& m_slot;
  const loader::Module& m_backend;
  const OpLaunch& m_op;
};

WarmExecutor::WarmExecutor(const ExecutorSetup& setup) : m_backend(*setup.backend), m_zl(setup.zl)
{
  for (size_t i = 0; i < setup.devices.size(); ++i) {
    m_slots.push_back(std::make_unique<Slot>());
  }
}

WarmExecutor::~WarmExecutor()
{
  shutdown();
}

OpEnd WarmExecutor::run(const OpLaunch& op)
{
  auto& slot = *m_slots.at(op.slot);
  {
    std::lock_guard<std::mutex> lock(slot.m);
    slot.stopped = false;
    slot.interrupt = util::Escalation();
  }
  std::ofstream log(op.log_path, std::ios::binary);
  if (!log) {
    throw Error(fmt::format("cannot write {}", op.log_path));
  }
  auto to_log = [&log](std::string_view chunk) {
    log.write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    log.flush();
  };
  const run::Sinks sinks{to_log, to_log};
  Launcher launcher(slot, m_backend, op);
  OpEnd end;
  try {
    check_warm_request(op.request);
    auto request = op.request;
    request.python = request.python.empty() ? run::python_of(std::nullopt) : request.python;
    // The identity's command: the `zl run` this op stands for, as the process executor runs it.
    request.command_line = run_argv(m_zl, op.request);
    // Selected as the process executor's child zl run selects it: by --backend.
    end.exit_code = run::run_checked(
        request,
        [this] {
          return loader::Selection{&m_backend, "--backend"};
        },
        [&](const run::Plan& plan) { return run::execute(plan, launcher, sinks, [&] { return launcher.stopped(); }); },
        sinks);
  } catch (const Error& e) {
    // What zl run prints and exits with (cli/app.cpp), into the op's log.
    to_log(fmt::format("zl: error: {}\n", e.what()));
    end.exit_code = e.exit_code();
  }
  end.note = launcher.note;
  return end;
}

void WarmExecutor::stop(size_t slot_index, Stop how)
{
  auto& slot = *m_slots.at(slot_index);
  std::lock_guard<std::mutex> lock(slot.m);
  slot.stopped = true;
  if (how == Stop::interrupt) {
    slot.interrupt.begin(util::Escalation::Clock::now(), SIGINT); // the first interrupt starts the grace
  }
  if (slot.pgid > 0) {
    ::kill(-slot.pgid, signal_of(how));
    ::kill(-slot.pgid, SIGCONT);
  }
}

void WarmExecutor::shutdown()
{
  for (auto& slot : m_slots) {
    {
      std::lock_guard<std::mutex> lock(slot->m);
      slot->pgid = 0;
    }
    slot->worker.reset();
  }
}

} // namespace zl::exec
