// The executor seam: how one op of a campaign is carried out, under the campaign logic (order,
// resume, timeouts, interrupts, statuses, ops_status.csv, the store: core/batch/campaign.cpp).
// `process` starts a fresh `zl run` per op; `warm` hands the op to a long-lived worker of its
// device; a Slurm campaign runs `warm` inside each array task (core/slurm/task.cpp).
#pragma once

#include "loader/module.hpp"
#include "run/request.hpp"

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

namespace zl::exec {

// One op, as the campaign hands it over.
struct OpLaunch
{
  run::Request request;  // what `zl run` would be asked: op, device (UUID) and out_dir set
  size_t slot = 0;       // 0..slots-1, one slot per device; one op at a time in a slot
  loader::Device device; // the slot's device
  std::string log_path;  // <campaign>/logs/<op>.log: what the op printed, zl's lines included
  // Told every process group started for this op, as soon as it exists (the campaign lock
  // records them so that the next owner can tell what a dead owner left running).
  std::function<void(int pgid)> on_group;
};

// How the op ended, in `zl run`'s exit-status terms (cli/cmd_run.cpp's --help): 0 ok, 1 failed,
// 3 preflight, 14 crashed, 130 interrupted, … The run folder holds the rest.
struct OpEnd
{
  int exit_code = -1;
  std::string note; // a line for the progress display, e.g. what a crashed worker last printed
};

// What the campaign asks of a running op. Each escalates: interrupt (Ctrl-C: the op records
// itself as interrupted), terminate (timeout: SIGTERM), kill (the grace period has passed).
enum class Stop { interrupt, terminate, kill };

// The signal a stop sends to an op's process group: SIGINT, SIGTERM, SIGKILL (defined in process.cpp).
int signal_of(Stop how);

class Executor
{
public:
  virtual ~Executor() = default;
  // "process", "warm", …: recorded in every identity and in campaign.json.
  virtual std::string name() const = 0;
  // Runs one op in its slot and returns when it has ended and its run folder is complete.
  // Called from the slot's own thread; never twice at once for one slot. Throws Error only when
  // the campaign cannot go on (its folder unwritable); an op's own failure is an OpEnd.
  virtual OpEnd run(const OpLaunch& launch) = 0;
  // Called from the campaign's watching thread while run() is under way for that slot, once
  // run() has told on_group a first group (until then the op is not stopped: it is starting).
  virtual void stop(size_t slot, Stop how) = 0;
  // The campaign is over (or stopping): end whatever the executor keeps alive between ops.
  virtual void shutdown() {}
};

} // namespace zl::exec
