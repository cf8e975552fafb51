#include "batch/slurm_campaign.hpp"

#include "batch/campaign.hpp"
#include "batch/progress.hpp"
#include "slurm/cluster.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/process.hpp"
#include "util/string.hpp"

#include <boost/filesystem.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sys/stat.h>
#include <thread>
#include <tuple>

namespace zl::batch {

namespace fs = boost::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

std::atomic<int> g_interrupts{0};
std::atomic<int> g_terminate{0};

extern "C" void on_follow_signal(int sig)
{
  (sig == SIGINT ? g_interrupts : g_terminate) += 1;
}

// How long a task may run before the record it writes first must be visible here.
constexpr std::chrono::seconds k_visibility_grace{30};

std::string slurm_path(const std::string& out_dir, const std::string& name)
{
  return out_dir + "/" + k_slurm_dir + "/" + name;
}

// Follows the array and the final step until the final step has recorded the campaign.
int follow(const SlurmSubmit& spec, const Submission& sub, const std::vector<OpStatus>& statuses)
{
  struct sigaction sa = {}, old_int = {}, old_term = {};
  sa.sa_handler = on_follow_signal;
  sigemptyset(&sa.sa_mask);
  g_interrupts = g_terminate = 0;
  ::sigaction(SIGINT, &sa, &old_int);
  ::sigaction(SIGTERM, &sa, &old_term);
  struct Restore
  {
    struct sigaction i, t;
    ~Restore()
    {
      ::sigaction(SIGINT, &i, nullptr);
      ::sigaction(SIGTERM, &t, nullptr);
    }
  } restore{old_int, old_term};

  Progress progress(statuses.size(), sub.tasks);
  std::set<std::string> shown;
  for (const auto& s : statuses) {
    if (results::settled(s.status)) {
      progress.finished(s.op, s.status, s.duration_s.value_or(0), s.rows, std::nullopt);
      shown.insert(s.op);
    }
  }
  std::map<size_t, Clock::time_point> running_since;
  std::map<size_t, std::string> last_state;
  bool cancelled = false;
  int asked = 0;
  Clock::time_point asked_at;
  const auto done_path = slurm_path(spec.out_dir, "final.done");
  std::set<size_t> started;  // tasks whose first record is here
  std::set<size_t> complete; // tasks whose record has no pending op left
  std::map<size_t, std::tuple<ino_t, time_t, long>> record_time;
  bool self_finished = false, self_tried = false;
  std::optional<Clock::time_point> complete_since; // when every record was complete
  std::optional<Clock::time_point> all_exited;     // when every task had written its last record
  size_t exited = 0;                               // tasks 0 to exited-1 have
  auto next_ask = Clock::now();
  // Every 100 ms a look for final.done and at the tasks' records (a stat each), so that zl ends
  // as soon as the campaign is recorded rather than up to a poll interval later; Slurm every 2 s,
  // every 500 ms while tasks are still starting, and every 100 ms for a few seconds once every
  // task has recorded all its ops (the array is about to end: zl then records the campaign
  // itself, without waiting for Slurm to schedule the final step; scripts/bench-slurm.sh). Then
  // the tasks' last records are looked for every 10 ms, and Slurm asked as soon as all are
  // there, then every 25 ms for at most a second: slurmctld knew the tasks had ended some 15 ms
  // after they did, where the 100 ms poll learnt it up to 150 ms later.
  constexpr auto k_quick = std::chrono::seconds(1);
  constexpr auto k_ending = std::chrono::seconds(10);
  for (unsigned tick = 0;; ++tick) {
    const auto at = Clock::now();
    const bool quick = complete_since && at - *complete_since < k_ending && (!all_exited || at - *all_exited < k_quick);
    std::this_thread::sleep_for(std::chrono::milliseconds(quick ? 10 : 100));
    if ((g_terminate > 0 || (g_interrupts >= 2 && asked > 0)) && !cancelled) {
      progress.note(
          fmt::format("cancelling the array: scancel {}; what ran is recorded once it has ended", sub.array_id));
      slurm::cancel({sub.array_id});
      cancelled = true;
    } else if (g_interrupts == 1 && asked == 0) {
      asked = 1;
      asked_at = Clock::now();
      progress.note(
          fmt::format("Ctrl-C again within 10 s cancels the array (scancel {}); otherwise it goes on", sub.array_id));
    } else if (asked == 1 && g_interrupts == 1 && Clock::now() - asked_at > std::chrono::seconds(10)) {
      asked = 0;
      g_interrupts = 0;
      progress.note("going on");
    }
    const bool done = fs::exists(done_path);
    // What the tasks recorded so far: the progress lines. Once every record is complete they
    // change no more: the quick ticks read them every 100 ms still, not every 10 ms (the
    // campaign folder may be on a network filesystem).
    for (size_t t = 0; t < sub.tasks && (!quick || done || tick % 10 == 0); ++t) {
      if (!started.count(t) && fs::exists(slurm_path(spec.out_dir, fmt::format("task-{}.started", t)))) {
        started.insert(t);
      }
      const auto record = slurm_path(spec.out_dir, fmt::format("task-{}.csv", t));
      struct stat st = {};
      if (::stat(record.c_str(), &st) != 0) {
        continue;
      }
      // Written by rename: a new inode or time is a new record.
      const auto stamp = std::make_tuple(st.st_ino, st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
      if (record_time.count(t) && record_time[t] == stamp && !done) {
        continue;
      }
      record_time[t] = stamp;
      try {
        const auto recorded = parse_ops_status(util::read_file(record), record);
        for (const auto& s : recorded) {
          if (s.status != "pending" && shown.insert(s.op).second) {
            progress.finished(s.op, s.status, s.duration_s.value_or(0), s.rows, s.device_index);
          }
        }
        if (std::none_of(recorded.begin(), recorded.end(), [](const auto& s) { return s.status == "pending"; })) {
          complete.insert(t);
        }
      } catch (const Error&) {
        // being rewritten: the next tick reads it
      }
    }
    const auto now = Clock::now();
    if (complete.size() == sub.tasks && !complete_since) {
      complete_since = now;
    }
    const bool array_ending = complete_since && now - *complete_since < k_ending;
    if (complete_since && !all_exited) {
      // Only the tasks not yet seen ended are looked at, in order, stopping at the first still running.
      while (exited < sub.tasks && fs::exists(slurm_path(spec.out_dir, fmt::format("task-{}.exit", exited)))) {
        ++exited;
      }
      if (exited == sub.tasks) {
        all_exited = next_ask = now;
      }
    }
    if (!done && !array_ending && tick % 5 != 0) {
      continue;
    }
    // Slurm is asked once more when the final step is done: a task that ended without a record
    // here must be reported even when the final step was quick.
    if (done || now >= next_ask) {
      next_ask = now + std::chrono::milliseconds(all_exited && now - *all_exited < k_quick ? 25
                                                 : array_ending                            ? 100
                                                 : started.size() < sub.tasks              ? 500
                                                                                           : 2000);
      const auto tasks = slurm::query(sub.array_id);
      std::set<size_t> ended;
      for (const auto& t : tasks) {
        if (!t.task) {
          continue;
        }
        if (slurm::is_final(t.state)) {
          ended.insert(*t.task);
        }
        if (last_state[*t.task] != t.state) {
          last_state[*t.task] = t.state;
          if (t.state != "PENDING") {
            progress.note(fmt::format("task {}: {}{}", *t.task, t.state, t.node.empty() ? "" : " on " + t.node));
          }
        }
        // The nodes must see the campaign folder: a task that runs (or ran) but whose first
        // record never appears here wrote it somewhere this host cannot see.
        if (t.state != "PENDING" && !running_since.count(*t.task)) {
          running_since[*t.task] = Clock::now();
        }
        const bool began =
            started.count(*t.task) || fs::exists(slurm_path(spec.out_dir, fmt::format("task-{}.started", *t.task)));
        if (!began && running_since.count(*t.task) && t.state != "CANCELLED" &&
            (slurm::is_final(t.state) || Clock::now() - running_since[*t.task] > k_visibility_grace)) {
          slurm::cancel({sub.array_id, sub.final_id});
          throw Error(fmt::format("task {} of array {} {} on {} but left no record in {}: the node cannot see or "
                                  "write the campaign folder. zl cancelled the array and the final step (see its "
                                  "log there, {}); put --out on a filesystem the nodes share",
                                  *t.task, sub.array_id, t.state == "RUNNING" ? "runs" : "ended " + t.state,
                                  t.node.empty() ? "its node" : t.node, spec.out_dir + "/" + k_slurm_dir,
                                  fmt::format("task-{}.log", *t.task)));
        }
      }
      const bool array_ended = ended.size() == sub.tasks && std::all_of(tasks.begin(), tasks.end(), [](const auto& t) {
                                 return slurm::is_final(t.state);
                               });
      if (!done && array_ended && !self_tried) {
        // The final step's work, done here (it would wait for Slurm to schedule it); the final
        // step is then cancelled. When the final step already holds the campaign's lock, zl
        // waits for its record as before.
        self_tried = true;
        try {
          if (finish_campaign(spec.out_dir, false, tasks)) {
            self_finished = true;
            slurm::cancel({sub.final_id});
            break;
          }
        } catch (const Error& e) {
          progress.note(
              fmt::format("recording the campaign here failed ({}); the final step {} tries", e.what(), sub.final_id));
        }
      }
      if (!done) {
        const auto fin = slurm::query(sub.final_id);
        const bool final_ended =
            fin.empty() || std::all_of(fin.begin(), fin.end(), [](const auto& t) { return slurm::is_final(t.state); });
        if (final_ended && !fs::exists(done_path)) {
          std::this_thread::sleep_for(std::chrono::seconds(2)); // a shared filesystem may show it late
          if (!fs::exists(done_path)) {
            throw Error(fmt::format("the final step (job {}) ended{} without recording the campaign; see {}, then "
                                    "record it with: zl batch --out {} --slurm-final",
                                    sub.final_id, fin.empty() ? "" : " as " + fin.front().state,
                                    slurm_path(spec.out_dir, "final.log"), spec.out_dir));
          }
        }
      }
    }
    if (done) {
      break;
    }
    progress.refresh(statuses.size() - shown.size());
  }
  const auto merged = parse_ops_status(util::read_file(spec.out_dir + "/ops_status.csv"), spec.out_dir);
  if (!self_finished) {
    std::cerr << util::read_file(done_path);
  }
  const bool all_ok =
      std::all_of(merged.begin(), merged.end(), [](const auto& s) { return results::settled(s.status); });
  return cancelled || g_interrupts > 0 ? k_exit_interrupted : all_ok ? 0 : 1;
}

} // namespace

std::vector<std::vector<std::string>> slice_ops(const std::vector<std::string>& ordered, size_t per_task)
{
  const size_t n = ordered.size();
  const size_t per = std::max<size_t>(per_task, 1);
  const size_t tasks = (n + per - 1) / per;
  std::vector<std::vector<std::string>> slices(tasks);
  for (size_t k = 0; k < n; ++k) {
    slices[k % tasks].push_back(ordered[k]);
  }
  return slices;
}

size_t default_ops_per_task(size_t ops, std::optional<unsigned> max_concurrent)
{
  const size_t tasks = max_concurrent ? *max_concurrent : 64;
  return std::max<size_t>(1, (ops + tasks - 1) / tasks);
}

size_t fit_ops_per_task(size_t ops, std::optional<size_t> requested, size_t by_default, std::optional<size_t> max_array)
{
  const size_t limit = max_array ? std::max<size_t>(*max_array, 1) : 0;
  const size_t least = limit == 0 ? 1 : (ops + limit - 1) / limit; // fewer would need more tasks
  if (!requested) {
    return std::max({by_default, least, size_t{1}});
  }
  const size_t per = std::max<size_t>(*requested, 1);
  if (per < least) {
    throw Error(fmt::format("--ops-per-task {} makes {} array tasks of {} ops, more than this cluster's MaxArraySize "
                            "{} allows (scontrol show config); give --ops-per-task {} or more, or leave it out and "
                            "zl picks it; nothing was submitted",
                            *requested, (ops + per - 1) / per, ops, *max_array, least));
  }
  return per;
}

std::string format_submission(const Submission& s)
{
  return fmt::format("array={}\nfinal={}\ntasks={}\n", s.array_id, s.final_id, s.tasks);
}

Submission parse_submission(const std::string& text, const std::string& path)
{
  Submission s;
  for (const auto& line : util::split(text, '\n')) {
    const auto eq = line.find('=');
    const auto key = line.substr(0, eq), value = eq == std::string::npos ? "" : line.substr(eq + 1);
    if (value.find_first_not_of("0123456789") != std::string::npos) {
      throw Error(fmt::format("{}: {:?} is not a job record of zl's; move the file aside", path, line));
    }
    if (key == "array") {
      s.array_id = value;
    } else if (key == "final") {
      s.final_id = value;
    } else if (key == "tasks" && !value.empty()) {
      s.tasks = std::stoul(value);
    }
  }
  return s;
}

void check_no_live_submission(const std::string& out_dir)
{
  const auto path = slurm_path(out_dir, "jobs");
  if (!fs::exists(path) || !util::find_program("squeue")) {
    return;
  }
  const auto sub = parse_submission(util::read_file(path), path);
  for (const auto& id : {sub.array_id, sub.final_id}) {
    for (const auto& t : id.empty() ? std::vector<slurm::TaskState>{} : slurm::query(id)) {
      if (!slurm::is_final(t.state)) {
        throw Error(fmt::format("the campaign {} is still in Slurm: job {} is {}; wait for it, or scancel {} {}, "
                                "then --resume",
                                out_dir, id, t.state, sub.array_id, sub.final_id));
      }
    }
  }
}

int submit_campaign(const SlurmSubmit& spec, std::vector<OpStatus>& statuses, std::unique_ptr<CampaignLock> lock)
{
  std::vector<std::string> ordered;
  for (auto& s : statuses) {
    if (!results::settled(s.status)) {
      OpStatus fresh;
      fresh.op = s.op;
      fresh.status = "pending";
      s = fresh;
      ordered.push_back(s.op);
    }
  }
  if (ordered.empty()) {
    std::cerr << "zl batch: every op of " << spec.out_dir << " is ok; nothing to submit\n";
    return 0;
  }
  const auto slices =
      slice_ops(ordered, fit_ops_per_task(ordered.size(), spec.ops_per_task,
                                          default_ops_per_task(ordered.size(), spec.options.max_concurrent),
                                          slurm::max_array_size()));
  // What an earlier submission left is kept aside, so that every record in slurm/ is this one's
  // and an op's folder exists only once this submission has started it.
  const auto dir = spec.out_dir + "/" + k_slurm_dir;
  move_aside(dir);
  for (const auto& op : ordered) {
    move_aside(spec.out_dir + "/" + op);
  }
  util::make_dirs(dir);
  util::make_dirs(spec.out_dir + "/logs");
  for (size_t t = 0; t < slices.size(); ++t) {
    util::write_file_atomic(slurm_path(spec.out_dir, fmt::format("task-{}.ops", t)),
                            util::join(slices[t], "\n") + "\n");
  }
  util::write_file_atomic(spec.out_dir + "/ops_status.csv", format_ops_status(statuses));
  auto command = [&](const char* role) {
    auto argv = std::vector<std::string>{spec.zl.binary};
    if (!spec.zl.backend.empty()) {
      argv.insert(argv.end(), {"--backend", spec.zl.backend});
    }
    for (const auto& p : spec.zl.backend_paths) {
      argv.insert(argv.end(), {"--backend-path", p});
    }
    argv.insert(argv.end(), {"batch", "--out", spec.out_dir, role});
    return argv;
  };
  const auto array_path = slurm_path(spec.out_dir, "array.sbatch");
  const auto final_path = slurm_path(spec.out_dir, "final.sbatch");
  util::write_file_atomic(array_path, slurm::array_script(spec.options, slices.size(), command("--slurm-task"), dir));
  slurm::ArrayOptions final_options = spec.options;
  util::write_file_atomic(final_path, slurm::final_script(final_options, command("--slurm-final"), dir + "/final.log"));
  fs::permissions(array_path, fs::add_perms | fs::owner_exe);
  fs::permissions(final_path, fs::add_perms | fs::owner_exe);
  Submission sub;
  sub.tasks = slices.size();
  util::write_file_atomic(slurm_path(spec.out_dir, "jobs"), format_submission(sub)); // the ids once submitted
  if (spec.dry_run) {
    std::cout << array_path << "\n" << final_path << "\n";
    std::cerr << fmt::format("zl batch: --dry-run: {} ops in {} array tasks; nothing submitted. To submit:\n"
                             "  {}\n  {}\n",
                             ordered.size(), slices.size(), util::join(slurm::sbatch_argv(array_path), " "),
                             util::join(slurm::sbatch_argv(final_path, "<array job id>"), " "));
    return 0;
  }
  try {
    sub.array_id = slurm::submit(slurm::sbatch_argv(array_path));
  } catch (const Error& e) {
    throw Error(fmt::format("{}; nothing was submitted", e.what()), e.exit_code());
  }
  try {
    sub.final_id = slurm::submit(slurm::sbatch_argv(final_path, sub.array_id));
    util::write_file_atomic(slurm_path(spec.out_dir, "jobs"), format_submission(sub));
  } catch (const Error& e) {
    slurm::cancel({sub.array_id, sub.final_id}); // nothing half-submitted is left running
    throw Error(fmt::format("{}; the array {} that was submitted first is cancelled", e.what(), sub.array_id),
                e.exit_code());
  } catch (...) {
    slurm::cancel({sub.array_id, sub.final_id});
    throw;
  }
  lock.reset(); // the final step takes the campaign's lock to record it
  std::cerr << fmt::format("zl batch: submitted {} ops as job array {} ({} tasks) and the final step {}; "
                           "scripts and records in {}\n",
                           ordered.size(), sub.array_id, sub.tasks, sub.final_id, dir);
  if (!spec.wait) {
    std::cout << spec.out_dir << "/ops_status.csv\n";
    return 0;
  }
  const int rc = follow(spec, sub, statuses);
  std::cout << spec.out_dir << "/ops_status.csv\n";
  return rc;
}

} // namespace zl::batch
