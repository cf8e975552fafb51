#include "exec/invocation.hpp"

#include "util/fs.hpp"
#include "util/string.hpp"

#include <boost/filesystem.hpp>

namespace zl::exec {

ZlCommand this_zl(const std::string& backend, const std::vector<std::string>& backend_paths)
{
  ZlCommand zl;
  zl.binary = boost::filesystem::read_symlink("/proc/self/exe").string();
  zl.backend = backend;
  for (const auto& p : backend_paths) {
    zl.backend_paths.push_back(util::absolute(p));
  }
  return zl;
}

std::vector<std::string> run_argv(const ZlCommand& zl, const run::Request& r)
{
  std::vector<std::string> a = {zl.binary};
  if (!zl.backend.empty()) {
    a.insert(a.end(), {"--backend", zl.backend});
  }
  for (const auto& p : zl.backend_paths) {
    a.insert(a.end(), {"--backend-path", p});
  }
  a.push_back("run");
  auto option = [&a](const char* name, const std::string& value) {
    if (!value.empty()) {
      a.insert(a.end(), {name, value});
    }
  };
  auto path = [&option](const char* name, const std::string& value) {
    option(name, value.empty() ? value : util::absolute(value));
  };
  path("--flaggems", r.flaggems_dir);
  option("--op", r.op);
  option("--op-file", r.op_file); // relative to the FlagGems folder, as zl run reads it
  option("--test-node", r.test_node);
  option("--level", r.level);
  option("--mode", r.mode);
  option("--timer", r.timer);
  option("--sampling", r.sampling);
  option("--telemetry", r.telemetry);
  option("--python", r.python);
  option("--dtypes", util::join(r.dtypes, ","));
  option("--device", r.device);
  path("--shape-file", r.shape_file);
  if (r.shape_mode_upstream) {
    a.insert(a.end(), {"--shape-mode", "upstream"});
  }
  path("--replay-from", r.replay_from);
  if (r.record_autotune) {
    a.push_back("--record-autotune");
  }
  if (r.isolate_tuner_cache) {
    a.push_back("--isolate-tuner-cache");
  }
  path("--out", r.out_dir);
  if (!r.extra_args.empty()) {
    a.push_back("--");
    a.insert(a.end(), r.extra_args.begin(), r.extra_args.end());
  }
  return a;
}

} // namespace zl::exec
