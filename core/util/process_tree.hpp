// Finding and ending what a finished child left behind, by walking /proc.
#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <vector>

namespace zl::util {

struct ProcStat
{
  int pid = 0;
  char state = '?';
  int ppid = 0;
  int pgrp = 0;
};

// /proc/<pid>/stat's state, parent and group (comm may hold spaces and parentheses); false when
// the process is gone.
bool read_stat(int pid, ProcStat& out);

// At most max bytes of /proc/<pid>/<name>; "" when the process is gone. Never throws: a process
// may end while it is read (std::ifstream throws then).
std::string read_proc_file(int pid, const char* name, std::size_t max = 65536);

// Every process /proc shows now, with its state, parent and group.
std::vector<ProcStat> list_processes();

// The children of every thread of pid.
std::vector<int> children_of(int pid);

// The live members of a finished child's process group and, for a subreaper, the orphans
// reparented to zl (each with the group it leads). zl's own group is never signalled.
class Leftovers
{
public:
  // pgid 0: no group to look at; orphans: zl's children count as leftovers (reaped when zombies).
  Leftovers(int pgid, bool orphans);
  // Looks again; true while anything is alive.
  bool scan();
  // SIGTERM (with SIGCONT, once per process) or SIGKILL to everything the last scan found.
  void signal(int sig);
  // How many distinct processes were found.
  int ended() const { return static_cast<int>(m_seen.size()); }

private:
  int m_pgid;
  bool m_orphans;
  bool m_group_alive = false;
  bool m_group_termed = false;
  std::vector<int> m_live_orphans;
  std::set<int> m_seen;
  std::set<int> m_termed;
};

} // namespace zl::util
