// FlagGems' text output (tables, failure lines, pytest's summary, zl's markers) as `zl summary
// [--db FILE] LOG` reads it: results::load of a text log, the run stored and read back, then the
// summary. Differential: the store gives back the rows the log gave.
#include "fuzz_util.hpp"
#include "results/compare/summary.hpp"
#include "results/parse/sources.hpp"
#include "results/store/store.hpp"
#include "util/error.hpp"

#include <cmath>
#include <memory>
#include <vector>

namespace {

bool same(double a, double b)
{
  return a == b || (std::isnan(a) && std::isnan(b));
}

bool same(const zl::results::Row& a, const zl::results::Row& b)
{
  return a.op() == b.op() && a.dtype() == b.dtype() && a.shape == b.shape && a.success == b.success &&
         same(a.torch_ms, b.torch_ms) && same(a.gems_ms, b.gems_ms) && same(a.speedup, b.speedup) &&
         same(a.tflops, b.tflops) && same(a.torch_gbps, b.torch_gbps) && same(a.gems_gbps, b.gems_gbps);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  // One store for the whole run, in memory: ingesting the same path again replaces the run.
  static zl::results::store::Store store(":memory:");
  zl::results::parse::Source source;
  source.path = "/fuzz/run.log";
  source.kind = zl::results::parse::Source::Kind::text_log;
  source.content = std::make_shared<const std::string>(zl::fuzz::as_text(data, size));
  std::vector<zl::results::Run> runs;
  try {
    runs.push_back(zl::results::parse::load(source));
  } catch (const zl::Error&) {
    return 0;
  }
  store.ingest(runs[0]);
  const auto back = store.load({source.path});
  if (back.size() != 1 || back[0].rows.size() != runs[0].rows.size()) {
    __builtin_trap();
  }
  for (std::size_t i = 0; i < back[0].rows.size(); ++i) {
    if (!same(back[0].rows[i], runs[0].rows[i])) {
      __builtin_trap();
    }
  }
  zl::results::compare::summarize(runs);
  return 0;
}
