#include "batch/caliber.hpp"

#include "exec/factory.hpp"
#include "receipt/sha256.hpp"
#include "run/identity_record.hpp"
#include "run/request.hpp"
#include "run/sampling.hpp"
#include "run/telemetry.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/json.hpp"
#include "util/string.hpp"

#include <boost/filesystem.hpp>
#include <fmt/format.h>
#include <rapidjson/document.h>

#include <functional>
#include <set>

namespace zl::batch {

namespace {

struct Field
{
  const char* option;
  std::function<std::string(const Caliber&)> get;
};

const std::vector<Field>& fields()
{
  static const std::vector<Field> f = {
      {"--backend", [](const Caliber& c) { return c.backend; }},
      {"--flaggems", [](const Caliber& c) { return c.flaggems_dir; }},
      {"--level", [](const Caliber& c) { return c.level; }},
      {"--mode", [](const Caliber& c) { return c.mode; }},
      {"--dtypes", [](const Caliber& c) { return util::join(c.dtypes, ","); }},
      {"--timer", [](const Caliber& c) { return c.timer; }},
      {"--sampling", [](const Caliber& c) { return c.sampling; }},
      {"--shape-file", [](const Caliber& c) { return c.shape_file; }},
      {"--shape-file content (sha256)", [](const Caliber& c) { return c.shape_file_sha256; }},
      {"--shape-mode", [](const Caliber& c) { return std::string(c.shape_mode_upstream ? "upstream" : ""); }},
      {"--replay-from", [](const Caliber& c) { return c.replay_from; }},
      {"--isolate-tuner-cache", [](const Caliber& c) { return std::string(c.isolate_tuner_cache ? "on" : "off"); }},
      {"--python", [](const Caliber& c) { return c.python; }},
      {"--executor", [](const Caliber& c) { return c.executor; }},
  };
  return f;
}

std::string shown(const std::string& v)
{
  return v.empty() ? "(none)" : "'" + v + "'";
}

std::string member(const rapidjson::Value& o, const char* key)
{
  return o.IsObject() && o.HasMember(key) && o[key].IsString() ? o[key].GetString() : "";
}

} // namespace

std::string normal_path(const std::string& path)
{
  auto p = util::absolute(path);
  while (p.size() > 2 && p.compare(p.size() - 2, 2, "/.") == 0) {
    p.resize(p.size() - 2);
  }
  return p;
}

Caliber resolve_caliber(const CaliberOptions& o)
{
  // The variables `zl run` reads where an option is absent are resolved here once, the way it
  // resolves them, so that the record and every op agree.
  run::Request r;
  run::apply_options(
      r, {o.flaggems_dir, o.level, o.shape_file, o.shape_mode, o.replay_from, o.python, o.isolate_tuner_cache});
  Caliber c;
  c.backend = o.backend;
  c.flaggems_dir = normal_path(r.flaggems_dir);
  c.level = r.level;
  c.mode = o.mode.value_or("kernel");
  c.dtypes = util::split(o.dtypes.value_or(""), ',');
  c.timer = o.timer.value_or("auto");
  const auto sampling = run::option_or(o.sampling, "ZL_SAMPLING");
  c.sampling = run::to_string(run::parse_sampling(sampling.empty() ? run::k_sampling_default : sampling));
  const auto telemetry = run::option_or(o.telemetry, "ZL_TELEMETRY");
  c.telemetry = run::to_string(run::parse_telemetry(telemetry.empty() ? run::k_telemetry_default : telemetry));
  c.shape_mode_upstream = r.shape_mode_upstream;
  c.shape_file = r.shape_file;
  if (!c.shape_file.empty()) {
    c.shape_file = normal_path(c.shape_file);
    if (boost::filesystem::is_regular_file(c.shape_file)) {
      c.shape_file_sha256 = receipt::sha256_file(c.shape_file);
    }
  }
  c.replay_from = r.replay_from.empty() ? "" : normal_path(r.replay_from);
  c.isolate_tuner_cache = r.isolate_tuner_cache;
  c.python = r.python;
  c.executor = o.executor.value_or(exec::default_executor(c.isolate_tuner_cache));
  exec::check_executor_name(c.executor);
  run::Request check;
  check.op = "batch";
  check.level = c.level;
  check.mode = c.mode;
  check.timer = c.timer;
  check.dtypes = c.dtypes;
  run::validate(check);
  return c;
}

run::Request base_request(const Caliber& c)
{
  run::Request r;
  r.flaggems_dir = c.flaggems_dir;
  r.flaggems_dir_from = "--flaggems";
  r.level = c.level;
  r.mode = c.mode;
  r.timer = c.timer;
  r.sampling = c.sampling;
  r.telemetry = c.telemetry;
  r.python = c.python;
  r.dtypes = c.dtypes;
  r.shape_file = c.shape_file;
  r.shape_mode_upstream = c.shape_mode_upstream;
  r.replay_from = c.replay_from;
  r.isolate_tuner_cache = c.isolate_tuner_cache;
  return r;
}

std::string caliber_json(const Caliber& c)
{
  util::JsonWriter j;
  j.w().StartObject();
  j.field("schema", 1);
  j.key("caliber");
  j.w().StartObject();
  j.field("backend", c.backend);
  j.field("flaggems_dir", c.flaggems_dir);
  j.field("level", c.level);
  j.field("mode", c.mode);
  j.strings("dtypes", c.dtypes);
  j.field("timer", c.timer);
  j.field("sampling", c.sampling);
  j.field("telemetry", c.telemetry);
  j.field("shape_file", c.shape_file);
  j.field("shape_file_sha256", c.shape_file_sha256);
  j.field("shape_mode_upstream", c.shape_mode_upstream);
  j.field("replay_from", c.replay_from);
  j.field("isolate_tuner_cache", c.isolate_tuner_cache);
  j.field("python", c.python);
  j.field("executor", c.executor);
  j.w().EndObject();
  j.w().EndObject();
  return j.text();
}

Caliber parse_caliber_json(const std::string& text, const std::string& path)
{
  rapidjson::Document d;
  if (d.Parse(text.c_str()).HasParseError() || !d.IsObject() || !d.HasMember("caliber") || !d["caliber"].IsObject()) {
    throw Error(fmt::format("{} is not a campaign record of this zl (no \"caliber\" object); --resume cannot tell "
                            "the campaign's caliber: start another --out",
                            path));
  }
  const auto& o = d["caliber"];
  Caliber c;
  c.backend = member(o, "backend");
  c.flaggems_dir = member(o, "flaggems_dir");
  c.level = member(o, "level");
  c.mode = member(o, "mode");
  if (o.HasMember("dtypes") && o["dtypes"].IsArray()) {
    for (const auto& v : o["dtypes"].GetArray()) {
      c.dtypes.push_back(v.IsString() ? v.GetString() : "?");
    }
  }
  c.timer = member(o, "timer");
  c.sampling = o.HasMember("sampling") ? member(o, "sampling") : "fixed";
  c.telemetry = o.HasMember("telemetry") ? member(o, "telemetry") : "off";
  c.shape_file = member(o, "shape_file");
  c.shape_file_sha256 = member(o, "shape_file_sha256");
  c.shape_mode_upstream = o.HasMember("shape_mode_upstream") && o["shape_mode_upstream"].IsTrue();
  c.replay_from = member(o, "replay_from");
  c.isolate_tuner_cache = o.HasMember("isolate_tuner_cache") && o["isolate_tuner_cache"].IsTrue();
  c.python = member(o, "python");
  c.executor = o.HasMember("executor") ? member(o, "executor") : "process";
  return c;
}

std::vector<std::string> caliber_differences(const Caliber& recorded, const Caliber& now)
{
  std::vector<std::string> out;
  for (const auto& f : fields()) {
    const auto a = f.get(recorded), b = f.get(now);
    if (a != b) {
      out.push_back(fmt::format("{}: the campaign has {}, this command {}", f.option, shown(a), shown(b)));
    }
  }
  return out;
}

std::vector<std::string> legacy_differences(const std::vector<OpStatus>& statuses, const std::string& out_dir,
                                            const Caliber& now)
{
  std::vector<std::string> out;
  std::set<std::string> named; // one line per option: the first op that shows the difference
  auto differ = [&](const char* option, const std::string& was, const std::string& is, const std::string& where) {
    if (!was.empty() && was != is && named.insert(option).second) {
      out.push_back(fmt::format("{}: the campaign has {} ({}), this command {}", option, shown(was), where, shown(is)));
    }
  };
  for (const auto& s : statuses) {
    differ("--backend", s.backend, now.backend, "ops_status.csv, op " + s.op);
    differ("--level", s.level, now.level, "ops_status.csv, op " + s.op);
    // The op's own folder, never a path the CSV names: what zl reads stays inside the campaign.
    // An op without a readable identity (stopped before zl wrote it, damaged) says nothing.
    const auto where = out_dir + "/" + s.op + "/" + run::k_identity_file;
    const auto id = run::try_read_identity(out_dir + "/" + s.op);
    if (!id) {
      continue;
    }
    differ("--level", id->level, now.level, where);
    differ("--mode", id->mode, now.mode, where);
    differ("--timer", id->timer.requested, now.timer, where);
    differ("--backend", id->backend.name, now.backend, where);
    differ("--flaggems", id->flaggems_dir, now.flaggems_dir, where);
    if (id->dtypes) {
      const auto was = util::join(*id->dtypes, ","), is = util::join(now.dtypes, ",");
      if (was != is && named.insert("--dtypes").second) {
        out.push_back(fmt::format("--dtypes: the campaign has {} ({}), this command {}", shown(was), where, shown(is)));
      }
    }
  }
  return out;
}

} // namespace zl::batch
