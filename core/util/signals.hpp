// Forwarding SIGINT, SIGTERM and SIGHUP to a child's process group while zl waits for it, so
// that Ctrl-C stops the whole benchmark tree and zl can still write down what happened.
#pragma once

namespace zl::util {

class SignalForwarding
{
public:
  SignalForwarding();  // installs the handlers
  ~SignalForwarding(); // restores the previous ones
  SignalForwarding(const SignalForwarding&) = delete;
  SignalForwarding& operator=(const SignalForwarding&) = delete;

  // The process group to forward to (the child's pid when it leads its group); 0 for none.
  void watch(int pgid);
  // The last signal received since construction, or 0.
  int signal() const;
};

} // namespace zl::util
