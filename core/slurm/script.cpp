#include "slurm/script.hpp"

#include "util/error.hpp"
#include "util/string.hpp"

#include <fmt/format.h>

#include <cctype>

namespace zl::slurm {

namespace {

bool slurm_name(const std::string& s)
{
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (!(std::isalnum(c) || c == '_' || c == '-' || c == '.')) {
      return false;
    }
  }
  return !s.empty();
}

void check_word(const std::string& option, const std::string& value)
{
  for (const char ch : value) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x21 || c == 0x7f || c == '\'' || c == '"' || c == '\\') {
      throw Error(fmt::format("{} {:?}: a #SBATCH line of the batch script carries one word without spaces, quotes, "
                              "backslashes or control characters; give the value without them",
                              option, value));
    }
  }
}

// The lines both scripts start with: what zl asked of Slurm, one #SBATCH line each.
std::string header(const ArrayOptions& o, const std::string& role)
{
  std::string s = "#!/bin/bash\n";
  s += fmt::format("# {} of a zl campaign, written by zl batch --executor slurm (core/slurm/script.cpp).\n", role);
  s += "# Submit by hand with: sbatch --parsable <this file>; zl's own output goes to the log named below.\n";
  s += fmt::format("#SBATCH --job-name={}\n", o.job_name);
  if (!o.partition.empty()) {
    s += fmt::format("#SBATCH --partition={}\n", o.partition);
  }
  if (!o.account.empty()) {
    s += fmt::format("#SBATCH --account={}\n", o.account);
  }
  // Slurm's own output file would be named with %-patterns that a campaign path could contain;
  // the script appends to its log itself instead.
  s += "#SBATCH --output=/dev/null\n";
  return s;
}

std::string words(const std::vector<std::string>& command)
{
  std::vector<std::string> quoted;
  for (const auto& w : command) {
    quoted.push_back(util::shell_quote(w));
  }
  return util::join(quoted, " ");
}

} // namespace

void check_options(const ArrayOptions& o)
{
  if (!o.partition.empty() && !slurm_name(o.partition)) {
    throw Error(
        fmt::format("--partition {:?} is not a partition name ([A-Za-z0-9_.-]+); `sinfo -s` lists them", o.partition));
  }
  if (!o.account.empty() && !slurm_name(o.account)) {
    throw Error(fmt::format("--account {:?} is not an account name ([A-Za-z0-9_.-]+)", o.account));
  }
  check_word("--time-per-task", o.time);
  for (const auto& a : o.sbatch_args) {
    check_word("--sbatch-arg", a);
    if (a.rfind("-", 0) != 0) {
      throw Error(fmt::format("--sbatch-arg {:?} is not an sbatch option; give one option a time, as "
                              "--sbatch-arg=--constraint=a100",
                              a));
    }
  }
  if (o.max_concurrent && *o.max_concurrent == 0) {
    throw Error("--max-concurrent 0 would run nothing; give at least 1");
  }
}

std::string array_script(const ArrayOptions& o, size_t tasks, const std::vector<std::string>& command,
                         const std::string& log_dir)
{
  if (tasks == 0) {
    throw Error("no ops to submit");
  }
  std::string s = header(o, "The job array");
  s +=
      fmt::format("#SBATCH --array=0-{}{}\n", tasks - 1, o.max_concurrent ? fmt::format("%{}", *o.max_concurrent) : "");
  if (o.gpus_per_task > 0) {
    s += fmt::format("#SBATCH --gres=gpu:{}\n", o.gpus_per_task);
  }
  if (!o.time.empty()) {
    s += fmt::format("#SBATCH --time={}\n", o.time);
  }
  for (const auto& a : o.sbatch_args) {
    s += fmt::format("#SBATCH {}\n", a);
  }
  s += "set -u\n";
  s += "task=\"${SLURM_ARRAY_TASK_ID:?not an array task: submit this script with sbatch}\"\n";
  s += fmt::format("exec {} \"$task\" >>{}'/task-'\"$task\"'.log' 2>&1\n", words(command), util::shell_quote(log_dir));
  return s;
}

std::string final_script(const ArrayOptions& o, const std::vector<std::string>& command, const std::string& log_path)
{
  std::string s = header(o, "The final step (after the array: ingest, ops_status.csv, summary)");
  s += "set -u\n";
  s += fmt::format("exec {} >>{} 2>&1\n", words(command), util::shell_quote(log_path));
  return s;
}

std::vector<std::string> sbatch_argv(const std::string& script_path, const std::string& after)
{
  std::vector<std::string> argv = {"sbatch", "--parsable"};
  if (!after.empty()) {
    argv.push_back("--dependency=afterany:" + after);
  }
  argv.push_back(script_path);
  return argv;
}

std::string parse_job_id(const std::string& out)
{
  const auto line = std::string(util::trim(util::first_line(out)));
  auto id = line.substr(0, line.find(';'));
  if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos) {
    throw Error(fmt::format("sbatch printed {:?} where --parsable gives the job id; is `sbatch` Slurm's?",
                            util::printable(out)));
  }
  return id;
}

} // namespace zl::slurm
