// One campaign, one owner: an exclusive flock on <campaign>/.zl-lock, taken before anything else
// is written. The kernel drops it when the owner exits, however it exits, so it is never stale;
// the file's text (pid, host, start, the process groups of running ops) is information for the
// next owner and for the person refused.
#pragma once

#include <string>
#include <vector>

namespace zl::batch {

inline constexpr const char* k_lock_file = ".zl-lock";

struct LockInfo
{
  long pid = 0;
  std::string host;
  std::string started;
  std::vector<int> running; // process groups of the ops running now
};

std::string format_lock(const LockInfo& info);
LockInfo parse_lock(const std::string& text);

// This machine's host name.
std::string host_name();

class CampaignLock
{
public:
  // Takes the lock of folder dir (which exists). Throws Error (exit 2) naming the owner's pid
  // and host when another process holds it, and when processes a dead owner started on this
  // host still run (force does not override that: they still write into the campaign); force
  // accepts leftovers on another host, which zl cannot check from here.
  CampaignLock(const std::string& dir, bool force);
  ~CampaignLock();
  CampaignLock(const CampaignLock&) = delete;
  CampaignLock& operator=(const CampaignLock&) = delete;

  // Records the running ops' process groups in the lock file (rewritten in place: the lock is
  // on this inode, so the file is never replaced).
  void set_running(const std::vector<int>& groups);

private:
  void write();

  int m_fd = -1;
  std::string m_dir;
  std::string m_path;
  LockInfo m_self;
};

// The groups among these that still have a process of the campaign in dir on this host: one
// whose working folder is in dir (a benchmark runs in its run folder) or whose command line
// names it (`zl run --out <dir>/<op>`). A group id reused by an unrelated process after a
// reboot or years of uptime is not the campaign's, and zl must not tell anyone to kill it.
std::vector<int> live_groups(const std::vector<int>& groups, const std::string& dir);

// The process groups of pid's descendants (from /proc): a benchmark runs in a group of its own,
// started by the op's `zl run`.
std::vector<int> descendant_groups(int pid);

} // namespace zl::batch
