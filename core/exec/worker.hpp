// One warm worker: `python -m zl_worker` (python/zl_plugins/zl_worker.py) in its own process
// group, pinned to its device, running pytest session after pytest session for zl. Requests
// and replies are JSON lines on two pipes (its descriptors 3 and 4); its standard output and
// error carry the ops' output, which zl routes to the op's sinks.
#pragma once

#include "run/launch.hpp"
#include "util/pump.hpp"

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace zl::exec {

class Worker
{
public:
  // Starts the worker with env (KEY=VALUE) and waits until it has imported pytest and preload;
  // on_spawn is told its pid, which leads its group, at once. Throws util::SpawnFailure when
  // python cannot be run, Error when the worker dies before it is ready (with what it printed).
  // device_module is the backend's torch_module ("" for none), whose RNG, device and stream the
  // worker puts back after each op.
  Worker(const std::string& python, const std::vector<std::string>& env, const std::vector<std::string>& preload,
         const std::string& device_module, const run::Sinks& sinks, const std::function<void(int)>& on_spawn);
  // Ends its process group: its requests closed, SIGTERM, the grace period, SIGKILL.
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  int pid() const { return m_pid; }
  long long ops_done() const { return m_ops; }
  // False once it died, or once an op left it with state it could not put back (recycled).
  bool alive() const { return m_pid > 0 && !m_dead && !m_spent; }
  // Imports that failed at start, "name: error" each (reported, never fatal).
  const std::vector<std::string>& failed_imports() const { return m_failed; }

  // One pytest session: args (what follows `python -m pytest`), env, cwd; output to sinks;
  // tick is called every 50 ms meanwhile. Returns when pytest has ended and what the op left
  // running is ended. A worker that died meanwhile gives launched.crash (how, and what it last
  // printed); it is not alive() any more.
  run::Launched run_op(const std::vector<std::string>& args, const std::vector<std::string>& env,
                       const std::string& cwd, const run::Sinks& sinks, const std::function<void()>& tick);

private:
  // Reads output and replies until a reply line or the worker's end; false at its end.
  bool pump_until_reply(const run::Sinks& sinks, std::string& reply, const std::function<void()>& tick = {});
  // sink, and the tail of the worker's output kept for a crash note.
  util::Sink keeping(const util::Sink& sink);
  // Ends what the op left running besides the worker; returns how many processes.
  int end_leftovers(const run::Sinks& sinks);
  void end_group();
  int reap(); // the worker's wait status, once it has exited

  int m_pid = -1;
  int m_to_worker = -1;
  int m_from_worker = -1;
  util::Pump m_output; // the worker's standard output and error
  bool m_dead = false;
  bool m_spent = false; // an op changed what the worker cannot undo: it runs no other op
  bool m_reaped = false;
  int m_status = 0;
  long long m_ops = 0;
  std::vector<std::string> m_preloaded; // what the worker imported before its first op
  std::string m_replies;                // reply bytes not yet split into lines
  std::string m_last_output;            // the tail of what the worker printed, for a crash note
  std::vector<std::string> m_failed;
};

} // namespace zl::exec
