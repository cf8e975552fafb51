// FlagGems' autotune cache (LibTuner/LibCache): where it is and how warm it is before a run,
// so that a warm-cache run can never pass for a cold one.
#pragma once

#include "util/fields.hpp"

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace zl::run {

struct TunerCache
{
  std::string mode;                        // "shared" or "isolated"
  std::string path;                        // FLAGGEMS_CACHE_DIR in force
  std::optional<long long> entries_before; // tuned configs stored before the run; nullopt if unknown
  std::vector<std::string> databases;      // the SQLite files counted
  std::string note;                        // why entries_before is unknown, or other caveats
};

enum class TunerCacheField { mode, path, entries_before, databases, note, removed_after };

// The one serializer of the tuner cache (plan.json, run_identity.json): the fields picked, in
// that order, as members of the JSON object being written. removed_after: an isolated cache is.
void to_json(util::JsonWriter& j, const TunerCache& cache, std::initializer_list<util::Pick<TunerCacheField>> fields);

// The cache in force for a run: FLAGGEMS_CACHE_DIR, else ~/.flaggems with ~ found as Python's
// Path.home() finds it (HOME, else the passwd entry); FLAGGEMS_DB_URL when it names another
// SQLite file.
std::string default_cache_dir();

// Counts the rows of every config table (not the *_benchmark_v2 timing tables) in
// <dir>/config_cache/TunedConfig_*.db, or in the SQLite file FLAGGEMS_DB_URL names.
TunerCache inspect_tuner_cache(const std::string& dir, const std::string& mode);

// A read-only SQLite URI for a file path, percent-encoded: '#', '?' and '%' in a folder name
// would otherwise end the path or start an escape.
std::string sqlite_uri(const std::string& path);

// Rows of the config tables of one SQLite file; throws Error naming the file on failure.
long long count_tuned_entries(const std::string& db_path);

} // namespace zl::run
