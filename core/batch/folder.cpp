#include "batch/folder.hpp"

#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/string.hpp"

#include <boost/filesystem.hpp>
#include <fmt/chrono.h>
#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <sys/stat.h>

namespace zl::batch {

namespace fs = boost::filesystem;

namespace {

const char* const k_campaign_marks[] = {"ops_status.csv", k_campaign_file, k_lock_file};
const char* const k_run_marks[] = {"run_identity.json", "plan.json", "run.log"};

bool holds(const fs::path& dir, const char* const (&names)[3])
{
  boost::system::error_code ec;
  for (const char* n : names) {
    if (fs::exists(dir / n, ec)) {
      return true;
    }
  }
  return false;
}

std::string status_error(const std::string& what, const boost::system::error_code& ec)
{
  return fmt::format("--out {}: {}; give a folder zl can create or use", what, ec.message());
}

// Only a regular file, and a bounded one, is read: a FIFO planted in a campaign would block
// zl, a folder or a huge file is not one of zl's documents.
std::string read_document(const std::string& path, off_t cap)
{
  struct stat st = {};
  if (::stat(path.c_str(), &st) != 0) {
    throw Error(fmt::format("cannot read {}: {}", path, std::strerror(errno)));
  }
  if (!S_ISREG(st.st_mode) || st.st_size > cap) {
    throw Error(fmt::format("{} is not a regular file of at most {} bytes, so not one zl wrote; move it aside, or "
                            "choose another --out",
                            path, cap));
  }
  return util::read_file(path);
}

} // namespace

std::string campaign_folder(const std::optional<std::string>& given, const std::string& backend)
{
  if (given && given->empty()) {
    throw Error("--out is empty; give the campaign folder, or leave --out out for campaigns/<UTC time>-<backend>");
  }
  return normal_path(given ? *given
                           : fmt::format("campaigns/{:%Y%m%dT%H%M%S}Z-{}", fmt::gmtime(std::time(nullptr)), backend));
}

void check_out_path(const std::string& out_dir, bool resume)
{
  for (const char c : out_dir) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      throw Error(fmt::format("--out {:?} holds a control character; zl records the campaign folder in its files, "
                              "one per line: choose a name without one",
                              out_dir));
    }
  }
  const fs::path out(out_dir);
  boost::system::error_code ec;
  const auto st = fs::status(out, ec);
  if (ec && st.type() != fs::file_not_found) {
    throw Error(status_error(out_dir, ec));
  }
  if (st.type() != fs::file_not_found && st.type() != fs::directory_file) {
    throw Error(
        fmt::format("--out {} is not a folder; a campaign needs a folder of its own: choose another --out", out_dir));
  }
  for (auto p = out.parent_path(); !p.empty(); p = p.parent_path()) {
    if (fs::is_directory(p, ec)) {
      if (holds(p, k_campaign_marks)) {
        throw Error(fmt::format("--out {} is inside the campaign {}; a campaign is not nested in another: choose a "
                                "folder outside it",
                                out_dir, p.string()));
      }
      if (holds(p, k_run_marks)) {
        throw Error(
            fmt::format("--out {} is inside the run folder {}: choose a folder outside it", out_dir, p.string()));
      }
    }
    if (p == p.root_path()) {
      break;
    }
  }
  if (st.type() != fs::directory_file) {
    return;
  }
  if (holds(out, k_run_marks) && !fs::exists(out / "ops_status.csv", ec)) {
    throw Error(fmt::format("--out {} is a run folder of `zl run`, not a campaign; zl does not write over a run: "
                            "choose another --out",
                            out_dir));
  }
  if (!resume && !fs::is_empty(out, ec) && !holds(out, k_campaign_marks)) {
    throw Error(fmt::format("--out {} holds files that are not a zl campaign; a campaign starts in a new or empty "
                            "folder: choose another --out",
                            out_dir));
  }
}

OpenCampaign open_campaign(const OpenSpec& spec)
{
  check_out_path(spec.out_dir, spec.resume);
  const auto csv = spec.out_dir + "/ops_status.csv";
  const auto record = spec.out_dir + "/" + k_campaign_file;
  if (spec.resume && !fs::exists(csv)) {
    throw Error(fmt::format("--resume: {} has no ops_status.csv; start the campaign without --resume", spec.out_dir));
  }
  util::make_dirs(spec.out_dir);
  OpenCampaign open;
  open.lock = std::make_unique<CampaignLock>(spec.out_dir, spec.force);
  // Looked at again under the lock: another owner may have started it meanwhile.
  if (!spec.resume) {
    // campaign.json alone is a campaign stopped before its first op: it starts afresh.
    if (fs::exists(csv)) {
      throw Error(fmt::format("{} already holds a campaign (ops_status.csv); continue it with --resume, or choose "
                              "another --out",
                              spec.out_dir));
    }
    util::write_file_atomic(record, caliber_json(spec.caliber));
    return open;
  }
  open.statuses = parse_ops_status(read_document(csv, off_t{1} << 26), csv);
  std::vector<std::string> diffs;
  const bool recorded = fs::exists(record);
  if (recorded) {
    diffs = caliber_differences(parse_caliber_json(read_document(record, off_t{1} << 20), record), spec.caliber);
  } else {
    diffs = legacy_differences(open.statuses, spec.out_dir, spec.caliber);
  }
  if (!diffs.empty()) {
    throw Error(fmt::format("--resume: this command's caliber differs from the campaign's:\n  {}\na campaign keeps "
                            "one caliber: resume with the options it was started with, or start another --out",
                            util::join(diffs, "\n  ")));
  }
  if (!recorded) {
    if (!spec.force) {
      throw Error(fmt::format("--resume: {} has no {} (a campaign of an earlier zl): its runs show no difference "
                              "in backend, level, mode, timer and dtypes, but not its shapes, replay, tuner cache "
                              "and python; if this command repeats the options it was started with, add --force",
                              spec.out_dir, k_campaign_file));
    }
    util::write_file_atomic(record, caliber_json(spec.caliber));
  }
  return open;
}

std::optional<std::string> recorded_executor(const std::string& out_dir)
{
  const auto record = out_dir + "/" + k_campaign_file;
  try {
    if (fs::is_regular_file(record)) {
      return parse_caliber_json(read_document(record, off_t{1} << 20), record).executor;
    }
    if (fs::is_regular_file(out_dir + "/ops_status.csv")) {
      return std::string("process");
    }
  } catch (const Error&) {
  } catch (const fs::filesystem_error&) {
  }
  return std::nullopt;
}

double parse_timeout_per_op(const std::string& text)
{
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(v) || v < 1) {
    throw Error(fmt::format("--timeout-per-op {} is not accepted: give a finite number of seconds, at least 1 "
                            "(leave the option out for no limit)",
                            text));
  }
  return v;
}

std::vector<std::string> read_ops_file(const std::string& path)
{
  // A regular file of at most 1 MiB (one op per line needs far less): a FIFO or a device never
  // ends, and zl would wait on it for ever.
  std::string text;
  try {
    text = util::read_file(path, std::size_t{1} << 20);
  } catch (const Error& e) {
    throw Error(fmt::format("--ops-file: {}; give a file with one op per line", e.what()));
  }
  std::vector<std::string> ops;
  int n = 0;
  for (const auto& raw : util::split(text, '\n', false)) {
    ++n;
    const auto line = std::string(util::trim(raw.substr(0, raw.find('#'))));
    if (line.empty()) {
      continue;
    }
    if (!util::is_op_name(line)) {
      throw Error(fmt::format("{}:{}: '{}' is not an op name ([A-Za-z0-9_]+)", util::printable(path), n,
                              util::printable(line)));
    }
    ops.push_back(line);
  }
  return ops;
}

} // namespace zl::batch
