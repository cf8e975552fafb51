// Huawei Ascend telemetry from npu-smi (README.md in this folder). The table's columns move between
// npu-smi versions (Hugepages-Usage in 21.x, Phy-ID in 26.x), so values are found by the header's
// labels, as the enumeration's parser does (ascend_npu_smi.cpp).
#include "ascend_telemetry.hpp"

#include <zl/backend_sdk.hpp>

#include <charconv>
#include <cmath>
#include <limits>

namespace zl::backend_ascend {

namespace {

std::optional<uint32_t> number(std::string_view s)
{
  return sdk::parse_u32(s);
}

// The tokens of each cell between the '|' of a table row, "used / total" glued into one token.
std::vector<std::vector<std::string>> row_tokens(std::string_view row)
{
  row = sdk::trim(row);
  row.remove_prefix(1);
  if (!row.empty() && row.back() == '|') {
    row.remove_suffix(1);
  }
  std::vector<std::vector<std::string>> out;
  for (auto cell : sdk::split(row, "|")) {
    std::vector<std::string> tokens;
    for (auto w : sdk::split(cell, " ", true)) {
      if (!tokens.empty() && (w.front() == '/' || tokens.back().back() == '/')) {
        tokens.back() += std::string(w);
      } else {
        tokens.emplace_back(w);
      }
    }
    out.push_back(std::move(tokens));
  }
  return out;
}

// Where a label of the name header sits: cell and token.
struct Column
{
  size_t cell = 0;
  size_t token = 0;
  bool found = false;
};

Column find(const std::vector<std::vector<std::string>>& header, std::string_view label)
{
  for (size_t c = 0; c < header.size(); ++c) {
    for (size_t t = 0; t < header[c].size(); ++t) {
      if (header[c][t] == label) {
        return {c, t, true};
      }
    }
  }
  return {};
}

// A card's name row, read value by value under the name header's labels; what cannot be read
// (no such column, a row that does not line up, NA) becomes a note for the reason.
class NameRow
{
public:
  NameRow(const std::vector<std::vector<std::string>>& header, std::vector<std::vector<std::string>> row,
          std::string quoted)
    : m_header(header), m_row(std::move(row)), m_quoted(std::move(quoted))
  {}

  // The value, nullopt with a note (no column, not aligned, NA) or an error (another form).
  std::optional<double> read(std::string_view label, std::string_view what, std::string& error)
  {
    const Column c = find(m_header, label);
    if (!c.found) {
      note(what, "the header has no " + std::string(label));
      return std::nullopt;
    }
    if (c.cell >= m_row.size() || m_row[c.cell].size() != m_header[c.cell].size()) {
      note(what, m_quoted + " does not line up with the header under " + std::string(label));
      return std::nullopt;
    }
    const std::string& v = m_row[c.cell][c.token];
    if (npu_smi_no_reading(v)) {
      note(what, "npu-smi info printed " + sdk::quote(v));
      return std::nullopt;
    }
    const auto d = npu_smi_value(v);
    if (!d && error.empty()) {
      error = m_quoted + ": " + std::string(label) + " " + sdk::quote(v) + " is not a number";
    }
    return d;
  }

  void note(std::string_view what, const std::string& why) { m_notes.push_back(std::string(what) + ": " + why); }
  std::string notes() const { return sdk::join_notes(m_notes); }

private:
  const std::vector<std::vector<std::string>>& m_header;
  std::vector<std::vector<std::string>> m_row;
  std::string m_quoted;
  std::vector<std::string> m_notes;
};

// The table as far as the chip's row: the banner's version, the name header and the name row above
// the chip's row (empty when not found). cut: the line a cut output ends in, quoted.
struct TableScan
{
  std::string driver;
  std::vector<std::vector<std::string>> header;
  std::vector<std::vector<std::string>> name_row;
  std::string name_line; // quoted
  std::string cut;
  std::string error;
};

TableScan scan_table(std::string_view text, uint32_t npu, uint32_t chip)
{
  TableScan s;
  const auto all = sdk::lines(text);
  bool chip_header = false;
  std::optional<std::vector<std::vector<std::string>>> card; // the name row of the card being read
  std::string card_line;
  for (size_t i = 0; i < all.size(); ++i) {
    const auto line = sdk::trim(all[i]);
    if (i + 1 == all.size() && text.back() != '\n') {
      s.cut = sdk::quote_line(i + 1, line); // a cut line is not read
      break;
    }
    if (line.empty() || line.front() == '+') {
      card.reset(); // separators end a card
      continue;
    }
    if (line.front() != '|') {
      s.error = sdk::quote_line(i + 1, line) + " is not part of an npu-smi info table";
      break;
    }
    auto tokens = row_tokens(line);
    const std::string first = tokens.front().empty() ? "" : tokens.front().front();
    if (first == "NPU" && chip_header) {
      break; // the process table ("NPU Chip | Process id | …") follows the devices
    }
    if (first == "NPU") {
      s.header = tokens; // "NPU Name | Health | Power(W) Temp(C) …"
      continue;
    }
    if (first == "Chip" && !s.header.empty()) {
      chip_header = true; // "Chip [Device|Phy-ID] | Bus-Id | …": the cards follow
      continue;
    }
    if (!chip_header) {
      if (const auto at = line.find("Version:"); at != std::string_view::npos) {
        const auto rest = sdk::trim(line.substr(at + 8));
        s.driver = std::string(rest.substr(0, rest.find_first_of(" |")));
      }
      continue; // the banner
    }
    if (!card) {
      card = std::move(tokens); // the first row of a card names it
      card_line = sdk::quote_line(i + 1, line);
      continue;
    }
    if (card->front().empty() || number(card->front().front()) != npu || number(first) != chip) {
      continue; // another chip
    }
    s.name_row = *card;
    s.name_line = card_line;
    break;
  }
  return s;
}

} // namespace

std::optional<double> npu_smi_value(std::string_view s)
{
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v) || v < 0) {
    return std::nullopt;
  }
  return v;
}

bool npu_smi_no_reading(std::string_view v)
{
  return v == "NA" || v == "N/A" || v == "-";
}

std::vector<std::string> npu_smi_common_argv(uint32_t npu)
{
  return {"npu-smi", "info", "-t", "common", "-i", std::to_string(npu)};
}

std::optional<std::pair<uint32_t, uint32_t>> chip_of(std::string_view uuid)
{
  const auto dash = uuid.find("-chip");
  if (!sdk::starts_with(uuid, "npu") || dash == std::string_view::npos) {
    return std::nullopt;
  }
  const auto npu = number(uuid.substr(3, dash - 3));
  const auto chip = number(uuid.substr(dash + 5));
  if (!npu || !chip || uuid.substr(3, dash - 3).empty()) {
    return std::nullopt;
  }
  return std::make_pair(*npu, *chip);
}

sdk::TelemetryParse parse_npu_smi_info_telemetry(std::string_view text, uint32_t npu, uint32_t chip)
{
  sdk::TelemetryParse out;
  out.telemetry.source = "npu-smi";
  if (sdk::trim(text).empty()) {
    out.error = "npu-smi info printed nothing";
    return out;
  }
  const TableScan s = scan_table(text, npu, chip);
  const std::string which = "NPU " + std::to_string(npu) + " chip " + std::to_string(chip);
  if (!s.error.empty() || s.header.empty()) {
    out.error = !s.error.empty()
                    ? s.error
                    : "no 'NPU Name' header; " + sdk::first_line_quoted(text) + " is not npu-smi info output";
    return out;
  }
  if (s.name_row.empty()) {
    out.error =
        s.cut.empty() ? "npu-smi info lists no " + which : "the output ends mid-line at " + s.cut + " before " + which;
    return out;
  }
  NameRow row(s.header, s.name_row, s.name_line);
  Telemetry& t = out.telemetry;
  t.power_w = row.read("Power(W)", "power", out.error);
  const auto c = row.read("Temp(C)", "temperature", out.error);
  if (!out.error.empty()) {
    t = Telemetry{};
    t.source = "npu-smi";
    return out;
  }
  if (c) {
    t.temperature_c = static_cast<int32_t>(std::lround(*c));
  }
  t.driver_version = s.driver;
  if (t.driver_version.empty()) {
    row.note("driver", "npu-smi info printed no 'Version:' banner");
  }
  t.reason = row.notes();
  return out;
}

Telemetry read_telemetry(const zl_host_api* host, const Device& device)
{
  Telemetry t;
  t.source = "npu-smi";
  const auto where = chip_of(device.uuid);
  if (!where) {
    t.reason = "the chip's identity " + sdk::quote(device.uuid) +
               " is not npu<NPU>-chip<Chip>, so its rows cannot be "
               "found";
    return t;
  }
  const auto [npu, chip] = *where;
  const sdk::ToolOutput info = sdk::run_tool(host, npu_smi_info_argv());
  if (info.status == ZL_ERR_UNAVAILABLE) {
    t.reason = sdk::unavailable_reason("npu-smi", info);
    return t; // -t common would not be found either
  }
  std::string table_note;
  if (!info.ok()) {
    table_note = sdk::tool_failure("npu-smi info", info);
  } else if (auto p = parse_npu_smi_info_telemetry(info.out, npu, chip); !p.error.empty()) {
    table_note = "npu-smi info output not understood: " + p.error;
  } else {
    t = std::move(p.telemetry);
    table_note = t.reason.empty() ? "" : "npu-smi info: " + t.reason;
  }
  std::string common_note;
  const sdk::ToolOutput common = sdk::run_tool(host, npu_smi_common_argv(npu));
  if (!common.ok()) {
    common_note = sdk::tool_failure("npu-smi info -t common", common);
  } else if (auto p = parse_npu_smi_common_telemetry(common.out, npu, chip); !p.error.empty()) {
    common_note = "npu-smi info -t common output not understood: " + p.error;
  } else {
    // The table's readings are kept where it had them; -t common adds the clocks and fills gaps.
    t.sm_clock_mhz = p.telemetry.sm_clock_mhz;
    t.sm_clock_max_mhz = p.telemetry.sm_clock_max_mhz;
    t.temperature_c = t.temperature_c ? t.temperature_c : p.telemetry.temperature_c;
    t.power_w = t.power_w ? t.power_w : p.telemetry.power_w;
    common_note = p.telemetry.reason.empty() ? "" : "npu-smi info -t common: " + p.telemetry.reason;
  }
  t.source = "npu-smi";
  t.reason = sdk::join_notes({table_note, common_note});
  return t;
}

} // namespace zl::backend_ascend
