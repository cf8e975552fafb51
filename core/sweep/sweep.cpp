#include "sweep/sweep.hpp"

#include "batch/folder.hpp"
#include "devices/select.hpp"
#include "results/parse/marker_format.hpp"
#include "results/parse/marker_names.hpp"
#include "run/identity.hpp"
#include "run/node.hpp"
#include "run/plan.hpp"
#include "run/preflight.hpp"
#include "shapes/shape_resolver.hpp"
#include "sweep/merge.hpp"
#include "sweep/shards.hpp"
#include "sweep/workers.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/json.hpp"
#include "util/output.hpp"
#include "util/string.hpp"

#include <boost/filesystem.hpp>
#include <fmt/chrono.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>

namespace zl::sweep {

namespace fs = boost::filesystem;

namespace {

namespace names = results::parse::marker_names;

void say(std::string_view name, const std::vector<std::pair<std::string, std::string>>& fields)
{
  util::out().result(results::parse::marker_line(name, fields) + "\n");
}

std::string where_of(const shapes::Target& t)
{
  return t.calls.empty() ? "" : fmt::format("{}:{}", t.calls.front().module_path, t.calls.front().call.line);
}

void print_resolution(const shapes::Resolution& r)
{
  for (const auto& t : r.targets) {
    const auto cls = t.calls.empty() ? std::string() : t.calls.front().chain.front().name;
    // the keys looked up up to the hit (all of them on a miss)
    const auto hit = std::find(t.candidates.begin(), t.candidates.end(), t.key);
    const std::vector<std::string> tried(t.candidates.begin(), hit == t.candidates.end() ? hit : hit + 1);
    std::vector<std::pair<std::string, std::string>> fields = {
        {"op", r.op}, {"module", r.module}, {"class", cls}, {"call", where_of(t)}, {"key", t.key}};
    if (t.key.empty() || !t.problem.empty()) {
      fields.emplace_back("tried", util::join(tried, ","));
      if (!t.problem.empty()) {
        fields.emplace_back("reason", t.problem);
      }
      say(names::k_sweep_unresolved, fields);
      continue;
    }
    fields.insert(fields.end(), {{"shapes", std::to_string(t.shapes.size())},
                                 {"tried", util::join(tried, ",")},
                                 {"certain", t.certain ? "true" : "false"}});
    say(names::k_sweep_resolved, fields);
    if (!t.calls.empty()) {
      std::vector<std::string> chain;
      for (const auto& link : t.calls.front().chain) {
        chain.push_back(link.where.empty() ? link.name : fmt::format("{} ({})", link.name, link.where));
      }
      util::out().result(fmt::format("  chain: {}\n", util::join(chain, " -> ")));
    }
    util::out().result(
        fmt::format("  shapes ({}) from {}:\n", t.shape_desc.empty() ? "M, N" : t.shape_desc, r.shape_file));
    for (const auto& s : t.shapes) {
      util::out().result(fmt::format("    {}\n", s));
    }
  }
  for (const auto& note : r.notes) {
    util::out().result(fmt::format("  note: {}\n", note));
  }
}

std::vector<loader::Device> choose_devices(const Request& r, const loader::Module& backend)
{
  return devices::choose_list(
      backend, r.devices_from.empty() ? std::nullopt : std::optional(util::join(r.devices, ",")), r.devices_from);
}

std::string default_out(const std::string& op, const std::string& backend)
{
  const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  const auto base = fmt::format("sweeps/{:%Y%m%dT%H%M%S}Z-{}-{}", fmt::gmtime(now), op, backend);
  auto dir = base;
  for (int i = 2; fs::exists(dir); ++i) {
    dir = fmt::format("{}-{}", base, i);
  }
  return util::absolute(dir);
}

// Why the sweep is serial; empty when it can be sharded.
std::string serial_reason(const Request& r, const shapes::Resolution& res, size_t devices)
{
  if (r.level == "comprehensive") {
    util::out().say("zl: sweep: --level comprehensive is not sharded: each benchmark class adds shapes in Python "
                    "(set_more_shapes) that no static reading sees, so shards would tune a subset (the earlier "
                    "harness swept 5 of mm's 29 shapes and its consumer then hit 90 key_missing fallbacks); running "
                    "the serial sweep instead\n");
    return "comprehensive";
  }
  if (!res.complete()) {
    util::out().say(fmt::format("zl: sweep: the shapes of {} cannot be resolved statically (tried {}); running the "
                                "serial sweep instead\n",
                                r.op, util::join(res.tried(), ", ")));
    return "unresolved";
  }
  if (devices < 2) {
    return "one_device";
  }
  size_t shapes = 0;
  for (const auto& t : res.targets) {
    shapes += t.shapes.size();
  }
  return shapes < 2 ? "one_shape" : "";
}

// Checks the request and the paths (preflight), resolves the op's shapes and prints them.
shapes::Resolution resolve(const Request& r)
{
  if (r.level != "core" && r.level != "comprehensive") {
    throw Error(fmt::format("--level {} is not accepted; use one of: core, comprehensive", r.level));
  }
  if (!util::is_op_name(r.op)) {
    throw Error(fmt::format("--op {} is not an operator name ([A-Za-z0-9_]+)", r.op));
  }
  const auto node = run::resolve_node(r.flaggems_dir, r.op, "", "", r.python);
  run::PreflightInput in{
      r.flaggems_dir, r.flaggems_dir_from, node.file, node.how, r.shape_file, "", r.resolve_only ? "" : r.python};
  run::preflight(in);
  auto resolution = shapes::resolve_shapes({r.flaggems_dir, node.file, r.op, r.shape_file});
  print_resolution(resolution);
  return resolution;
}

} // namespace

int resolve_only(const Request& r)
{
  const auto resolution = resolve(r);
  if (!resolution.complete()) {
    util::out().say(fmt::format("zl: sweep: no shapes resolved for op {} in {}: tried {}\n", r.op,
                                resolution.shape_file, util::join(resolution.tried(), ", ")));
    return k_sweep_failed;
  }
  return k_sweep_published;
}

int run(const Request& r, const loader::Module& backend)
{
  const auto resolution = resolve(r);

  const auto devices = choose_devices(r, backend);
  const auto out = r.out_dir.empty() ? default_out(r.op, backend.name()) : util::absolute(r.out_dir);
  boost::system::error_code ec;
  if (fs::exists(out) && !fs::is_empty(out, ec)) {
    throw Error(fmt::format("the sweep folder {} already holds files; choose another --out", out));
  }
  batch::check_out_path(out, false); // the campaign folder's rules, and its one owner
  util::make_dirs(out);
  const batch::CampaignLock owner(out, false);
  util::make_dirs(out + "/logs");
  Sweep sweep{r, out, resolution, devices, backend.name(), run::utc_now()};
  const auto start = std::chrono::steady_clock::now();
  std::string reason = serial_reason(r, resolution, devices.size());
  if (reason.empty()) {
    reason = sweep.sharded();
  }
  int code = k_sweep_published;
  if (!reason.empty()) {
    code = sweep.serial(reason);
  }
  sweep.write_report(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return code;
}

} // namespace zl::sweep
