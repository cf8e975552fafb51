// A campaign on a Slurm cluster (`zl batch --executor slurm`). DESIGN: Slurm places the work,
// zl's own campaign logic runs it. The submit side orders the ops longest-first (as a local
// campaign), slices them over array tasks, writes two batch scripts into <campaign>/slurm/ and
// submits them: one job array, and one final step that depends on it (afterany). Each array task
// is `zl batch --slurm-task I` (slurm/task.hpp): run_campaign (core/batch/campaign.cpp) with the warm executor over
// its slice, on the GPUs Slurm allocated (the inherited visibility mask), writing the same run
// folders and logs into the shared campaign folder as a local campaign and its rows to its own
// record, slurm/task-I.csv. The final step (`zl batch --slurm-final`) merges the records with
// the tasks' Slurm states into ops_status.csv, ingests the run folders into the results store
// and prints the summary. The submit side follows both jobs unless --no-wait.
#pragma once

#include "batch/lock.hpp"
#include "batch/ops_status.hpp"
#include "exec/invocation.hpp"
#include "loader/module.hpp"
#include "slurm/script.hpp"
#include "slurm/state.hpp"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace zl::slurm {

inline constexpr const char* k_slurm_dir = "slurm"; // inside the campaign folder

// The slices of the ops (longest first) over tasks of at most per_task ops: op k goes to task
// k mod tasks, so that every slice is longest-first and the slices carry similar work.
std::vector<std::vector<std::string>> slice_ops(const std::vector<std::string>& ordered, size_t per_task);

// --ops-per-task's default: one slice per concurrent task when --max-concurrent is given (each
// task pays its worker's imports once), else at most 64 tasks.
size_t default_ops_per_task(size_t ops, std::optional<unsigned> max_concurrent);

// The ops per task that keep the array within the cluster's MaxArraySize (task ids 0..max-1):
// requested as given when it fits, else an Error naming --ops-per-task before anything is
// submitted; by_default raised as far as the limit needs. max_array empty: no limit known.
size_t fit_ops_per_task(size_t ops, std::optional<size_t> requested, size_t by_default,
                        std::optional<size_t> max_array);

// The jobs of the latest submission, as slurm/jobs records them.
struct Submission
{
  std::string array_id;
  std::string final_id;
  size_t tasks = 0;
};
std::string format_submission(const Submission& s);
Submission parse_submission(const std::string& text, const std::string& path);

struct SubmitSpec
{
  std::string out_dir;
  exec::ZlCommand zl; // what the scripts start: the same zl, with the same backend
  slurm::ArrayOptions options;
  std::optional<size_t> ops_per_task;
  bool dry_run = false;
  bool wait = true;
};

// Refuses (Error, exit 2) a resubmission while the campaign's previous array or final step is
// still known to Slurm and not ended.
void check_no_live_submission(const std::string& out_dir);

// Submits the ops of statuses that are not ok (statuses: the campaign's rows, ordered longest
// first), releases lock once submitted, then follows unless !wait. The local batch's exit codes;
// Error (exit 2) when Slurm refuses or the nodes cannot see the campaign folder, after cancelling
// whatever was submitted.
int submit_campaign(const SubmitSpec& spec, std::vector<batch::OpStatus>& statuses,
                    std::unique_ptr<batch::CampaignLock> lock);

} // namespace zl::slurm
