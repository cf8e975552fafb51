#include "results/parse/stream.hpp"
#include "util/workers.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>

namespace zl::results::parse {

namespace {

// Whose turn it is to hand a run to the sink: the runs' indices, in order.
class Turns
{
public:
  bool mine(std::size_t i) const { return m_turn.load(std::memory_order_acquire) == i; }
  void wait(std::size_t i)
  {
    std::unique_lock<std::mutex> lock(m_mutex);
    m_cv.wait(lock, [&] { return mine(i); });
  }
  void pass(std::size_t i)
  {
    {
      std::lock_guard<std::mutex> lock(m_mutex);
      m_turn.store(i + 1, std::memory_order_release);
    }
    m_cv.notify_all();
  }

private:
  std::atomic<std::size_t> m_turn{0};
  std::mutex m_mutex;
  std::condition_variable m_cv;
};

// One reader's sink: holds its run back until the run's turn, then hands on what it held and,
// from then on, everything as it comes.
class Relay final : public RunSink
{
public:
  Relay(RunSink& sink, Turns& turns) : m_sink(sink), m_turns(turns) {}

  void start(std::size_t index)
  {
    m_index = index;
    m_direct = false;
    m_rows.clear(), m_shapes.clear(), m_text.clear(), m_markers.clear();
  }

  void begin(const Run& run) override
  {
    // A run that kept its rows is read whole: holding copies of them would only cost memory.
    if (!run.rows.empty()) {
      m_turns.wait(m_index);
    }
    if (!run.rows.empty() || m_turns.mine(m_index)) {
      go_direct(run);
    }
  }

  void row(const Run& run, const Row& r) override
  {
    if (!m_direct && m_turns.mine(m_index)) {
      go_direct(run);
    }
    if (m_direct) {
      m_sink.row(run, r);
      return;
    }
    m_rows.push_back(r);
    m_shapes.push_back(m_text.size()); // the line it views goes: the text is copied
    m_text.insert(m_text.end(), r.shape.begin(), r.shape.end());
    if (m_rows.size() >= k_held) {
      m_turns.wait(m_index);
      go_direct(run);
    }
  }

  void marker(const Run& run, const Marker& m) override
  {
    if (!m_direct && m_turns.mine(m_index)) {
      go_direct(run);
    }
    if (m_direct) {
      m_sink.marker(run, m);
    } else {
      m_markers.emplace_back(m_rows.size(), m); // after the rows held so far
    }
  }

  void end(const Run& run) override
  {
    if (!m_direct) {
      m_turns.wait(m_index);
      go_direct(run);
    }
    m_sink.end(run);
  }

private:
  void go_direct(const Run& run)
  {
    m_direct = true;
    m_sink.begin(run);
    std::size_t k = 0;
    auto rows_up_to = [&](std::size_t end) {
      for (; k < end; ++k) {
        m_rows[k].shape = std::string_view(m_text.data() + m_shapes[k], m_rows[k].shape.size());
        m_sink.row(run, m_rows[k]);
      }
    };
    for (const auto& [after, m] : m_markers) { // in the order they were read among the rows
      rows_up_to(after);
      m_sink.marker(run, m);
    }
    rows_up_to(m_rows.size());
    m_rows.clear(), m_shapes.clear(), m_text.clear(), m_markers.clear();
  }

  RunSink& m_sink;
  Turns& m_turns;
  std::size_t m_index = 0;
  bool m_direct = false;
  std::vector<Row> m_rows;
  std::vector<std::size_t> m_shapes; // where each held row's Size Detail starts in m_text
  std::vector<char> m_text;
  std::vector<std::pair<std::size_t, Marker>> m_markers; // each after how many of the rows
};

} // namespace

std::vector<RunNotes> stream_all(const std::vector<Source>& sources, RunSink& sink, unsigned threads)
{
  std::vector<RunNotes> notes(sources.size());
  std::vector<std::exception_ptr> errors(sources.size());
  std::atomic<std::size_t> next{0}, first_error{sources.size()};
  Turns turns;
  auto work = [&] {
    Relay relay(sink, turns);
    for (std::size_t i; (i = next++) < sources.size();) {
      if (i < first_error.load()) { // after a source that failed nothing is shown: not read
        try {
          Run run;
          relay.start(i);
          stream(sources[i], run, relay);
          notes[i] = {std::move(run.warnings), std::move(run.diagnostics), std::move(run.foreign)};
        } catch (...) {
          errors[i] = std::current_exception();
          for (auto f = first_error.load(); i < f && !first_error.compare_exchange_weak(f, i);) {
          }
        }
      }
      turns.wait(i);
      turns.pass(i);
    }
  };
  util::run_workers(sources.size(), threads, work, errors);
  return notes;
}

} // namespace zl::results::parse
