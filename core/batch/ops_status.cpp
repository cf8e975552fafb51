#include "batch/ops_status.hpp"

#include "util/error.hpp"
#include "util/string.hpp"

#include <fmt/format.h>

namespace zl::batch {

namespace {

std::string csv_field(const std::string& v)
{
  if (v.find_first_of(",\"\n\r") == std::string::npos) {
    return v;
  }
  std::string out = "\"";
  for (char c : v) {
    out += c == '"' ? std::string("\"\"") : std::string(1, c);
  }
  return out + "\"";
}

// Splits one CSV record; quoted fields may hold commas and doubled quotes.
std::vector<std::string> csv_split(const std::string& line)
{
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        fields.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

template <typename T>
std::string opt(const std::optional<T>& v)
{
  return v ? fmt::format("{}", *v) : std::string();
}

// A state as the file at path writes it on line n; anything else is refused, so --resume never
// guesses what to run again.
results::OpState state_at(const std::string& text, const std::string& path, size_t n)
{
  if (const auto s = results::parse_op_state(text)) {
    return *s;
  }
  std::vector<std::string> names;
  for (const auto& s : results::k_op_states) {
    names.emplace_back(s.name);
  }
  throw Error(fmt::format("{}:{}: '{}' is not an op status (one of: {}); repair or remove the line and --resume again",
                          path, n, text, util::join(names, ", ")));
}

} // namespace

const std::vector<std::string>& ops_status_columns()
{
  static const std::vector<std::string> columns = {"op",       "status",           "exit_code",   "rows",
                                                   "backend",  "device_index",     "device_uuid", "timer",
                                                   "level",    "duration_s",       "run_dir",     "direct_fallbacks",
                                                   "poisoned", "replay_fallbacks", "slurm_state"};
  return columns;
}

std::string format_ops_status(const std::vector<OpStatus>& ops)
{
  std::string out = util::join(ops_status_columns(), ",") + "\n";
  for (const auto& o : ops) {
    const std::vector<std::string> fields = {o.op,
                                             std::string(results::name(o.status)),
                                             opt(o.exit_code),
                                             std::to_string(o.rows),
                                             o.backend,
                                             opt(o.device_index),
                                             o.device_uuid,
                                             o.timer,
                                             o.level,
                                             o.duration_s ? fmt::format("{:.3f}", *o.duration_s) : "",
                                             o.run_dir,
                                             std::to_string(o.direct_fallbacks),
                                             std::to_string(o.poisoned),
                                             std::to_string(o.replay_fallbacks),
                                             o.slurm_state};
    std::vector<std::string> quoted;
    for (const auto& f : fields) {
      quoted.push_back(csv_field(f));
    }
    out += util::join(quoted, ",") + "\n";
  }
  return out;
}

std::vector<OpStatus> parse_ops_status(const std::string& text, const std::string& path)
{
  std::vector<OpStatus> ops;
  const auto lines = util::split(text, '\n');
  const auto& all = ops_status_columns();
  // The zl before slurm_state wrote every column but the last.
  const std::vector<std::string> earlier(all.begin(), all.end() - 1);
  const auto header = lines.empty() ? std::string() : std::string(util::trim(lines[0]));
  const size_t width = header == util::join(earlier, ",") ? earlier.size() : all.size();
  if (header != util::join(all, ",") && width == all.size()) {
    throw Error(fmt::format("{}:1: not an ops_status.csv of this zl (expected the header {}); move it aside to "
                            "start the campaign afresh",
                            path, util::join(ops_status_columns(), ",")));
  }
  for (size_t n = 1; n < lines.size(); ++n) {
    const auto f = csv_split(std::string(util::trim(lines[n])));
    if (f.size() != width) {
      throw Error(fmt::format("{}:{}: {} fields where {} belong; repair or remove the line and --resume again", path,
                              n + 1, f.size(), width));
    }
    try {
      OpStatus o;
      o.op = f[0];
      // The op names a folder of the campaign: --resume moves and writes there.
      if (!util::is_op_name(o.op)) {
        throw Error(fmt::format("{}:{}: '{}' is not an op name ([A-Za-z0-9_]+); repair or remove the line and --resume "
                                "again",
                                path, n + 1, o.op));
      }
      o.status = state_at(f[1], path, n + 1);
      if (!f[2].empty())
        o.exit_code = std::stoi(f[2]);
      o.rows = std::stoll(f[3]);
      o.backend = f[4];
      if (!f[5].empty())
        o.device_index = static_cast<unsigned>(std::stoul(f[5]));
      o.device_uuid = f[6];
      o.timer = f[7];
      o.level = f[8];
      if (!f[9].empty())
        o.duration_s = std::stod(f[9]);
      o.run_dir = f[10];
      o.direct_fallbacks = std::stoll(f[11]);
      o.poisoned = std::stoll(f[12]);
      o.replay_fallbacks = std::stoll(f[13]);
      if (width > 14)
        o.slurm_state = f[14];
      ops.push_back(std::move(o));
    } catch (const std::logic_error&) {
      throw Error(fmt::format("{}:{}: a number field does not parse; repair or remove the line and --resume again",
                              path, n + 1));
    }
  }
  return ops;
}

results::OpState status_from_exit(int exit_code, long long rows, bool timed_out, bool interrupted,
                                  std::optional<results::OpState> recorded)
{
  using results::OpState;
  if (timed_out) {
    return OpState::timeout;
  }
  if (interrupted || exit_code == results::exit_code_of(OpState::interrupted)) {
    return OpState::interrupted;
  }
  if (exit_code == results::exit_code_of(OpState::preflight_failed)) {
    return OpState::preflight_failed;
  }
  if ((recorded == OpState::unsupported || recorded == OpState::skipped) && rows == 0) {
    return *recorded;
  }
  if (recorded == OpState::ok && rows > 0) {
    return OpState::ok; // its only failures were dtypes FlagGems refused
  }
  if (exit_code == 0) {
    return rows > 0 ? OpState::ok : OpState::no_rows;
  }
  if (exit_code > 128 || exit_code == results::exit_code_of(OpState::crashed)) {
    return OpState::crashed;
  }
  return OpState::failed;
}

} // namespace zl::batch
