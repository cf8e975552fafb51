// zl_store_bench's generator: a year of FlagGems nightlies, made in memory and stored through
// the store's own API (Store::ingest), or written as run folders for the commands that read
// folders. Every value is a hash of (seed, campaign, op, dtype, shape): the same arguments give
// the same store, and a campaign's folders match its stored runs.
#include "results/model.hpp"
#include "results/parse/sources.hpp"
#include "results/parse/table_parser.hpp"
#include "results/store/store.hpp"
#include "run/identity_record.hpp"

#include <boost/filesystem.hpp>
#include <fmt/format.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>

namespace zl::bench::scale {

struct GenOptions
{
  std::string out;
  int campaigns = 30;
  int ops = 700;
  std::uint64_t seed = 1;
};

namespace {

std::uint64_t mix(std::uint64_t x)
{
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30U)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27U)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31U);
}

// A uniform in (0, 1) from the keys: one hash chain, so that no two keys collide by shifting.
template <typename Keys>
double uniform(std::uint64_t seed, const Keys& keys)
{
  std::uint64_t h = mix(seed);
  for (const auto k : keys) {
    h = mix(h ^ k);
  }
  return (static_cast<double>(h >> 11U) + 0.5) / 9007199254740992.0;
}

template <typename Keys>
double normal(std::uint64_t seed, const Keys& keys)
{
  const double u = uniform(seed, keys);
  const double v = uniform(seed ^ 0x5bd1e995ULL, keys);
  return std::sqrt(-2 * std::log(u)) * std::cos(6.283185307179586 * v);
}

// FlagGems-like names: real base names, numbered past the first round so that 700 stay unique.
std::string op_name(int i)
{
  static const std::array<const char*, 40> base = {
      "abs",         "add",     "addmm", "all",        "amax",  "argmax",     "bmm",
      "cat",         "clamp",   "cos",   "cumsum",     "div",   "dropout",    "embedding",
      "eq",          "exp",     "gelu",  "group_norm", "index", "layer_norm", "log",
      "log_softmax", "max",     "mean",  "mm",         "mul",   "mv",         "native_dropout",
      "ne",          "pow",     "relu",  "rms_norm",   "rsqrt", "sigmoid",    "silu",
      "sin",         "softmax", "sub",   "sum",        "where"};
  const auto n = static_cast<int>(base.size());
  const std::string name = base[static_cast<std::size_t>(i % n)];
  return i < n ? name : fmt::format("{}_{}", name, i / n);
}

constexpr std::array<const char*, 3> k_dtypes = {"torch.float16", "torch.bfloat16", "torch.float32"};

int dtypes_of(std::uint64_t seed, int op)
{
  const double u = uniform(seed, std::array<std::uint64_t, 2>{1, static_cast<std::uint64_t>(op)});
  return u < 0.15 ? 1 : (u < 0.40 ? 2 : 3); // mean 2.45: with 10..30 shapes, ~34,000 rows of 700 ops
}

int shapes_of(std::uint64_t seed, int op)
{
  return 10 + static_cast<int>(uniform(seed, std::array<std::uint64_t, 2>{2, static_cast<std::uint64_t>(op)}) * 21);
}

} // namespace

// Where the generated history changes, so that a reader of `zl history` knows what to expect:
// 3% steps (with a FlagGems commit change) at a third and two thirds, the timer's caliber
// change (graph -> direct) at four fifths.
int step_at(int campaigns, int k)
{
  return campaigns * k / 3;
}
int caliber_change_at(int campaigns)
{
  return campaigns * 4 / 5;
}
bool stepped_op(int op)
{
  return op % 50 == 0;
}
bool drifting_op(int op)
{
  return op % 97 == 1;
}

std::string campaign_name(int c)
{
  return fmt::format("night-{:03}", c);
}

namespace {

std::string started_at(int campaign, int op)
{
  const std::time_t t = 1735689600 + std::time_t{campaign} * 86400 + 3600 + std::time_t{op} * 5; // 2025-01-01
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::array<char, 32> buf{};
  std::strftime(buf.data(), buf.size(), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf.data();
}

std::string identity(const GenOptions& o, int c, int op, const std::string& timer)
{
  const int era = (c >= step_at(o.campaigns, 1) ? 1 : 0) + (c >= step_at(o.campaigns, 2) ? 1 : 0);
  const std::array<const char*, 3> commits = {"3f2a9c1d0b7e", "8c41e07a5d92", "c19b6f3e2a40"};
  return fmt::format(
      R"({{"schema": 1, "status": "ok", "duration_s": {:.1f}, "started_at": "{}", "zl_version": "0.1.0",)"
      R"( "flaggems_commit": "{}", "versions": {{"torch": "2.6.0", "triton": "3.2.0", "flag_gems": "2.2"}},)"
      R"( "backend": {{"name": "cuda", "module": "zl_backend_cuda", "version": "12.4"}},)"
      R"( "timer": {{"effective": "{}", "requested": "auto"}}, "level": "core", "mode": "kernel",)"
      R"( "tuner_cache": {{"mode": "shared"}}, "node": {{"op": "{}"}},)"
      R"( "device": {{"index": 0, "uuid": "GPU-5a1e", "name": "NVIDIA H200"}}}})",
      20 + 40 * uniform(o.seed, std::array<std::uint64_t, 2>{3, static_cast<std::uint64_t>(op)}), started_at(c, op),
      commits[static_cast<std::size_t>(era)], timer, op_name(op));
}

// FlagGems' no-TFLOPS table (tests/unit/results_helpers.hpp's table()), one a dtype.
std::string log_of(const GenOptions& o, int c, int op, const std::string& timer)
{
  std::string out = fmt::format("ZL_RUN zl_version=0.1.0 backend=cuda timer={} level=core mode=kernel\n", timer);
  const auto name = op_name(op);
  const std::string header = fmt::format("{:<10} {:>20} {:>20} {:>20} {:>20}", "Status", "Torch Latency (ms)",
                                         "Gems Latency (ms)", "Gems Speedup", "Size Detail");
  double level = 1.0;
  for (int k = 1; k <= 2; ++k) {
    level *= stepped_op(op) && c >= step_at(o.campaigns, k) ? 1.03 : 1.0;
  }
  level *= drifting_op(op) ? std::pow(1.002, c) : 1.0;
  for (int d = 0; d < dtypes_of(o.seed, op); ++d) {
    out += fmt::format("\nOperator: {}  Performance Test (dtype={}, mode=kernel,level=core)\n", name,
                       k_dtypes[static_cast<std::size_t>(d)]);
    out += header + "\n" + std::string(header.size() + 1, '-') + "\n";
    for (int s = 0; s < shapes_of(o.seed, op); ++s) {
      const auto key = [&](std::uint64_t what) {
        return std::array<std::uint64_t, 4>{what, static_cast<std::uint64_t>(op), static_cast<std::uint64_t>(d),
                                            static_cast<std::uint64_t>(s)};
      };
      // log-uniform 0.005..5 ms a series, 1% multiplicative noise a campaign
      const double base = 0.005 * std::pow(1000.0, uniform(o.seed, key(4)));
      const double speedup = 0.5 * std::pow(4.0, uniform(o.seed, key(5)));
      const double noise = std::exp(0.01 * normal(o.seed ^ static_cast<std::uint64_t>(c) * 7919U, key(6)));
      const double gems = base * level * noise;
      const double torch = gems * speedup;
      out += fmt::format("{:<10}{:>20.6f}{:>20.6f}{:>20.3f}          [torch.Size([{}, {}])]\n", "SUCCESS", torch, gems,
                         torch / gems, 64 * (s + 1), 1U << static_cast<unsigned>(6 + s % 8));
    }
  }
  return out + "\n";
}

std::string timer_at(const GenOptions& o, int c)
{
  return c >= caliber_change_at(o.campaigns) ? "direct" : "graph";
}

// A stored run as Store::ingest_run would read the folder: the identity's fields, then the log.
results::Run run_of(const GenOptions& o, int c, int op, const std::string& path)
{
  results::Run run;
  auto& i = run.info;
  i.path = path;
  i.kind = "run";
  i.log_file = path + "/run.log";
  i.identity_json = identity(o, c, op, timer_at(o, c));
  results::parse::fill_info(i, run::parse_identity(i.identity_json, path + "/run_identity.json"));
  auto parsed = results::parse::parse_text_log(run.text.adopt(log_of(o, c, op, i.caliber.timer)), i.log_file, run.text,
                                               run.diagnostics);
  run.rows = std::move(parsed.rows);
  run.markers = std::move(parsed.markers);
  return run;
}

void write_text(const std::string& path, const std::string& text)
{
  std::ofstream(path, std::ios::binary) << text;
}

} // namespace

// Campaign c's run folders under root/night-XXX/<op>: run_identity.json and run.log.
std::string write_campaign(const GenOptions& o, int c, const std::string& root)
{
  auto dir = root + "/" + campaign_name(c);
  for (int op = 0; op < o.ops; ++op) {
    const auto run_dir = dir + "/" + op_name(op);
    boost::filesystem::create_directories(run_dir);
    write_text(run_dir + "/run_identity.json", identity(o, c, op, timer_at(o, c)));
    write_text(run_dir + "/run.log", log_of(o, c, op, timer_at(o, c)));
  }
  return dir;
}

// DIR/store.sqlite with campaigns 0..N-1, and DIR/scale.txt (N, ops, seed) for the time mode.
// Returns the rows stored.
long long generate_store(const GenOptions& o)
{
  boost::filesystem::create_directories(o.out);
  const auto db = o.out + "/store.sqlite";
  boost::filesystem::remove(db);
  boost::filesystem::remove(db + "-wal");
  boost::filesystem::remove(db + "-shm");
  results::store::Store store(db);
  long long rows = 0;
  for (int c = 0; c < o.campaigns; ++c) {
    for (int op = 0; op < o.ops; ++op) {
      rows += store.ingest(run_of(o, c, op, o.out + "/" + campaign_name(c) + "/" + op_name(op)));
    }
    if (c % 10 == 9) {
      fmt::print(stderr, "generated {} of {} campaigns, {} rows\n", c + 1, o.campaigns, rows);
    }
  }
  write_text(o.out + "/scale.txt", fmt::format("{} {} {}\n", o.campaigns, o.ops, o.seed));
  return rows;
}

std::string op_name_of(int op)
{
  return op_name(op);
}

} // namespace zl::bench::scale
