#include "exec/process.hpp"

#include "util/process.hpp"

#include <csignal>
#include <fstream>

namespace zl::exec {

int signal_of(Stop how)
{
  switch (how) {
  case Stop::interrupt:
    return SIGINT; // a `zl run`, or a worker's op, records its run as interrupted
  case Stop::terminate:
    return SIGTERM;
  case Stop::kill:
    break;
  }
  return SIGKILL;
}

ProcessExecutor::ProcessExecutor(ZlCommand zl, size_t slots) : m_zl(std::move(zl))
{
  for (size_t i = 0; i < slots; ++i) {
    m_slots.push_back(std::make_unique<Slot>());
  }
}

OpEnd ProcessExecutor::run(const OpLaunch& launch)
{
  auto& slot = *m_slots.at(launch.slot);
  util::SpawnSpec child;
  child.argv = run_argv(m_zl, launch.request);
  child.new_process_group = true;
  child.parent_death_signal = SIGTERM; // if zl batch dies, zl run still ends pytest's tree
  child.on_spawn = [&](int pid) {
    {
      std::lock_guard<std::mutex> lock(slot.m);
      slot.pgid = pid;
    }
    if (launch.on_group) {
      launch.on_group(pid); // from now on the campaign may stop the op
    }
  };
  std::ofstream log(launch.log_path, std::ios::binary);
  auto to_log = [&log](std::string_view chunk) { log.write(chunk.data(), static_cast<std::streamsize>(chunk.size())); };
  OpEnd end;
  try {
    end.exit_code = util::run(child, to_log, to_log).exit_code;
  } catch (const util::SpawnFailure& e) {
    log << e.message << "\n";
    end.exit_code = 127;
  }
  std::lock_guard<std::mutex> lock(slot.m);
  slot.pgid = 0;
  return end;
}

void ProcessExecutor::stop(size_t slot_index, Stop how)
{
  auto& slot = *m_slots.at(slot_index);
  std::lock_guard<std::mutex> lock(slot.m);
  if (slot.pgid > 0) {
    ::kill(-slot.pgid, signal_of(how));
  }
}

} // namespace zl::exec
