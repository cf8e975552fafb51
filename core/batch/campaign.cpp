#include "batch/campaign.hpp"

#include "batch/local_source.hpp"
#include "batch/progress.hpp"
#include "batch/scheduler.hpp"
#include "results/parse/marker_names.hpp"
#include "results/store/store.hpp"
#include "run/catalog.hpp"
#include "run/identity_record.hpp"
#include "run/release.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/process.hpp"
#include "util/signals.hpp"
#include "util/string.hpp"

#include <boost/filesystem.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace zl::batch {

namespace fs = boost::filesystem;
namespace markers = results::parse::marker_names;

namespace {

long long count_prefix(const std::string& text, std::string_view name)
{
  long long n = 0;
  const auto marker = std::string(name) + " ";
  for (size_t pos = 0; (pos = text.find(marker, pos)) != std::string::npos; pos += marker.size()) {
    n += pos == 0 || text[pos - 1] == '\n';
  }
  return n;
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

std::vector<std::string> order_longest_first(const std::vector<std::string>& ops, const Expected& expected)
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

void add_ops(std::vector<OpStatus>& statuses, const std::vector<std::string>& ops, const Expected& expected)
{
  std::set<std::string> known;
  for (const auto& s : statuses) {
    known.insert(s.op);
  }
  for (const auto& op : order_longest_first(ops, expected)) {
    if (known.insert(op).second) {
      OpStatus s;
      s.op = op;
      s.status = results::OpState::pending;
      statuses.push_back(s);
    }
  }
}

std::vector<OpStatus> order_rows(const std::vector<OpStatus>& statuses, const Expected& expected)
{
  std::vector<std::string> names;
  for (const auto& s : statuses) {
    names.push_back(s.op);
  }
  std::vector<OpStatus> ordered;
  for (const auto& op : order_longest_first(names, expected)) {
    ordered.push_back(*std::find_if(statuses.begin(), statuses.end(), [&](const auto& s) { return s.op == op; }));
  }
  return ordered;
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

namespace {

// The pending ops (every op not settled), longest expected first, as indices into statuses.
std::vector<size_t> queue_pending(std::vector<OpStatus>& statuses, const Expected& expected)
{
  std::vector<std::string> pending;
  for (auto& s : statuses) {
    if (!results::settled(s.status)) {
      s.status = results::OpState::pending;
      pending.push_back(s.op);
    }
  }
  std::vector<size_t> order;
  for (const auto& op : order_longest_first(pending, expected)) {
    const auto it = std::find_if(statuses.begin(), statuses.end(), [&](const auto& s) { return s.op == op; });
    order.push_back(static_cast<size_t>(it - statuses.begin()));
  }
  return order;
}

// An op's row once it has ended: what its run folder says, stored, and ops_status.csv rewritten.
void record_op(const CampaignSpec& spec, results::store::Store& store, Progress& progress, OpStatus& s,
               const Ending& how)
{
  const auto& device = spec.devices.at(how.slot);
  const auto run_dir = spec.out_dir + "/" + s.op;
  s.exit_code = how.end.exit_code;
  s.backend = spec.backend;
  s.device_index = device.index;
  s.device_uuid = device.uuid;
  s.duration_s = how.seconds;
  s.level = spec.request.level;
  s.run_dir = run_dir;
  s.rows = 0;
  std::optional<results::OpState> run_status;
  if (fs::exists(run_dir + "/" + run::k_identity_file)) {
    // A damaged identity tells nothing here; the store still takes the run's rows from its log.
    if (const auto id = run::try_read_identity(run_dir)) {
      s.timer = id->timer.effective.empty() ? s.timer : id->timer.effective;
      s.level = id->level.empty() ? s.level : id->level;
      run_status = results::parse_op_state(id->status);
    }
    try {
      s.rows = store.ingest_run(run_dir);
    } catch (const Error& e) {
      progress.note(fmt::format("{}: not stored: {}", s.op, e.what()));
    }
    const std::string text =
        fs::exists(run_dir + "/run.log") ? util::read_file(run_dir + "/run.log", util::k_log_limit) : "";
    s.direct_fallbacks = count_prefix(text, markers::k_benchmark_direct_no_cudagraph);
    s.poisoned = count_prefix(text, markers::k_benchmark_capture_poisoned);
    s.replay_fallbacks = count_prefix(text, markers::k_autotune_replay_fallback);
  }
  s.status = status_from_exit(how.end.exit_code, s.rows, how.timed_out, how.interrupted, run_status);
}

} // namespace

CampaignOutcome run_campaign(const CampaignSpec& spec, std::vector<OpStatus>& statuses, results::store::Store& store,
                             const Expected& expected)
{
  util::make_dirs(spec.out_dir + "/logs");
  const auto csv_path = spec.status_file.empty() ? spec.out_dir + "/ops_status.csv" : spec.status_file;
  auto order = queue_pending(statuses, expected);
  util::write_file_atomic(csv_path, format_ops_status(statuses));
  Progress progress(statuses.size(), spec.devices.size());
  util::SignalForwarding signals;
  SchedulerSpec plan;
  if (spec.timeout_per_op) {
    plan.timeout = std::chrono::milliseconds(std::llround(*spec.timeout_per_op * 1000));
  }
  plan.kill_after = util::outer_stop_grace();
  plan.signals = [&](int sig) { return signals.count(sig); };
  plan.finish = [&](OpStatus& s, const Ending& how) {
    record_op(spec, store, progress, s, how);
    util::write_file_atomic(csv_path, format_ops_status(statuses));
  };
  std::vector<std::string> names;
  for (const auto& s : statuses) {
    names.push_back(s.op);
  }
  SchedulerOutcome out;
  {
    LocalSource source(spec, names);
    out = Scheduler(plan, statuses, std::move(order), progress).run(source);
  }
  if (!out.broken.empty()) {
    throw Error(fmt::format("the campaign {} stopped: {}; make the folder writable (space, permissions) and "
                            "--resume",
                            spec.out_dir, out.broken));
  }
  util::write_file_atomic(csv_path, format_ops_status(statuses));
  progress.done(out.makespan_s, out.total_work_s);
  return {out.exit_code, out.makespan_s, out.total_work_s, out.ran};
}

} // namespace zl::batch
