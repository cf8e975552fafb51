// zl batch: many ops across the devices of one host, one op per device at a time, each op handed
// to an executor (core/exec/executor.hpp) as the `zl run` request it would be, pinned with
// --device. Order, resume, timeouts, interrupts, statuses, ops_status.csv and the store live here.
#pragma once

#include "batch/lock.hpp"
#include "batch/ops_status.hpp"
#include "exec/executor.hpp"
#include "loader/module.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace zl::results::store {
class Store;
}

namespace zl::batch {

// An op's expected duration (seconds) from earlier campaigns; nullopt when none ran it.
using Expected = std::function<std::optional<double>(const std::string&)>;

struct CampaignSpec
{
  exec::Executor* executor = nullptr; // carries out each op; one slot per device
  // Every op's request: the caliber (--flaggems, --level, …); op, device (UUID) and out_dir are
  // filled in per op.
  run::Request request;
  std::string backend;
  std::vector<loader::Device> devices;  // one op at a time on each
  std::string out_dir;                  // the campaign folder
  std::optional<double> timeout_per_op; // seconds
  CampaignLock* lock = nullptr;         // told the process groups of the running ops
  // Where the rows are written; empty: <out_dir>/ops_status.csv. A Slurm array task writes its
  // slice's rows to its own record in the shared folder (core/slurm/task.cpp).
  std::string status_file;
};

struct CampaignOutcome
{
  int exit_code = 0;       // 0 all ok, 1 some op not ok, 130 interrupted
  double makespan_s = 0;   // wall time of the campaign
  double total_work_s = 0; // sum of the ops' wall times
  size_t ran = 0;
};

// Longest expected first (LPT); ops with no history go first, in the order given, since they
// may be the longest of all.
std::vector<std::string> order_longest_first(const std::vector<std::string>& ops, const Expected& expected);

// Adds each op of ops that statuses lacks as a pending row, longest expected first (--resume
// keeps the rows it has).
void add_ops(std::vector<OpStatus>& statuses, const std::vector<std::string>& ops, const Expected& expected);

// The rows, longest expected first (a Slurm campaign slices them in this order).
std::vector<OpStatus> order_rows(const std::vector<OpStatus>& statuses, const Expected& expected);

// The ops of a FlagGems tree, sorted: every op mark of its benchmark files (pytest's collection
// deciding where static reading is not sure: run/catalog.hpp), and, where each op has its file
// (v5.3.0 on), each benchmark/test_<op>.py that marks no op. Throws Error when the collection
// fails or cannot import a file.
std::vector<std::string> all_ops(const std::string& flaggems_dir, const std::string& python);

// The old folder of an op that is run again is kept beside the new one as <run_dir>.attempt-N,
// never overwritten.
void move_aside(const std::string& run_dir);

// Runs every op of statuses whose status is not ok, writing ops_status.csv after each and
// ingesting each run folder into store. SIGINT/SIGTERM: nothing new starts, running ops are
// stopped (Stop::interrupt) and recorded as interrupted, exit 130. A timeout: Stop::terminate,
// then Stop::kill after util::outer_stop_grace(). An executor that throws stops the campaign
// (nothing new starts) and run_campaign throws Error naming the folder.
CampaignOutcome run_campaign(const CampaignSpec& spec, std::vector<OpStatus>& statuses, results::store::Store& store,
                             const Expected& expected);

} // namespace zl::batch
