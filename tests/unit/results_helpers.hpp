// Helpers for the results tests: FlagGems tables written in code, runs made from them, and run
// folders on disk shaped as `zl run` leaves them.
#pragma once

#include "results/model.hpp"
#include "results/parse/table_parser.hpp"

#include <boost/filesystem.hpp>
#include <fmt/format.h>

#include <fstream>
#include <string>
#include <vector>

namespace zl::test {

struct TableRow
{
  std::string shape;
  double torch_ms = 0, gems_ms = 0; // gems_ms 0: a FAILED row
};

// One table in FlagGems' no-TFLOPS format (docs/flaggems-facts.md §1).
inline std::string table(const std::string& op, const std::string& dtype, const std::vector<TableRow>& rows,
                         const std::string& level = "core")
{
  std::string out =
      fmt::format("\nOperator: {}  Performance Test (dtype={}, mode=kernel,level={})\n", op, dtype, level);
  const std::string header = fmt::format("{:<10} {:>20} {:>20} {:>20} {:>20}", "Status", "Torch Latency (ms)",
                                         "Gems Latency (ms)", "Gems Speedup", "Size Detail");
  out += header + "\n" + std::string(header.size() + 1, '-') + "\n";
  for (const auto& r : rows) {
    if (r.gems_ms == 0) {
      out += fmt::format("{:<10}{:>20}{:>20}{:>20}          {}\n", "FAILED", "N/A", "N/A", "N/A", r.shape);
    } else {
      out += fmt::format("{:<10}{:>20.6f}{:>20.6f}{:>20.3f}          {}\n", "SUCCESS", r.torch_ms, r.gems_ms,
                         r.torch_ms / r.gems_ms, r.shape);
    }
  }
  return out + "\n";
}

// A run made from a log text, with the caliber an identity would give it.
inline results::Run run_of(const std::string& log,
                           const results::Caliber& caliber = {"cuda", "core", "graph", "kernel", "shared"})
{
  results::Run run;
  static int count = 0;
  run.info.path = "/runs/" + std::to_string(++count);
  run.info.kind = "run";
  run.info.log_file = "run.log";
  run.info.caliber = caliber;
  auto parsed = results::parse::parse_text_log(run.text.adopt(log), "run.log", run.text, run.diagnostics);
  run.rows = std::move(parsed.rows);
  run.markers = std::move(parsed.markers);
  return run;
}

inline void write_text(const std::string& path, const std::string& text)
{
  std::ofstream(path, std::ios::binary) << text;
}

// A run folder: run_identity.json with the caliber fields zl reads, and run.log.
inline void write_run(const std::string& dir, const std::string& log, const std::string& op = "abs",
                      const std::string& timer = "graph", double duration_s = 10, const std::string& status = "ok")
{
  boost::filesystem::create_directories(dir);
  write_text(dir + "/run_identity.json",
             fmt::format(R"({{"schema": 1, "status": "{}", "duration_s": {}, "backend": {{"name": "cuda"}},
 "timer": {{"effective": "{}", "requested": "auto"}}, "level": "core", "mode": "kernel",
 "tuner_cache": {{"mode": "shared"}}, "node": {{"op": "{}"}}, "device": {{"uuid": "GPU-1", "name": "H200"}},
 "record_log": "record.log"}})",
                         status, duration_s, timer, op));
  write_text(dir + "/run.log",
             fmt::format("ZL_RUN zl_version=0.1.0 backend=cuda timer={} level=core mode=kernel\n", timer) + log);
}

} // namespace zl::test
