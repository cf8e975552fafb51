#include "devices/reading.hpp"

#include "util/error.hpp"

#include <zl/backend_abi.h>

#include <fmt/format.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cmath>

namespace zl::devices {

namespace {

constexpr double k_sag = 0.9; // an SM clock under 90% of its target is a slowed device

constexpr std::pair<std::uint64_t, const char*> k_throttle_bits[] = {
    {ZL_THROTTLE_IDLE, "idle"},       {ZL_THROTTLE_APP_CLOCKS, "app_clocks"},   {ZL_THROTTLE_POWER, "power"},
    {ZL_THROTTLE_THERMAL, "thermal"}, {ZL_THROTTLE_HW_SLOWDOWN, "hw_slowdown"}, {ZL_THROTTLE_SYNC_BOOST, "sync_boost"},
    {ZL_THROTTLE_OTHER, "other"},
};

constexpr const char* k_phases[] = {"before", "during", "after", "now"};

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void put(Writer& w, const char* key, const std::string& v)
{
  if (!v.empty()) {
    w.Key(key);
    w.String(v.c_str(), static_cast<rapidjson::SizeType>(v.size()));
  }
}

template <typename T>
void put(Writer& w, const char* key, const std::optional<T>& v)
{
  if (!v) {
    return;
  }
  w.Key(key);
  if constexpr (std::is_same_v<T, bool>) {
    w.Bool(*v);
  } else if constexpr (std::is_same_v<T, double>) {
    w.Double(*v);
  } else if constexpr (std::is_same_v<T, int>) {
    w.Int(*v);
  } else {
    w.Uint64(*v);
  }
}

const rapidjson::Value* member(const rapidjson::Value& v, const char* key)
{
  const auto it = v.FindMember(key);
  return it == v.MemberEnd() || it->value.IsNull() ? nullptr : &it->value;
}

std::string text(const rapidjson::Value& v, const char* key, const std::string& where)
{
  const auto* m = member(v, key);
  if (m == nullptr) {
    return "";
  }
  if (!m->IsString()) {
    throw Error(fmt::format("{}: \"{}\" is not a string", where, key));
  }
  return m->GetString();
}

template <typename T>
std::optional<T> number(const rapidjson::Value& v, const char* key, const std::string& where)
{
  const auto* m = member(v, key);
  if (m == nullptr) {
    return std::nullopt;
  }
  if constexpr (std::is_same_v<T, bool>) {
    if (m->IsBool()) {
      return m->GetBool();
    }
  } else if constexpr (std::is_same_v<T, int>) {
    if (m->IsInt()) {
      return m->GetInt();
    }
  } else if constexpr (std::is_same_v<T, double>) {
    if (m->IsNumber() && std::isfinite(m->GetDouble())) {
      return m->GetDouble();
    }
  } else if (m->IsUint64() && m->GetUint64() <= std::numeric_limits<T>::max()) {
    return static_cast<T>(m->GetUint64());
  }
  throw Error(fmt::format("{}: \"{}\" is not a valid {}", where, key, std::is_same_v<T, bool> ? "boolean" : "number"));
}

Phase phase_of(const std::string& s, const std::string& where)
{
  for (std::size_t i = 0; i < std::size(k_phases); ++i) {
    if (s == k_phases[i]) {
      return static_cast<Phase>(i);
    }
  }
  throw Error(fmt::format("{}: \"phase\" is '{}', not before, during, after or now", where, s));
}

} // namespace

std::string_view name(Phase phase)
{
  return k_phases[static_cast<int>(phase)];
}

std::vector<std::string> throttle_names(std::uint64_t bits)
{
  std::vector<std::string> out;
  for (const auto& [bit, label] : k_throttle_bits) {
    if ((bits & bit) != 0) {
      out.emplace_back(label);
      bits &= ~bit;
    }
  }
  for (int i = 0; i < 64; ++i) {
    if ((bits & (std::uint64_t{1} << i)) != 0) {
      out.push_back(fmt::format("bit {}", i));
    }
  }
  return out;
}

std::optional<std::string> throttle_cause(const Reading& r)
{
  const std::uint64_t bits = r.throttle.value_or(0);
  if (const auto slowing = bits & ~(ZL_THROTTLE_IDLE | ZL_THROTTLE_APP_CLOCKS); slowing != 0) {
    std::string names;
    for (const auto& n : throttle_names(slowing)) {
      names += (names.empty() ? "" : ",") + n;
    }
    return fmt::format("throttle reason {}{}", names, r.throttle_text.empty() ? "" : " (" + r.throttle_text + ")");
  }
  if ((bits & ZL_THROTTLE_IDLE) != 0 || !r.sm_clock_mhz) {
    return std::nullopt;
  }
  const bool locked = r.locked_mhz.value_or(0) != 0;
  const unsigned target = locked ? *r.locked_mhz : r.sm_clock_max_mhz.value_or(0);
  if (target != 0 && *r.sm_clock_mhz < k_sag * target) {
    return fmt::format("SM clock {} MHz under 90% of its {} {} MHz", *r.sm_clock_mhz, locked ? "locked" : "maximum",
                       target);
  }
  return std::nullopt;
}

std::string to_json_line(const Reading& r)
{
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  w.Key("at");
  w.Double(r.at);
  w.Key("took_s");
  w.Double(r.took_s);
  put(w, "phase", std::string(name(r.phase)));
  put(w, "device", r.device);
  w.Key("status");
  w.Int(r.status);
  put(w, "source", r.source);
  put(w, "reason", r.reason);
  put(w, "sm_clock_mhz", r.sm_clock_mhz), put(w, "sm_clock_max_mhz", r.sm_clock_max_mhz);
  put(w, "mem_clock_mhz", r.mem_clock_mhz), put(w, "mem_clock_max_mhz", r.mem_clock_max_mhz);
  put(w, "locked_mhz", r.locked_mhz), put(w, "temperature_c", r.temperature_c);
  put(w, "power_w", r.power_w), put(w, "power_limit_w", r.power_limit_w);
  put(w, "throttle", r.throttle), put(w, "throttle_text", r.throttle_text);
  put(w, "ecc", r.ecc), put(w, "mig", r.mig);
  put(w, "driver", r.driver), put(w, "firmware", r.firmware);
  w.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

Reading from_json(const rapidjson::Value& v, const std::string& where)
{
  if (!v.IsObject()) {
    throw Error(fmt::format("{}: not a JSON object", where));
  }
  Reading r;
  const auto at = number<double>(v, "at", where);
  if (!at) {
    throw Error(fmt::format("{}: no \"at\" (the time of the reading)", where));
  }
  r.at = *at;
  r.took_s = number<double>(v, "took_s", where).value_or(0);
  r.phase = phase_of(text(v, "phase", where), where);
  r.device = text(v, "device", where), r.source = text(v, "source", where), r.reason = text(v, "reason", where);
  r.status = number<int>(v, "status", where).value_or(0);
  r.sm_clock_mhz = number<unsigned>(v, "sm_clock_mhz", where);
  r.sm_clock_max_mhz = number<unsigned>(v, "sm_clock_max_mhz", where);
  r.mem_clock_mhz = number<unsigned>(v, "mem_clock_mhz", where);
  r.mem_clock_max_mhz = number<unsigned>(v, "mem_clock_max_mhz", where);
  r.locked_mhz = number<unsigned>(v, "locked_mhz", where);
  r.temperature_c = number<int>(v, "temperature_c", where);
  r.power_w = number<double>(v, "power_w", where), r.power_limit_w = number<double>(v, "power_limit_w", where);
  r.throttle = number<std::uint64_t>(v, "throttle", where);
  r.throttle_text = text(v, "throttle_text", where);
  r.ecc = number<bool>(v, "ecc", where), r.mig = number<bool>(v, "mig", where);
  r.driver = text(v, "driver", where), r.firmware = text(v, "firmware", where);
  return r;
}

std::vector<Reading> parse_readings(std::string_view text, const std::string& file, std::vector<std::string>& problems)
{
  std::vector<Reading> out;
  std::size_t number = 0;
  while (!text.empty()) {
    const auto end = text.find('\n');
    const auto line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    ++number;
    if (line.empty()) {
      continue;
    }
    const auto where = fmt::format("{}:{}", file, number);
    rapidjson::Document doc;
    doc.Parse(line.data(), line.size());
    if (doc.HasParseError()) {
      problems.push_back(
          fmt::format("{}: not a JSON line{}", where, end == std::string_view::npos ? " (cut short)" : ""));
      continue;
    }
    try {
      out.push_back(from_json(doc, where));
    } catch (const Error& e) {
      problems.emplace_back(e.what());
    }
  }
  return out;
}

} // namespace zl::devices
