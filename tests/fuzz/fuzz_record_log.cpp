// FlagGems' record log (--record log), alone as `zl summary record.log` reads it, and merged into
// the text log of the same run (input: the text log, k_part_separator, the record log).
#include "fuzz_util.hpp"
#include "results/parse/record_log.hpp"
#include "results/parse/sources.hpp"
#include "results/parse/table_parser.hpp"
#include "util/error.hpp"

#include <memory>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  const auto input = zl::fuzz::as_text(data, size);
  zl::results::parse::Source source;
  source.path = "/fuzz/record.log";
  source.kind = zl::results::parse::Source::Kind::record_log;
  source.content = std::make_shared<const std::string>(input);
  try {
    zl::results::parse::load(source);
  } catch (const zl::Error&) {
  }
  const auto parts = zl::fuzz::split_parts(input, 2);
  zl::results::TextStore store;
  std::vector<zl::results::Diagnostic> diags;
  auto log = zl::results::parse::parse_text_log(parts[0], "run.log", store, diags);
  const auto entries = zl::results::parse::parse_record_log(parts[1], "record.log", diags);
  if (zl::results::parse::merge_record(log.rows, log.tables, entries, "graph", store, "record.log", diags, diags)) {
    zl::results::parse::number_occurrences(log.rows);
  }
  return 0;
}
