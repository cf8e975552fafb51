#include "util/process_tree.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace zl::util {

bool read_stat(int pid, ProcStat& out)
{
  const auto text = read_proc_file(pid, "stat", 511);
  const auto close_paren = text.rfind(')');
  if (close_paren == std::string::npos) {
    return false;
  }
  out.pid = pid;
  return std::sscanf(text.c_str() + close_paren + 1, " %c %d %d", &out.state, &out.ppid, &out.pgrp) == 3;
}

std::string read_proc_file(int pid, const char* name, std::size_t max)
{
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/%s", pid, name);
  std::string text;
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return text;
  }
  char buf[4096];
  while (text.size() < max) {
    const ssize_t got = ::read(fd, buf, std::min(sizeof buf, max - text.size()));
    if (got < 0 && errno == EINTR) {
      continue;
    }
    if (got <= 0) { // a process that ends mid-read answers ESRCH: what was read stands
      break;
    }
    text.append(buf, static_cast<std::size_t>(got));
  }
  ::close(fd);
  return text;
}

namespace {

// The numeric entries of a /proc folder. readdir goes on past entries that vanish as it reads
// (processes end all the time); an iterator that stops at the first error would miss the rest.
std::vector<int> numeric_entries(const char* path)
{
  std::vector<int> out;
  DIR* dir = ::opendir(path);
  if (dir == nullptr) {
    return out;
  }
  while (const dirent* e = ::readdir(dir)) {
    char* end = nullptr;
    const long n = std::strtol(e->d_name, &end, 10);
    if (end != e->d_name && *end == '\0' && n > 0 && n < (1L << 22)) {
      out.push_back(static_cast<int>(n));
    }
  }
  ::closedir(dir);
  return out;
}

template <typename F>
void for_each_process(F&& f)
{
  for (int pid : numeric_entries("/proc")) {
    ProcStat st;
    if (read_stat(pid, st)) {
      f(st);
    }
  }
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

std::vector<ProcStat> list_processes()
{
  std::vector<ProcStat> out;
  for_each_process([&](const ProcStat& st) { out.push_back(st); });
  return out;
}

std::vector<int> children_of(int pid)
{
  std::vector<int> out;
  for (int task : numeric_entries(fmt::format("/proc/{}/task", pid).c_str())) {
    std::istringstream in(read_proc_file(pid, fmt::format("task/{}/children", task).c_str()));
    for (int child; in >> child;) {
      out.push_back(child);
    }
  }
  return out;
}

} // namespace zl::util
