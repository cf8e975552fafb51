#include "ab/rounds.hpp"

#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/output.hpp"
#include "util/process.hpp"
#include "util/signals.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <fstream>

extern char** environ;

namespace zl::ab {

std::vector<char> side_order(int round)
{
  return round % 2 == 1 ? std::vector<char>{'A', 'B'} : std::vector<char>{'B', 'A'};
}

std::vector<SideRun> run_rounds(const AbSpec& spec, bool& interrupted)
{
  std::vector<SideRun> runs;
  util::make_dirs(spec.out_dir + "/logs");
  interrupted = false;
  util::SignalForwarding forwarding;
  for (int round = 1; round <= spec.rounds && !interrupted; ++round) {
    for (char side : side_order(round)) {
      SideRun r;
      r.round = round;
      r.side = side;
      r.value = spec.values[side == 'A' ? 0 : 1];
      r.run_dir = fmt::format("{}/{}/round-{}", spec.out_dir, side, round);
      auto request = spec.request;
      // Each side compiles and tunes from nothing: Triton's cache key may ignore the switch.
      request.isolate_tuner_cache = true;
      request.out_dir = r.run_dir;
      util::SpawnSpec child;
      child.argv = exec::run_argv(spec.zl, request);
      std::vector<std::string> env;
      for (char** e = environ; *e != nullptr; ++e) {
        if (std::string(*e).rfind(spec.axis + "=", 0) != 0) {
          env.emplace_back(*e);
        }
      }
      env.push_back(spec.axis + "=" + r.value);
      child.env = env;
      child.new_process_group = true;
      child.parent_death_signal = SIGTERM; // if zl ab dies, zl run still ends pytest's tree
      child.on_spawn = [&forwarding](int pid) { forwarding.watch(pid); };
      util::out().say(
          fmt::format("zl ab: round {}/{} side {} ({}={})\n", round, spec.rounds, side, spec.axis, r.value));
      std::ofstream log(fmt::format("{}/logs/{}-round-{}.log", spec.out_dir, side, round), std::ios::binary);
      auto to_log = [&log](std::string_view s) { log.write(s.data(), static_cast<std::streamsize>(s.size())); };
      const auto start = std::chrono::steady_clock::now();
      try {
        r.exit_code = util::run(child, to_log, to_log).exit_code;
      } catch (const util::SpawnFailure& e) {
        throw Error(fmt::format("zl ab: {}", e.message));
      }
      forwarding.watch(0);
      r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      runs.push_back(r);
      if (forwarding.signal() != 0) {
        interrupted = true;
        break;
      }
    }
  }
  return runs;
}

} // namespace zl::ab
