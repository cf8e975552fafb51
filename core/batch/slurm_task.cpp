// The two ends of a Slurm campaign that run on the cluster: an array task and the final step
// (the DESIGN comment is in slurm_campaign.hpp).
#include "batch/caliber.hpp"
#include "batch/campaign.hpp"
#include "batch/folder.hpp"
#include "batch/lock.hpp"
#include "batch/slurm_campaign.hpp"
#include "devices/select.hpp"
#include "exec/factory.hpp"
#include "results/store/store.hpp"
#include "slurm/cluster.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/process.hpp"
#include "util/string.hpp"

#include <boost/filesystem.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <thread>

namespace zl::batch {

namespace fs = boost::filesystem;

namespace {

std::string env(const char* name)
{
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

std::string record_path(const std::string& out_dir, const std::string& name)
{
  return out_dir + "/" + k_slurm_dir + "/" + name;
}

Caliber read_caliber(const std::string& out_dir)
{
  const auto path = out_dir + "/" + k_campaign_file;
  if (!fs::exists(path)) {
    throw Error(fmt::format("{} is not visible from this node ({}): zl batch --executor slurm needs the campaign "
                            "folder on a filesystem every node shares",
                            path, host_name()));
  }
  return parse_caliber_json(util::read_file(path), path);
}

} // namespace

int run_task(const std::string& out_dir, size_t task, const loader::Module& backend, const exec::ZlCommand& zl)
{
  const auto caliber = read_caliber(out_dir);
  // The first record: the submit host checks that it can see what the nodes write.
  util::write_file_atomic(record_path(out_dir, fmt::format("task-{}.started", task)),
                          fmt::format("node={}\njob={}_{}\nallocation={}\n", host_name(), env("SLURM_ARRAY_JOB_ID"),
                                      env("SLURM_ARRAY_TASK_ID"), env("SLURM_JOB_GPUS")));
  const auto ops_path = record_path(out_dir, fmt::format("task-{}.ops", task));
  std::vector<OpStatus> statuses;
  for (const auto& op : read_ops_file(ops_path)) {
    OpStatus s;
    s.op = op;
    s.status = "pending";
    statuses.push_back(s);
  }
  CampaignSpec spec;
  spec.backend = backend.name();
  // The allocation is the device pool: every device the visibility mask Slurm set leaves visible.
  spec.devices = devices::choose_list(backend, std::nullopt, "--devices");
  spec.request = base_request(caliber);
  spec.out_dir = out_dir;
  spec.status_file = record_path(out_dir, fmt::format("task-{}.csv", task));
  const auto executor = exec::make_executor("warm", {zl, &backend, spec.devices});
  spec.executor = executor.get();
  // Only for counting rows: the campaign's store is written once, by the final step, so that no
  // two nodes write one SQLite file over a network filesystem.
  const auto scratch = (fs::temp_directory_path() / fs::unique_path("zl-task-%%%%%%%%.sqlite")).string();
  int rc;
  {
    results::store::Store store(scratch);
    rc = run_campaign(spec, statuses, store, [](const std::string&) { return std::nullopt; }).exit_code;
  }
  boost::system::error_code ec;
  fs::remove(scratch, ec);
  // The last record: the follower asks Slurm about the task as soon as it appears, rather than at
  // its next poll (core/batch/slurm_campaign.cpp, follow). It decides nothing; Slurm's state does.
  try {
    util::write_file_atomic(record_path(out_dir, fmt::format("task-{}.exit", task)), fmt::format("exit={}\n", rc));
  } catch (const Error&) {
  }
  return rc;
}

std::optional<int> finish_campaign(const std::string& out_dir, bool wait_for_lock,
                                   const std::vector<slurm::TaskState>& seen)
{
  const auto done_path = record_path(out_dir, "final.done");
  const auto csv = out_dir + "/ops_status.csv";
  auto recorded = [&]() -> std::optional<int> {
    if (!fs::exists(done_path)) {
      return std::nullopt;
    }
    std::cerr << fmt::format("zl batch: the campaign is already recorded ({}): ", done_path)
              << util::read_file(done_path);
    const auto statuses = parse_ops_status(util::read_file(csv), csv);
    return std::all_of(statuses.begin(), statuses.end(), [](const auto& s) { return results::settled(s.status); }) ? 0
                                                                                                                   : 1;
  };
  if (const auto rc = recorded()) {
    return rc;
  }
  // The two that may record the campaign, the final step and the submitting zl that follows it,
  // take the campaign's lock; the final step waits for the other (bounded: a lock that is
  // stale for another reason must still end in its error).
  std::unique_ptr<CampaignLock> lock;
  for (int attempt = 0;; ++attempt) {
    try {
      lock = std::make_unique<CampaignLock>(out_dir, false);
      break;
    } catch (const Error&) {
      if (!wait_for_lock) {
        return std::nullopt;
      }
      if (attempt == 600) {
        throw;
      }
      std::this_thread::sleep_for(std::chrono::seconds(1));
    }
  }
  if (const auto rc = recorded()) {
    return rc;
  }
  results::store::Store store(out_dir + "/" + k_store_file);
  auto statuses = parse_ops_status(util::read_file(csv), csv);
  const auto jobs = record_path(out_dir, "jobs");
  const auto sub = parse_submission(fs::exists(jobs) ? util::read_file(jobs) : "", jobs);
  // Slurm's word on each task: what the follower just saw when every task COMPLETED, else sacct
  // where the cluster keeps accounting, else squeue/scontrol (the final step runs right after
  // the array, well within MinJobAge).
  std::map<size_t, slurm::TaskState> states;
  const bool all_completed =
      !seen.empty() && std::all_of(seen.begin(), seen.end(), [](const auto& t) { return t.state == "COMPLETED"; });
  auto known = all_completed || sub.array_id.empty() ? seen : slurm::accounting(sub.array_id);
  if (known.empty() && !sub.array_id.empty()) {
    known = slurm::query(sub.array_id);
  }
  for (const auto& t : known) {
    if (t.task) {
      states[*t.task] = t;
    }
  }
  std::string table = "task,slurm_state,reason,node,ops\n";
  std::map<std::string, OpStatus> ended;
  std::map<std::string, std::string> state_of;
  for (size_t t = 0; t < sub.tasks; ++t) {
    const auto ops = read_ops_file(record_path(out_dir, fmt::format("task-{}.ops", t)));
    const auto record = record_path(out_dir, fmt::format("task-{}.csv", t));
    if (fs::exists(record)) {
      for (const auto& s : parse_ops_status(util::read_file(record), record)) {
        ended[s.op] = s;
      }
    }
    const auto& st = states[t];
    for (const auto& op : ops) {
      state_of[op] = st.state;
    }
    table += fmt::format("{},{},{},{},{}\n", t, st.state.empty() ? "unknown" : st.state, st.reason, st.node,
                         util::join(ops, " "));
  }
  size_t ok = 0;
  for (auto& s : statuses) {
    const auto it = state_of.find(s.op);
    if (it == state_of.end()) {
      ok += results::settled(s.status); // not part of this submission
      continue;
    }
    const auto run_dir = out_dir + "/" + s.op;
    const bool started = fs::exists(run_dir);
    if (ended.count(s.op)) {
      s = ended[s.op];
    }
    s.status = slurm::op_status(it->second, s.status, started);
    s.slurm_state = it->second; // its task's: why a failed op failed, as Slurm saw it
    if (started && fs::exists(run_dir + "/run_identity.json")) {
      s.run_dir = run_dir;
      try {
        s.rows = store.ingest_run(run_dir);
      } catch (const Error& e) {
        std::cerr << fmt::format("zl batch: {}: not stored: {}\n", s.op, e.what());
      }
    }
    ok += results::settled(s.status);
  }
  util::write_file_atomic(csv, format_ops_status(statuses));
  util::write_file_atomic(record_path(out_dir, "tasks.csv"), table);
  std::map<std::string, size_t> counts;
  for (const auto& s : statuses) {
    ++counts[s.status];
  }
  std::vector<std::string> parts;
  for (const auto& [status, n] : counts) {
    parts.push_back(fmt::format("{} {}", n, status));
  }
  const auto summary = fmt::format("zl batch: {} ops: {} (array {}, {} tasks; Slurm states in {})\n", statuses.size(),
                                   util::join(parts, ", "), sub.array_id, sub.tasks, record_path(out_dir, "tasks.csv"));
  std::cerr << summary;
  util::write_file_atomic(done_path, summary);
  return ok == statuses.size() ? 0 : 1;
}

} // namespace zl::batch
