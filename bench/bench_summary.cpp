// zl summary's cost: parse + pair + table over a synthetic A/B campaign of 1,000,000 rows
// (two sides of 500 run folders, 4 tables of 250 rows each), as run.log text tables with
// zl's markers. The campaign is written once; ZL_BENCH_CAMPAIGN=DIR keeps it in DIR (and
// reuses it), so that bench/reference_parser.py can read the same bytes
// (bench/compare_parsers.sh does both).
#include "results/compare/ab.hpp"
#include "results/compare/summary.hpp"
#include "results/parse/sources.hpp"
#include "results/parse/stream.hpp"
#include "results/text/format.hpp"

#include <benchmark/benchmark.h>
#include <boost/filesystem.hpp>
#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <random>

namespace {

namespace fs = boost::filesystem;
using namespace zl::results;

constexpr int k_runs = 500, k_tables = 4, k_rows = 250; // per side: 500 000 rows
const char* const k_dtypes[k_tables] = {"torch.float16", "torch.float32", "torch.bfloat16", "torch.int32"};

std::string size_detail(int op, int s)
{
  const int m = 64 * (s % 16 + 1), n = 128 * (s / 16 + 1);
  return op % 2 == 0 ? fmt::format("[torch.Size([{}, {}])]", m, n)
                     : fmt::format("[torch.Size([{}, {}]), torch.Size([{}, {}])]", m, n, n, m);
}

// One run.log: zl's header, a test's ZL_TIMER, B's one refused capture, four tables in
// FlagGems' format (TFLOPS column), one FAILED row in a thousand.
std::string run_log(char side, int op, std::mt19937_64& rng)
{
  // The same op and shape takes about as long on both sides: the base latency comes from a
  // generator seeded by the op; the side's own draws only add noise.
  std::mt19937_64 shapes(static_cast<std::uint64_t>(op));
  std::uniform_real_distribution<double> noise(0.97, 1.03), base(0.001, 2.0);
  const double drift = side == 'A' ? 1.0 : 0.9 + 0.2 * (op % 11) / 10.0;
  std::string out = fmt::format("ZL_RUN zl_version=0.1.0 backend=cuda device=0 timer=graph level=core mode=kernel "
                                "tuner_cache=shared node=benchmark/test_op{}.py\n",
                                op);
  out += fmt::format("benchmark/test_op{0}.py \nZL_TIMER op=op{0} timer=graph requested=auto reason=plan "
                     "node=benchmark/test_op{0}.py::test_op{0}\n",
                     op);
  if (side == 'B') {
    out += fmt::format("BENCHMARK_DIRECT_NO_CUDAGRAPH op=op{} dtype=torch.float16 shape=\"{}\" reason=refused\n", op,
                       size_detail(op, 7));
  }
  const std::string header = fmt::format("{:<10} {:>20} {:>20} {:>20} {:>20} {:>20}", "Status", "Torch Latency (ms)",
                                         "Gems Latency (ms)", "Gems Speedup", "TFLOPS", "Size Detail");
  for (const char* dtype : k_dtypes) {
    out += fmt::format("\nOperator: op{}  Performance Test (dtype={}, mode=kernel,level=core)\n", op, dtype);
    out += header + "\n" + std::string(header.size() + 1, '-') + "\n";
    for (int s = 0; s < k_rows; ++s) {
      if (rng() % 1000 == 0) {
        base(shapes);
        out += fmt::format("{:<10}{:>20}{:>20}{:>20}          {}\n", "FAILED", "N/A", "N/A", "N/A", size_detail(op, s));
        continue;
      }
      const double torch = base(shapes) * noise(rng), gems = torch * drift * noise(rng);
      out += fmt::format("{:<10}{:>20.6f}{:>20.6f}{:>20.3f}{:>20.3f}          {}\n", "SUCCESS", torch, gems,
                         torch / gems, 1000.0 / gems, size_detail(op, s));
    }
    out += "\n";
  }
  return out + ".\n";
}

std::string campaign()
{
  static const std::string dir = [] {
    const char* keep = std::getenv("ZL_BENCH_CAMPAIGN");
    const fs::path root = keep != nullptr && *keep != '\0'
                              ? fs::path(keep)
                              : fs::temp_directory_path() / fs::unique_path("zl-bench-campaign-%%%%%%");
    if (fs::exists(root / "B" / fmt::format("run-{:03}", k_runs - 1) / "run_identity.json")) {
      return root.string();
    }
    std::mt19937_64 rng(20261202);
    for (const char side : {'A', 'B'}) {
      for (int op = 0; op < k_runs; ++op) {
        const auto run = root / std::string(1, side) / fmt::format("run-{:03}", op);
        fs::create_directories(run);
        std::ofstream(run / "run.log") << run_log(side, op, rng);
        std::ofstream(run / "run_identity.json")
            << fmt::format(R"({{"schema": 1, "status": "ok", "backend": {{"name": "cuda"}}, "timer": {{"effective": )"
                           R"("graph"}}, "level": "core", "mode": "kernel", "tuner_cache": {{"mode": "shared"}}, )"
                           R"("node": {{"op": "op{}"}}}})",
                           op)
            << "\n";
      }
    }
    if (keep == nullptr || *keep == '\0') {
      std::atexit([] { fs::remove_all(campaign()); });
    }
    return root.string();
  }();
  return dir;
}

std::vector<Run> side(const std::string& name, unsigned threads)
{
  return parse::load_all(parse::discover(campaign() + "/" + name), threads);
}

// What `zl summary --ab A B` does between reading the arguments and printing.
void BM_SummaryAb(benchmark::State& state)
{
  const auto threads = static_cast<unsigned>(state.range(0));
  std::size_t rows = 0;
  for (auto _ : state) {
    const auto a = side("A", threads);
    const auto b = side("B", threads);
    const auto result = compare::compare(a, b, {});
    const auto text = text::format_ab(result, text::AbView{"A", "B", "", "", false, {}}, text::Format::text);
    benchmark::DoNotOptimize(text.data());
    rows = 0;
    for (const auto* runs : {&a, &b}) {
      for (const auto& run : *runs) {
        rows += run.rows.size();
      }
    }
  }
  state.counters["rows"] = static_cast<double>(rows);
  state.counters["rows/s"] = benchmark::Counter(static_cast<double>(rows) * static_cast<double>(state.iterations()),
                                                benchmark::Counter::kIsRate);
}
BENCHMARK(BM_SummaryAb)->Arg(0)->Arg(1)->ArgName("threads")->Unit(benchmark::kMillisecond)->UseRealTime();

// Pairing and the table alone, the rows already read.
void BM_PairAndTable(benchmark::State& state)
{
  const auto a = side("A", 0);
  const auto b = side("B", 0);
  for (auto _ : state) {
    const auto result = compare::compare(a, b, {});
    benchmark::DoNotOptimize(
        text::format_ab(result, text::AbView{"A", "B", "", "", false, {}}, text::Format::text).data());
  }
}
BENCHMARK(BM_PairAndTable)->Unit(benchmark::kMillisecond)->UseRealTime();

// The parser alone, one thread: one side's 500 000 rows.
void BM_ParseSide(benchmark::State& state)
{
  for (auto _ : state) {
    benchmark::DoNotOptimize(side("A", 1).size());
  }
}
BENCHMARK(BM_ParseSide)->Unit(benchmark::kMillisecond)->UseRealTime();

// What `zl summary A` does: one side's 500 000 rows folded as they are read (stream_all), never
// held; all cores.
void BM_SummaryStream(benchmark::State& state)
{
  const auto sources = parse::discover(campaign() + "/A");
  for (auto _ : state) {
    compare::SummaryFold fold;
    parse::stream_all(sources, fold);
    benchmark::DoNotOptimize(fold.finish().total.rows);
  }
}
BENCHMARK(BM_SummaryStream)->Unit(benchmark::kMillisecond)->UseRealTime();

} // namespace
