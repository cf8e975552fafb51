// zl batch: many ops across the devices of one host, one op per device at a time, each op a
// `zl run` child (the same code path as a single run), pinned with --device.
#pragma once

#include "batch/lock.hpp"
#include "batch/ops_status.hpp"
#include "loader/module.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace zl::results::store {
class Store;
}

namespace zl::batch {

struct CampaignSpec
{
  std::string zl_binary;                // the running zl, re-executed for each op
  std::vector<std::string> global_args; // --backend NAME, --backend-path DIR …
  std::string backend;
  std::vector<loader::Device> devices;  // one op at a time on each
  std::vector<std::string> run_args;    // forwarded to every `zl run` (--flaggems, --level, …)
  std::string out_dir;                  // the campaign folder
  std::optional<double> timeout_per_op; // seconds
  std::string level;
  CampaignLock* lock = nullptr; // told the process groups of the running ops
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
std::vector<std::string> order_longest_first(const std::vector<std::string>& ops,
                                             const std::function<std::optional<double>(const std::string&)>& expected);

// The ops of a FlagGems tree: every benchmark/test_<op>.py, sorted.
std::vector<std::string> all_ops(const std::string& flaggems_dir);

// Runs every op of statuses whose status is not ok, writing ops_status.csv after each and
// ingesting each run folder into store. SIGINT/SIGTERM: nothing new starts, running ops are
// stopped and recorded as interrupted, exit 130.
CampaignOutcome run_campaign(const CampaignSpec& spec, std::vector<OpStatus>& statuses, results::store::Store& store,
                             const std::function<std::optional<double>(const std::string&)>& expected);

} // namespace zl::batch
