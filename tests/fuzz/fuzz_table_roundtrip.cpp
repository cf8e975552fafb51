// Structure-aware differential check of the table reader: tables written the way FlagGems' Python
// prints them (benchmark/performance_utils.py: a title, a column header, rows of 20-wide cells, ten
// spaces, the Size Detail) from fuzzed values parse back to the same op, dtype, cells and shapes.
#include "fuzz_util.hpp"
#include "results/parse/table_parser.hpp"

#include <fmt/format.h>
#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace {

struct Expected
{
  std::string op, dtype, shape;
  bool success = true;
  std::vector<std::string> cells; // as printed: torch, gems, speedup, then the extra columns
};

std::string word(FuzzedDataProvider& in, const char* alphabet, std::size_t max)
{
  std::string out;
  const std::string_view a(alphabet);
  for (auto n = in.ConsumeIntegralInRange<std::size_t>(1, max); n > 0; --n) {
    out += a[in.ConsumeIntegralInRange<std::size_t>(0, a.size() - 1)];
  }
  return out;
}

bool same(double parsed, const std::string& printed)
{
  if (printed == "N/A") {
    return std::isnan(parsed);
  }
  return parsed == std::strtod(printed.c_str(), nullptr);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  FuzzedDataProvider in(data, size);
  static const char* const k_dtypes[] = {"torch.float16", "torch.float32", "torch.bfloat16",
                                         "torch.int32",   "torch.bool",    "torch.complex64"};
  static const char* const k_extras[][3] = {
      {}, {"TFLOPS"}, {"Torch GBPS", "Gems GBPS"}, {"TFLOPS", "Torch GBPS", "Gems GBPS"}};
  std::string text;
  std::vector<Expected> expected;
  for (auto tables = in.ConsumeIntegralInRange(1, 4); tables > 0 && in.remaining_bytes() > 0; --tables) {
    const auto op = word(in, "abcdefghijklmnopqrstuvwxyz_0123456789", 12);
    const std::string dtype = k_dtypes[in.ConsumeIntegralInRange<std::size_t>(0, std::size(k_dtypes) - 1)];
    const auto extra = in.ConsumeIntegralInRange<std::size_t>(0, 3);
    const std::size_t extras = extra == 3 ? 3 : extra;
    text +=
        fmt::format("\nOperator: {}  Performance Test (dtype={}, mode=kernel,level=core)\n{:<10}", op, dtype, "Status");
    for (const char* name : {"Torch Latency (ms)", "Gems Latency (ms)", "Gems Speedup"}) {
      text += fmt::format(" {:>20}", name);
    }
    for (std::size_t k = 0; k < extras; ++k) {
      text += fmt::format(" {:>20}", k_extras[extra][k]);
    }
    text += fmt::format(" {:>20}\n{}\n", "Size Detail", std::string(120, '-'));
    // FlagGems prints a table only with its rows; one without is reported, rightly.
    for (auto rows = in.ConsumeIntegralInRange(1, 6); rows > 0; --rows) {
      Expected e{op, dtype, "[torch.Size([" + word(in, "0123456789, ", 16) + "])]", in.ConsumeBool(), {}};
      auto cell = [&](int decimals) {
        return e.success ? fmt::format("{:.{}f}", in.ConsumeIntegral<std::uint32_t>() / 1000.0, decimals) : "N/A";
      };
      std::string line = fmt::format("{:<10}", e.success ? "SUCCESS" : "FAILED");
      for (int decimals : {6, 6, 3}) {
        e.cells.push_back(cell(decimals));
      }
      for (std::size_t k = 0; k < extras; ++k) {
        e.cells.push_back(cell(3));
      }
      for (const auto& c : e.cells) {
        line += fmt::format("{:>20}", c);
      }
      text += line + "          " + e.shape + "\n";
      expected.push_back(std::move(e));
    }
  }
  zl::results::TextStore store;
  std::vector<zl::results::Diagnostic> diags;
  const auto log = zl::results::parse::parse_text_log(text, "run.log", store, diags);
  // What was written, and why it did not read back, for whoever replays a failing input.
  auto fail = [&](const std::string& why) {
    std::fprintf(stderr, "%s\n--- the log written:\n%s---\n", why.c_str(), text.c_str());
    __builtin_trap();
  };
  if (!diags.empty()) {
    fail(fmt::format("line {}: {}", diags[0].line, diags[0].reason));
  }
  if (log.rows.size() != expected.size()) {
    fail(fmt::format("{} rows read, {} written", log.rows.size(), expected.size()));
  }
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const auto& r = log.rows[i];
    const auto& e = expected[i];
    const double extra[] = {r.tflops, r.torch_gbps, r.gems_gbps};
    const double* extras = e.cells.size() == 5 ? extra + 1 : extra; // a GBPS pair without TFLOPS
    bool ok = r.op() == e.op && r.dtype() == e.dtype && r.shape == e.shape && r.success == e.success &&
              same(r.torch_ms, e.cells[0]) && same(r.gems_ms, e.cells[1]) && same(r.speedup, e.cells[2]);
    for (std::size_t k = 3; k < e.cells.size(); ++k) {
      ok = ok && same(extras[k - 3], e.cells[k]);
    }
    if (!ok) {
      fail(fmt::format("row {} reads back otherwise", i + 1));
    }
  }
  return 0;
}
