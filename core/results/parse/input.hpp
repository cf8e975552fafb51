// The reads of results' inputs: a file whole (small documents, record logs, samples), or a log
// line by line through a buffer that is reused, so that a log of any size costs the memory of
// its longest line, never its size.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace zl::results::parse {

// The one read of a file whole: into buffer (reused from file to file, so that a campaign does
// not cost fresh memory for every file); the view is good until the next read into buffer.
// head > 0: at most its first head bytes. A pipe or device is read whole, up to 1 GiB.
// regular_only: a run folder's files, never pipes or devices. Throws Error naming the file.
std::string_view read_input(const std::string& path, std::vector<char>& buffer, std::size_t head = 0,
                            bool regular_only = false);

// A log's lines, one at a time. Over a file it reads chunk by chunk into a buffer the caller
// keeps (a thread reuses one for every log it reads); over text in memory it copies nothing.
class LineReader
{
public:
  static constexpr std::size_t k_chunk = std::size_t{1} << 20;
  static constexpr std::size_t npos = std::string_view::npos;

  explicit LineReader(std::string_view text);
  // Opens path as read_input does (the same refusals, the same Error naming the file); chunk:
  // how much one read asks for (tests make it small, to cut lines at every place).
  LineReader(const std::string& path, std::vector<char>& buffer, bool regular_only = false,
             std::size_t chunk = k_chunk);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // The next line without its "\n" (and a "\r" before it); false at the end. The view lives
  // until the next call of next, find_ahead or skip_past_line_of.
  bool next(std::string_view& line);

  // How long the input is, where known (a file's size when opened): for reserving.
  std::size_t size_hint() const { return m_size; }

  // Offsets below count from the start of the line next gave last.
  // Where needle first occurs at or after offset from, reading on past the line's end through
  // the rest of the input as far as needed (a FlagGems failure message spans lines); npos: never.
  std::size_t find_ahead(std::size_t from, std::string_view needle);
  // The input's bytes between two offsets that next or find_ahead has read.
  std::string_view raw(std::size_t from, std::size_t to) const;
  // Where the next line starts: the line's length with its line end.
  std::size_t line_span() const { return m_pos - m_begin; }
  // Steps over the lines after the current one, up to the one holding offset at (from
  // find_ahead) and its line end; returns how many lines that is (a last one without "\n" too).
  std::size_t skip_past_line_of(std::size_t at);

private:
  // Reads more after m_end, keeping what is there from m_begin on; false at the end of input.
  bool fill();
  const char* data() const { return m_owned != nullptr ? m_owned->data() : m_text; }

  const char* m_text = nullptr;         // text in memory, when not reading a file
  std::vector<char>* m_owned = nullptr; // the file's buffer
  std::string m_path;
  int m_fd = -1;
  bool m_regular = true;
  bool m_eof = true;
  std::size_t m_chunk = k_chunk;
  std::size_t m_size = 0;
  std::size_t m_read = 0;  // bytes read from the file so far
  std::size_t m_begin = 0; // the current line's start
  std::size_t m_pos = 0;   // the next line's start
  std::size_t m_end = 0;   // the end of what is read
};

} // namespace zl::results::parse
