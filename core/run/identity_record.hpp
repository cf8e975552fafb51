// run_identity.json as data: the one type that the campaign, the store, summaries, reports and
// receipts read a run's identity into, and the one reader. run/identity.cpp writes the file
// (docs/plan-file.md); the keys both sides use are the constants below.
#pragma once

#include "util/error.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace zl::run {

// The file's name in a run folder.
inline constexpr const char* k_identity_file = "run_identity.json";

// The keys identity_json() writes and parse_identity() reads. The members of backend, device,
// tuner_cache and node come from those objects' field tables (loader/fields.cpp,
// run/tuner_cache.cpp, run/node.cpp), shared with plan.json: test_run_identity.cpp reads back
// what the writer wrote, which holds both sides to one spelling.
namespace identity_key {
inline constexpr const char* k_zl_version = "zl_version";
inline constexpr const char* k_zl_binary = "zl_binary";
inline constexpr const char* k_status = "status";
inline constexpr const char* k_started_at = "started_at";
inline constexpr const char* k_duration_s = "duration_s";
inline constexpr const char* k_backend = "backend";
inline constexpr const char* k_device = "device";
inline constexpr const char* k_timer = "timer";
inline constexpr const char* k_effective = "effective"; // timer's
inline constexpr const char* k_requested = "requested"; // timer's
inline constexpr const char* k_level = "level";
inline constexpr const char* k_mode = "mode"; // also tuner_cache's
inline constexpr const char* k_dtypes = "dtypes";
inline constexpr const char* k_tuner_cache = "tuner_cache";
inline constexpr const char* k_node = "node";
inline constexpr const char* k_flaggems_dir = "flaggems_dir";
inline constexpr const char* k_flaggems_commit = "flaggems_commit";
inline constexpr const char* k_versions = "versions";
inline constexpr const char* k_pytest_extra_args = "pytest_extra_args";
inline constexpr const char* k_executor = "executor";
inline constexpr const char* k_slurm = "slurm";
inline constexpr const char* k_job_id = "job_id"; // slurm's, as the next three
inline constexpr const char* k_array_job_id = "array_job_id";
inline constexpr const char* k_array_task_id = "array_task_id";
inline constexpr const char* k_slurm_node = "node";
inline constexpr const char* k_record_log = "record_log";
inline constexpr const char* k_name = "name";       // backend's, device's, executor's
inline constexpr const char* k_module = "module";   // backend's
inline constexpr const char* k_version = "version"; // backend's
inline constexpr const char* k_index = "index";     // device's
inline constexpr const char* k_uuid = "uuid";       // device's
inline constexpr const char* k_op = "op";           // node's
} // namespace identity_key

// What zl reads of a run's identity. A string is "" where the file has no such key or has null
// (the writer's "none"); an optional is empty likewise, where "none" and "empty" differ (an
// identity older than pytest_extra_args does not say the arguments were none). Keys not listed
// are ignored: the file's contract is that readers ignore keys they do not know.
struct Identity
{
  struct Backend
  {
    std::string name, module, version; // module: the backend's shared object
  };
  struct Device
  {
    std::optional<long long> index;
    std::string uuid, name;
  };
  struct Timer
  {
    std::string effective, requested; // graph, direct, profiler; requested may be auto
  };
  struct Slurm
  {
    std::string job_id, array_job_id, array_task_id, node;
  };

  std::string zl_version;
  std::string zl_binary;  // the zl that ran it
  std::string status;     // how the run ended: ok, failed, unsupported, skipped, crashed, … (run::Outcome)
  std::string started_at; // UTC, ISO 8601
  std::optional<double> duration_s;
  Backend backend;
  Device device;
  Timer timer;
  std::string level, mode;
  std::optional<std::vector<std::string>> dtypes;
  std::string tuner_cache; // tuner_cache.mode: shared, isolated, …
  std::string op;          // node.op
  std::string flaggems_dir, flaggems_commit;
  // The versions the Python probe found (torch, triton, …): its string members, in order.
  std::vector<std::pair<std::string, std::string>> versions;
  std::optional<std::vector<std::string>> pytest_extra_args; // nullopt: not recorded; {}: none given
  std::string executor = "process"; // executor.name; identities without it were all a fresh process's
  std::optional<Slurm> slurm;       // the job, where the run was one
  std::string record_log;           // FlagGems' record log, as named in the run folder
  // The device's caliber as its telemetry read it: "clocks_locked=no power_limit_w=700 ecc=on
  // mig=off", the fields read only; "" where the run read none.
  std::string device_state;
  std::string driver; // telemetry.driver: the device driver's version; "" where the run read none
};

// A document that is not a run identity: malformed JSON, not an object, a known key of the
// wrong type. what() names the file and the fix; reason() (what is wrong, without the file) and
// line() are for a diagnostic that names the file itself (line 0: not known).
class IdentityError : public Error
{
public:
  IdentityError(const std::string& message, std::size_t line, const std::string& reason);
  const std::string& reason() const noexcept { return m_reason; }
  std::size_t line() const noexcept { return m_line; }

private:
  std::string m_reason;
  std::size_t m_line;
};

// The identity text of file (named in errors). Throws IdentityError.
Identity parse_identity(std::string_view text, const std::string& file);
// The same, or none where the text is not an identity: for what tolerates a broken one.
std::optional<Identity> try_parse_identity(std::string_view text);

// <run_dir>/run_identity.json. Throws Error naming the file: absent, unreadable (not a regular
// file, too large), or IdentityError.
Identity read_identity(const std::string& run_dir);
// The same, or none where the run has no readable, well-formed identity (a run stopped before
// zl wrote it, a damaged file): for a caller that goes on without one.
std::optional<Identity> try_read_identity(const std::string& run_dir);

} // namespace zl::run
