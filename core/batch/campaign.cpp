#include "batch/campaign.hpp"

#include "batch/progress.hpp"
#include "results/store/store.hpp"
#include "run/catalog.hpp"
#include "run/release.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/process.hpp"
#include "util/string.hpp"

#include <boost/filesystem.hpp>
#include <fmt/format.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <deque>
#include <mutex>
#include <set>
#include <thread>

namespace zl::batch {

namespace fs = boost::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

std::atomic<int> g_stop_signal{0};

extern "C" void on_stop_signal(int sig)
{
  g_stop_signal = sig;
}

// What the main thread needs to watch one running op.
struct Slot
{
  std::mutex m;
  int pgid = 0; // the op's first process group, as the executor told it: it can be stopped now
  std::string op;
  Clock::time_point started;
  bool terminated = false; // SIGTERM sent (timeout or stop)
  bool killed = false;
  bool timed_out = false;
};

long long count_prefix(const std::string& text, const std::string& marker)
{
  long long n = 0;
  for (size_t pos = 0; (pos = text.find(marker + " ", pos)) != std::string::npos; pos += marker.size()) {
    n += pos == 0 || text[pos - 1] == '\n';
  }
  return n;
}

void read_identity(const std::string& run_dir, OpStatus& s, std::string& run_status)
{
  std::string text;
  try {
    text = util::read_file(run_dir + "/run_identity.json");
  } catch (const Error&) {
    return;
  }
  rapidjson::Document d;
  if (d.Parse(text.c_str()).HasParseError() || !d.IsObject()) {
    return;
  }
  if (d.HasMember("timer") && d["timer"].IsObject() && d["timer"].HasMember("effective") &&
      d["timer"]["effective"].IsString()) {
    s.timer = d["timer"]["effective"].GetString();
  }
  if (d.HasMember("level") && d["level"].IsString()) {
    s.level = d["level"].GetString();
  }
  if (d.HasMember("status") && d["status"].IsString()) {
    run_status = d["status"].GetString();
  }
}

} // namespace

void move_aside(const std::string& run_dir)
{
  if (!fs::exists(run_dir)) {
    return;
  }
  for (int k = 1;; ++k) {
    const auto aside = fmt::format("{}.attempt-{}", run_dir, k);
    if (!fs::exists(aside)) {
      fs::rename(run_dir, aside);
      return;
    }
  }
}

std::vector<std::string> order_longest_first(const std::vector<std::string>& ops,
                                             const std::function<std::optional<double>(const std::string&)>& expected)
{
  std::vector<std::pair<std::optional<double>, std::string>> keyed;
  for (const auto& op : ops) {
    keyed.emplace_back(expected(op), op);
  }
  std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) {
    if (!a.first || !b.first) {
      return !a.first && b.first; // unknown first
    }
    return *a.first > *b.first;
  });
  std::vector<std::string> out;
  for (auto& [_, op] : keyed) {
    out.push_back(op);
  }
  return out;
}

std::vector<std::string> all_ops(const std::string& flaggems_dir, const std::string& python)
{
  auto catalog = run::read_catalog(flaggems_dir);
  run::collect_uncertain(catalog, flaggems_dir, python);
  if (!catalog.uncertain.empty() && !catalog.collected) {
    throw Error(fmt::format("--all: the ops of {} are marked in files whose marks only pytest's collection can list, "
                            "and {}; fix that, or name the ops with --ops",
                            flaggems_dir, catalog.collection));
  }
  if (!catalog.errors.empty()) {
    throw Error(fmt::format("--all: pytest's collection of {} could not import {}; its ops would be missing "
                            "from the campaign: fix that, or name the ops with --ops",
                            flaggems_dir, util::join(catalog.errors, "; ")));
  }
  // Every op mark (abs and abs_ of test_abs.py alike), and a file that marks nothing by its name:
  // it runs whole. A file that marks other ops is no op of its own (test_div.py's tests run as
  // the ops they mark, and would run twice).
  std::set<std::string> ops;
  for (const auto& op : run::marked_ops(catalog)) {
    ops.insert(op);
  }
  std::set<std::string> marking;
  for (const auto& [op, files] : catalog.files_of) {
    marking.insert(files.begin(), files.end());
  }
  const bool category = run::layout_of(flaggems_dir) == run::Layout::category;
  boost::system::error_code ec;
  for (fs::directory_iterator it(fs::path(flaggems_dir) / "benchmark", ec), end; !category && !ec && it != end;
       it.increment(ec)) {
    const auto name = it->path().filename().string();
    if (name.rfind("test_", 0) == 0 && it->path().extension() == ".py" && marking.count("benchmark/" + name) == 0) {
      ops.insert(it->path().stem().string().substr(5));
    }
  }
  return {ops.begin(), ops.end()};
}

CampaignOutcome run_campaign(const CampaignSpec& spec, std::vector<OpStatus>& statuses, results::store::Store& store,
                             const std::function<std::optional<double>(const std::string&)>& expected)
{
  util::make_dirs(spec.out_dir + "/logs");
  const auto csv_path = spec.status_file.empty() ? spec.out_dir + "/ops_status.csv" : spec.status_file;
  std::mutex state; // guards statuses, queue, the CSV, the store and the progress display
  std::deque<size_t> queue;
  std::vector<std::string> pending;
  for (auto& s : statuses) {
    if (!results::settled(s.status)) {
      s.status = "pending";
      pending.push_back(s.op);
    }
  }
  for (const auto& op : order_longest_first(pending, expected)) {
    const auto it = std::find_if(statuses.begin(), statuses.end(), [&](const auto& s) { return s.op == op; });
    queue.push_back(static_cast<size_t>(it - statuses.begin()));
  }
  util::write_file_atomic(csv_path, format_ops_status(statuses));
  Progress progress(statuses.size(), spec.devices.size());
  for (const auto& s : statuses) {
    if (results::settled(s.status)) {
      progress.finished(s.op, s.status, s.duration_s.value_or(0), s.rows, std::nullopt);
    }
  }

  struct sigaction sa = {}, old_int = {}, old_term = {}, old_hup = {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  g_stop_signal = 0;
  ::sigaction(SIGINT, &sa, &old_int);
  ::sigaction(SIGTERM, &sa, &old_term);
  ::sigaction(SIGHUP, &sa, &old_hup);

  // The running ops' process groups go into the lock file, so that the next owner can tell
  // whether a dead owner left them running.
  std::set<int> groups;
  auto record_groups = [&] {
    if (spec.lock != nullptr) {
      try {
        spec.lock->set_running(std::vector<int>(groups.begin(), groups.end()));
      } catch (const Error& e) {
        progress.note(e.what());
      }
    }
  };
  // Set when the campaign cannot go on (its folder became unwritable): nothing new starts.
  std::string broken;
  CampaignOutcome outcome;
  const auto campaign_start = Clock::now();
  std::vector<Slot> slots(spec.devices.size());
  std::atomic<size_t> active_workers{spec.devices.size()};
  auto worker_loop = [&](size_t slot_index) {
    const auto& device = spec.devices[slot_index];
    auto& slot = slots[slot_index];
    while (true) {
      size_t i;
      {
        std::lock_guard<std::mutex> lock(state);
        if (g_stop_signal != 0 || !broken.empty() || queue.empty()) {
          return;
        }
        i = queue.front();
        queue.pop_front();
      }
      OpStatus& s = statuses[i];
      const auto run_dir = spec.out_dir + "/" + s.op;
      move_aside(run_dir);
      exec::OpLaunch launch;
      launch.request = spec.request;
      launch.request.op = s.op;
      launch.request.device = device.uuid;
      launch.request.out_dir = run_dir;
      launch.slot = slot_index;
      launch.device = device;
      launch.log_path = spec.out_dir + "/logs/" + s.op + ".log";
      launch.on_group = [&](int pgid) {
        {
          std::lock_guard<std::mutex> lock(state);
          groups.insert(pgid);
          record_groups();
        }
        std::lock_guard<std::mutex> lock(slot.m);
        if (slot.pgid == 0) {
          slot.pgid = pgid;
        }
      };
      {
        std::lock_guard<std::mutex> lock(slot.m);
        slot.pgid = 0;
        slot.terminated = slot.killed = slot.timed_out = false;
        slot.op = s.op;
        slot.started = Clock::now();
      }
      {
        std::lock_guard<std::mutex> lock(state);
        progress.started(s.op, device.index);
      }
      exec::OpEnd end;
      try {
        end = spec.executor->run(launch);
      } catch (...) {
        std::lock_guard<std::mutex> lock(slot.m);
        slot.pgid = 0;
        throw;
      }
      const double seconds = std::chrono::duration<double>(Clock::now() - slot.started).count();
      bool timed_out;
      {
        std::lock_guard<std::mutex> lock(slot.m);
        timed_out = slot.timed_out;
        slot.pgid = 0;
      }
      std::lock_guard<std::mutex> lock(state);
      s.exit_code = end.exit_code;
      s.backend = spec.backend;
      s.device_index = device.index;
      s.device_uuid = device.uuid;
      s.duration_s = seconds;
      s.level = spec.request.level;
      s.run_dir = run_dir;
      s.rows = 0;
      std::string run_status;
      if (fs::exists(run_dir + "/run_identity.json")) {
        read_identity(run_dir, s, run_status);
        try {
          s.rows = store.ingest_run(run_dir);
        } catch (const Error& e) {
          progress.note(fmt::format("{}: not stored: {}", s.op, e.what()));
        }
        const std::string text =
            fs::exists(run_dir + "/run.log") ? util::read_file(run_dir + "/run.log", util::k_log_limit) : "";
        s.direct_fallbacks = count_prefix(text, "BENCHMARK_DIRECT_NO_CUDAGRAPH");
        s.poisoned = count_prefix(text, "BENCHMARK_CAPTURE_POISONED");
        s.replay_fallbacks = count_prefix(text, "AUTOTUNE_REPLAY_FALLBACK");
      }
      s.status = status_from_exit(end.exit_code, s.rows, timed_out, g_stop_signal != 0, run_status);
      outcome.total_work_s += seconds;
      ++outcome.ran;
      util::write_file_atomic(csv_path, format_ops_status(statuses));
      progress.finished(s.op, s.status, seconds, s.rows, device.index);
      if (!end.note.empty()) {
        progress.note(fmt::format("{}: {}", s.op, end.note));
      }
    }
  };

  auto worker = [&](size_t slot_index) {
    // An exception must not leave a worker thread (std::terminate, with ops still running).
    try {
      worker_loop(slot_index);
    } catch (const std::exception& e) {
      std::lock_guard<std::mutex> lock(state);
      if (broken.empty()) {
        broken = e.what();
        progress.note(fmt::format("{}; no new op starts", broken));
      }
    }
    --active_workers;
  };
  std::vector<std::thread> threads;
  for (size_t d = 0; d < spec.devices.size(); ++d) {
    threads.emplace_back(worker, d);
  }
  // The main thread watches: stop signals, timeouts, the progress line, the running groups.
  bool forwarded = false;
  for (unsigned tick = 1;; ++tick) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (tick % 5 == 0) {
      std::vector<int> leaders;
      for (auto& slot : slots) {
        std::lock_guard<std::mutex> lock(slot.m);
        if (slot.pgid > 0) {
          leaders.push_back(slot.pgid);
        }
      }
      std::vector<int> known;
      {
        std::lock_guard<std::mutex> lock(state);
        known.assign(groups.begin(), groups.end());
      }
      // A group stays on record while anything of it runs (a benchmark may leave a process).
      const auto live = live_groups(known, spec.out_dir);
      std::set<int> seen(live.begin(), live.end());
      for (int leader : leaders) {
        seen.insert(leader);
        for (int g : descendant_groups(leader)) {
          seen.insert(g);
        }
      }
      std::lock_guard<std::mutex> lock(state);
      if (seen != groups) {
        groups = seen;
        record_groups();
      }
    }
    for (size_t k = 0; k < slots.size(); ++k) {
      auto& slot = slots[k];
      std::lock_guard<std::mutex> lock(slot.m);
      if (slot.pgid <= 0) {
        continue;
      }
      const double elapsed = std::chrono::duration<double>(Clock::now() - slot.started).count();
      if (g_stop_signal != 0 && !slot.terminated) {
        // A `zl run` records its run as interrupted; the process executor sends SIGINT.
        spec.executor->stop(k, exec::Stop::interrupt);
        slot.terminated = true;
      } else if (spec.timeout_per_op && elapsed > *spec.timeout_per_op && !slot.terminated) {
        slot.timed_out = true;
        slot.terminated = true;
        spec.executor->stop(k, exec::Stop::terminate);
      } else if (spec.timeout_per_op &&
                 elapsed > *spec.timeout_per_op + std::chrono::duration<double>(util::outer_stop_grace()).count() &&
                 !slot.killed) {
        slot.killed = true;
        spec.executor->stop(k, exec::Stop::kill);
      }
    }
    std::lock_guard<std::mutex> lock(state);
    if (g_stop_signal != 0 && !forwarded) {
      forwarded = true;
      progress.note("stopping: no new op starts; running ops are interrupted");
    }
    if (active_workers == 0) {
      break;
    }
    progress.refresh(queue.size());
  }
  for (auto& t : threads) {
    t.join();
  }
  spec.executor->shutdown();
  ::sigaction(SIGINT, &old_int, nullptr);
  ::sigaction(SIGTERM, &old_term, nullptr);
  ::sigaction(SIGHUP, &old_hup, nullptr);

  outcome.makespan_s = std::chrono::duration<double>(Clock::now() - campaign_start).count();
  if (!broken.empty()) {
    throw Error(fmt::format("the campaign {} stopped: {}; make the folder writable (space, permissions) and "
                            "--resume",
                            spec.out_dir, broken));
  }
  util::write_file_atomic(csv_path, format_ops_status(statuses));
  const bool all_ok =
      std::all_of(statuses.begin(), statuses.end(), [](const auto& s) { return results::settled(s.status); });
  outcome.exit_code = g_stop_signal != 0 ? k_exit_interrupted : all_ok ? 0 : 1;
  progress.done(outcome.makespan_s, outcome.total_work_s);
  return outcome;
}

} // namespace zl::batch
