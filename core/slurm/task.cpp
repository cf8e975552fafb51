// The two ends of a Slurm campaign that run on the cluster: an array task and the final step
// (slurm/campaign.hpp tells the whole design).
#include "slurm/task.hpp"

#include "batch/caliber.hpp"
#include "batch/campaign.hpp"
#include "batch/folder.hpp"
#include "batch/lock.hpp"
#include "devices/select.hpp"
#include "exec/factory.hpp"
#include "results/store/store.hpp"
#include "slurm/campaign.hpp"
#include "slurm/cluster.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/output.hpp"
#include "util/process.hpp"
#include "util/string.hpp"

#include <boost/filesystem.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <map>
#include <memory>
#include <thread>

namespace zl::slurm {

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

batch::Caliber read_caliber(const std::string& out_dir)
{
  const auto path = out_dir + "/" + batch::k_campaign_file;
  if (!fs::exists(path)) {
    throw Error(fmt::format("{} is not visible from this node ({}): zl batch --executor slurm needs the campaign "
                            "folder on a filesystem every node shares",
                            path, batch::host_name()));
  }
  return batch::parse_caliber_json(util::read_file(path), path);
}

} // namespace

int run_task(const std::string& out_dir, size_t task, const loader::Module& backend, const exec::ZlCommand& zl)
{
  const auto caliber = read_caliber(out_dir);
  // The first record: the submit host checks that it can see what the nodes write.
  util::write_file_atomic(record_path(out_dir, fmt::format("task-{}.started", task)),
                          fmt::format("node={}\njob={}_{}\nallocation={}\n", batch::host_name(),
                                      env("SLURM_ARRAY_JOB_ID"), env("SLURM_ARRAY_TASK_ID"), env("SLURM_JOB_GPUS")));
  const auto ops_path = record_path(out_dir, fmt::format("task-{}.ops", task));
  std::vector<batch::OpStatus> statuses;
  for (const auto& op : batch::read_ops_file(ops_path)) {
    batch::OpStatus s;
    s.op = op;
    s.status = results::OpState::pending;
    statuses.push_back(s);
  }
  batch::CampaignSpec spec;
  spec.backend = backend.name();
  // The allocation is the device pool: every device the visibility mask Slurm set leaves visible.
  spec.devices = devices::choose_list(backend, std::nullopt, "--devices");
  spec.request = batch::base_request(caliber);
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
    rc = batch::run_campaign(spec, statuses, store, [](const std::string&) { return std::nullopt; }).exit_code;
  }
  boost::system::error_code ec;
  fs::remove(scratch, ec);
  // The last record: the follower asks Slurm about the task as soon as it appears, rather than at
  // its next poll (core/slurm/follow.cpp). It decides nothing; Slurm's state does.
  try {
    util::write_file_atomic(record_path(out_dir, fmt::format("task-{}.exit", task)), fmt::format("exit={}\n", rc));
  } catch (const Error&) {
  }
  return rc;
}

namespace {

// The campaign's exit code when final.done says it is recorded; nullopt when it is not yet.
std::optional<int> recorded(const std::string& out_dir)
{
  const auto done_path = record_path(out_dir, "final.done");
  if (!fs::exists(done_path)) {
    return std::nullopt;
  }
  util::out().say(
      fmt::format("zl batch: the campaign is already recorded ({}): {}", done_path, util::read_file(done_path)));
  const auto csv = out_dir + "/ops_status.csv";
  const auto statuses = batch::parse_ops_status(util::read_file(csv), csv);
  return std::all_of(statuses.begin(), statuses.end(), [](const auto& s) { return results::settled(s.status); }) ? 0
                                                                                                                 : 1;
}

// The two that may record the campaign, the final step and the submitting zl that follows it,
// take the campaign's lock; the final step waits for the other (bounded: a lock that is stale
// for another reason must still end in its error). nullptr when !wait and the other holds it.
std::unique_ptr<batch::CampaignLock> take_lock(const std::string& out_dir, bool wait)
{
  for (int attempt = 0;; ++attempt) {
    try {
      return std::make_unique<batch::CampaignLock>(out_dir, false);
    } catch (const Error&) {
      if (!wait) {
        return nullptr;
      }
      if (attempt == 600) {
        throw;
      }
      std::this_thread::sleep_for(std::chrono::seconds(1));
    }
  }
}

// Slurm's word on each task: what the follower just saw when every task COMPLETED, else sacct
// where the cluster keeps accounting, else squeue/scontrol (the final step runs right after the
// array, well within MinJobAge).
std::map<size_t, slurm::TaskState> task_states(const Submission& sub, const std::vector<slurm::TaskState>& seen)
{
  const bool all_completed =
      !seen.empty() && std::all_of(seen.begin(), seen.end(), [](const auto& t) { return t.state == "COMPLETED"; });
  auto known = all_completed || sub.array_id.empty() ? seen : slurm::accounting(sub.array_id);
  if (known.empty() && !sub.array_id.empty()) {
    known = slurm::query(sub.array_id);
  }
  std::map<size_t, slurm::TaskState> states;
  for (const auto& t : known) {
    if (t.task) {
      states[*t.task] = t;
    }
  }
  return states;
}

// What the tasks recorded: each op's row as its task wrote it, its task's Slurm state, and the
// text of slurm/tasks.csv.
struct TaskRecords
{
  std::map<std::string, batch::OpStatus> ended;
  std::map<std::string, std::string> state_of;
  std::string table = "task,slurm_state,reason,node,ops\n";
};

TaskRecords read_tasks(const std::string& out_dir, const Submission& sub, std::map<size_t, slurm::TaskState>& states)
{
  TaskRecords r;
  for (size_t t = 0; t < sub.tasks; ++t) {
    const auto ops = batch::read_ops_file(record_path(out_dir, fmt::format("task-{}.ops", t)));
    const auto record = record_path(out_dir, fmt::format("task-{}.csv", t));
    if (fs::exists(record)) {
      for (const auto& s : batch::parse_ops_status(util::read_file(record), record)) {
        r.ended[s.op] = s;
      }
    }
    const auto& st = states[t];
    for (const auto& op : ops) {
      r.state_of[op] = st.state;
    }
    r.table += fmt::format("{},{},{},{},{}\n", t, st.state.empty() ? "unknown" : st.state, st.reason, st.node,
                           util::join(ops, " "));
  }
  return r;
}

// Each op of this submission gets its task's row and Slurm state, and its run folder is stored.
void merge(const std::string& out_dir, std::vector<batch::OpStatus>& statuses, TaskRecords& r,
           results::store::Store& store)
{
  for (auto& s : statuses) {
    const auto it = r.state_of.find(s.op);
    if (it == r.state_of.end()) {
      continue; // not part of this submission
    }
    const auto run_dir = out_dir + "/" + s.op;
    const bool started = fs::exists(run_dir);
    if (r.ended.count(s.op)) {
      s = r.ended[s.op];
    }
    s.status = slurm::op_status(it->second, s.status, started);
    s.slurm_state = it->second; // its task's: why a failed op failed, as Slurm saw it
    if (started && fs::exists(run_dir + "/run_identity.json")) {
      s.run_dir = run_dir;
      try {
        s.rows = store.ingest_run(run_dir);
      } catch (const Error& e) {
        util::out().say(fmt::format("zl batch: {}: not stored: {}\n", s.op, e.what()));
      }
    }
  }
}

std::string summary_of(const std::vector<batch::OpStatus>& statuses, const Submission& sub, const std::string& out_dir)
{
  std::map<std::string_view, size_t> counts;
  for (const auto& s : statuses) {
    ++counts[results::name(s.status)];
  }
  std::vector<std::string> parts;
  for (const auto& [status, n] : counts) {
    parts.push_back(fmt::format("{} {}", n, status));
  }
  return fmt::format("zl batch: {} ops: {} (array {}, {} tasks; Slurm states in {})\n", statuses.size(),
                     util::join(parts, ", "), sub.array_id, sub.tasks, record_path(out_dir, "tasks.csv"));
}

} // namespace

std::optional<int> finish_campaign(const std::string& out_dir, bool wait_for_lock,
                                   const std::vector<slurm::TaskState>& seen)
{
  if (const auto rc = recorded(out_dir)) {
    return rc;
  }
  const auto lock = take_lock(out_dir, wait_for_lock);
  if (!lock) {
    return std::nullopt;
  }
  if (const auto rc = recorded(out_dir)) {
    return rc;
  }
  results::store::Store store(out_dir + "/" + batch::k_store_file);
  const auto csv = out_dir + "/ops_status.csv";
  auto statuses = batch::parse_ops_status(util::read_file(csv), csv);
  const auto jobs = record_path(out_dir, "jobs");
  const auto sub = parse_submission(fs::exists(jobs) ? util::read_file(jobs) : "", jobs);
  auto states = task_states(sub, seen);
  auto records = read_tasks(out_dir, sub, states);
  merge(out_dir, statuses, records, store);
  util::write_file_atomic(csv, batch::format_ops_status(statuses));
  util::write_file_atomic(record_path(out_dir, "tasks.csv"), records.table);
  const auto summary = summary_of(statuses, sub, out_dir);
  util::out().say(summary);
  util::write_file_atomic(record_path(out_dir, "final.done"), summary);
  const bool all_settled =
      std::all_of(statuses.begin(), statuses.end(), [](const auto& s) { return results::settled(s.status); });
  return all_settled ? 0 : 1;
}

} // namespace zl::slurm
