// Slurm's own commands, run without a shell (core/util/process.hpp): sbatch to submit, squeue and
// scontrol to follow (sacct only adds where the cluster keeps accounting: without slurmdbd it
// fails for every job), scancel to stop. Each error names the command and what Slurm said.
#pragma once

#include "slurm/state.hpp"

#include <optional>
#include <string>
#include <vector>

namespace zl::slurm {

// Refuses (Error, exit 2) when sbatch, squeue or scancel is not on PATH, saying what zl needs.
void check_tools();

// Runs sbatch with argv; the job id. Error (exit 2) quoting sbatch's message when it refuses
// (a partition that does not exist, an account refused, …).
std::string submit(const std::vector<std::string>& argv);

// The array's tasks as squeue (then scontrol) sees them; empty once Slurm has forgotten the job
// (MinJobAge after it ended) or when neither can tell.
std::vector<TaskState> query(const std::string& array_id);

// The cluster's MaxArraySize (scontrol show config); empty when scontrol is missing or does not say.
std::optional<size_t> max_array_size();

// The final state of each task from sacct, where the cluster has accounting; empty otherwise.
std::vector<TaskState> accounting(const std::string& array_id);

// scancel each job; what scancel says is ignored (a job may have ended meanwhile).
void cancel(const std::vector<std::string>& job_ids);

} // namespace zl::slurm
