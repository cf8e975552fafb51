// zl report: one self-contained HTML page (data as JSON, Chart.js, script and style inlined)
// for a campaign, an A/B or a store's history. The numbers are results::compare's, as `zl
// summary` prints them; this folder only shapes them for the page.
#pragma once

#include "results/compare/ab.hpp"
#include "results/model.hpp"

#include <string>
#include <vector>

namespace zl::results::store {
class Store;
}

namespace zl::report {

// The page of a campaign (or any runs): paths are what was asked for, ops the campaigns'
// ops_status.csv, attempts the earlier attempts listed (not counted).
std::string campaign_page(const std::vector<results::Run>& runs, const std::vector<results::OpOutcome>& ops,
                          const std::vector<std::string>& paths, const std::vector<std::string>& attempts);

struct AbSides;
// The page of `--ab A B`.
std::string ab_page(const results::compare::AbResult& r, const AbSides& sides);

// The page of the last n campaigns of each caliber in the store db_path.
std::string history_page(const results::store::Store& store, const std::string& db_path, std::size_t n);

// The HTML around data (a JSON object): every '<' in it escaped as \u003c, so that no string
// of the data (an op named "</script>") can end the script element that carries it.
std::string html(const std::string& title, const std::string& data_json);

} // namespace zl::report
