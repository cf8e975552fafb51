// Following a submitted Slurm campaign, as a source of the scheduler's events
// (batch/scheduler.hpp): Slurm places the ops, so the follower starts none; it reports each op
// an array task has recorded, Slurm's word on the tasks, and the end, once the final step (or the
// follower itself, as soon as the array has ended) has recorded the campaign. Ctrl-C asks once,
// a second within 10 s (or SIGTERM) cancels the array; SIGHUP stops following only.
#pragma once

#include "batch/scheduler.hpp"
#include "slurm/campaign.hpp"

#include <map>
#include <set>
#include <sys/types.h>
#include <tuple>

namespace zl::slurm {

class Follower : public batch::EventSource
{
public:
  // ops: the campaign's op names, by index into its table.
  Follower(std::string out_dir, Submission sub, const std::vector<std::string>& ops);

  size_t slots() const override { return 0; }
  unsigned start(size_t, size_t) override { return 0; }
  void stop(size_t, exec::Stop) override {}
  bool stop_requested(int signal, int n) override;
  std::optional<batch::Event> next(batch::Clock::time_point until) override;

  // Whether the follower recorded the campaign itself (finish_campaign printed its summary).
  bool recorded_here() const { return m_self_finished; }

private:
  bool quick(batch::Clock::time_point now) const;
  void tick();
  void read_records(bool done);
  void watch_ending(batch::Clock::time_point now);
  void ask_slurm(batch::Clock::time_point now, bool done);
  void check_visible(const slurm::TaskState& t);
  void check_final();
  void note(std::string text);
  std::string path(const std::string& name) const;

  std::string m_out;
  Submission m_sub;
  std::map<std::string, size_t> m_index; // op → table index
  std::deque<batch::Event> m_events;
  unsigned m_tick = 0;
  bool m_done = false;
  // Stop signals: a first Ctrl-C asks, a second within 10 s cancels.
  bool m_cancelled = false;
  bool m_asked = false;
  batch::Clock::time_point m_asked_at;
  int m_interrupts_before = 0; // Ctrl-Cs of earlier questions that went unconfirmed
  int m_interrupts = 0;
  // What the records show.
  std::set<std::string> m_shown;
  std::set<size_t> m_started;  // tasks whose first record is here
  std::set<size_t> m_complete; // tasks whose record has no pending op left
  std::map<size_t, std::tuple<ino_t, time_t, long>> m_record_time;
  std::optional<batch::Clock::time_point> m_complete_since; // when every record was complete
  std::optional<batch::Clock::time_point> m_all_exited;     // when every task had written its last record
  size_t m_exited = 0;                                      // tasks 0 to m_exited-1 have
  // What Slurm says.
  batch::Clock::time_point m_next_ask;
  std::map<size_t, batch::Clock::time_point> m_running_since;
  std::map<size_t, std::string> m_last_state;
  bool m_self_tried = false;
  bool m_self_finished = false;
};

} // namespace zl::slurm
