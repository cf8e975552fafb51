// zl_store_bench: how zl's own commands scale with a year of nightlies in the results store.
// Figures go in docs/scale.md, never in a test. Run (docs/scale.md gives the figures):
//
//   /tmp/zl-dev/build zl zl_store_bench
//   build/bin/zl_store_bench all --campaigns 30,100 --zl build/bin/zl
//
// The store is generated through Store::ingest (bench/store_scale_gen.cpp); each command is the
// real zl binary, spawned without a shell, its wall time and peak RSS taken from wait4.
#include <boost/filesystem.hpp>
#include <fmt/format.h>

#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fcntl.h>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

extern char** environ;

namespace zl::bench::scale {

// From store_scale_gen.cpp (a bench of two files needs no header of its own).
struct GenOptions
{
  std::string out;
  int campaigns = 30;
  int ops = 700;
  std::uint64_t seed = 1;
};
long long generate_store(const GenOptions& o);
std::string write_campaign(const GenOptions& o, int c, const std::string& root);
std::string campaign_name(int c);
std::string op_name_of(int op);

} // namespace zl::bench::scale

namespace {

namespace scale = zl::bench::scale;
namespace fs = boost::filesystem;

constexpr const char* k_usage = R"(Usage: zl_store_bench generate --out DIR --campaigns N [--ops 700] [--seed S]
       zl_store_bench time --store DIR/store.sqlite --zl PATH
       zl_store_bench all --campaigns 30,100,365 --zl PATH [--ops 700] [--seed S] [--root /tmp/zl-scale]

generate: DIR/store.sqlite with N nightly campaigns (DIR/night-000 … as run paths) of OPS ops,
1-3 dtypes and 10-30 shapes each (~34,000 rows a campaign at 700 ops), made in memory and stored
by Store::ingest: latencies log-uniform 0.005-5 ms a series with 1% noise a campaign, 3% steps on
every 50th op at N/3 and 2N/3 (with a FlagGems commit change there), a 0.2%-a-campaign drift on
every 97th op from op 1, and a caliber change (timer graph -> direct) at 4N/5. No samples.

time: writes the last two campaigns' run folders (and a new one, N) beside the store and times,
each as a child process of PATH: zl summary of the latest campaign folder, zl summary --ab of
the last two, zl report --db --history 365, zl history --db --op abs, and last the ingest of one
more campaign (zl summary --db FILE <campaign N folder>: it stays in the store). Prints command,
store size (campaigns, rows, MB), wall s and peak RSS MB (wait4's ru_maxrss).

all: generate and time for each N, under ROOT/cN.
)";

struct Timing
{
  double wall_s = 0;
  double peak_mb = 0;
  int status = 0;
};

// Runs argv (no shell), its output to out_file, and returns its wall time and peak RSS.
Timing spawn_timed(const std::vector<std::string>& argv, const std::string& out_file)
{
  std::vector<char*> args;
  for (const auto& a : argv) {
    args.push_back(const_cast<char*>(a.c_str()));
  }
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    throw std::runtime_error(fmt::format("cannot start {}: {}", argv[0], std::strerror(rc)));
  }
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  Timing t;
  t.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  t.peak_mb = static_cast<double>(usage.ru_maxrss) / 1024.0; // kB on Linux
  t.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return t;
}

std::map<std::string, std::string> options(int argc, char** argv)
{
  std::map<std::string, std::string> out;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    if (k.rfind("--", 0) != 0) {
      throw std::runtime_error(fmt::format("unexpected argument {}", k));
    }
    out[k.substr(2)] = argv[i + 1];
  }
  return out;
}

std::string need(const std::map<std::string, std::string>& o, const std::string& key)
{
  const auto it = o.find(key);
  if (it == o.end()) {
    throw std::runtime_error(fmt::format("--{} is required (see --help)", key));
  }
  return it->second;
}

std::string get(const std::map<std::string, std::string>& o, const std::string& key, const std::string& fallback)
{
  const auto it = o.find(key);
  return it == o.end() ? fallback : it->second;
}

struct Line
{
  std::string command;
  int campaigns = 0;
  long long rows = 0;
  double store_mb = 0;
  Timing t;
};

void print_table(const std::vector<Line>& lines)
{
  fmt::print("{:<44} {:>9} {:>10} {:>9} {:>8} {:>8} {:>4}\n", "command", "campaigns", "rows", "store MB", "wall s",
             "peak MB", "rc");
  for (const auto& l : lines) {
    fmt::print("{:<44} {:>9} {:>10} {:>9.0f} {:>8.2f} {:>8.0f} {:>4}\n", l.command, l.campaigns, l.rows, l.store_mb,
               l.t.wall_s, l.t.peak_mb, l.t.status);
  }
  std::fflush(stdout);
}

double store_mb(const std::string& db)
{
  double bytes = 0;
  for (const auto& f : {db, db + "-wal"}) {
    bytes += fs::exists(f) ? static_cast<double>(fs::file_size(f)) : 0.0;
  }
  return bytes / 1048576.0;
}

// The store's campaigns and rows, through zl itself would cost a command: scale.txt and a count.
scale::GenOptions read_meta(const std::string& db, long long& rows)
{
  scale::GenOptions o;
  o.out = fs::path(db).parent_path().string();
  std::ifstream in(o.out + "/scale.txt");
  if (!(in >> o.campaigns >> o.ops >> o.seed >> rows)) {
    throw std::runtime_error(
        fmt::format("{}/scale.txt is missing: make the store with zl_store_bench generate", o.out));
  }
  return o;
}

std::vector<Line> time_store(const std::string& db, const std::string& zl)
{
  long long rows = 0;
  const auto o = read_meta(db, rows);
  const auto latest = scale::write_campaign(o, o.campaigns - 1, o.out);
  const auto before = scale::write_campaign(o, o.campaigns - 2, o.out);
  const auto log = o.out + "/zl-output.txt";
  const auto html = o.out + "/history.html";
  const auto op = scale::op_name_of(0);
  std::vector<std::pair<std::string, std::vector<std::string>>> commands = {
      {"zl summary <latest campaign folder>", {zl, "summary", latest}},
      {"zl summary --ab <previous> <latest>", {zl, "summary", "--ab", before, latest}},
      {"zl report --db F --history 365", {zl, "report", "--db", db, "--history", "365", "-o", html}},
      {"zl history --db F --op " + op, {zl, "history", "--db", db, "--op", op}},
  };
  std::vector<Line> lines;
  for (const auto& [name, argv] : commands) {
    lines.push_back({name, o.campaigns, rows, store_mb(db), spawn_timed(argv, log)});
    fmt::print(stderr, "{}: {:.2f} s\n", name, lines.back().t.wall_s);
  }
  // Last, since it adds a campaign to the store: the nightly's own ingest.
  const auto next = scale::write_campaign(o, o.campaigns, o.out);
  lines.push_back({"zl summary --db F <new campaign folder>", o.campaigns, rows, store_mb(db),
                   spawn_timed({zl, "summary", "--db", db, next}, log)});
  return lines;
}

std::vector<int> sizes(const std::string& list)
{
  std::vector<int> out;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) {
    out.push_back(std::stoi(item));
  }
  return out;
}

// Generates one store and records its size beside it (rows: for the table).
Line generate(const scale::GenOptions& o)
{
  const auto start = std::chrono::steady_clock::now();
  const auto rows = scale::generate_store(o);
  std::ofstream(o.out + "/scale.txt", std::ios::app) << rows << "\n";
  Line l{fmt::format("generate ({} ops, in-process Store::ingest)", o.ops),
         o.campaigns,
         rows,
         store_mb(o.out + "/store.sqlite"),
         {}};
  l.t.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  rusage self{};
  getrusage(RUSAGE_SELF, &self);
  l.t.peak_mb = static_cast<double>(self.ru_maxrss) / 1024.0;
  return l;
}

int run(int argc, char** argv)
{
  const std::string mode = argc > 1 ? argv[1] : "--help";
  if (mode == "--help" || mode == "-h") {
    fmt::print("{}", k_usage);
    return 0;
  }
  const auto o = options(argc, argv);
  scale::GenOptions g;
  g.ops = std::stoi(get(o, "ops", "700"));
  g.seed = std::stoull(get(o, "seed", "1"));
  if (mode == "generate") {
    g.out = need(o, "out");
    g.campaigns = std::stoi(need(o, "campaigns"));
    print_table({generate(g)});
    return 0;
  }
  if (mode == "time") {
    print_table(time_store(need(o, "store"), fs::absolute(need(o, "zl")).string()));
    return 0;
  }
  if (mode == "all") {
    const auto zl = fs::absolute(need(o, "zl")).string();
    std::vector<Line> lines;
    for (const int n : sizes(need(o, "campaigns"))) {
      g.campaigns = n;
      g.out = fmt::format("{}/c{}-ops{}", get(o, "root", "/tmp/zl-scale"), n, g.ops);
      lines.push_back(generate(g));
      const auto timed = time_store(g.out + "/store.sqlite", zl);
      lines.insert(lines.end(), timed.begin(), timed.end());
      print_table(lines);
    }
    return 0;
  }
  throw std::runtime_error(fmt::format("unknown mode {} (see --help)", mode));
}

} // namespace

int main(int argc, char** argv)
{
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "zl_store_bench: %s\n", e.what());
    return 2;
  }
}
