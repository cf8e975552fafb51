#include "util/process_tree.hpp"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace zl::util {

namespace {

struct ProcStat
{
  int pid = 0;
  char state = '?';
  int ppid = 0;
  int pgrp = 0;
};

// /proc/<pid>/stat: "pid (comm) state ppid pgrp ..."; comm may hold spaces and parentheses.
bool read_stat(int pid, ProcStat& out)
{
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/stat", pid);
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return false;
  }
  char buf[512];
  const ssize_t got = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (got <= 0) {
    return false;
  }
  buf[got] = '\0';
  const char* close_paren = std::strrchr(buf, ')');
  if (close_paren == nullptr) {
    return false;
  }
  out.pid = pid;
  return std::sscanf(close_paren + 1, " %c %d %d", &out.state, &out.ppid, &out.pgrp) == 3;
}

template <typename F>
void for_each_process(F&& f)
{
  DIR* dir = ::opendir("/proc");
  if (dir == nullptr) {
    return;
  }
  while (const dirent* e = ::readdir(dir)) {
    char* end = nullptr;
    const long pid = std::strtol(e->d_name, &end, 10);
    ProcStat st;
    if (end != e->d_name && *end == '\0' && read_stat(static_cast<int>(pid), st)) {
      f(st);
    }
  }
  ::closedir(dir);
}

bool alive(char state)
{
  return state != 'Z' && state != 'X';
}

} // namespace

Leftovers::Leftovers(int pgid, bool orphans) : m_pgid(pgid), m_orphans(orphans) {}

bool Leftovers::scan()
{
  const int self = ::getpid();
  m_group_alive = false;
  m_live_orphans.clear();
  std::vector<int> zombies;
  for_each_process([&](const ProcStat& st) {
    if (m_pgid > 0 && st.pgrp == m_pgid && alive(st.state)) {
      m_group_alive = true;
      m_seen.insert(st.pid);
    }
    if (m_orphans && st.ppid == self) {
      if (alive(st.state)) {
        m_live_orphans.push_back(st.pid);
        m_seen.insert(st.pid);
      } else {
        zombies.push_back(st.pid);
      }
    }
  });
  for (const int pid : zombies) {
    int status;
    ::waitpid(pid, &status, WNOHANG);
  }
  return m_group_alive || !m_live_orphans.empty();
}

void Leftovers::signal(int sig)
{
  const int own_group = ::getpgrp();
  const bool term = sig != SIGKILL;
  auto send = [&](int target) {
    ::kill(target, sig);
    if (term) {
      ::kill(target, SIGCONT); // a stopped process must run to handle SIGTERM
    }
  };
  if (m_group_alive && m_pgid != own_group && (!term || !m_group_termed)) {
    send(-m_pgid);
    m_group_termed = true;
  }
  for (const int pid : m_live_orphans) {
    if (term && !m_termed.insert(pid).second) {
      continue;
    }
    send(pid);
    // An escapee that called setsid() leads a group of its own: its children are in it.
    const int group = ::getpgid(pid);
    if (group == pid && group != own_group && group != m_pgid) {
      send(-group);
    }
  }
}

} // namespace zl::util
