// Huawei Ascend telemetry from `npu-smi info -t common -i <NPU ID>` (README.md in this folder):
// "key : value" lines, one block per chip of the card, then the card's MCU.
#include "ascend_telemetry.hpp"

#include <zl/backend_sdk.hpp>

#include <cmath>
#include <limits>

namespace zl::backend_ascend {

namespace {

std::optional<uint32_t> number(std::string_view s)
{
  return sdk::parse_u32(s);
}

// One chip's lines of `-t common`, as key and value.
struct CommonBlock
{
  std::vector<std::pair<std::string, std::string>> lines;
  bool seen = false;
  bool npu = false; // an "NPU ID" line, which every -t common answer starts with
};

// Walks `-t common`: "Chip ID : n" opens a chip's block (before any, the lines are the one chip's,
// as in Huawei's example), "Chip Name : mcu" an MCU's (skipped). error: another NPU, not key : value.
CommonBlock common_block(std::string_view text, uint32_t npu, uint32_t chip, std::string& error)
{
  CommonBlock block;
  const auto all = sdk::lines(text);
  // A plain value and a flag: GCC 12 at -O2 sees a std::optional here as maybe-uninitialized.
  uint32_t current = 0;
  bool in_chip = true;
  for (size_t i = 0; i < all.size(); ++i) {
    const auto line = sdk::trim(all[i]);
    if (line.empty() || (i + 1 == all.size() && text.back() != '\n')) {
      continue; // a cut last line is not read
    }
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) {
      error = sdk::quote_line(i + 1, line) + " is not a 'key : value' line of npu-smi info -t common";
      return block;
    }
    const std::string key(sdk::trim(line.substr(0, colon)));
    const std::string value(sdk::trim(line.substr(colon + 1)));
    if (key == "NPU ID" && number(value) != npu) {
      error = sdk::quote_line(i + 1, line) + " is not NPU " + std::to_string(npu);
      return block;
    }
    block.npu = block.npu || key == "NPU ID";
    if (key == "Chip ID") {
      const auto n = number(value);
      in_chip = n.has_value();
      current = n.value_or(0);
    } else if (key == "Chip Name") {
      in_chip = false; // the MCU (or 3559 CPU) of the card
    } else if (in_chip && current == chip && key != "NPU ID" && key != "Chip Count") {
      block.lines.emplace_back(key, value);
    }
    block.seen = block.seen || (in_chip && current == chip && key == "Chip ID");
  }
  block.seen = block.seen || !block.lines.empty();
  return block;
}

} // namespace

sdk::TelemetryParse parse_npu_smi_common_telemetry(std::string_view text, uint32_t npu, uint32_t chip)
{
  sdk::TelemetryParse out;
  Telemetry& t = out.telemetry;
  t.source = "npu-smi";
  if (sdk::trim(text).empty()) {
    out.error = "npu-smi info -t common printed nothing";
    return out;
  }
  const CommonBlock block = common_block(text, npu, chip, out.error);
  if (out.error.empty() && !block.npu) {
    out.error = "no 'NPU ID' line; " + sdk::first_line_quoted(text) + " is not npu-smi info -t common output";
  } else if (out.error.empty() && !block.seen) {
    out.error = "npu-smi info -t common has no Chip ID " + std::to_string(chip);
  }
  std::vector<std::string> notes;
  const auto read = [&](std::string_view key, std::string_view what) -> std::optional<double> {
    for (const auto& [k, v] : block.lines) {
      if (k != key) {
        continue;
      }
      const auto d = npu_smi_value(v);
      if (!d && !npu_smi_no_reading(v) && out.error.empty()) {
        out.error = "Chip ID " + std::to_string(chip) + " \"" + k + "\" is " + sdk::quote(v) + ", not a number";
      }
      if (!d) {
        notes.push_back(std::string(what) + ": npu-smi info -t common printed " + sdk::quote(v));
      }
      return d;
    }
    notes.push_back(std::string(what) + ": npu-smi info -t common printed no \"" + std::string(key) + "\"");
    return std::nullopt;
  };
  const auto mhz = [](std::optional<double> v) -> std::optional<uint32_t> {
    return v && *v <= std::numeric_limits<uint32_t>::max()
               ? std::optional<uint32_t>(static_cast<uint32_t>(std::lround(*v)))
               : std::nullopt;
  };
  t.sm_clock_mhz = mhz(read("Aicore curFreq(MHZ)", "AI Core clock"));
  t.sm_clock_max_mhz = mhz(read("Aicore Freq(MHZ)", "rated AI Core clock"));
  const auto c = read("Temperature(C)", "temperature");
  t.power_w = read("NPU Real-time Power(W)", "power");
  if (!out.error.empty()) {
    t = Telemetry{};
    t.source = "npu-smi";
    return out;
  }
  if (c) {
    t.temperature_c = static_cast<int32_t>(std::lround(*c));
  }
  for (const auto& n : notes) {
    t.reason += (t.reason.empty() ? "" : "; ") + n;
  }
  return out;
}

} // namespace zl::backend_ascend
