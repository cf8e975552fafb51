// What the zl_autotune plugin reported in a run log: the fallbacks of a replay, the configs a
// record run benchmarked, and its end-of-session summary. The identity carries these counts,
// so a run that replayed with holes cannot pass for one that pinned every key.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace zl::run {

using MarkerFields = std::vector<std::pair<std::string, std::string>>;

struct AutotuneTally
{
  long long fallbacks = 0;           // AUTOTUNE_REPLAY_FALLBACK lines
  long long tuned_keys = 0;          // AUTOTUNE_BENCHMARKED lines
  long long configs_benchmarked = 0; // the sum of their configs=
  MarkerFields summary;              // AUTOTUNE_SUMMARY's fields; empty when the plugin never got there
};

// The fields of a marker line after its name: key=value, a value bare or a JSON string.
MarkerFields parse_marker_fields(std::string_view rest);

// Reads the marker lines of a run log.
AutotuneTally tally_autotune(std::string_view log);

} // namespace zl::run
