// The campaign's one loop: a table of ops, and what happens on each event. A source carries the
// ops out and reports what became of them (batch/local_source.hpp: the executors of this host;
// slurm/follow.hpp: the array tasks of a Slurm campaign). The scheduler starts queued ops
// on free slots in the order given, stops an op at its timeout (terminate, then kill once the
// grace has passed), stops every running op when a stop signal makes the source stop, records
// each end, and says when the campaign is over and with which exit code.
#pragma once

#include "batch/ops_status.hpp"
#include "batch/progress.hpp"
#include "exec/executor.hpp"
#include "util/escalation.hpp"

#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace zl::batch {

using Clock = std::chrono::steady_clock;

struct Event
{
  enum class Kind {
    running, // the op can be stopped now (its first process group exists)
    ended,   // the op is over: end (a local op), or row (a row the source recorded itself)
    note,    // a line for the person watching
    broken,  // the campaign cannot go on (text says why): nothing new starts
    done,    // the source has nothing more to report; rows: the campaign's final table, if it has one
  };
  Kind kind = Kind::note;
  size_t op = 0; // index into the table (running, ended)
  exec::OpEnd end;
  std::optional<OpStatus> row;
  std::optional<std::vector<OpStatus>> rows;
  std::string text;
  bool abandoned = false; // ended: the source broke before the op ran; its row stays as it was
};

class EventSource
{
public:
  virtual ~EventSource() = default;
  // How many ops the scheduler may run at once (one a slot); 0 when the source places ops itself.
  virtual size_t slots() const = 0;
  // Starts the op in the slot; returns the index of the device it runs on, for the display.
  virtual unsigned start(size_t op, size_t slot) = 0;
  virtual void stop(size_t op, exec::Stop how) = 0;
  // A stop signal arrived (n: how many of that signal so far). True when the campaign stops now:
  // nothing new starts and the running ops are interrupted.
  virtual bool stop_requested(int signal, int n) = 0;
  // The next event, waiting until `until` at most (nullopt then).
  virtual std::optional<Event> next(Clock::time_point until) = 0;
  virtual Clock::time_point now() const { return Clock::now(); }
};

// How an op the scheduler ran ended, for finish().
struct Ending
{
  exec::OpEnd end;
  size_t slot = 0;
  double seconds = 0;
  bool timed_out = false;
  bool interrupted = false;
};

struct SchedulerSpec
{
  std::optional<std::chrono::milliseconds> timeout; // per op, from its start
  std::chrono::milliseconds kill_after{0};          // after the timeout's terminate
  // Fills in the row of an op the scheduler ran (its status, the run folder's findings, …).
  std::function<void(OpStatus& row, const Ending& how)> finish;
  // How many of a stop signal (SIGINT, SIGTERM, SIGHUP) have arrived; empty: none ever.
  std::function<int(int signal)> signals;
};

struct SchedulerOutcome
{
  int exit_code = 0;       // 0 every op settled, 1 some op not, 130 stopped by a signal
  double makespan_s = 0;   // wall time
  double total_work_s = 0; // the ops' wall times, summed
  size_t ran = 0;
  std::string broken; // why the campaign could not go on; empty when it could
};

class Scheduler
{
public:
  // table: every op of the campaign; order: the indices to run, first first.
  Scheduler(SchedulerSpec spec, std::vector<OpStatus>& table, std::vector<size_t> order, Progress& progress);
  SchedulerOutcome run(EventSource& source);

private:
  struct Running
  {
    size_t slot = 0;
    Clock::time_point since;
    bool stoppable = false;
    bool interrupted = false; // told to stop by a stop signal
    util::Escalation ladder;  // at the timeout: terminate, then kill once kill_after has passed
  };

  bool over(const EventSource& source) const;
  void start_ready(EventSource& source);
  void poll_signals(EventSource& source);
  void stop_running(EventSource& source);
  void enforce_timeouts(EventSource& source);
  Clock::time_point next_deadline(Clock::time_point now) const;
  void handle(const Event& event, EventSource& source);
  void ended(const Event& event, EventSource& source);

  SchedulerSpec m_spec;
  std::vector<OpStatus>& m_table;
  std::deque<size_t> m_queue;
  Progress& m_progress;
  std::map<size_t, Running> m_running; // by op
  std::vector<bool> m_busy;            // by slot
  std::map<int, int> m_seen_signals;
  bool m_stopping = false;
  bool m_done = false;
  SchedulerOutcome m_outcome;
};

} // namespace zl::batch
