#include "ab/ab.hpp"

#include "ab/axis.hpp"
#include "batch/folder.hpp"
#include "batch/lock.hpp"
#include "results/compare/ab.hpp"
#include "results/compare/summary.hpp"
#include "results/parse/sources.hpp"
#include "results/text/format.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/json.hpp"
#include "util/string.hpp"

#include <boost/filesystem.hpp>
#include <fmt/chrono.h>
#include <fmt/format.h>

#include <ctime>
#include <ostream>
#include <set>

namespace zl::ab {

namespace {

namespace fs = boost::filesystem;

std::string banner(const std::string& axis)
{
  return fmt::format("!! --force: {} was not found in the installed compiler; a table showing no difference may "
                     "only mean nothing reads the switch\n",
                     axis);
}

void write_ab_json(const AbSpec& spec, const AxisProbe& probe, bool forced, bool interrupted)
{
  util::JsonWriter j;
  j.w().StartObject();
  j.field("axis", spec.axis);
  j.strings("values", {spec.values[0], spec.values[1]});
  j.field("rounds", spec.rounds);
  j.field("axis_live", probe.live);
  j.nullable("axis_found_in", probe.found_in);
  j.strings("searched", probe.searched);
  j.field("forced", forced);
  j.field("interrupted", interrupted);
  j.w().EndObject();
  util::write_file_atomic(spec.out_dir + "/ab.json", j.text());
}

// Side A's runs under a against side B's under b, as one table; both calibers are printed, never
// refused: the sides differ by the axis alone.
std::string compare(const AbSpec& spec, const std::string& a, const std::string& b, const std::string& banner_text)
{
  const auto runs_a = results::parse::load_all(results::parse::discover(a));
  const auto runs_b = results::parse::load_all(results::parse::discover(b));
  results::text::AbView view;
  view.a_path = a;
  view.b_path = b;
  auto caliber = [](const std::vector<results::Run>& side) {
    std::set<std::string> all;
    for (const auto& r : side) {
      all.insert(results::compare::describe(r.info.caliber));
    }
    return util::join(std::vector<std::string>(all.begin(), all.end()), " | ");
  };
  view.a_caliber = caliber(runs_a) + fmt::format("; {}={}", spec.axis, spec.values[0]);
  view.b_caliber = caliber(runs_b) + fmt::format("; {}={}", spec.axis, spec.values[1]);
  view.forced = true;
  const auto r = results::compare::compare(runs_a, runs_b, view.options);
  return banner_text + results::text::format_ab(r, view, results::text::Format::text);
}

} // namespace

int run_ab(AbRun ab, std::ostream& out, std::ostream& err)
{
  auto& spec = ab.spec;
  const auto& python = spec.request.python;
  const auto probe = probe_axis(python, spec.axis);
  if (!probe.live) {
    const auto searched = probe.searched.empty()
                              ? fmt::format("{} imports no triton or flagtree package", python)
                              : fmt::format("{} ({} files)", util::join(probe.searched, ", "), probe.files_scanned);
    if (!ab.force) {
      throw Error(fmt::format("the axis {} is read by nothing zl could find: searched {}; every round would run and "
                              "show no difference. Confirm the switch exists in this compiler build, choose another "
                              "--axis, or pass --force",
                              spec.axis, searched));
    }
    err << banner(spec.axis);
  } else {
    err << fmt::format("zl ab: {} is live: named in {}\n", spec.axis, probe.found_in);
  }
  spec.out_dir = util::absolute(
      ab.out ? *ab.out
             : fmt::format("ab/{:%Y%m%dT%H%M%S}Z-{}-{}", fmt::gmtime(std::time(nullptr)), spec.request.op, spec.axis));
  if (fs::exists(spec.out_dir + "/A") || fs::exists(spec.out_dir + "/B")) {
    throw Error(fmt::format("{} already holds an A/B; choose another --out", spec.out_dir));
  }
  batch::check_out_path(spec.out_dir, false); // the campaign folder's rules, and its one owner
  util::make_dirs(spec.out_dir);
  const batch::CampaignLock owner(spec.out_dir, false);
  bool interrupted = false;
  const auto runs = run_rounds(spec, interrupted);
  write_ab_json(spec, probe, ab.force, interrupted);

  const auto banner_text = ab.force && !probe.live ? banner(spec.axis) : std::string();
  const auto sides = fmt::format("{}={} vs {}={}", spec.axis, spec.values[0], spec.axis, spec.values[1]);
  for (int round = 1; round <= spec.rounds; ++round) {
    const auto a = fmt::format("{}/A/round-{}", spec.out_dir, round);
    const auto b = fmt::format("{}/B/round-{}", spec.out_dir, round);
    if (fs::exists(a + "/run_identity.json") && fs::exists(b + "/run_identity.json")) {
      out << fmt::format("== round {} ({})\n", round, sides) << compare(spec, a, b, banner_text) << "\n";
    }
  }
  out << fmt::format("== all rounds ({})\n", sides)
      << compare(spec, spec.out_dir + "/A", spec.out_dir + "/B", banner_text);
  out << spec.out_dir << "\n";
  if (interrupted) {
    return k_exit_interrupted;
  }
  for (const auto& r : runs) {
    if (r.exit_code != 0) {
      err << fmt::format("zl ab: side {} of round {} exited {}: see {}\n", r.side, r.round, r.exit_code, r.run_dir);
      return 1;
    }
  }
  return 0;
}

} // namespace zl::ab
