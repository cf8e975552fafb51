#include "results/parse/input.hpp"

#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/string.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace zl::results::parse {

namespace {

// A pipe or a device has no size: it is read whole, up to this.
constexpr std::size_t k_max_stream = std::size_t{1} << 30;

[[noreturn]] void cannot_read(const std::string& path, int err)
{
  throw Error(fmt::format("cannot read {}: {}", util::printable(path), std::strerror(err)));
}

// Opens path for reading. Non-blocking, so that a FIFO nobody writes to cannot hang zl in
// open(); a pipe that is read is then read blocking, as it was given.
int open_input(const std::string& path, bool regular_only, struct stat& st)
{
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0 || ::fstat(fd, &st) != 0) {
    const int err = errno;
    if (fd >= 0) {
      ::close(fd);
    }
    cannot_read(path, err);
  }
  const bool regular = S_ISREG(st.st_mode);
  if ((regular_only && !regular) || S_ISDIR(st.st_mode)) {
    ::close(fd);
    throw Error(fmt::format("cannot read {}: not a regular file", util::printable(path)));
  }
  if (!regular) {
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  }
  return fd;
}

void refuse_larger(int fd, const std::string& path, std::size_t size)
{
  if (size > util::k_log_limit) {
    ::close(fd);
    throw Error(fmt::format("cannot read {}: it is larger than {}", util::printable(path),
                            util::format_bytes(util::k_log_limit)));
  }
}

[[noreturn]] void refuse_stream(const std::string& path)
{
  throw Error(fmt::format("{} gives more than {} MiB: zl reads a pipe or device whole; save it to a file and give the "
                          "file",
                          util::printable(path), k_max_stream >> 20));
}

// One read(2) into out, retried on EINTR; throws Error naming path (closing fd) on failure.
std::size_t read_some(int fd, const std::string& path, char* out, std::size_t size)
{
  for (;;) {
    const ssize_t n = ::read(fd, out, size);
    if (n >= 0) {
      return static_cast<std::size_t>(n);
    }
    if (errno != EINTR) {
      const int err = errno;
      ::close(fd);
      cannot_read(path, err);
    }
  }
}

} // namespace

std::string_view read_input(const std::string& path, std::vector<char>& buffer, std::size_t head, bool regular_only)
{
  struct stat st = {};
  const int fd = open_input(path, regular_only, st);
  const bool regular = S_ISREG(st.st_mode);
  const std::size_t size = static_cast<std::size_t>(std::max<off_t>(st.st_size, 0));
  if (regular && head == 0) {
    refuse_larger(fd, path, size);
  }
  const std::size_t limit = head > 0 ? head : regular ? util::k_log_limit : k_max_stream + 1;
  buffer.resize(std::max(buffer.size(), std::min(size, limit) + 1));
  std::size_t done = 0;
  while (done < limit) {
    if (done == buffer.size()) {
      buffer.resize(std::min(buffer.size() * 2, limit));
    }
    const std::size_t n = read_some(fd, path, buffer.data() + done, buffer.size() - done);
    if (n == 0) {
      break;
    }
    done += n;
  }
  ::close(fd);
  if (head == 0 && !regular && done > k_max_stream) {
    refuse_stream(path);
  }
  return {buffer.data(), std::min(done, limit)};
}

LineReader::LineReader(std::string_view text) : m_text(text.data()), m_size(text.size()), m_end(text.size()) {}

LineReader::LineReader(const std::string& path, std::vector<char>& buffer, bool regular_only, std::size_t chunk)
  : m_owned(&buffer), m_path(path), m_eof(false), m_chunk(std::max<std::size_t>(chunk, 1))
{
  struct stat st = {};
  m_fd = open_input(path, regular_only, st);
  m_regular = S_ISREG(st.st_mode);
  m_size = static_cast<std::size_t>(std::max<off_t>(st.st_size, 0));
  if (m_regular) {
    refuse_larger(m_fd, path, m_size);
  }
}

LineReader::~LineReader()
{
  if (m_fd >= 0) {
    ::close(m_fd);
  }
}

bool LineReader::fill()
{
  if (m_eof) {
    return false;
  }
  auto& b = *m_owned;
  if (m_begin > 0) { // what is read before the current line is done with
    std::memmove(b.data(), b.data() + m_begin, m_end - m_begin);
    m_pos -= m_begin, m_end -= m_begin, m_begin = 0;
  }
  if (b.size() - m_end < m_chunk / 2 + 1) { // grows only for a line (or look-ahead) as long as it
    b.resize(std::max(b.size() * 2, m_end + m_chunk));
  }
  const std::size_t n = read_some(m_fd, m_path, b.data() + m_end, std::min(b.size() - m_end, m_chunk));
  if (n == 0) {
    m_eof = true;
    ::close(m_fd);
    m_fd = -1;
    return false;
  }
  m_end += n, m_read += n;
  if (!m_regular && m_read > k_max_stream) {
    refuse_stream(m_path);
  }
  return true;
}

bool LineReader::next(std::string_view& line)
{
  m_begin = m_pos;
  std::size_t scanned = 0; // from m_begin: no "\n" before it
  std::size_t end = 0;
  for (;;) {
    const std::size_t left = m_end - m_begin - scanned;
    if (const void* nl = left > 0 ? std::memchr(data() + m_begin + scanned, '\n', left) : nullptr) {
      end = static_cast<std::size_t>(static_cast<const char*>(nl) - data());
      m_pos = end + 1;
      break;
    }
    scanned = m_end - m_begin;
    if (!fill()) {
      if (m_begin == m_end) {
        return false;
      }
      end = m_pos = m_end; // the last line, without "\n"
      break;
    }
  }
  line = std::string_view(data() + m_begin, end - m_begin);
  if (!line.empty() && line.back() == '\r') {
    line.remove_suffix(1);
  }
  return true;
}

std::size_t LineReader::find_ahead(std::size_t from, std::string_view needle)
{
  std::size_t scan = from; // from m_begin
  for (;;) {
    const std::string_view read(data() + m_begin, m_end - m_begin);
    if (const auto at = read.find(needle, scan); at != npos) {
      return at;
    }
    // A match may straddle what is read and what comes: look again at the last bytes.
    scan = std::max(scan, read.size() >= needle.size() ? read.size() - needle.size() + 1 : 0);
    if (!fill()) {
      return npos;
    }
  }
}

std::string_view LineReader::raw(std::size_t from, std::size_t to) const
{
  return {data() + m_begin + from, to - from};
}

std::size_t LineReader::skip_past_line_of(std::size_t at)
{
  std::size_t scan = at; // from m_begin
  std::size_t stop = 0;  // from m_begin
  bool cut = false;      // the input ends without "\n"
  for (;;) {
    const std::size_t left = m_end - m_begin - scan;
    if (const void* nl = left > 0 ? std::memchr(data() + m_begin + scan, '\n', left) : nullptr) {
      stop = static_cast<std::size_t>(static_cast<const char*>(nl) - data()) - m_begin + 1;
      break;
    }
    scan = m_end - m_begin;
    if (!fill()) {
      stop = m_end - m_begin;
      cut = true;
      break;
    }
  }
  const char* first = data() + m_pos;
  const auto lines = static_cast<std::size_t>(std::count(first, data() + m_begin + stop, '\n'));
  m_pos = m_begin + stop;
  return lines + (cut ? 1 : 0);
}

} // namespace zl::results::parse
