// AMD telemetry through rocm-smi's JSON (README.md in this folder). The keys are the labels
// rocm_smi.py prints; their spellings changed between ROCm releases, and every spelling seen in a
// real output (tests/fixtures/smi/real/rocm-smi) is accepted.
#include "rocm_telemetry.hpp"

#include <zl/backend_sdk.hpp>

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <optional>

namespace zl::backend_rocm {

namespace {

using Value = rapidjson::Value;

// Performance levels that hold the clocks, as rocm-smi prints rsmi_dev_perf_level_t (lower case,
// rsmiBindings perf_level_string): low/high pin the lowest/highest DPM level, manual keeps the
// levels a user set, the stable_* (profiling) levels fix the clocks, perf_determinism caps gfxclk
// at a set value. "auto" leaves the driver free; "unknown" or "n/a" say nothing.
constexpr std::string_view k_held_levels[] = {
    "low", "high", "manual", "stable_std", "stable_peak", "stable_min_mclk", "stable_min_sclk", "perf_determinism"};

// What rocm-smi prints for a value it could not read: "N/A", "N/A (Secondary die)".
bool not_available(std::string_view s)
{
  return sdk::starts_with(s, "N/A") || sdk::starts_with(s, "n/a");
}

std::optional<double> decimal(std::string_view s)
{
  s = sdk::trim(s);
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v)) {
    return std::nullopt;
  }
  return v;
}

// "(1500Mhz)", as --showclocks prints a current clock in JSON, to its digits.
std::string_view clock_digits(std::string_view s)
{
  if (s.size() >= 2 && s.front() == '(' && s.back() == ')') {
    s = s.substr(1, s.size() - 2);
  }
  for (std::string_view unit : {"Mhz", "MHz"}) {
    if (s.size() > unit.size() && s.substr(s.size() - unit.size()) == unit) {
      return s.substr(0, s.size() - unit.size());
    }
  }
  return s;
}

// One value of a card, under the first of its spellings that is present.
struct Number
{
  enum class State { absent, not_available, malformed, ok } state = State::absent;
  double value = 0;
  std::string key;  // the spelling found (else the first asked for)
  std::string text; // the value as printed
};

// How a value that could not be read was printed, for a note.
std::string printed(const Number& n)
{
  return n.state == Number::State::absent ? "no \"" + n.key + "\"" : "\"" + n.key + "\": " + sdk::quote(n.text);
}

std::string text_at(const Value& obj, const char* key)
{
  const auto it = obj.FindMember(key);
  return it != obj.MemberEnd() && it->value.IsString() ? std::string(sdk::trim(it->value.GetString())) : "";
}

// The line of text that holds byte offset `at`, numbered; the last line with text when the error
// is at the very end (cut output).
std::string line_at(std::string_view text, size_t at)
{
  const auto all = sdk::lines(text);
  const auto before = text.substr(0, std::min(at, text.size()));
  const auto number = static_cast<size_t>(std::count(before.begin(), before.end(), '\n'));
  if (number < all.size() && !sdk::trim(all[number]).empty()) {
    return sdk::quote_line(number + 1, all[number]);
  }
  for (size_t i = all.size(); i > 0; --i) {
    if (!sdk::trim(all[i - 1]).empty()) {
      return sdk::quote_line(i, all[i - 1]);
    }
  }
  return "the end of the output";
}

// Reads one card's values: an unread one (absent, N/A) becomes a note for the reason, a
// malformed one the parse error.
class CardReader
{
public:
  CardReader(const Value& card, std::string name, std::string& error)
    : m_card(card), m_name(std::move(name)), m_error(error)
  {}

  Number number(std::initializer_list<const char*> keys, bool clock = false) const
  {
    Number n;
    n.key = *keys.begin();
    for (const char* key : keys) {
      const auto it = m_card.FindMember(key);
      if (it == m_card.MemberEnd()) {
        continue;
      }
      n.key = key;
      if (it->value.IsNumber()) { // not rocm-smi's own form, but unambiguous
        n.value = it->value.GetDouble();
        n.state = Number::State::ok;
        return n;
      }
      n.text = it->value.IsString() ? std::string(sdk::trim(it->value.GetString())) : "(not a string)";
      const auto v = decimal(clock ? clock_digits(n.text) : n.text);
      n.state = not_available(n.text) ? Number::State::not_available
                : v && *v >= 0        ? Number::State::ok
                                      : Number::State::malformed;
      n.value = v.value_or(0);
      return n;
    }
    return n;
  }

  std::optional<double> take(const Number& n, std::string_view what, bool clock = false)
  {
    if (n.state == Number::State::ok) {
      return n.value;
    }
    if (n.state == Number::State::malformed && m_error.empty()) {
      m_error = m_name + " \"" + n.key + "\" is " + sdk::quote(n.text) + ", not " +
                (clock ? "a clock such as '(1500Mhz)'" : "a number");
    }
    note(what, "rocm-smi printed " + printed(n));
    return std::nullopt;
  }

  std::optional<double> read(std::initializer_list<const char*> keys, std::string_view what, bool clock = false)
  {
    return take(number(keys, clock), what, clock);
  }

  void note(std::string_view what, const std::string& why) { m_notes.push_back(std::string(what) + ": " + why); }

  std::string notes() const { return sdk::join_notes(m_notes); }

private:
  const Value& m_card;
  std::string m_name;
  std::string& m_error;
  std::vector<std::string> m_notes;
};

std::optional<uint32_t> megahertz(std::optional<double> v)
{
  if (!v || *v > std::numeric_limits<uint32_t>::max()) {
    return std::nullopt;
  }
  return static_cast<uint32_t>(std::lround(*v));
}

// The edge sensor, else junction (MI300-class parts print no edge value); "(c)" is ROCm 2.x's.
void read_temperature(CardReader& r, Telemetry& t)
{
  Number n = r.number({"Temperature (Sensor edge) (C)", "Temperature (Sensor edge) (c)"});
  if (n.state == Number::State::absent || n.state == Number::State::not_available) {
    const Number junction = r.number({"Temperature (Sensor junction) (C)", "Temperature (Sensor junction) (c)"});
    if (junction.state == Number::State::absent || junction.state == Number::State::not_available) {
      r.note("temperature", "rocm-smi printed " + printed(n) + " and " + printed(junction));
      return;
    }
    n = junction;
  }
  if (const auto c = r.take(n, "temperature")) {
    t.temperature_c = static_cast<int32_t>(std::lround(*c));
  }
}

void read_lock(CardReader& r, const Value& card, Telemetry& t)
{
  const std::string level = text_at(card, "Performance Level");
  const bool held = std::find(std::begin(k_held_levels), std::end(k_held_levels), level) != std::end(k_held_levels);
  if (level == "auto") {
    t.locked_mhz = 0;
  } else if (held && t.sm_clock_mhz.value_or(0) != 0) {
    t.locked_mhz = *t.sm_clock_mhz; // the level holds sclk where it is now
  } else if (held) {
    r.note("clock lock", "Performance Level " + sdk::quote(level) + " holds the clocks, but no sclk says at what");
  } else {
    r.note("clock lock", level.empty() ? "rocm-smi printed no \"Performance Level\""
                                       : "Performance Level " + sdk::quote(level) + " is not one zl knows");
  }
}

void read_card(const rapidjson::Document& doc, const Value& card, const std::string& name, sdk::TelemetryParse& out)
{
  Telemetry& t = out.telemetry;
  CardReader r(card, name, out.error);
  t.sm_clock_mhz = megahertz(r.read({"sclk clock speed:"}, "sclk", true));
  t.mem_clock_mhz = megahertz(r.read({"mclk clock speed:"}, "mclk", true));
  read_temperature(r, t);
  // ROCm 6 prints the instant socket power where the GPU has it, else the average.
  t.power_w = r.read({"Current Socket Graphics Package Power (W)", "Average Graphics Package Power (W)"}, "power");
  t.power_limit_w = r.read({"Max Graphics Package Power (W)"}, "power cap");
  read_lock(r, card, t);
  t.firmware_version = text_at(card, "VBIOS version");
  if (t.firmware_version.empty() || not_available(t.firmware_version)) {
    r.note("VBIOS", t.firmware_version.empty() ? "rocm-smi printed no \"VBIOS version\""
                                               : "rocm-smi printed " + sdk::quote(t.firmware_version));
    t.firmware_version.clear();
  }
  const auto system = doc.FindMember("system");
  t.driver_version =
      system != doc.MemberEnd() && system->value.IsObject() ? text_at(system->value, "Driver version") : "";
  if (t.driver_version.empty()) {
    r.note("driver", "rocm-smi printed no system \"Driver version\"");
  }
  // What these options never give: rocm-smi keys its supported clock levels "0", "1", … for every
  // clock domain at once, so no maximum can be told apart.
  t.reason = sdk::join_notes({r.notes(), "rocm-smi gives no max clocks, throttle reasons, ECC or partition mode here"});
}

// The top-level keys, for an error that says which card is missing.
std::string keys_of(const rapidjson::Document& doc)
{
  std::string out;
  for (const auto& m : doc.GetObject()) {
    out += (out.empty() ? "" : ", ") + std::string(m.name.GetString(), m.name.GetStringLength());
  }
  constexpr size_t k_max = 160; // a reason has 512 bytes in all
  return out.empty() ? "nothing" : out.size() > k_max ? out.substr(0, k_max) + "…" : out;
}

} // namespace

std::vector<std::string> rocm_smi_telemetry_argv(uint32_t index)
{
  return {"rocm-smi",
          "-d",
          std::to_string(index),
          "--showclocks",
          "--showtemp",
          "--showpower",
          "--showmaxpower",
          "--showperflevel",
          "--showdriverversion",
          "--showvbios",
          "--showuniqueid",
          "--json"};
}

sdk::TelemetryParse parse_rocm_smi_telemetry(std::string_view json, uint32_t index, std::string_view rocr_id)
{
  sdk::TelemetryParse out;
  out.telemetry.source = "rocm-smi";
  if (sdk::trim(json).empty()) {
    out.error = "rocm-smi printed nothing";
    return out;
  }
  // Iterative parsing (RAPIDJSON_PARSE_DEFAULT_FLAGS, CMakeLists.txt), and no value is walked
  // recursively here, so deep nesting cannot overflow the stack.
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError()) {
    out.error = "invalid JSON at " + line_at(json, doc.GetErrorOffset()) + " (" +
                rapidjson::GetParseError_En(doc.GetParseError()) + ")";
    return out;
  }
  const std::string name = "card" + std::to_string(index);
  if (!doc.IsObject()) {
    out.error = "rocm-smi did not print an object of cards: " + sdk::first_line_quoted(json);
    return out;
  }
  const auto card = doc.FindMember(name.c_str());
  if (card == doc.MemberEnd() || !card->value.IsObject()) {
    out.error = card == doc.MemberEnd() ? "rocm-smi printed no " + name + " object (it printed " + keys_of(doc) + ")"
                                        : "rocm-smi's " + name + " is not an object of values";
    return out;
  }
  const std::string unique = rocr_uuid(text_at(card->value, "Unique ID"));
  if (!rocr_id.empty() && !unique.empty() && unique != rocr_id) {
    out.error = "rocm-smi's " + name + " is " + unique + ", not this GPU (" + std::string(rocr_id) +
                "): rocm-smi numbers the GPUs otherwise than the tool that listed them";
    return out;
  }
  read_card(doc, card->value, name, out);
  if (!out.error.empty()) {
    out.telemetry = Telemetry{};
    out.telemetry.source = "rocm-smi";
  }
  return out;
}

Telemetry read_telemetry(const zl_host_api* host, const Device& device)
{
  Telemetry t;
  t.source = "rocm-smi";
  const sdk::ToolOutput tool = sdk::run_tool(host, rocm_smi_telemetry_argv(device.index));
  if (tool.status == ZL_ERR_UNAVAILABLE) {
    t.reason = sdk::unavailable_reason("rocm-smi", tool) + " (zl reads AMD telemetry through rocm-smi only)";
    return t;
  }
  if (!tool.ok()) {
    t.reason = sdk::tool_failure("rocm-smi", tool);
    return t;
  }
  const auto rocr = sdk::starts_with(device.visibility_id, "GPU-") ? device.visibility_id : std::string();
  sdk::TelemetryParse parsed = parse_rocm_smi_telemetry(tool.out, device.index, rocr);
  if (!parsed.error.empty()) {
    t.reason = "rocm-smi output not understood: " + parsed.error;
    return t;
  }
  return parsed.telemetry;
}

} // namespace zl::backend_rocm
