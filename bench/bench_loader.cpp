// Discovering and loading every backend module: what `zl backends` costs before it prints.
#include "loader/registry.hpp"

#include <benchmark/benchmark.h>

static void BM_DiscoverBackends(benchmark::State& state)
{
  for (auto _ : state) {
    auto registry = zl::loader::Registry::discover({{ZL_BENCH_BACKEND_DIR, "bench"}});
    benchmark::DoNotOptimize(registry.modules().size());
  }
}
BENCHMARK(BM_DiscoverBackends)->Unit(benchmark::kMillisecond);

static void BM_SelectAutomatically(benchmark::State& state)
{
  const auto registry = zl::loader::Registry::discover({{ZL_BENCH_BACKEND_DIR, "bench"}});
  for (auto _ : state) {
    benchmark::DoNotOptimize(registry.select(std::nullopt, "").module);
  }
}
BENCHMARK(BM_SelectAutomatically)->Unit(benchmark::kMillisecond);
