#include "util/fs.hpp"

#include "util/error.hpp"

#include <boost/filesystem.hpp>
#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace zl::util {

namespace fs = boost::filesystem;

void write_file_atomic(const std::string& path, std::string_view content)
{
  std::string tmp = path + ".tmp-XXXXXX";
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) {
    throw Error(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
  }
  size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      throw Error(fmt::format("cannot write {}: {}", path, std::strerror(err)));
    }
    done += static_cast<size_t>(n);
  }
  // No fsync: the rename already keeps an interrupted zl from leaving half a file, and a
  // power cut is not what a run folder guards against.
  ::fchmod(fd, 0644);
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw Error(fmt::format("cannot write {}: {}", path, std::strerror(err)));
  }
}

std::string read_file(const std::string& path)
{
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw Error(fmt::format("cannot read {}: {}", path, std::strerror(errno)));
  }
  std::ostringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

void make_dirs(const std::string& path)
{
  boost::system::error_code ec;
  fs::create_directories(path, ec);
  if (ec) {
    throw Error(fmt::format("cannot create the folder {}: {}", path, ec.message()));
  }
}

std::string absolute(const std::string& path)
{
  return fs::absolute(path).lexically_normal().string();
}

} // namespace zl::util
