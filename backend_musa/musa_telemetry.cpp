// Moore Threads telemetry from mthreads-gmi's default table (README.md in this folder). The table
// is fixed-width: each GPU takes one row per header row, and a value sits under its label, so
// columns are found by the labels of the header, never by position.
#include "musa_telemetry.hpp"

#include <zl/backend_sdk.hpp>

#include <algorithm>
#include <limits>
#include <optional>

namespace zl::backend_musa {

namespace {

constexpr size_t k_none = std::string_view::npos;

// A header label: the header row it is on, and the columns its value spans in a GPU's row.
struct Label
{
  size_t row = 0;
  size_t column = 0;
  size_t end = k_none; // the next label's column, or the next '|'
  bool found = false;
};

// Labels are separated by '|' or by two or more spaces ("Device Type   Perf", "Temp  MPC Capable").
Label find_label(const std::vector<std::string_view>& header, std::string_view name)
{
  for (size_t r = 0; r < header.size(); ++r) {
    const std::string_view row = header[r];
    for (size_t at = row.find(name); at != k_none; at = row.find(name, at + 1)) {
      const auto after = at + name.size();
      const bool starts = at == 0 || row[at - 1] == '|' || (at >= 2 && row.substr(at - 2, 2) == "  ");
      const bool ends = after == row.size() || row[after] == '|' || row.substr(after, 2) == "  " ||
                        sdk::trim(row.substr(after)).empty();
      if (!starts || !ends) {
        continue;
      }
      Label l{r, at, row.find('|', after), true};
      const auto next = row.find_first_not_of(" \t", after);
      if (next != k_none && row[next] != '|') {
        l.end = next; // the next label on the row
      }
      return l;
    }
  }
  return {};
}

// The value under a label in a GPU row, cut at a '|'; nullopt when the row stops before it.
std::optional<std::string_view> cell(std::string_view row, const Label& l)
{
  if (row.size() <= l.column) {
    return std::nullopt;
  }
  auto value = row.substr(l.column, l.end == k_none ? k_none : l.end - l.column);
  value = value.substr(0, value.find('|'));
  return sdk::trim(value);
}

bool is_ruler(std::string_view line)
{
  line = sdk::trim(line);
  return !line.empty() && (line.front() == '+' || line.front() == '-');
}

// A GPU's first row starts at column 0 with its ID: "0    MTT S5000            |…".
std::optional<uint32_t> gpu_id(std::string_view line)
{
  const auto end = line.find_first_of(" \t");
  uint64_t n = 0;
  if (line.empty() || line.front() == ' ' || line.find('|') == k_none || end == k_none ||
      !sdk::parse_u64(line.substr(0, end), n) || n > std::numeric_limits<uint32_t>::max()) {
    return std::nullopt;
  }
  return static_cast<uint32_t>(n);
}

struct Table
{
  std::vector<std::string_view> header; // its rows, "ID   Name …" first
  size_t header_line = 0;               // 0-based
  std::vector<std::string_view> rows;   // the asked-for GPU's rows
  size_t first_row = 0;                 // the line number of its first row
  std::vector<uint32_t> ids;            // every GPU listed, for an error
  std::string driver;
};

// Finds the banner's driver version, the header rows and the rows of GPU `index`; false when there
// is no header.
bool read_table(const std::vector<std::string_view>& all, uint32_t index, Table& t)
{
  size_t i = 0;
  for (; i < all.size() && t.header.empty(); ++i) {
    const auto line = sdk::trim(all[i]);
    if (sdk::starts_with(line, "ID") && line.find('|') != k_none) {
      t.header.push_back(all[i]);
      t.header_line = i;
    } else if (const auto at = line.find("Driver Version:"); at != k_none) {
      const auto rest = sdk::trim(line.substr(at + 15));
      t.driver = std::string(rest.substr(0, rest.find_first_of(" \t")));
    }
  }
  for (; i < all.size() && !is_ruler(all[i]) && !sdk::trim(all[i]).empty(); ++i) {
    t.header.push_back(all[i]);
  }
  bool mine = false;
  for (; i < all.size() && !t.header.empty(); ++i) {
    const auto line = sdk::trim(all[i]);
    if (sdk::starts_with(line, "-") || sdk::starts_with(line, "Processes")) {
      break; // the table's closing ruler, then the process table
    }
    if (const auto id = gpu_id(all[i])) {
      t.ids.push_back(*id);
      mine = *id == index && t.rows.empty();
      if (mine) {
        t.first_row = i + 1;
      }
    }
    if (mine && !sdk::starts_with(line, "+") && all[i].find('|') != k_none) {
      t.rows.push_back(all[i]);
    }
  }
  return !t.header.empty();
}

// "52C" -> 52.
std::optional<int32_t> celsius(std::string_view v)
{
  uint64_t n = 0;
  if (v.size() < 2 || v.back() != 'C' || !sdk::parse_u64(v.substr(0, v.size() - 1), n) || n > 1000) {
    return std::nullopt;
  }
  return static_cast<int32_t>(n);
}

std::string ids_of(const std::vector<uint32_t>& ids)
{
  std::string out;
  for (const auto id : ids) {
    out += (out.empty() ? "" : ", ") + std::to_string(id);
  }
  return out.empty() ? "no GPU" : out;
}

} // namespace

sdk::TelemetryParse parse_gmi_table_telemetry(std::string_view text, uint32_t index)
{
  sdk::TelemetryParse out;
  Telemetry& t = out.telemetry;
  t.source = "mthreads-gmi";
  if (sdk::trim(text).empty()) {
    out.error = "mthreads-gmi printed nothing";
    return out;
  }
  const auto all = sdk::lines(text);
  Table table;
  if (!read_table(all, index, table)) {
    out.error = "no 'ID  Name  |PCIe' header; " + sdk::first_line_quoted(text) + " is not mthreads-gmi's table";
    return out;
  }
  const Label temp = find_label(table.header, "Temp");
  const Label ecc = find_label(table.header, "ECC Mode");
  if (!temp.found) {
    out.error = "the header at " + sdk::quote_line(table.header_line + 1, table.header.front()) + " has no Temp";
    return out;
  }
  if (table.rows.empty()) {
    out.error = "mthreads-gmi lists no GPU " + std::to_string(index) + " (it lists " + ids_of(table.ids) + ")";
    return out;
  }
  std::vector<std::string> notes;
  if (text.back() != '\n' && table.first_row + table.rows.size() - 1 == all.size()) {
    // Output that ends mid-line was cut (a killed gmi, a partial copy): its last row is not read.
    notes.push_back("the output ends mid-line at " + sdk::quote_line(all.size(), all.back()));
    table.rows.pop_back();
  }
  const auto row_line = [&](const Label& l) { return sdk::quote_line(table.first_row + l.row, table.rows[l.row]); };
  const auto value = temp.row < table.rows.size() ? cell(table.rows[temp.row], temp) : std::nullopt;
  if (!value) {
    notes.push_back("temperature: the table ends before GPU " + std::to_string(index) + "'s Temp");
  } else if (*value == "N/A") {
    notes.push_back("temperature: mthreads-gmi printed 'N/A'");
  } else if (const auto c = celsius(*value)) {
    t.temperature_c = c;
  } else {
    out.error = row_line(temp) + ": Temp " + sdk::quote(*value) + " is not a temperature such as '52C'";
    t = Telemetry{};
    return out;
  }
  const auto mode = ecc.found && ecc.row < table.rows.size() ? cell(table.rows[ecc.row], ecc) : std::nullopt;
  if (!mode || mode->empty() || *mode == "N/A") {
    notes.push_back(std::string("ECC: ") + (mode && !mode->empty() ? "mthreads-gmi printed 'N/A'"
                                            : ecc.found            ? "the table ends before the ECC Mode"
                                                                   : "the header has no ECC Mode"));
  } else {
    t.ecc = !(*mode == "Off" || *mode == "OFF" || *mode == "Disabled" || *mode == "Disable");
  }
  t.driver_version = table.driver;
  if (t.driver_version.empty()) {
    notes.push_back("driver: the banner has no \"Driver Version:\"");
  }
  notes.push_back("mthreads-gmi's table prints no clocks, power or firmware version");
  for (const auto& n : notes) {
    t.reason += (t.reason.empty() ? "" : "; ") + n;
  }
  return out;
}

Telemetry read_telemetry(const zl_host_api* host, const Device& device)
{
  Telemetry t;
  t.source = "mthreads-gmi";
  const sdk::ToolOutput tool = sdk::run_tool(host, gmi_table_argv());
  if (tool.status == ZL_ERR_UNAVAILABLE) {
    t.reason = sdk::unavailable_reason("mthreads-gmi", tool);
    return t;
  }
  if (!tool.ok()) {
    t.reason = sdk::tool_failure("mthreads-gmi", tool);
    return t;
  }
  sdk::TelemetryParse parsed = parse_gmi_table_telemetry(tool.out, device.index);
  if (!parsed.error.empty()) {
    t.reason = "mthreads-gmi output not understood: " + parsed.error;
    return t;
  }
  return parsed.telemetry;
}

} // namespace zl::backend_musa
