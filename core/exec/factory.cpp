#include "exec/factory.hpp"

#include "exec/process.hpp"
#include "exec/warm.hpp"
#include "util/error.hpp"
#include "util/string.hpp"

#include <fmt/format.h>

#include <functional>
#include <utility>

namespace zl::exec {

namespace {

using Maker = std::function<std::unique_ptr<Executor>(const ExecutorSetup&)>;

const std::vector<std::pair<std::string, Maker>>& table()
{
  static const std::vector<std::pair<std::string, Maker>> t = {
      {"process", [](const ExecutorSetup& s) { return std::make_unique<ProcessExecutor>(s.zl, s.devices.size()); }},
      {"warm", [](const ExecutorSetup& s) { return std::make_unique<WarmExecutor>(s); }},
      // Not an executor of one host: core/slurm/campaign.cpp submits the campaign, and each
      // array task carries out its ops with the warm executor.
      {"slurm", nullptr},
  };
  return t;
}

} // namespace

std::vector<std::string> executor_names()
{
  std::vector<std::string> names;
  for (const auto& [name, _] : table()) {
    names.push_back(name);
  }
  return names;
}

std::unique_ptr<Executor> make_executor(const std::string& name, const ExecutorSetup& setup)
{
  check_executor_name(name);
  for (const auto& [known, make] : table()) {
    if (known == name && make) {
      return make(setup);
    }
  }
  throw Error(fmt::format("--executor {} places a campaign on a cluster (core/slurm/campaign.hpp); ops are "
                          "carried out by one of: process, warm",
                          name));
}

std::string default_executor(bool isolate_tuner_cache)
{
  return isolate_tuner_cache ? "process" : "warm";
}

void check_executor_name(const std::string& name)
{
  for (const auto& [known, _] : table()) {
    if (known == name) {
      return;
    }
  }
  throw Error(fmt::format("--executor {} is not accepted; use one of: {}", name.empty() ? "\"\"" : name,
                          util::join(executor_names(), ", ")));
}

} // namespace zl::exec
