// A store's history as series, and what find_changes finds in them: `zl history` and the report's
// history view group runs into campaigns here, one way for both.
//
// A campaign is the folder of its run folders (a round-N level looked through), ordered by its
// first run's start. A series is one caliber, device, op, dtype and Size Detail (matched across
// campaigns in compare::canonical_shape's spelling): FlagGems' latency a campaign (the median of
// its rows and rounds), with the median's 95% interval where the runs kept samples. A change is
// named by what the identities of the runs on both sides of it recorded differently.
#pragma once

#include "results/history/changepoint.hpp"
#include "results/model.hpp"
#include "run/identity_record.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace zl::results::history {

struct Campaign
{
  std::string path;    // the campaign folder
  std::string started; // its first run's start (UTC, ISO 8601; "" when no run says)
  std::vector<Run> runs;
};

// The campaign a stored run belongs to: its run folder's parent, a round-N folder (zl ab's,
// rounds of one campaign) looked through.
std::string campaign_of(const std::string& run_path);

// Runs (of one caliber: campaigns of two calibers are two histories) grouped into campaigns,
// oldest first: by first start, then path.
std::vector<Campaign> campaigns_of(std::vector<Run> runs);

struct SeriesId
{
  std::string caliber, device, op, dtype;
  std::string shape; // as the first campaign that has it printed it
};

struct Series
{
  SeriesId id;
  std::vector<Point> points;    // Point::campaign: the index of its campaign in the caliber's list
  std::vector<const Run*> runs; // per point, the first run that measured it (its identity)
};

// The series of one caliber's campaigns (which must outlive them), ordered by device, op, dtype
// and canonical shape. Rows that did not succeed with a latency are left out.
std::vector<Series> build_series(const std::vector<Campaign>& campaigns, const std::string& caliber);

// What the identities of two runs record differently.
enum class Field { flaggems_commit, version, zl_version, backend_version, driver, device_state };

struct Difference
{
  Field field = Field::flaggems_commit;
  std::string module; // Field::version's module (torch, triton, …)
  std::string before, after;
};
// "FlagGems commit", "torch version", …
std::string label(const Difference& d);
std::vector<Difference> what_changed(const run::Identity& before, const run::Identity& after);
// The same from the runs' stored identities; nullopt where either has none readable (nothing can
// be said), as opposed to an empty list (nothing recorded changed).
std::optional<std::vector<Difference>> what_changed(const Run& before, const Run& after);
// "FlagGems commit a -> b, torch version x -> y", or why nothing can be said.
std::string changed_text(const std::optional<std::vector<Difference>>& changed);

struct Change
{
  SeriesId series;
  ChangePoint point;
  std::string campaign, started;                  // where the new level starts
  std::string previous;                           // the campaign before it in the series
  std::optional<std::vector<Difference>> changed; // between the runs of those two campaigns
  bool recent = false;                            // starts among the last min_segment campaigns of its series
};

struct DriftFound
{
  SeriesId series;
  Drift drift;
  std::string first_campaign, last_campaign;
  double total = 0;                               // (1 + slope)^(points - 1) - 1: the change over the window
  std::optional<std::vector<Difference>> changed; // between the window's first and last runs
};

// A series without a change or a drift (listed with --all).
struct Quiet
{
  SeriesId series;
  std::size_t points = 0;
  double last = 0; // its latest campaign's value (ms)
};

struct History
{
  bool list_all = false; // check() keeps the series without a finding in quiet
  std::size_t series_checked = 0;
  std::size_t campaigns = 0; // over every caliber
  std::vector<Change> changes;
  std::vector<DriftFound> drifts;
  std::vector<Quiet> quiet;
};

// find_changes on every series; appends what it finds to history.
void check(History& history, const std::vector<Series>& series, const std::vector<Campaign>& campaigns,
           const ChangepointOptions& options = {});

// What --fail-on-regression PCT counts: recent confirmed slower changes and slower drifts, each by
// more than pct percent.
std::size_t regressions(const History& history, double pct);

// One line a change and a drift, then a total line.
std::string format_text(const History& history);
// {"version": 1, "series_checked": N, "campaigns": N, "changes": [...], "drifts": [...]}, and
// "unchanged": [...] when list_all
std::string format_json(const History& history);

} // namespace zl::results::history
