// The ops of a campaign on this host, as a source of the scheduler's events
// (batch/scheduler.hpp): each slot (device) has a thread that runs its ops through the campaign's
// executor, one at a time, and what becomes of each comes back through a queue. One thread for
// all of a slot's ops, not one an op: a child's PR_SET_PDEATHSIG fires when the thread that
// started it ends, and a warm worker outlives its op. The running ops'
// process groups are kept in the campaign's lock, so that the next owner can tell whether a dead
// owner left them running.
#pragma once

#include "batch/campaign.hpp"
#include "batch/scheduler.hpp"

#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace zl::batch {

class LocalSource : public EventSource
{
public:
  // ops: the table's op names, by index.
  LocalSource(const CampaignSpec& spec, std::vector<std::string> ops);
  // Kills what still runs (only an exception leaves the scheduler early), waits for the ops'
  // threads and shuts the executor down.
  ~LocalSource() override;
  LocalSource(const LocalSource&) = delete;
  LocalSource& operator=(const LocalSource&) = delete;

  size_t slots() const override { return m_slots.size(); }
  unsigned start(size_t op, size_t slot) override;
  void stop(size_t op, exec::Stop how) override;
  bool stop_requested(int signal, int n) override;
  std::optional<Event> next(Clock::time_point until) override;

private:
  // What the scheduler's thread and an op's thread share about one slot.
  struct Slot
  {
    std::mutex m;
    std::condition_variable wake;
    std::optional<size_t> job; // the op to run next
    bool quit = false;
    bool active = false; // the executor's run() is under way: stop() may reach it
    int pgid = 0;        // its first process group, once told
    std::thread thread;
  };

  void serve(size_t slot);
  void run_op(size_t op, size_t slot);
  void on_group(size_t op, size_t slot, int pgid);
  void push(Event event);
  void track_groups();
  void record_groups();

  const CampaignSpec& m_spec;
  std::vector<std::string> m_ops;
  std::vector<Slot> m_slots;
  std::map<size_t, size_t> m_slot_of; // op → slot, for stop()
  std::mutex m_mutex;                 // guards m_events and m_groups
  std::condition_variable m_wake;
  std::deque<Event> m_events;
  std::set<int> m_groups;
  Clock::time_point m_next_scan;
};

} // namespace zl::batch
