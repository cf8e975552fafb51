#include "results/parse/table_lines.hpp"

#include <array>
#include <charconv>
#include <cstdint>
#include <cstring>

namespace zl::results::parse {

namespace {

bool starts_with(std::string_view s, std::string_view p)
{
  return s.substr(0, p.size()) == p;
}

// A cell as FlagGems prints it ("0.012345", "-3.5", "42"), read to the same double as
// std::from_chars reads it, but faster: its digits as an integer below 2^53 and a power of ten up
// to 1e22 are both exact doubles, so their quotient is rounded once, correctly, as from_chars
// rounds (Clinger's fast path). False for anything else (an exponent, more digits, …): from_chars
// reads that.
bool read_plain(const char*& p, const char* end, double& v)
{
  static constexpr double k_pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                       1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  const char* q = p;
  const bool negative = q < end && *q == '-';
  q += negative ? 1 : 0;
  std::uint64_t digits = 0;
  int count = 0, fraction = 0;
  auto read_digits = [&] {
    const char* from = q;
    for (; q < end && *q >= '0' && *q <= '9' && count < 19; ++q, ++count) {
      digits = digits * 10 + static_cast<std::uint64_t>(*q - '0');
    }
    return static_cast<int>(q - from);
  };
  if (read_digits() == 0) {
    return false;
  }
  if (q < end && *q == '.') {
    ++q;
    fraction = read_digits();
    if (fraction == 0) {
      return false;
    }
  }
  if ((q < end && *q != ' ') || digits > (std::uint64_t{1} << 53) || fraction > 22) {
    return false; // more digits, an exponent, text: not this simple form
  }
  const double value = static_cast<double>(digits) / k_pow10[fraction];
  v = negative ? -value : value;
  p = q;
  return true;
}

// Reads one numeric cell or N/A; false (p unchanged) when the next text is not one.
bool read_cell(const char*& p, const char* end, double& v)
{
  const char* q = p;
  // Cells are right-aligned in 20 columns: most of a row is spaces, skipped eight at a time.
  constexpr std::uint64_t k_spaces = 0x2020202020202020ULL;
  for (std::uint64_t word = 0; end - q >= 8 && (std::memcpy(&word, q, 8), word == k_spaces);) {
    q += 8;
  }
  while (q < end && *q == ' ') {
    ++q;
  }
  if (end - q >= 3 && q[0] == 'N' && q[1] == '/' && q[2] == 'A' && (end - q == 3 || q[3] == ' ')) {
    v = k_na;
    p = q + 3;
    return true;
  }
  if (read_plain(q, end, v)) {
    p = q;
    return true;
  }
  const auto [after, ec] = std::from_chars(q, end, v);
  if (ec != std::errc() || (after != end && *after != ' ')) {
    return false;
  }
  p = after;
  return true;
}

// What a byte of a Size Detail is to balanced: most are nothing (0), and skipped at once.
enum : std::uint8_t { k_plain, k_open, k_close, k_quote, k_escape };
constexpr std::array<std::uint8_t, 256> k_repr_class = [] {
  std::array<std::uint8_t, 256> t{};
  t['['] = t['('] = t['{'] = k_open;
  t[']'] = t[')'] = t['}'] = k_close;
  t['\''] = t['"'] = k_quote;
  t['\\'] = k_escape;
  return t;
}();

// A Size Detail is a Python repr: its brackets balance outside quotes, unless it was cut off.
bool balanced(std::string_view s)
{
  int depth = 0;
  char quote = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const auto kind = k_repr_class[static_cast<unsigned char>(c)];
    if (kind == k_plain) {
      continue;
    }
    if (quote != 0) {
      if (kind == k_escape) {
        ++i;
      } else if (c == quote) {
        quote = 0;
      }
    } else if (kind == k_quote) {
      quote = c;
    } else if (kind == k_open) {
      ++depth;
    } else if (kind == k_close && --depth < 0) {
      return false;
    }
  }
  return depth == 0 && quote == 0;
}

} // namespace

std::string_view trim_blanks(std::string_view s)
{
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) {
    s.remove_suffix(1);
  }
  return s;
}

std::optional<Title> parse_title(std::string_view line, std::string& error)
{
  const auto perf = line.find(" Performance Test (");
  const auto close = line.rfind(')');
  if (!starts_with(line, "Operator: ") || perf == std::string_view::npos || close == std::string_view::npos ||
      close < perf) {
    error = "malformed table title";
    return std::nullopt;
  }
  Title t;
  t.op = trim_blanks(line.substr(10, perf - 10));
  // "dtype=…, mode=…,level=…": FlagGems puts no space before level=; some forks do.
  auto params = line.substr(perf + 19, close - perf - 19);
  while (!params.empty()) {
    const auto comma = std::min(params.find(','), params.size());
    const auto kv = trim_blanks(params.substr(0, comma));
    params.remove_prefix(std::min(comma + 1, params.size()));
    const auto eq = kv.find('=');
    if (eq == std::string_view::npos) {
      continue;
    }
    const auto key = kv.substr(0, eq);
    const auto value = kv.substr(eq + 1);
    if (key == "dtype") {
      t.dtype = value;
    } else if (key == "mode") {
      t.mode = value;
    } else if (key == "level") {
      t.level = value;
    }
  }
  if (t.op.empty() || t.dtype.empty()) {
    error = t.op.empty() ? "table title without an operator" : "table title without dtype=";
    return std::nullopt;
  }
  return t;
}

std::string check_columns(std::string_view line)
{
  // Names are right-aligned in 20 characters and joined by a space, so two names are apart by
  // at least two spaces, and a name holds single spaces ("Torch Latency (ms)").
  std::vector<std::string_view> names;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && line[i] == ' ') {
      ++i;
    }
    std::size_t end = i;
    while (end < line.size() && !(line[end] == ' ' && (end + 1 == line.size() || line[end + 1] == ' '))) {
      ++end;
    }
    if (end > i) {
      names.push_back(line.substr(i, end - i));
    }
    i = end;
  }
  if (names.size() < 5 || names[0] != "Status" || names[1] != "Torch Latency (ms)" || names[2] != "Gems Latency (ms)" ||
      names[3] != "Gems Speedup" || names.back() != "Size Detail") {
    return "no column header";
  }
  for (std::size_t k = 4; k + 1 < names.size(); ++k) {
    if (names[k] != "TFLOPS" && names[k] != "Torch GBPS" && names[k] != "Gems GBPS") {
      return "unknown column '" + std::string(names[k]) + "' in the column header";
    }
  }
  return {};
}

const char* parse_row(std::string_view line, Row& row)
{
  row.success = starts_with(line, "SUCCESS ");
  if (!row.success && !starts_with(line, "FAILED ")) {
    return "not a row";
  }
  const char* p = line.data() + (row.success ? 7 : 6);
  const char* end = line.data() + line.size();
  double cells[6];
  int n = 0;
  while (n < 6 && read_cell(p, end, cells[n])) {
    ++n;
  }
  auto shape = trim_blanks(std::string_view(p, static_cast<std::size_t>(end - p)));
  if (shape.empty() && n > 3 && !has_value(cells[n - 1])) {
    shape = "N/A"; // a missing Size Detail is printed as N/A too
    --n;
  }
  if (n < 3) {
    return "fewer than the 3 latency and speedup cells";
  }
  if (shape.empty()) {
    return "no Size Detail";
  }
  if (!balanced(shape)) {
    return "a Size Detail cut off";
  }
  row.torch_ms = cells[0];
  row.gems_ms = cells[1];
  row.speedup = cells[2];
  // TFLOPS is printed only where it is non-zero and the GBPS pair only where it exists, row by
  // row, so the count of extra cells says which they are.
  if (n == 4 || n == 6) {
    row.tflops = cells[3];
  }
  if (n >= 5) {
    row.torch_gbps = cells[n - 2];
    row.gems_gbps = cells[n - 1];
  }
  row.shape = shape;
  return nullptr;
}

std::optional<FailureLine> parse_failure_line(std::string_view line, std::string& error)
{
  std::string_view s = line;
  if (starts_with(s, "\x1b[31m")) {
    s.remove_prefix(5);
  }
  if (!starts_with(s, "FAILED")) {
    return std::nullopt;
  }
  s.remove_prefix(6);
  if (starts_with(s, "\x1b[0m")) {
    s.remove_prefix(4);
  }
  if (!starts_with(s, ": Operator=")) {
    return std::nullopt;
  }
  s.remove_prefix(11);
  const auto dtype_at = s.find(" dtype=");
  const auto err_at = s.find(" err=<<<");
  if (dtype_at == std::string_view::npos || err_at == std::string_view::npos || err_at < dtype_at) {
    error = "FlagGems failure line without dtype= and err=<<<";
    return std::nullopt;
  }
  FailureLine f;
  f.op = s.substr(0, dtype_at);
  const auto dtype = s.substr(dtype_at + 7, err_at - dtype_at - 7);
  f.dtype = dtype == "{dtype}" ? std::string_view() : dtype;
  f.message_offset = static_cast<std::size_t>(s.data() - line.data()) + err_at + 8;
  return f;
}

std::optional<TestFailure> parse_test_failure(std::string_view line)
{
  const std::size_t skip = starts_with(line, "FAILED ") ? 7 : starts_with(line, "ERROR ") ? 6 : 0;
  if (skip == 0) {
    return std::nullopt;
  }
  const auto rest = line.substr(skip);
  const auto space = std::min(rest.find(' '), rest.size());
  TestFailure f;
  f.node = rest.substr(0, space);
  if (f.node.find("::") == std::string_view::npos) {
    return std::nullopt;
  }
  const auto dash = rest.find(" - ", space);
  f.reason = dash == std::string_view::npos ? std::string_view() : rest.substr(dash + 3);
  return f;
}

bool is_dtype_refusal(std::string_view reason)
{
  return starts_with(reason, "ValueError: Given dtype(s) ");
}

std::string op_of_node(std::string_view node)
{
  auto name = node.substr(node.rfind("::") == std::string_view::npos ? 0 : node.rfind("::") + 2);
  name = name.substr(0, name.find('['));
  return std::string(starts_with(name, "test_") ? name.substr(5) : name);
}

bool same_node(std::string_view a, std::string_view b)
{
  if (a.size() < b.size()) {
    std::swap(a, b);
  }
  if (a == b) {
    return true;
  }
  return !b.empty() && a.substr(a.size() - b.size()) == b && a[a.size() - b.size() - 1] == '/';
}

} // namespace zl::results::parse
