#include "slurm/state.hpp"

#include "util/string.hpp"

#include <map>

namespace zl::slurm {

namespace {

// "12_3" -> task 3 of array 12; "12_[4-9%1]" -> the pending remainder; "12" -> no task id.
bool split_id(const std::string& id, const std::string& array_id, std::optional<size_t>& task)
{
  const auto us = id.find('_');
  if (id.substr(0, us) != array_id) {
    return false;
  }
  task.reset();
  if (us != std::string::npos) {
    const auto rest = id.substr(us + 1);
    if (!rest.empty() && rest.find_first_not_of("0123456789") == std::string::npos) {
      task = std::stoul(rest);
    }
  }
  return true;
}

} // namespace

std::vector<TaskState> parse_squeue(const std::string& text, const std::string& array_id)
{
  std::vector<TaskState> out;
  for (const auto& line : util::split(text, '\n')) {
    const auto f = util::split(std::string(util::trim(line)), '|', false);
    if (f.size() < 3) {
      continue;
    }
    TaskState t;
    if (!split_id(f[0], array_id, t.task)) {
      continue;
    }
    t.state = f[1];
    t.reason = f[2];
    t.node = f.size() > 3 ? f[3] : "";
    out.push_back(t);
  }
  return out;
}

std::vector<TaskState> parse_scontrol(const std::string& text, const std::string& array_id)
{
  std::vector<TaskState> out;
  for (const auto& line : util::split(text, '\n')) {
    std::map<std::string, std::string> kv;
    for (const auto& word : util::split(line, ' ')) {
      const auto eq = word.find('=');
      if (eq != std::string::npos) {
        kv.emplace(word.substr(0, eq), word.substr(eq + 1));
      }
    }
    if (kv["ArrayJobId"] != array_id && kv["JobId"] != array_id) {
      continue;
    }
    TaskState t;
    const auto& task = kv["ArrayTaskId"];
    if (!task.empty() && task.find_first_not_of("0123456789") == std::string::npos) {
      t.task = std::stoul(task);
    }
    t.state = kv["JobState"];
    t.reason = kv["Reason"];
    t.node = kv["NodeList"] == "(null)" ? "" : kv["NodeList"];
    out.push_back(t);
  }
  return out;
}

std::optional<size_t> parse_max_array_size(const std::string& show_config)
{
  for (const auto& line : util::split(show_config, '\n')) {
    const auto eq = line.find('=');
    if (eq == std::string::npos || util::trim(line.substr(0, eq)) != "MaxArraySize") {
      continue;
    }
    const auto value = std::string(util::trim(line.substr(eq + 1)));
    if (!value.empty() && value.size() < 10 && value.find_first_not_of("0123456789") == std::string::npos) {
      return std::stoul(value);
    }
  }
  return std::nullopt;
}

bool is_final(const std::string& state)
{
  return state != "PENDING" && state != "RUNNING" && state != "CONFIGURING" && state != "COMPLETING" &&
         state != "SUSPENDED" && state != "REQUEUED" && state != "RESIZING" && state != "SIGNALING" &&
         state != "STAGE_OUT" && !state.empty();
}

results::OpState op_status(const std::string& slurm_state, results::OpState recorded, bool started)
{
  using results::OpState;
  if (recorded != OpState::pending && recorded != OpState::interrupted) {
    return recorded;
  }
  if (recorded == OpState::pending && !started) {
    return OpState::pending;
  }
  if (slurm_state == "TIMEOUT" || slurm_state == "DEADLINE") {
    return OpState::timeout;
  }
  if (slurm_state == "CANCELLED" || slurm_state == "PREEMPTED") {
    return OpState::interrupted;
  }
  // NODE_FAIL, OUT_OF_MEMORY, BOOT_FAIL, or a task whose zl died without recording the op.
  return recorded == OpState::interrupted ? OpState::interrupted : OpState::crashed;
}

} // namespace zl::slurm
