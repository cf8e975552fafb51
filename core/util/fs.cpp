#include "util/fs.hpp"

#include "util/error.hpp"
#include "util/string.hpp"

#include <boost/filesystem.hpp>
#include <fmt/format.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace zl::util {

namespace fs = boost::filesystem;

namespace {

const char* file_kind(mode_t mode)
{
  return S_ISDIR(mode)    ? "a folder"
         : S_ISFIFO(mode) ? "a FIFO"
         : S_ISCHR(mode)  ? "a character device"
         : S_ISBLK(mode)  ? "a block device"
         : S_ISSOCK(mode) ? "a socket"
                          : "something else";
}

[[noreturn]] void not_regular(const std::string& path, mode_t mode)
{
  throw Error(fmt::format("cannot read {}: it is {}, not a regular file; zl reads only regular files (a FIFO or a "
                          "device could block it or never end): give a regular file",
                          printable(path), file_kind(mode)));
}

class Fd
{
public:
  explicit Fd(int fd) : m_fd(fd) {}
  ~Fd()
  {
    if (m_fd >= 0) {
      ::close(m_fd);
    }
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return m_fd; }

private:
  int m_fd;
};

// Reads up to max bytes; sets more when the file holds further bytes.
std::string read_up_to(const std::string& path, std::size_t max, bool& more)
{
  const Fd fd(open_regular(path));
  std::string out;
  char buf[1 << 16];
  more = false;
  while (true) {
    const ssize_t n = ::read(fd.get(), buf, sizeof(buf));
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      throw Error(fmt::format("cannot read {}: {}", printable(path), std::strerror(errno)));
    }
    if (n == 0) {
      return out;
    }
    const auto got = static_cast<std::size_t>(n);
    if (out.size() + got > max) {
      out.append(buf, max - out.size());
      more = true;
      return out;
    }
    out.append(buf, got);
  }
}

// The longest existing leading part of an absolute path resolved by realpath(3), the rest
// appended lexically. Needs no working folder (Boost's canonical asks for it even when unused).
std::string resolve_links(const std::string& absolute_path)
{
  fs::path existing = fs::path(absolute_path).lexically_normal();
  fs::path rest;
  while (true) {
    char buf[PATH_MAX];
    if (::realpath(existing.c_str(), buf) != nullptr) {
      return (fs::path(buf) / rest).lexically_normal().string();
    }
    if (!existing.has_parent_path() || existing == existing.root_path()) {
      return fs::path(absolute_path).lexically_normal().string();
    }
    rest = existing.filename() / rest;
    existing = existing.parent_path();
  }
}

} // namespace

void write_file_atomic(const std::string& path, std::string_view content)
{
  // open(O_CREAT) rather than mkstemp: the kernel then applies the umask to 0666, so the file
  // gets the mode its siblings get (mkstemp makes 0600 files that other users cannot verify).
  static std::atomic<unsigned> counter{0};
  std::string tmp;
  int fd = -1;
  for (int attempt = 0; fd < 0; ++attempt) {
    tmp = fmt::format("{}.tmp-{}-{}", path, ::getpid(), counter++);
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (fd < 0 && (errno != EEXIST || attempt == 100)) {
      throw Error(fmt::format("cannot write {}: {}", printable(path), std::strerror(errno)));
    }
  }
  auto fail = [&](int err) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw Error(fmt::format("cannot write {}: {}", printable(path), std::strerror(err)));
  };
  size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      fail(errno);
    }
    done += static_cast<size_t>(n);
  }
  // No fsync: the rename already keeps an interrupted zl from leaving half a file, and a
  // power cut is not what a run folder guards against. close can still report a failed write.
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw Error(fmt::format("cannot write {}: {}", printable(path), std::strerror(err)));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw Error(fmt::format("cannot write {}: {}", printable(path), std::strerror(err)));
  }
}

int open_regular(const std::string& path)
{
  // Checked before the open (a FIFO's open would wait for a writer) and after it (the path may
  // have been swapped between the two).
  struct stat st
  {
  };
  if (::stat(path.c_str(), &st) != 0) {
    throw Error(fmt::format("cannot read {}: {}", printable(path), std::strerror(errno)));
  }
  if (!S_ISREG(st.st_mode)) {
    not_regular(path, st.st_mode);
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    throw Error(fmt::format("cannot read {}: {}", printable(path), std::strerror(errno)));
  }
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    not_regular(path, st.st_mode);
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

std::string read_file(const std::string& path, std::size_t limit)
{
  bool more = false;
  auto text = read_up_to(path, limit, more);
  if (more) {
    throw Error(fmt::format("cannot read {}: it is larger than {}, more than a file of its kind ever holds; it is "
                            "not the file zl wrote there",
                            printable(path), format_bytes(limit)));
  }
  return text;
}

std::string read_head(const std::string& path, std::size_t max)
{
  bool more = false;
  return read_up_to(path, max, more);
}

std::string resolve_inside(const std::string& root, const std::string& path, std::string_view what)
{
  const auto base = resolve_links(absolute(root));
  const fs::path p(path);
  auto resolved = resolve_links(p.is_absolute() ? path : (fs::path(base) / p).string());
  if (resolved != base && resolved.compare(0, base.size() + 1, base + "/") != 0) {
    throw Error(fmt::format("{} {} leads to {}, outside {}; zl follows paths from a document only inside the "
                            "folder they belong to",
                            what, printable(path), printable(resolved), printable(base)));
  }
  return resolved;
}

void make_dirs(const std::string& path)
{
  boost::system::error_code ec;
  fs::create_directories(path, ec);
  if (ec) {
    throw Error(fmt::format("cannot create the folder {}: {}", printable(path), ec.message()));
  }
}

std::string absolute(const std::string& path)
{
  const fs::path p(path);
  if (p.is_absolute()) {
    return p.lexically_normal().string();
  }
  std::string cwd(PATH_MAX, '\0');
  if (::getcwd(cwd.data(), cwd.size()) == nullptr) {
    throw Error(fmt::format("the relative path {} cannot be resolved: the working folder is gone ({}); give an "
                            "absolute path, or run zl from a folder that exists",
                            printable(path), std::strerror(errno)));
  }
  cwd.resize(std::strlen(cwd.c_str()));
  return (fs::path(cwd) / p).lexically_normal().string();
}

} // namespace zl::util
