// Which runs PATHs stand for: each once, campaigns' statuses and attempts (sources.hpp).
#include "batch/ops_status.hpp"
#include "results/parse/sources.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/string.hpp"

#include <boost/filesystem.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <set>
#include <sys/stat.h>
#include <tuple>
#include <unistd.h>

namespace zl::results::parse {

namespace fs = boost::filesystem;

namespace {

Source::Kind sniff(std::string_view text)
{
  // A record log is "[INFO] …" lines; anything else is read as text output. The head is enough.
  const auto first = text.find_first_not_of(" \t\r\n");
  const bool record = first != std::string::npos && text.compare(first, 7, "[INFO] ") == 0 &&
                      text.find("\nOperator: ") == std::string::npos;
  return record ? Source::Kind::record_log : Source::Kind::text_log;
}

using FileId = std::pair<std::uint64_t, std::uint64_t>;

FileId id_of(const struct stat& st)
{
  return {static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
}

// The statuses of a campaign's ops_status.csv (op -> status), into d.ops; none when there is
// no such file, or one zl cannot read (said in a note: the statuses are not used then).
std::map<std::string, OpState> campaign_statuses(const fs::path& dir, Discovery& d)
{
  const auto file = (dir / "ops_status.csv").string();
  struct stat st = {};
  if (::lstat(file.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return {};
  }
  std::map<std::string, OpState> out;
  try {
    boost::system::error_code ec;
    const auto real = fs::canonical(dir, ec);
    std::vector<char> buffer;
    const std::string text(read_input(file, buffer, 0, true));
    for (const auto& o : batch::parse_ops_status(text, file)) {
      out[o.op] = o.status;
      d.ops.push_back({ec ? dir.string() : real.string(), o.op, o.status});
    }
  } catch (const Error& e) {
    d.notes.push_back(fmt::format("{} (its ops' statuses are not shown)", e.what()));
    return {};
  }
  return out;
}

// "<op>.attempt-<N>" where op is one of ops: an earlier attempt of a campaign's op.
bool is_attempt(const std::string& name, const std::map<std::string, OpState>& ops)
{
  const auto dot = name.rfind(".attempt-");
  if (dot == std::string::npos || dot + 9 == name.size() || !ops.count(name.substr(0, dot))) {
    return false;
  }
  return std::all_of(name.begin() + static_cast<std::ptrdiff_t>(dot + 9), name.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}

// The run folders below root, at any depth, into out. Links are not followed (neither out of the
// tree nor back into it), and a folder met again (a bind mount, a run already named) is skipped:
// no loop, no run twice. Returns how many run folders it met, counted or not.
std::size_t walk(const fs::path& root, Discovery& d, std::map<FileId, std::string>& seen, std::vector<Source>& out)
{
  std::size_t met = 0;
  std::vector<fs::path> stack{root};
  while (!stack.empty()) {
    const auto dir = stack.back();
    stack.pop_back();
    const auto ops = campaign_statuses(dir, d);
    boost::system::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      const auto path = it->path();
      const auto name = path.filename().string();
      struct stat st = {}, target = {};
      if (name.empty() || name[0] == '.' || ::lstat(path.c_str(), &st) != 0) {
        continue;
      }
      if (S_ISLNK(st.st_mode)) {
        if (::stat(path.c_str(), &target) == 0 && S_ISDIR(target.st_mode)) {
          d.notes.push_back(
              fmt::format("{}: a symbolic link, not followed (name its target to include it)", path.string()));
        }
        continue;
      }
      if (!S_ISDIR(st.st_mode)) {
        continue;
      }
      const bool run = is_run_folder(path.string());
      met += run ? 1 : 0;
      if (const auto [at, fresh] = seen.emplace(id_of(st), path.string()); !fresh) {
        if (run) {
          d.notes.push_back(fmt::format("{}: already counted (as {})", path.string(), at->second));
        }
        continue;
      }
      if (!run) {
        stack.push_back(path);
      } else if (is_attempt(name, ops)) {
        d.attempts.push_back(path.string());
      } else {
        const auto status = ops.find(name);
        out.push_back({path.string(), Source::Kind::run_folder, nullptr,
                       status == ops.end() ? std::nullopt : std::optional(status->second), id_of(st)});
      }
    }
  }
  return met;
}

} // namespace

std::string normal_path(const std::string& path)
{
  const fs::path p(util::absolute(path)); // needs no working folder for an absolute path
  // Boost spells a trailing slash as a last component "."
  return (p.filename() == "." ? p.parent_path() : p).string();
}

bool is_run_folder(const std::string& dir)
{
  boost::system::error_code ec;
  return fs::is_regular_file(fs::path(dir) / "run_identity.json", ec) ||
         fs::is_regular_file(fs::path(dir) / "run.log", ec);
}

Discovery discover_all(const std::vector<std::string>& paths)
{
  Discovery d;
  std::vector<char> buffer;
  std::map<FileId, std::string> seen; // what was counted, by device and inode: where first met
  for (const auto& given : paths) {
    const fs::path abs = normal_path(given);
    struct stat st = {};
    if (::stat(abs.c_str(), &st) != 0) {
      throw Error(errno == ENOENT ? fmt::format("{} does not exist", util::printable(given))
                                  : fmt::format("cannot read {}: {}", util::printable(given), std::strerror(errno)));
    }
    const bool dir = S_ISDIR(st.st_mode);
    if (dir && ::access(abs.c_str(), R_OK | X_OK) != 0) {
      throw Error(fmt::format("cannot read the folder {}: {}", util::printable(given), std::strerror(errno)));
    }
    const bool run = dir && is_run_folder(abs.string());
    if (const auto [at, fresh] = seen.emplace(id_of(st), abs.string()); !fresh) {
      d.notes.push_back(fmt::format("{}: already counted (as {})", abs.string(), at->second));
      continue;
    }
    if (!dir) {
      Source s{abs.string(), Source::Kind::text_log, nullptr, {}, id_of(st)};
      if (S_ISREG(st.st_mode)) {
        s.kind = sniff(read_input(s.path, buffer, 1 << 20));
      } else {
        // A pipe can be read once: what is sniffed is what is parsed.
        s.content = std::make_shared<const std::string>(read_input(s.path, buffer));
        s.kind = sniff(*s.content);
      }
      d.sources.push_back(std::move(s));
    } else if (run) {
      // A run folder of a campaign, named on its own, still carries its op's status.
      Discovery parent;
      campaign_statuses(abs.parent_path(), parent);
      Source s{abs.string(), Source::Kind::run_folder, nullptr, {}, id_of(st)};
      for (const auto& o : parent.ops) {
        if (o.op == abs.filename().string()) {
          d.ops.push_back(o);
          s.campaign_status = o.status;
        }
      }
      d.notes.insert(d.notes.end(), parent.notes.begin(), parent.notes.end());
      d.sources.push_back(std::move(s));
    } else {
      std::vector<Source> found;
      if (walk(abs, d, seen, found) == 0) {
        throw Error(fmt::format(
            "{} holds no run folder (a folder with run_identity.json or run.log) and is not a log file", given));
      }
      std::sort(found.begin(), found.end(), [](const Source& a, const Source& b) { return a.path < b.path; });
      d.sources.insert(d.sources.end(), found.begin(), found.end());
    }
  }
  // The order of what a folder lists is the file system's: sorted, the output is the same each time.
  std::sort(d.attempts.begin(), d.attempts.end());
  std::sort(d.notes.begin(), d.notes.end());
  // One op of one campaign once, however often its campaign was reached.
  std::sort(d.ops.begin(), d.ops.end(), [](const OpOutcome& a, const OpOutcome& b) {
    return std::tie(a.campaign, a.op) < std::tie(b.campaign, b.op);
  });
  d.ops.erase(
      std::unique(d.ops.begin(), d.ops.end(),
                  [](const OpOutcome& a, const OpOutcome& b) { return a.campaign == b.campaign && a.op == b.op; }),
      d.ops.end());
  return d;
}

void refuse_shared_runs(const Discovery& a, const Discovery& b)
{
  std::set<FileId> on_b;
  for (const auto& s : b.sources) {
    on_b.insert(s.id);
  }
  std::vector<std::string> shared;
  for (const auto& s : a.sources) {
    if (on_b.count(s.id) > 0) {
      shared.push_back(s.path);
    }
  }
  if (shared.empty()) {
    return;
  }
  const std::vector<std::string> shown(
      shared.begin(), shared.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(5, shared.size())));
  throw Error(fmt::format("{} run{} {} on both sides: {}{}\nan A/B compares two different sets of runs; name "
                          "other folders for A and B",
                          shared.size(), shared.size() == 1 ? "" : "s", shared.size() == 1 ? "is" : "are",
                          fmt::join(shown, ", "), shared.size() > shown.size() ? ", …" : ""));
}

std::vector<std::pair<char, OpOutcome>> unfinished_ops(const Discovery& a, const Discovery& b)
{
  // An op FlagGems declined alike on both sides (unsupported on both) is neither a failure nor
  // a pairing: it is left out. Declined on one side only, it is told.
  auto declined_alike = [](const OpOutcome& o, const Discovery& other) {
    return settled(o.status) && std::any_of(other.ops.begin(), other.ops.end(),
                                            [&](const OpOutcome& p) { return p.op == o.op && p.status == o.status; });
  };
  std::vector<std::pair<char, OpOutcome>> out;
  for (const auto& [side, found, other] : {std::make_tuple('A', &a, &b), std::make_tuple('B', &b, &a)}) {
    for (const auto& o : found->ops) {
      if (o.status != OpState::ok && !declined_alike(o, *other)) {
        out.emplace_back(side, o);
      }
    }
  }
  return out;
}

std::vector<Source> discover(const std::string& path)
{
  return discover_all({path}).sources;
}

} // namespace zl::results::parse
