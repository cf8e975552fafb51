// The batch scripts of a Slurm campaign (`zl batch --executor slurm`): one for the job array, whose
// task I runs `zl batch --slurm-task I` over its slice of ops, and one for the final step, which
// runs `zl batch --slurm-final` once the array has ended. Every sbatch option is a #SBATCH line of
// the script, so that `sbatch <script>` by hand submits exactly what zl submitted; every word of a
// command is single-quoted, so that no path or value is ever read by the shell as code.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace zl::slurm {

// What the user chose for the array (cli/cmd_batch.cpp's options; defaults here).
struct ArrayOptions
{
  std::string partition; // empty: the cluster's default partition
  std::string account;   // empty: the user's default account
  std::string time;      // --time-per-task, in Slurm's notation (30, 1:00:00, 1-0); empty: the partition's
  unsigned gpus_per_task = 1;
  std::optional<unsigned> max_concurrent; // the array's %K
  std::vector<std::string> sbatch_args;   // --sbatch-arg, each one #SBATCH line
  std::string job_name = "zl-batch";
};

// Refuses (Error, exit 2) what a #SBATCH line cannot carry as one word (whitespace, quotes,
// backslashes, control characters: sbatch splits directive lines itself) and names outside
// Slurm's own alphabet for partitions and accounts, naming the option.
void check_options(const ArrayOptions& options);

// The array's script: tasks 0..tasks-1 (at most max_concurrent at once), each task's output
// appended to <log_dir>/task-<I>.log, then `exec` of command with the task index appended.
std::string array_script(const ArrayOptions& options, size_t tasks, const std::vector<std::string>& command,
                         const std::string& log_dir);

// The final step's script: no GPU, its output appended to log_path, then `exec` of command.
std::string final_script(const ArrayOptions& options, const std::vector<std::string>& command,
                         const std::string& log_path);

// sbatch's command line for script: --parsable (the job id alone on standard output), and
// --dependency=afterany:<after> for the final step.
std::vector<std::string> sbatch_argv(const std::string& script_path, const std::string& after = "");

// The job id in sbatch --parsable's output ("12" or "12;cluster"); Error when there is none.
std::string parse_job_id(const std::string& sbatch_stdout);

} // namespace zl::slurm
