// The caliber header of the page: what run_identity.json says about how the numbers were made.
#include "report/data.hpp"

#include "results/compare/summary.hpp"
#include "run/identity_record.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace zl::report {

namespace {

constexpr const char* k_slurm_tasks = "Slurm array tasks";

// A Slurm array's task ids as ranges ("0-499, 501-999 (999 tasks)"): a campaign of 1,000 ops has
// one per op, a header of a thousand values would bury the rest. Ids that are not numbers are
// listed as they are.
std::string task_ranges(const std::set<std::string>& ids)
{
  std::vector<long long> numbers;
  std::vector<std::string> others;
  for (const auto& id : ids) {
    const bool digits = !id.empty() && id.size() < 18 && id.find_first_not_of("0123456789") == std::string::npos;
    digits ? numbers.push_back(std::stoll(id)) : others.push_back(id);
  }
  std::sort(numbers.begin(), numbers.end());
  std::string out;
  for (std::size_t i = 0; i < numbers.size();) {
    std::size_t k = i;
    while (k + 1 < numbers.size() && numbers[k + 1] == numbers[k] + 1) {
      ++k;
    }
    out += (out.empty() ? "" : ", ") + std::to_string(numbers[i]) +
           (k > i ? "-" + std::to_string(numbers[k]) : std::string());
    i = k + 1;
  }
  for (const auto& o : others) {
    out += (out.empty() ? "" : ", ") + o;
  }
  return fmt::format("{} ({} task{})", out, ids.size(), ids.size() == 1 ? "" : "s");
}

void add(CaliberInfo& c, const std::string& field, const std::string& value)
{
  if (value.empty()) {
    return;
  }
  for (auto& [name, values] : c.fields) {
    if (name == field) {
      values.insert(value);
      return;
    }
  }
  c.fields.push_back({field, {value}});
}

void add_run(CaliberInfo& c, const results::RunInfo& info)
{
  // A damaged identity was reported when the run was read; its caliber came from the log.
  const auto id = run::try_parse_identity(info.identity_json);
  const auto& cal = info.caliber;
  add(c, "backend", cal.backend.empty() ? results::compare::k_unknown : cal.backend);
  if (id) {
    add(c, "backend version", id->backend.version);
  }
  const std::string device = info.device_name + (info.device_uuid.empty() ? "" : " (" + info.device_uuid + ")");
  add(c, "devices", device.empty() ? results::compare::k_unknown : device);
  add(c, "timer", cal.timer.empty() ? results::compare::k_unknown : cal.timer);
  add(c, "level", cal.level.empty() ? results::compare::k_unknown : cal.level);
  add(c, "mode", cal.mode.empty() ? results::compare::k_unknown : cal.mode);
  add(c, "tuner cache", cal.tuner_cache.empty() ? results::compare::k_unknown : cal.tuner_cache);
  add(c, "executor", info.executor);
  add(c, "pytest extra args", info.extra_args);
  if (id) {
    for (const auto& [module, version] : id->versions) {
      add(c, fmt::format("version of {}", module), version);
    }
    add(c, "FlagGems commit", id->flaggems_commit);
  }
  // Where a Slurm task ran (zl batch --executor slurm): absent or null elsewhere.
  if (id && id->slurm) {
    const auto& slurm = *id->slurm;
    add(c, "Slurm job", slurm.array_job_id.empty() ? slurm.job_id : slurm.array_job_id);
    add(c, k_slurm_tasks, slurm.array_task_id);
    add(c, "Slurm node", slurm.node);
  }
  add(c, "zl version", info.zl_version.empty() ? results::compare::k_unknown : info.zl_version);
}

} // namespace

void Json::num(double v)
{
  std::isfinite(v) ? static_cast<void>(m_w.Double(v)) : static_cast<void>(m_w.Null());
}

void Json::strings(std::string_view k, const std::vector<std::string>& values)
{
  key(k);
  m_w.StartArray();
  for (const auto& v : values) {
    str(shown(v));
  }
  m_w.EndArray();
}

std::string shown(std::string_view label, std::size_t* cut, std::size_t max)
{
  if (label.size() <= max) {
    return std::string(label);
  }
  std::size_t end = max;
  while (end > 0 && (static_cast<unsigned char>(label[end]) & 0xC0) == 0x80) {
    --end; // not inside a UTF-8 sequence
  }
  if (cut != nullptr) {
    ++*cut;
  }
  return fmt::format("{}… ({} bytes)", label.substr(0, end), label.size());
}

std::string caliber_key(const results::RunInfo& info)
{
  return fmt::format("{} executor={}{}", results::compare::describe(info.caliber), info.executor,
                     info.extra_args.empty() || info.extra_args == "none" ? "" : " extra_args=" + info.extra_args);
}

std::vector<CaliberInfo> group_by_caliber(const std::vector<results::Run>& runs)
{
  std::vector<CaliberInfo> out;
  std::unordered_map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto key = caliber_key(runs[i].info);
    auto [it, fresh] = index.emplace(key, out.size());
    if (fresh) {
      out.push_back(CaliberInfo{key, {}, {}});
    }
    auto& c = out[it->second];
    c.runs.push_back(i);
    add_run(c, runs[i].info);
  }
  for (auto& c : out) {
    for (auto& [name, values] : c.fields) {
      if (name == k_slurm_tasks) {
        values = {task_ranges(values)};
      }
    }
  }
  return out;
}

void write_caliber(Json& j, const CaliberInfo& c)
{
  auto& w = j.w();
  w.StartObject();
  j.field("key", shown(c.key));
  j.field("runs", c.runs.size());
  j.key("fields");
  w.StartArray();
  for (const auto& [name, values] : c.fields) {
    w.StartArray();
    j.str(shown(name));
    w.StartArray();
    for (const auto& v : values) {
      j.str(shown(v));
    }
    w.EndArray();
    w.EndArray();
  }
  w.EndArray();
  w.EndObject();
}

} // namespace zl::report
