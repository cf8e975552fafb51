// The page around the data: one HTML file with everything inlined, nothing fetched.
#include "report/report.hpp"

#include "report/data.hpp"
#include "zl/version.hpp"

#include <fmt/format.h>

#include <string_view>

namespace zl::report {

extern const std::string_view k_chartjs;
extern const std::string_view k_report_js;
extern const std::string_view k_report_css;

namespace {

std::string escape_html(std::string_view s)
{
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    switch (c) {
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '&':
      out += "&amp;";
      break;
    case '"':
      out += "&quot;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

// The envelope every view shares: which view, zl's version, what was shortened.
template <typename Body>
std::string page(const std::string& view, const std::string& title, Body&& body)
{
  std::size_t cut = 0;
  Json j;
  auto& w = j.w();
  w.StartObject();
  j.field("zl_report", 1ll);
  j.field("view", view);
  j.field("title", shown(title, &cut));
  j.field("zl_version", k_version);
  j.key(view);
  body(j, &cut);
  j.field("labels_shortened", cut); // times a label was shortened (one op name: in each place it shows)
  w.EndObject();
  return html(shown(title), j.text());
}

} // namespace

std::string html(const std::string& title, const std::string& data_json)
{
  std::string data;
  data.reserve(data_json.size() + 64);
  for (const char c : data_json) {
    c == '<' ? static_cast<void>(data += "\\u003c") : data.push_back(c);
  }
  return fmt::format(R"(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="zl {version}">
<title>{title}</title>
<style>
{css}
</style>
</head>
<body>
<noscript><p>This page draws its charts and tables with JavaScript, which is off; the data is in the script element
zl-data of this file (JSON).</p></noscript>
<main id="zl-main"></main>
<script type="application/json" id="zl-data">{data}</script>
<script>
{chartjs}
</script>
<script>
{js}
</script>
</body>
</html>
)",
                     fmt::arg("version", k_version), fmt::arg("title", escape_html(title)),
                     fmt::arg("css", k_report_css), fmt::arg("data", data), fmt::arg("chartjs", k_chartjs),
                     fmt::arg("js", k_report_js));
}

std::string campaign_page(const std::vector<results::Run>& runs, const std::vector<results::OpOutcome>& ops,
                          const std::vector<std::string>& paths, const std::vector<std::string>& attempts)
{
  std::string title = "zl report";
  for (const auto& p : paths) {
    title += " " + p;
  }
  return page("campaign", title, [&](Json& j, std::size_t* cut) {
    write_campaign(j, runs, ops, cut);
    j.strings("paths", paths);
    j.strings("attempts", attempts);
  });
}

std::string ab_page(const results::compare::AbResult& r, const AbSides& sides)
{
  return page("ab", fmt::format("zl report --ab {} {}", sides.a_path, sides.b_path),
              [&](Json& j, std::size_t* cut) { write_ab(j, r, sides, cut); });
}

std::string history_page(const results::store::Store& store, const std::string& db_path, std::size_t n)
{
  return page("history", fmt::format("zl report --db {} --history {}", db_path, n),
              [&](Json& j, std::size_t* cut) { write_history(j, store, n, cut); });
}

} // namespace zl::report
