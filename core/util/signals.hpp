// Catching SIGINT, SIGTERM and SIGHUP while zl waits for a child, so that Ctrl-C stops the whole
// benchmark tree in order (util::run escalates when given SpawnSpec::signals) and zl can still
// write down what happened. SIGPIPE is ignored meanwhile: a reader of zl's output that goes
// away (a dead parent) must not kill zl before it has ended its child's tree.
#pragma once

namespace zl::util {

// The one catcher of zl's stop signals. The handlers are process-wide, so one instance at a time
// may exist: constructing a second while one is alive throws Error (exit 70, a bug in zl).
class SignalForwarding
{
public:
  SignalForwarding();  // installs the handlers (counts start from zero)
  ~SignalForwarding(); // restores the previous ones
  SignalForwarding(const SignalForwarding&) = delete;
  SignalForwarding& operator=(const SignalForwarding&) = delete;

  // A process group the handler itself passes each signal to (the child's pid when it leads
  // its group); 0 for none. For a child that stops its own tree (a zl child).
  void watch(int pgid);
  // The last signal received since construction, or 0.
  int signal() const;
  // How many stop signals were received since construction.
  int count() const;
  // How many of sig (SIGINT, SIGTERM or SIGHUP) were received since construction; 0 for another.
  int count(int sig) const;
};

} // namespace zl::util
