#include "slurm/cluster.hpp"

#include "slurm/script.hpp"

#include "util/error.hpp"
#include "util/process.hpp"
#include "util/string.hpp"

#include <fmt/format.h>

#include <chrono>

namespace zl::slurm {

namespace {

struct Output
{
  int rc = -1;
  std::string out, err;
};

// Slurm's client commands answer in seconds; one that hangs (a controller gone) must not hang zl.
Output tool(const std::vector<std::string>& argv)
{
  util::SpawnSpec spec;
  spec.argv = argv;
  spec.timeout = std::chrono::seconds(60);
  Output o;
  try {
    const auto r = util::run(
        spec, [&](std::string_view s) { o.out += s; }, [&](std::string_view s) { o.err += s; });
    o.rc = r.timed_out ? -1 : r.exit_code;
  } catch (const util::SpawnFailure& f) {
    throw Error(fmt::format("cannot run {}: {}; zl needs Slurm's client commands on PATH (module load slurm?)", argv[0],
                            f.message));
  }
  return o;
}

} // namespace

void check_tools()
{
  for (const char* t : {"sbatch", "squeue", "scancel"}) {
    if (!util::find_program(t)) {
      throw Error(fmt::format("--executor slurm: {} is not on PATH; run zl batch on a host of the cluster with "
                              "Slurm's commands (module load slurm, or the cluster's equivalent)",
                              t));
    }
  }
}

std::string submit(const std::vector<std::string>& argv)
{
  const auto o = tool(argv);
  if (o.rc != 0) {
    const auto said = std::string(util::trim(o.err.empty() ? o.out : o.err));
    throw Error(fmt::format("{} refused the campaign (exit {}): {}; check --partition, --account, --gpus-per-task, "
                            "--time-per-task and --sbatch-arg against what the cluster offers (sinfo lists the "
                            "partitions, sacctmgr show associations user=$USER the accounts)",
                            util::join(argv, " "), o.rc, util::printable(said, 400)));
  }
  return parse_job_id(o.out);
}

std::vector<TaskState> query(const std::string& array_id)
{
  const auto q = tool({"squeue", "-h", "-r", "-t", "all", "-j", array_id, "-o", k_squeue_format});
  if (q.rc == 0) {
    auto tasks = parse_squeue(q.out, array_id);
    if (!tasks.empty()) {
      return tasks;
    }
  }
  if (!util::find_program("scontrol")) {
    return {};
  }
  const auto s = tool({"scontrol", "-o", "show", "job", array_id});
  return s.rc == 0 ? parse_scontrol(s.out, array_id) : std::vector<TaskState>{};
}

std::optional<size_t> max_array_size()
{
  if (!util::find_program("scontrol")) {
    return std::nullopt;
  }
  const auto c = tool({"scontrol", "show", "config"});
  return c.rc == 0 ? parse_max_array_size(c.out) : std::nullopt;
}

std::vector<TaskState> accounting(const std::string& array_id)
{
  if (!util::find_program("sacct")) {
    return {};
  }
  const auto a = tool({"sacct", "-n", "-X", "-P", "-j", array_id, "-o", "JobID,State,Reason,NodeList"});
  if (a.rc != 0) {
    return {}; // "Slurm accounting storage is disabled": no slurmdbd here
  }
  auto tasks = parse_squeue(a.out, array_id);
  for (auto& t : tasks) {
    t.state = t.state.substr(0, t.state.find(' ')); // "CANCELLED by 0"
  }
  return tasks;
}

void cancel(const std::vector<std::string>& job_ids)
{
  for (const auto& id : job_ids) {
    if (!id.empty()) {
      tool({"scancel", id});
    }
  }
}

} // namespace zl::slurm
