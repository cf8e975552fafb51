// zl's own cost per run: loading the backend, planning, preflight, writing the run folder;
// everything but pytest, which is replaced by /bin/true (it also answers the pytest probe).
#include "loader/registry.hpp"
#include "run/plan.hpp"
#include "run/preflight.hpp"
#include "run/runner.hpp"

#include <benchmark/benchmark.h>
#include <boost/filesystem.hpp>

#include <cstdio>
#include <fcntl.h>
#include <unistd.h>

static void BM_RunWithoutPytest(benchmark::State& state)
{
  const auto root = boost::filesystem::temp_directory_path() / boost::filesystem::unique_path("zl-bench-%%%%%%");
  // The run header and pytest's output go to /dev/null while timing; the report needs stdout back.
  std::fflush(stdout);
  const int saved = ::dup(1);
  const int null_fd = ::open("/dev/null", O_WRONLY);
  ::dup2(null_fd, 1);
  int i = 0;
  for (auto _ : state) {
    auto registry = zl::loader::Registry::discover({{ZL_BENCH_BACKEND_DIR, "bench"}});
    const auto& cpu = registry.find("cpu", "bench");
    zl::run::Request r;
    r.flaggems_dir = ZL_BENCH_CORPUS_DIR;
    r.flaggems_dir_from = "bench";
    r.op = "abs";
    r.python = "/bin/true";
    r.out_dir = (root / std::to_string(i++)).string();
    const auto node = zl::run::resolve_node(r.flaggems_dir, r.op, "", "");
    zl::run::preflight({r.flaggems_dir, "bench", node.file, node.how, "", "", r.python});
    const auto plan = zl::run::make_plan(r, cpu, "bench");
    benchmark::DoNotOptimize(zl::run::execute(plan));
  }
  std::fflush(stdout);
  ::dup2(saved, 1);
  ::close(saved);
  ::close(null_fd);
  boost::filesystem::remove_all(root);
}
BENCHMARK(BM_RunWithoutPytest)->Unit(benchmark::kMillisecond);
