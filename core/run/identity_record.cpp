#include "run/identity_record.hpp"

#include "util/fs.hpp"
#include "util/string.hpp"

#include <boost/filesystem.hpp>
#include <fmt/format.h>
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <algorithm>

namespace zl::run {

namespace {

namespace key = identity_key;
using rapidjson::Value;

constexpr const char* k_fix = "it was damaged or edited after the run: restore it, or run the op again";

const char* kind_of(const Value& v)
{
  switch (v.GetType()) {
  case rapidjson::kNullType:
    return "null";
  case rapidjson::kFalseType:
  case rapidjson::kTrueType:
    return "a boolean";
  case rapidjson::kObjectType:
    return "an object";
  case rapidjson::kArrayType:
    return "a list";
  case rapidjson::kStringType:
    return "a string";
  default:
    return "a number";
  }
}

// The members of one document, each checked for its type; a wrong one is an IdentityError
// naming it by its dotted path (timer.effective).
class Reader
{
public:
  explicit Reader(const std::string& file) : m_file(file) {}

  // obj[k]; null where it is absent or JSON null (the writer's "none").
  static const Value* get(const Value& obj, const char* k)
  {
    const auto it = obj.FindMember(k);
    return it == obj.MemberEnd() || it->value.IsNull() ? nullptr : &it->value;
  }

  std::string text(const Value& obj, const std::string& at, const char* k) const
  {
    const auto* v = get(obj, k);
    if (v != nullptr && !v->IsString()) {
      wrong(path(at, k), *v, "a string");
    }
    return v == nullptr ? std::string() : std::string(v->GetString(), v->GetStringLength());
  }

  const Value* object(const Value& obj, const std::string& at, const char* k) const
  {
    const auto* v = get(obj, k);
    if (v != nullptr && !v->IsObject()) {
      wrong(path(at, k), *v, "an object");
    }
    return v;
  }

  std::optional<std::vector<std::string>> strings(const Value& obj, const char* k) const
  {
    const auto* v = get(obj, k);
    if (v == nullptr) {
      return std::nullopt;
    }
    if (!v->IsArray()) {
      wrong(k, *v, "a list of strings");
    }
    std::vector<std::string> out;
    for (const auto& s : v->GetArray()) {
      if (!s.IsString()) {
        wrong(fmt::format("{}[{}]", k, out.size()), s, "a string");
      }
      out.emplace_back(s.GetString(), s.GetStringLength());
    }
    return out;
  }

  std::optional<double> real(const Value& obj, const std::string& at, const char* k) const
  {
    const auto* v = get(obj, k);
    if (v != nullptr && !v->IsNumber()) {
      wrong(path(at, k), *v, "a number");
    }
    return v == nullptr ? std::nullopt : std::optional<double>(v->GetDouble());
  }

  std::optional<long long> whole(const Value& obj, const std::string& at, const char* k) const
  {
    const auto* v = get(obj, k);
    if (v != nullptr && !v->IsInt64()) {
      wrong(path(at, k), *v, "a whole number");
    }
    return v == nullptr ? std::nullopt : std::optional<long long>(v->GetInt64());
  }

  [[noreturn]] void wrong(const std::string& where, const Value& v, const char* expected) const
  {
    const auto reason = fmt::format("{} is {}, not {}", where, kind_of(v), expected);
    throw IdentityError(fmt::format("{} is not a run identity: {}; {}", util::printable(m_file), reason, k_fix), 0,
                        reason);
  }

private:
  static std::string path(const std::string& at, const char* k) { return at.empty() ? k : at + "." + k; }

  const std::string& m_file;
};

// What of the device's settings changes a measurement: a locked clock, the power limit, ECC, MIG.
std::string device_state(const Reader& r, const Value& t)
{
  std::vector<std::string> parts;
  auto flag = [&](const char* k, const char* on, const char* off) {
    const auto* v = Reader::get(t, k);
    if (v != nullptr && !v->IsBool()) {
      r.wrong(std::string("telemetry.") + k, *v, "true or false");
    }
    if (v != nullptr) {
      parts.push_back(fmt::format("{}={}", k, v->GetBool() ? on : off));
    }
  };
  flag("clocks_locked", "yes", "no");
  if (const auto limit = r.real(t, "telemetry", "power_limit_w")) {
    parts.push_back(fmt::format("power_limit_w={:g}", *limit));
  }
  flag("ecc", "on", "off");
  flag("mig", "on", "off");
  return util::join(parts, " ");
}

void read_nested(const Reader& r, const Value& d, Identity& id)
{
  if (const auto* b = r.object(d, "", key::k_backend)) {
    id.backend = {r.text(*b, key::k_backend, key::k_name), r.text(*b, key::k_backend, key::k_module),
                  r.text(*b, key::k_backend, key::k_version)};
  }
  if (const auto* dev = r.object(d, "", key::k_device)) {
    id.device.index = r.whole(*dev, key::k_device, key::k_index);
    id.device.uuid = r.text(*dev, key::k_device, key::k_uuid);
    id.device.name = r.text(*dev, key::k_device, key::k_name);
  }
  if (const auto* t = r.object(d, "", key::k_timer)) {
    id.timer = {r.text(*t, key::k_timer, key::k_effective), r.text(*t, key::k_timer, key::k_requested)};
  }
  if (const auto* c = r.object(d, "", key::k_tuner_cache)) {
    id.tuner_cache = r.text(*c, key::k_tuner_cache, key::k_mode);
  }
  if (const auto* n = r.object(d, "", key::k_node)) {
    id.op = r.text(*n, key::k_node, key::k_op);
  }
  if (const auto* v = r.object(d, "", key::k_versions)) {
    for (const auto& m : v->GetObject()) {
      if (m.value.IsString()) { // the probe's other members: null (not found), version_sources
        id.versions.emplace_back(std::string(m.name.GetString(), m.name.GetStringLength()),
                                 std::string(m.value.GetString(), m.value.GetStringLength()));
      }
    }
  }
  if (const auto* e = r.object(d, "", key::k_executor)) {
    const auto name = r.text(*e, key::k_executor, key::k_name);
    id.executor = name.empty() ? id.executor : name;
  }
  if (const auto* t = r.object(d, "", "telemetry")) {
    id.device_state = device_state(r, *t);
    id.driver = r.text(*t, "telemetry", "driver");
  }
  if (const auto* s = r.object(d, "", key::k_slurm)) {
    id.slurm =
        Identity::Slurm{r.text(*s, key::k_slurm, key::k_job_id), r.text(*s, key::k_slurm, key::k_array_job_id),
                        r.text(*s, key::k_slurm, key::k_array_task_id), r.text(*s, key::k_slurm, key::k_slurm_node)};
  }
}

} // namespace

IdentityError::IdentityError(const std::string& message, std::size_t line, const std::string& reason)
  : Error(message), m_reason(reason), m_line(line)
{}

Identity parse_identity(std::string_view text, const std::string& file)
{
  rapidjson::Document d;
  d.Parse(text.data(), text.size());
  if (d.HasParseError()) {
    const auto offset = std::min(d.GetErrorOffset(), text.size());
    const auto line = static_cast<std::size_t>(std::count(text.begin(), text.begin() + offset, '\n')) + 1;
    const std::string reason = rapidjson::GetParseError_En(d.GetParseError());
    throw IdentityError(
        fmt::format("{} is not valid JSON ({} at line {}); {}", util::printable(file), reason, line, k_fix), line,
        reason);
  }
  if (!d.IsObject()) {
    throw IdentityError(fmt::format("{} is not a run identity (a JSON object); {}", util::printable(file), k_fix), 0,
                        "not a JSON object");
  }
  const Reader r(file);
  Identity id;
  id.zl_version = r.text(d, "", key::k_zl_version);
  id.zl_binary = r.text(d, "", key::k_zl_binary);
  id.status = r.text(d, "", key::k_status);
  id.started_at = r.text(d, "", key::k_started_at);
  id.duration_s = r.real(d, "", key::k_duration_s);
  id.level = r.text(d, "", key::k_level);
  id.mode = r.text(d, "", key::k_mode);
  id.dtypes = r.strings(d, key::k_dtypes);
  id.flaggems_dir = r.text(d, "", key::k_flaggems_dir);
  id.flaggems_commit = r.text(d, "", key::k_flaggems_commit);
  id.pytest_extra_args = r.strings(d, key::k_pytest_extra_args);
  id.record_log = r.text(d, "", key::k_record_log);
  read_nested(r, d, id);
  return id;
}

std::optional<Identity> try_parse_identity(std::string_view text)
{
  try {
    return parse_identity(text, k_identity_file);
  } catch (const IdentityError&) {
    return std::nullopt;
  }
}

Identity read_identity(const std::string& run_dir)
{
  namespace fs = boost::filesystem;
  const auto file = (fs::path(run_dir) / k_identity_file).string();
  boost::system::error_code ec;
  if (!fs::exists(fs::symlink_status(file, ec))) {
    throw Error(fmt::format("{} holds no {}: it is not a run folder, or its run was stopped before zl wrote one; "
                            "give a run folder that zl run or zl batch wrote",
                            util::printable(run_dir), k_identity_file));
  }
  return parse_identity(util::read_file(file), file);
}

std::optional<Identity> try_read_identity(const std::string& run_dir)
{
  try {
    return read_identity(run_dir);
  } catch (const Error&) {
    return std::nullopt;
  }
}

} // namespace zl::run
