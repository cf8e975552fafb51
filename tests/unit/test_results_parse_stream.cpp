#include "results/parse/stream.hpp"

#include "results/compare/summary.hpp"
#include "results_helpers.hpp"
#include "temp_dir.hpp"
#include "util/error.hpp"

#include <doctest/doctest.h>

#include <fmt/format.h>

#include <string>
#include <vector>

using namespace zl::results;
using namespace zl::results::parse;
using zl::test::TempDir;

namespace {

// What a sink saw, in order: "begin PATH", "row OP LINE", "marker NAME", "end PATH ROWS".
struct Record final : RunSink
{
  void begin(const Run& run) override { seen.push_back("begin " + run.info.path); }
  void row(const Run&, const Row& r) override { seen.push_back(fmt::format("row {} {} {}", r.op(), r.line, r.shape)); }
  void marker(const Run&, const Marker& m) override { seen.push_back("marker " + m.name); }
  void end(const Run& run) override { seen.push_back(fmt::format("end {} {}", run.info.path, run.info.caliber.timer)); }
  std::vector<std::string> seen;
};

// A campaign of runs of different lengths: some longer than a reader holds back.
std::vector<Source> campaign(const TempDir& dir, int runs)
{
  for (int i = 0; i < runs; ++i) {
    std::vector<zl::test::TableRow> rows;
    const int n = i % 3 == 0 ? static_cast<int>(k_held) + 100 : 5 + i;
    for (int k = 0; k < n; ++k) {
      rows.push_back({fmt::format("[torch.Size([{}])]", k), 1.0 + k, k % 7 == 0 ? 0 : 0.5 + k});
    }
    zl::test::write_run(dir / fmt::format("c/run-{:02}", i),
                        zl::test::table(fmt::format("op{}", i), "torch.float16", rows));
  }
  return discover(dir / "c");
}

} // namespace

TEST_CASE("zl::results::parse::stream_all: one run after another, in order, whatever the threads")
{
  TempDir dir;
  const auto sources = campaign(dir, 5);
  Record one;
  stream_all(sources, one, 1);
  for (const unsigned threads : {2u, 3u, 8u}) {
    CAPTURE(threads);
    Record many;
    const auto notes = stream_all(sources, many, threads);
    CHECK(notes.size() == sources.size());
    CHECK(many.seen == one.seen);
  }
  CHECK(one.seen.front() == "begin " + sources[0].path);
  CHECK(one.seen.back() == "end " + sources.back().path + " graph"); // the caliber the log adds, by then
}

TEST_CASE("zl::results::parse::stream_all: the summary of a stream is the summary of the runs loaded")
{
  TempDir dir;
  const auto sources = campaign(dir, 5);
  compare::SummaryFold fold;
  stream_all(sources, fold, 2);
  const auto streamed = fold.finish();
  const auto loaded = compare::summarize(load_all(sources));
  CHECK(streamed.runs == loaded.runs);
  REQUIRE(streamed.groups.size() == loaded.groups.size());
  for (std::size_t i = 0; i < loaded.groups.size(); ++i) {
    CHECK(streamed.groups[i].op == loaded.groups[i].op);
    CHECK(streamed.groups[i].rows == loaded.groups[i].rows);
    CHECK(streamed.groups[i].failed == loaded.groups[i].failed);
    CHECK(streamed.groups[i].log_sum == loaded.groups[i].log_sum); // the same sums, in the same order
  }
  CHECK(streamed.total.geomean_speedup == loaded.total.geomean_speedup);
  CHECK(streamed.calibers == loaded.calibers);
  CHECK(streamed.markers == loaded.markers);
}

TEST_CASE("zl::results::parse::stream_all: notes in order; the first source that fails is the error")
{
  TempDir dir;
  auto sources = campaign(dir, 4);
  zl::test::write_text(dir / "c/run-01/run.log", zl::test::table("abs", "torch.float16", {{"[1", 1, 1}}));
  Record sink;
  const auto notes = stream_all(sources, sink, 2);
  REQUIRE(notes.size() == 4);
  CHECK(notes[0].diagnostics.empty());
  REQUIRE(notes[1].diagnostics.size() == 2); // the row cut off, and its table left with none
  CHECK(notes[1].diagnostics[0].reason.find("a Size Detail cut off") != std::string::npos);

  zl::test::write_text(dir / "junk.log", "nothing of FlagGems here\n");
  zl::test::write_text(dir / "junk2.log", "nor here\n");
  sources.insert(sources.begin() + 2, discover(dir / "junk.log")[0]);
  sources.push_back(discover(dir / "junk2.log")[0]);
  Record failing;
  CHECK_THROWS_WITH_AS(stream_all(sources, failing, 2), doctest::Contains("junk.log"), zl::Error);
}
