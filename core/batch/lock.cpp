#include "batch/lock.hpp"

#include "util/error.hpp"
#include "util/process_tree.hpp"
#include "util/string.hpp"

#include <boost/filesystem.hpp>
#include <fmt/chrono.h>
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <fstream>
#include <iterator>
#include <sstream>
#include <sys/file.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace zl::batch {

namespace {

std::string read_fd(int fd)
{
  std::string text;
  char buf[4096];
  off_t at = 0;
  // A lock file is a few lines; more than 64 KiB is not one of zl's.
  while (text.size() < 65536) {
    const ssize_t n = ::pread(fd, buf, sizeof buf, at);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      break;
    }
    text.append(buf, static_cast<size_t>(n));
    at += n;
  }
  return text;
}

std::string owner_text(const LockInfo& o)
{
  if (o.pid <= 0) {
    return "another zl process (it has not written its pid yet)";
  }
  return fmt::format("zl pid {} on host {}{}", o.pid, o.host.empty() ? "?" : o.host,
                     o.started.empty() ? "" : fmt::format(" (started {})", o.started));
}

// Whether process pid works in dir or names it on its command line.
bool belongs(int pid, const std::string& dir)
{
  boost::system::error_code ec;
  const auto cwd = boost::filesystem::read_symlink(fmt::format("/proc/{}/cwd", pid), ec).string();
  if (!ec && (cwd == dir || cwd.rfind(dir + "/", 0) == 0)) {
    return true;
  }
  std::string args = util::read_proc_file(pid, "cmdline");
  std::replace(args.begin(), args.end(), '\0', '\n');
  return ("\n" + args).find("\n" + dir + "/") != std::string::npos ||
         ("\n" + args + "\n").find("\n" + dir + "\n") != std::string::npos;
}

std::string group_list(const std::vector<int>& groups)
{
  std::vector<std::string> parts;
  for (int g : groups) {
    parts.push_back(std::to_string(g));
  }
  return util::join(parts, " ");
}

std::string kill_targets(const std::vector<int>& groups)
{
  std::vector<std::string> parts;
  for (int g : groups) {
    parts.push_back("-" + std::to_string(g));
  }
  return util::join(parts, " ");
}

} // namespace

std::string format_lock(const LockInfo& info)
{
  // "end": the file is rewritten in place (write, then truncate), so an owner killed between the
  // two leaves the old, longer tail after it.
  return fmt::format("pid={}\nhost={}\nstarted={}\nrunning={}\nend\n", info.pid, info.host, info.started,
                     group_list(info.running));
}

LockInfo parse_lock(const std::string& text)
{
  LockInfo info;
  for (const auto& line : util::split(text, '\n')) {
    if (line == "end") {
      break;
    }
    const auto eq = line.find('=');
    if (eq == std::string::npos) {
      continue;
    }
    const auto key = line.substr(0, eq);
    const auto value = std::string(util::trim(line.substr(eq + 1)));
    if (key == "pid") {
      info.pid = std::strtol(value.c_str(), nullptr, 10);
    } else if (key == "host") {
      info.host = value;
    } else if (key == "started") {
      info.started = value;
    } else if (key == "running") {
      for (const auto& g : util::split(value, ' ')) {
        const long n = std::strtol(g.c_str(), nullptr, 10);
        if (n > 1 && n < (1L << 22)) {
          info.running.push_back(static_cast<int>(n));
        }
      }
    }
  }
  return info;
}

std::string host_name()
{
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) {
    return "?";
  }
  return buf;
}

std::vector<int> live_groups(const std::vector<int>& groups, const std::string& dir)
{
  std::vector<int> maybe;
  for (int g : groups) {
    if (::kill(-g, 0) == 0 || errno == EPERM) {
      maybe.push_back(g);
    }
  }
  std::vector<int> live;
  if (maybe.empty()) {
    return live;
  }
  for (const auto& st : util::list_processes()) {
    const int pid = st.pid;
    // A zombie nobody has reaped yet still answers kill(); it runs nothing.
    if (st.pgrp <= 0 || st.state == 'Z' || std::find(maybe.begin(), maybe.end(), st.pgrp) == maybe.end() ||
        std::find(live.begin(), live.end(), st.pgrp) != live.end()) {
      continue;
    }
    if (belongs(pid, dir)) {
      live.push_back(st.pgrp);
    }
  }
  return live;
}

std::vector<int> descendant_groups(int pid)
{
  std::vector<int> groups;
  std::vector<int> todo = {pid};
  for (size_t i = 0; i < todo.size() && i < 4096; ++i) {
    for (int child : util::children_of(todo[i])) {
      todo.push_back(child);
    }
    util::ProcStat st;
    if (i > 0 && util::read_stat(todo[i], st) && st.pgrp > 1 && st.state != 'Z' &&
        std::find(groups.begin(), groups.end(), st.pgrp) == groups.end()) {
      groups.push_back(st.pgrp);
    }
  }
  return groups;
}

CampaignLock::CampaignLock(const std::string& dir, bool force) : m_dir(dir), m_path(dir + "/" + k_lock_file)
{
  // O_NOFOLLOW: a link planted in the campaign folder would make two campaigns share one lock.
  m_fd = ::open(m_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (m_fd < 0) {
    throw Error(fmt::format("cannot take the campaign lock {}: {}; the campaign folder must be writable", m_path,
                            std::strerror(errno)));
  }
  struct stat st = {};
  if (::fstat(m_fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(m_fd);
    throw Error(fmt::format("{} is not a regular file; remove it to use this campaign folder", m_path));
  }
  int rc;
  while ((rc = ::flock(m_fd, LOCK_EX | LOCK_NB)) != 0 && errno == EINTR) {
  }
  if (rc != 0) {
    const int err = errno;
    LockInfo owner;
    // The owner writes its pid right after it takes the lock: give it a moment.
    for (int tries = 0; tries < 20 && owner.pid <= 0; ++tries) {
      owner = parse_lock(read_fd(m_fd));
      if (owner.pid <= 0) {
        std::this_thread::sleep_for(std::chrono::milliseconds(25));
      }
    }
    ::close(m_fd);
    if (err != EWOULDBLOCK) {
      throw Error(fmt::format("cannot take the campaign lock {}: {}", m_path, std::strerror(err)));
    }
    throw Error(fmt::format("the campaign {} is in use by {}; a campaign has one owner: wait for it to finish, or "
                            "stop it (kill {}) and continue with --resume",
                            dir, owner_text(owner), owner.pid > 0 ? std::to_string(owner.pid) : "<pid>"));
  }
  const LockInfo previous = parse_lock(read_fd(m_fd));
  m_self.pid = static_cast<long>(::getpid());
  m_self.host = host_name();
  m_self.started = fmt::format("{:%Y-%m-%dT%H:%M:%S}Z", fmt::gmtime(std::time(nullptr)));
  if (!previous.running.empty()) {
    const bool here = previous.host == m_self.host;
    const auto live = here ? live_groups(previous.running, m_dir) : previous.running;
    if (here && !live.empty()) {
      ::close(m_fd);
      throw Error(fmt::format(
          "the campaign {}: its previous owner, {}, is gone, but processes it started still run (process groups {}; "
          "`ps -o pid,args -g {}` lists them) and still write into the campaign; stop them (kill -- {}) and "
          "--resume again",
          dir, owner_text(previous), group_list(live), live.front(), kill_targets(live)));
    }
    if (!here && !force) {
      ::close(m_fd);
      throw Error(fmt::format(
          "the campaign {}: its previous owner, {}, stopped with ops running there (process groups {}); zl cannot "
          "check from {} whether they still run: check on {}, then --resume --force",
          dir, owner_text(previous), group_list(live), m_self.host, previous.host));
    }
  }
  try {
    write();
  } catch (const Error&) {
    ::close(m_fd);
    throw;
  }
}

CampaignLock::~CampaignLock()
{
  if (m_fd >= 0) {
    // What still runs stays on record for the next owner; the kernel drops the lock on close.
    m_self.running = live_groups(m_self.running, m_dir);
    try {
      write();
    } catch (...) {
    }
    ::close(m_fd);
  }
}

void CampaignLock::set_running(const std::vector<int>& groups)
{
  m_self.running = groups;
  write();
}

void CampaignLock::write()
{
  const auto text = format_lock(m_self);
  // One pwrite, then the truncation: a kill between them leaves a whole record (format_lock), where
  // truncating first could leave an empty file and a dead owner's running groups unknown.
  if (::pwrite(m_fd, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size()) ||
      ::ftruncate(m_fd, static_cast<off_t>(text.size())) != 0) {
    throw Error(fmt::format("cannot write the campaign lock {}: {}", m_path, std::strerror(errno)));
  }
}

} // namespace zl::batch
