#include "report/report.hpp"

#include <doctest/doctest.h>

using namespace zl::report;

TEST_CASE("zl::report::html")
{
  const auto page = html("a <b> & \"c\"", R"({"op":"</script><script>alert(1)</script><!--"})");
  // The data cannot end its script element, nor open a comment in it.
  const auto data = page.substr(page.find("id=\"zl-data\">"));
  CHECK(data.substr(0, data.find("</script>")).find('<') == std::string::npos);
  CHECK(page.find(R"({"op":"\u003c/script>\u003cscript>alert(1)\u003c/script>\u003c!--"})") != std::string::npos);
  CHECK(page.find("<title>a &lt;b&gt; &amp; &quot;c&quot;</title>") != std::string::npos);
  // Everything inline: Chart.js, the script, the style; nothing fetched.
  CHECK(page.find("Chart.js v3") != std::string::npos);
  CHECK(page.find(" src=") == std::string::npos);
  CHECK(page.find(" href=") == std::string::npos);
}

TEST_CASE("zl::report::campaign_page")
{
  const auto page = campaign_page({}, {}, {"/nothing"}, {});
  CHECK(page.find(R"("view":"campaign")") != std::string::npos);
  CHECK(page.find(R"("calibers":[])") != std::string::npos);
}
