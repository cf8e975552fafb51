#include "batch/scheduler.hpp"

#include "results/model.hpp"
#include "util/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <csignal>

namespace zl::batch {

namespace {

// How often the progress line is redrawn while nothing happens.
constexpr std::chrono::milliseconds k_tick{100};

double seconds_between(Clock::time_point a, Clock::time_point b)
{
  return std::chrono::duration<double>(b - a).count();
}

} // namespace

Scheduler::Scheduler(SchedulerSpec spec, std::vector<OpStatus>& table, std::vector<size_t> order, Progress& progress)
  : m_spec(std::move(spec)), m_table(table), m_queue(order.begin(), order.end()), m_progress(progress)
{}

SchedulerOutcome Scheduler::run(EventSource& source)
{
  const auto begin = source.now();
  m_busy.assign(source.slots(), false);
  for (const auto& row : m_table) {
    if (results::settled(row.status)) {
      m_progress.finished(row.op, row.status, row.duration_s.value_or(0), row.rows, std::nullopt);
    }
  }
  while (!over(source)) {
    poll_signals(source);
    start_ready(source);
    if (over(source)) {
      break;
    }
    if (const auto event = source.next(next_deadline(source.now()))) {
      poll_signals(source); // a signal that came with the event (scancel's) tells how the op ended
      handle(*event, source);
    }
    if (m_stopping) {
      stop_running(source);
    }
    enforce_timeouts(source);
    m_progress.refresh(source.slots() > 0
                           ? m_queue.size()
                           : static_cast<size_t>(std::count_if(m_table.begin(), m_table.end(), [](const auto& row) {
                               return row.status == results::OpState::pending;
                             })));
  }
  m_outcome.makespan_s = seconds_between(begin, source.now());
  const bool all_settled =
      std::all_of(m_table.begin(), m_table.end(), [](const auto& row) { return results::settled(row.status); });
  m_outcome.exit_code = m_stopping ? k_exit_interrupted : all_settled ? 0 : 1;
  return m_outcome;
}

bool Scheduler::over(const EventSource& source) const
{
  if (source.slots() == 0) {
    return m_done;
  }
  return m_running.empty() && (m_queue.empty() || m_stopping || !m_outcome.broken.empty());
}

void Scheduler::start_ready(EventSource& source)
{
  if (m_stopping || !m_outcome.broken.empty()) {
    return;
  }
  for (size_t slot = 0; slot < m_busy.size() && !m_queue.empty(); ++slot) {
    if (m_busy[slot]) {
      continue;
    }
    const size_t op = m_queue.front();
    m_queue.pop_front();
    m_busy[slot] = true;
    auto& running = m_running[op];
    running.slot = slot;
    running.since = source.now();
    running.ladder = util::Escalation(m_spec.kill_after);
    m_progress.started(m_table[op].op, source.start(op, slot));
  }
}

void Scheduler::poll_signals(EventSource& source)
{
  if (!m_spec.signals) {
    return;
  }
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) {
    const int n = m_spec.signals(sig);
    if (n > m_seen_signals[sig]) {
      m_seen_signals[sig] = n;
      m_stopping = m_stopping || source.stop_requested(sig, n);
    }
  }
}

void Scheduler::stop_running(EventSource& source)
{
  // Interrupted: the op records its run as interrupted. One its timeout is ending is left to that.
  for (auto& [op, running] : m_running) {
    if (running.stoppable && !running.interrupted && !running.ladder.begun()) {
      running.interrupted = true;
      source.stop(op, exec::Stop::interrupt);
    }
  }
}

void Scheduler::enforce_timeouts(EventSource& source)
{
  if (!m_spec.timeout) {
    return;
  }
  const auto now = source.now();
  for (auto& [op, running] : m_running) {
    if (!running.stoppable || running.interrupted) {
      continue;
    }
    if (!running.ladder.begun() && now - running.since > *m_spec.timeout) {
      running.ladder.begin(now, SIGTERM);
    }
    if (const int sig = running.ladder.due(now)) {
      source.stop(op, sig == SIGKILL ? exec::Stop::kill : exec::Stop::terminate);
    }
  }
}

Clock::time_point Scheduler::next_deadline(Clock::time_point now) const
{
  auto until = now + k_tick;
  for (const auto& [op, running] : m_running) {
    if (m_spec.timeout && running.stoppable && !running.ladder.begun()) {
      until = std::min(until, running.since + *m_spec.timeout + std::chrono::milliseconds(1));
    } else if (const auto next = running.ladder.next()) {
      until = std::min(until, *next);
    }
  }
  return until;
}

void Scheduler::handle(const Event& event, EventSource& source)
{
  switch (event.kind) {
  case Event::Kind::running:
    if (const auto it = m_running.find(event.op); it != m_running.end()) {
      it->second.stoppable = true;
    }
    break;
  case Event::Kind::ended:
    ended(event, source);
    break;
  case Event::Kind::note:
    m_progress.note(event.text);
    break;
  case Event::Kind::broken:
    if (m_outcome.broken.empty()) {
      m_outcome.broken = event.text;
      m_progress.note(fmt::format("{}; no new op starts", event.text));
    }
    break;
  case Event::Kind::done:
    m_done = true;
    if (event.rows) {
      m_table = *event.rows;
    }
    break;
  }
}

void Scheduler::ended(const Event& event, EventSource& source)
{
  auto& row = m_table.at(event.op);
  if (event.row) {
    row = *event.row; // recorded by the source (a Slurm task)
  } else {
    const auto it = m_running.find(event.op);
    if (it == m_running.end()) {
      return; // not an op of this scheduler's: nothing to record
    }
    const Running running = it->second;
    m_running.erase(it);
    m_busy[running.slot] = false;
    if (event.abandoned) {
      return;
    }
    // An op that ends once a stop signal came is interrupted, told to stop or not: whoever sent
    // the signal may have sent it to the op too (Ctrl-C reaches the foreground group, scancel
    // every process of the job), and its end is no answer of its own.
    const Ending how{event.end, running.slot, seconds_between(running.since, source.now()), running.ladder.begun(),
                     running.interrupted || m_stopping};
    m_outcome.total_work_s += how.seconds;
    ++m_outcome.ran;
    try {
      m_spec.finish(row, how);
    } catch (const std::exception& e) {
      // The campaign's folder took no record (full, read-only): the op is not lost from its
      // row, which stays pending, but nothing new should start.
      handle(Event{Event::Kind::broken, event.op, {}, {}, {}, e.what()}, source);
      return;
    }
  }
  m_progress.finished(row.op, row.status, row.duration_s.value_or(0), row.rows, row.device_index);
  if (!event.end.note.empty()) {
    m_progress.note(fmt::format("{}: {}", row.op, event.end.note));
  }
}

} // namespace zl::batch
