#include "slurm/campaign.hpp"

#include "batch/campaign.hpp"
#include "batch/progress.hpp"
#include "batch/scheduler.hpp"
#include "slurm/cluster.hpp"
#include "slurm/follow.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/output.hpp"
#include "util/process.hpp"
#include "util/signals.hpp"
#include "util/string.hpp"

#include <boost/filesystem.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <optional>

namespace zl::slurm {

namespace fs = boost::filesystem;

namespace {

std::string slurm_path(const std::string& out_dir, const std::string& name)
{
  return out_dir + "/" + k_slurm_dir + "/" + name;
}

// Follows the array and the final step until the campaign is recorded; the local batch's exit codes.
int follow(const SubmitSpec& spec, const Submission& sub, const std::vector<batch::OpStatus>& statuses)
{
  util::SignalForwarding signals;
  batch::Progress progress(statuses.size(), sub.tasks);
  std::vector<std::string> names;
  for (const auto& s : statuses) {
    names.push_back(s.op);
  }
  Follower follower(spec.out_dir, sub, names);
  batch::SchedulerSpec plan;
  plan.signals = [&](int sig) { return signals.count(sig); };
  auto table = statuses;
  const auto outcome = batch::Scheduler(plan, table, {}, progress).run(follower);
  const auto done_path = slurm_path(spec.out_dir, "final.done");
  if (!follower.recorded_here() && fs::exists(done_path)) {
    util::out().say(util::read_file(done_path));
  }
  return outcome.exit_code;
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

namespace {

// The ops not settled, reset to pending (their earlier rows are an earlier submission's).
std::vector<std::string> reset_unsettled(std::vector<batch::OpStatus>& statuses)
{
  std::vector<std::string> ordered;
  for (auto& s : statuses) {
    if (!results::settled(s.status)) {
      batch::OpStatus fresh;
      fresh.op = s.op;
      fresh.status = results::OpState::pending;
      s = fresh;
      ordered.push_back(s.op);
    }
  }
  return ordered;
}

// What a batch script runs: this zl, with its backend, on the campaign in `role`.
std::vector<std::string> step_argv(const SubmitSpec& spec, const char* role)
{
  auto argv = std::vector<std::string>{spec.zl.binary};
  if (!spec.zl.backend.empty()) {
    argv.insert(argv.end(), {"--backend", spec.zl.backend});
  }
  for (const auto& p : spec.zl.backend_paths) {
    argv.insert(argv.end(), {"--backend-path", p});
  }
  argv.insert(argv.end(), {"batch", "--out", spec.out_dir, role});
  return argv;
}

// Writes slurm/: each task's ops, the two batch scripts, the (empty) job record; and the
// campaign's rows. What an earlier submission left is kept aside, so that every record in slurm/
// is this one's and an op's folder exists only once this submission has started it.
void write_submission(const SubmitSpec& spec, const std::vector<std::vector<std::string>>& slices,
                      const std::vector<std::string>& ordered, const std::vector<batch::OpStatus>& statuses)
{
  const auto dir = spec.out_dir + "/" + k_slurm_dir;
  batch::move_aside(dir);
  for (const auto& op : ordered) {
    batch::move_aside(spec.out_dir + "/" + op);
  }
  util::make_dirs(dir);
  util::make_dirs(spec.out_dir + "/logs");
  for (size_t t = 0; t < slices.size(); ++t) {
    util::write_file_atomic(slurm_path(spec.out_dir, fmt::format("task-{}.ops", t)),
                            util::join(slices[t], "\n") + "\n");
  }
  util::write_file_atomic(spec.out_dir + "/ops_status.csv", batch::format_ops_status(statuses));
  const auto array_path = slurm_path(spec.out_dir, "array.sbatch");
  const auto final_path = slurm_path(spec.out_dir, "final.sbatch");
  util::write_file_atomic(array_path,
                          slurm::array_script(spec.options, slices.size(), step_argv(spec, "--slurm-task"), dir));
  util::write_file_atomic(final_path,
                          slurm::final_script(spec.options, step_argv(spec, "--slurm-final"), dir + "/final.log"));
  fs::permissions(array_path, fs::add_perms | fs::owner_exe);
  fs::permissions(final_path, fs::add_perms | fs::owner_exe);
  Submission sub;
  sub.tasks = slices.size();
  util::write_file_atomic(slurm_path(spec.out_dir, "jobs"), format_submission(sub)); // the ids once submitted
}

// Submits the array, then the final step after it; whatever was submitted is cancelled when the
// second submission fails, so nothing half-submitted is left running.
Submission submit_jobs(const std::string& out_dir, size_t tasks)
{
  Submission sub;
  sub.tasks = tasks;
  try {
    sub.array_id = slurm::submit(slurm::sbatch_argv(slurm_path(out_dir, "array.sbatch")));
  } catch (const Error& e) {
    throw Error(fmt::format("{}; nothing was submitted", e.what()), e.exit_code());
  }
  try {
    sub.final_id = slurm::submit(slurm::sbatch_argv(slurm_path(out_dir, "final.sbatch"), sub.array_id));
    util::write_file_atomic(slurm_path(out_dir, "jobs"), format_submission(sub));
  } catch (const Error& e) {
    slurm::cancel({sub.array_id, sub.final_id});
    throw Error(fmt::format("{}; the array {} that was submitted first is cancelled", e.what(), sub.array_id),
                e.exit_code());
  } catch (...) {
    slurm::cancel({sub.array_id, sub.final_id});
    throw;
  }
  return sub;
}

} // namespace

int submit_campaign(const SubmitSpec& spec, std::vector<batch::OpStatus>& statuses,
                    std::unique_ptr<batch::CampaignLock> lock)
{
  const auto ordered = reset_unsettled(statuses);
  if (ordered.empty()) {
    util::out().say(fmt::format("zl batch: every op of {} is ok; nothing to submit\n", spec.out_dir));
    return 0;
  }
  const auto slices =
      slice_ops(ordered, fit_ops_per_task(ordered.size(), spec.ops_per_task,
                                          default_ops_per_task(ordered.size(), spec.options.max_concurrent),
                                          slurm::max_array_size()));
  write_submission(spec, slices, ordered, statuses);
  if (spec.dry_run) {
    const auto array_path = slurm_path(spec.out_dir, "array.sbatch");
    const auto final_path = slurm_path(spec.out_dir, "final.sbatch");
    util::out().result(fmt::format("{}\n{}\n", array_path, final_path));
    util::out().say(fmt::format("zl batch: --dry-run: {} ops in {} array tasks; nothing submitted. To submit:\n"
                                "  {}\n  {}\n",
                                ordered.size(), slices.size(), util::join(slurm::sbatch_argv(array_path), " "),
                                util::join(slurm::sbatch_argv(final_path, "<array job id>"), " ")));
    return 0;
  }
  const auto sub = submit_jobs(spec.out_dir, slices.size());
  lock.reset(); // the final step takes the campaign's lock to record it
  util::out().say(fmt::format("zl batch: submitted {} ops as job array {} ({} tasks) and the final step {}; "
                              "scripts and records in {}\n",
                              ordered.size(), sub.array_id, sub.tasks, sub.final_id, spec.out_dir + "/" + k_slurm_dir));
  const int rc = spec.wait ? follow(spec, sub, statuses) : 0;
  util::out().result(spec.out_dir + "/ops_status.csv\n");
  return rc;
}

} // namespace zl::slurm
