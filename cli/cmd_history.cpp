// zl history: where each series of a results store changed level, or drifts, and what changed
// with it.
#include "output.hpp"

#include "report/data.hpp"
#include "results/history/series.hpp"
#include "results/store/store.hpp"
#include "util/error.hpp"
#include "util/string.hpp"

#include <boost/filesystem/operations.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <optional>
#include <regex>
#include <set>

namespace zl::cli {

namespace {

namespace history = results::history;

constexpr const char* k_usage = "zl history --db FILE [--op OP[,OP…]] [--since CAMPAIGN|DATE] [--format text|json]\n"
                                "                     [--fail-on-regression PCT] [--all]";

constexpr const char* k_notes =
    R"(zl history reads a results store (zl batch --db, zl summary --db) and tells, for every
series, where its level changed and whether it drifts now. A series is one caliber (backend,
timer, level, mode, tuner cache, executor, pytest's extra arguments), device, op, dtype and Size
Detail (matched across campaigns whatever its spelling: text table or record log); its value in
a campaign is FlagGems' latency, the median of the campaign's rows and rounds, with the 95%
interval of the median where the runs kept samples. A campaign is the folder of its run folders
(a round-N level looked through), in order of its first run's start: as zl report --history.

The detector is docs/statistics.md's "Change points in a history": steps by penalized least
squares on ln(latency) with spikes filtered out, drift by the Mann-Kendall test over the last 30
campaigns. A change is confirmed when its new level held 4 campaigns; one in the last 3
campaigns is tentative (the next campaigns confirm it or take it back).

Each change is a line: op, dtype, Size Detail, the campaign where the new level starts (its
folder and start), the levels before and after (ms), the change in percent, slower or faster,
confirmed or tentative, "new" when it starts among the last 4 campaigns of its series, and what
the run identities of the campaign before and the campaign after record differently: FlagGems'
commit, the versions of torch, triton and the rest, zl's version, the backend's version, the
driver, the device's state (locked clocks, power limit, ECC, MIG); "nothing recorded changed"
when none of them did. Drifts follow, then a total line. With several calibers or devices each
line names its own. --all lists the series without a finding too, with their latest level.

--format json: {"version": 1, "series_checked": N, "campaigns": N, "changes": [{op, dtype, shape,
device, caliber, campaign, started, previous_campaign, before_ms, after_ms, relative, direction,
confirmed, in_drift, new, score, changed: [{field, module, before, after}] or null when an
identity is missing}], "drifts": [{…, first_campaign, last_campaign, points, slope (per
campaign), total, direction, z, p, changed}]} and, with --all, "unchanged": [{op, dtype, shape,
device, caliber, points, last_ms}].

--since CAMPAIGN|DATE: only campaigns from this one on: a campaign folder (its path or name),
whose start then counts for every caliber, or a date or time in ISO 8601 (2026-03-01,
2026-03-01T12:00:00Z), compared with each campaign's start in UTC.

--fail-on-regression PCT: exit 6 when a new change (its first campaign among the last 4 of its
series, the first window in which a change can be confirmed: a nightly check sees each one once
when it first counts, and again while it stays in that window) is confirmed, slower, and by more
than PCT percent; or when a series drifts slower by more than PCT percent over the drift window.

Exit codes: 0 listed (also an empty store, which is said); 2 usage error: --db missing or not a
store, an --op that no series has, a --since that matches no campaign; 6 --fail-on-regression
tripped.

Examples:
  zl history --db ~/zl-results.sqlite
  zl history --db store.sqlite --op abs,add --since 2026-03-01
  zl history --db store.sqlite --format json | jq '.changes[] | select(.confirmed)'
  zl history --db store.sqlite --fail-on-regression 5     nightly gate: exit 6 on a new >5% step
)";

// One caliber's campaigns and the series over them (which view those campaigns' runs).
struct Caliber
{
  std::string key; // report::caliber_key
  std::vector<history::Campaign> campaigns;
  std::vector<history::Series> series;
};

bool is_date(const std::string& s)
{
  static const std::regex date("[0-9]{4}-[0-9]{2}-[0-9]{2}([T ].*)?");
  return std::regex_match(s, date);
}

// --since as a start time: a date as given, a campaign's its first run's. Throws when it is
// neither.
std::string since_start(const std::string& since, const std::vector<Caliber>& calibers)
{
  if (is_date(since)) {
    return since;
  }
  namespace fs = boost::filesystem;
  const auto absolute = fs::absolute(since).lexically_normal().string();
  for (const auto& c : calibers) {
    for (const auto& campaign : c.campaigns) {
      const auto name = fs::path(campaign.path).filename().string();
      if (campaign.path == since || campaign.path + "/" == absolute || campaign.path == absolute || name == since) {
        return campaign.started;
      }
    }
  }
  std::vector<std::string> names;
  for (const auto& c : calibers) {
    for (auto it = c.campaigns.rbegin(); it != c.campaigns.rend() && names.size() < 3; ++it) {
      names.push_back(fs::path(it->path).filename().string());
    }
  }
  throw Error(fmt::format("--since {} is no campaign of the store and no date: give a campaign folder the store "
                          "holds ({}, …) or a date such as 2026-03-01",
                          util::printable(since), util::join(names, ", ")));
}

// Campaigns that start before start are left out; true when any remains.
bool keep_since(Caliber& c, const std::string& start)
{
  const auto first = std::find_if(c.campaigns.begin(), c.campaigns.end(),
                                  [&](const history::Campaign& x) { return x.started >= start; });
  c.campaigns.erase(c.campaigns.begin(), first);
  return !c.campaigns.empty();
}

// Only the campaigns from --since on, in every caliber; throws when none is left.
void apply_since(const std::string& since, std::vector<Caliber>& calibers)
{
  const auto start = since_start(since, calibers);
  bool any = false;
  for (auto& c : calibers) {
    any = keep_since(c, start) || any;
  }
  if (!any) {
    throw Error(fmt::format("--since {}: no campaign of the store started then or later; give an earlier date or "
                            "campaign",
                            util::printable(since)));
  }
}

// --op's list, each op checked against the store's series.
std::set<std::string> ops_asked(const std::string& list, const std::vector<Caliber>& calibers)
{
  std::set<std::string> known;
  for (const auto& c : calibers) {
    for (const auto& s : c.series) {
      known.insert(s.id.op);
    }
  }
  std::set<std::string> asked;
  for (const auto& op : util::split(list, ',')) {
    if (op.empty()) {
      continue;
    }
    if (known.count(op) == 0) {
      std::vector<std::string> some(known.begin(), known.end());
      some.resize(std::min<std::size_t>(some.size(), 10));
      throw Error(fmt::format("--op {}: no series of the store (in the campaigns chosen) has this op; the store has "
                              "{}{}: name one of those, or leave --op out for all",
                              util::printable(op), some.empty() ? "none" : util::join(some, ", "),
                              known.size() > some.size() ? ", …" : ""));
    }
    asked.insert(op);
  }
  return asked;
}

// The store's runs by caliber and campaign: with --op, only the runs that have a row of those
// ops (the cost follows what is asked, not the store); every run when none has (--op's error then
// lists the ops the store does have).
std::vector<Caliber> load_calibers(const results::store::Store& store, const std::vector<std::string>& ops)
{
  const auto paths = ops.empty() ? std::vector<std::string>() : store.paths_with_ops(ops);
  auto runs = store.load(paths);
  std::vector<Caliber> calibers;
  for (const auto& group : report::group_by_caliber(runs)) {
    std::vector<results::Run> mine;
    for (const auto i : group.runs) {
      mine.push_back(std::move(runs[i]));
    }
    calibers.push_back({group.key, history::campaigns_of(std::move(mine)), {}});
  }
  return calibers;
}

// The chosen ops' series of every caliber through the detector.
void check_all(history::History& found, std::vector<Caliber>& calibers, const std::set<std::string>& ops)
{
  for (auto& c : calibers) {
    found.campaigns += c.campaigns.size();
    std::vector<history::Series> chosen;
    for (auto& s : c.series) {
      if (ops.empty() || ops.count(s.id.op)) {
        chosen.push_back(std::move(s));
      }
    }
    history::check(found, chosen, c.campaigns);
    c.series = std::move(chosen);
  }
}

} // namespace

int cmd_history(Context&, const Args& args)
{
  po::options_description desc("Options");
  // clang-format off
  desc.add_options()
    ("db", po::value<std::string>(), "the SQLite results store to read (zl batch --db, zl summary --db)")
    ("op", po::value<std::string>(), "only these ops, comma-separated")
    ("since", po::value<std::string>(), "only campaigns from this one (folder or name) or date (ISO 8601) on")
    ("format", po::value<std::string>()->default_value("text"), "text or json")
    ("fail-on-regression", po::value<double>(), "exit 6 on a new confirmed slower change, or a slower drift, of more "
                                                "than PCT percent")
    ("all", po::bool_switch(), "list the series without a change or drift too");
  // clang-format on
  const auto vm = parse_options("history", std::string(k_usage) + "\n\n" + k_notes, desc, args);
  if (!vm) {
    return k_exit_ok;
  }
  const auto format = (*vm)["format"].as<std::string>();
  if (format != "text" && format != "json") {
    throw Error(fmt::format("--format {}: zl history writes text or json", util::printable(format)));
  }
  if (!vm->count("db")) {
    throw Error("zl history reads a results store: zl history --db FILE (one that zl batch --db wrote)");
  }
  const auto db = (*vm)["db"].as<std::string>();
  if (!boost::filesystem::is_regular_file(db)) {
    throw Error(fmt::format("--db {}: no results store there; give the file that zl batch --db or zl summary --db "
                            "wrote",
                            util::printable(db)));
  }
  std::optional<double> pct;
  if (vm->count("fail-on-regression")) {
    pct = (*vm)["fail-on-regression"].as<double>();
    if (!(*pct >= 0)) {
      throw Error(fmt::format("--fail-on-regression {}: give a percent of 0 or more", *pct));
    }
  }
  const results::store::Store store(db);
  const auto op_list = vm->count("op") ? util::split((*vm)["op"].as<std::string>(), ',') : std::vector<std::string>();
  auto calibers = load_calibers(store, op_list);
  history::History found;
  found.list_all = (*vm)["all"].as<bool>();
  if (calibers.empty()) {
    std::cout << (format == "json" ? history::format_json(found)
                                   : fmt::format("zl history: the store {} holds no runs yet; zl batch --db {} adds "
                                                 "a campaign's\n",
                                                 db, db));
    return k_exit_ok;
  }
  if (vm->count("since")) {
    apply_since((*vm)["since"].as<std::string>(), calibers);
  }
  for (auto& c : calibers) {
    c.series = history::build_series(c.campaigns, c.key);
  }
  const auto ops = vm->count("op") ? ops_asked((*vm)["op"].as<std::string>(), calibers) : std::set<std::string>();
  check_all(found, calibers, ops);
  std::cout << (format == "json" ? history::format_json(found) : history::format_text(found));
  if (pct) {
    if (const auto n = history::regressions(found, *pct); n > 0) {
      std::cerr << fmt::format("zl history: {} new regression{} above {}% (listed above)\n", n, n == 1 ? "" : "s",
                               *pct);
      return k_exit_regression;
    }
  }
  return k_exit_ok;
}

} // namespace zl::cli
