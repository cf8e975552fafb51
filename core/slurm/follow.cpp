#include "slurm/follow.hpp"

#include "results/model.hpp"
#include "slurm/cluster.hpp"
#include "slurm/task.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

#include <boost/filesystem.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <csignal>
#include <sys/stat.h>
#include <thread>

namespace zl::slurm {

namespace fs = boost::filesystem;

namespace {

// How long a task may run before the record it writes first must be visible here.
constexpr std::chrono::seconds k_visibility_grace{30};
// A second Ctrl-C within this cancels the array.
constexpr std::chrono::seconds k_confirm_within{10};
// The cadence once every task has recorded all its ops (the array is about to end: zl then
// records the campaign itself, without waiting for Slurm to schedule the final step;
// scripts/bench-slurm.sh): the tasks' last records are looked for every 10 ms, and Slurm asked as
// soon as all are there, then every 25 ms for at most k_quick (slurmctld knew the tasks had ended
// some 15 ms after they did, where a 100 ms poll learnt it up to 150 ms later). Otherwise final.done
// and the records are looked at every 100 ms (a stat each), so that zl ends as soon as the
// campaign is recorded; Slurm is asked every 2 s, every 500 ms while tasks are still starting.
constexpr auto k_quick = std::chrono::seconds(1);
constexpr auto k_ending = std::chrono::seconds(10);

} // namespace

Follower::Follower(std::string out_dir, Submission sub, const std::vector<std::string>& ops)
  : m_out(std::move(out_dir)), m_sub(std::move(sub)), m_next_ask(batch::Clock::now())
{
  for (size_t i = 0; i < ops.size(); ++i) {
    m_index[ops[i]] = i;
  }
}

std::string Follower::path(const std::string& name) const
{
  return m_out + "/" + k_slurm_dir + "/" + name;
}

void Follower::note(std::string text)
{
  batch::Event event;
  event.text = std::move(text);
  m_events.push_back(std::move(event));
}

bool Follower::stop_requested(int signal, int n)
{
  if (m_cancelled) {
    return true;
  }
  if (signal == SIGHUP) {
    // Nobody watches any more; the array does not depend on zl, and the final step records it.
    note(fmt::format("hangup: zl stops following; the array {} goes on and its final step {} records the campaign",
                     m_sub.array_id, m_sub.final_id));
    m_done = true;
    m_events.push_back(batch::Event{batch::Event::Kind::done, 0, {}, {}, {}, {}});
    return true;
  }
  if (signal == SIGINT) {
    m_interrupts = n;
    if (n - m_interrupts_before == 1) {
      m_asked = true;
      m_asked_at = batch::Clock::now();
      note(
          fmt::format("Ctrl-C again within 10 s cancels the array (scancel {}); otherwise it goes on", m_sub.array_id));
      return false;
    }
  }
  note(fmt::format("cancelling the array: scancel {}; what ran is recorded once it has ended", m_sub.array_id));
  slurm::cancel({m_sub.array_id});
  m_cancelled = true;
  return true;
}

bool Follower::quick(batch::Clock::time_point now) const
{
  return m_complete_since && now - *m_complete_since < k_ending && (!m_all_exited || now - *m_all_exited < k_quick);
}

std::optional<batch::Event> Follower::next(batch::Clock::time_point until)
{
  if (m_events.empty() && !m_done) {
    const auto wake = batch::Clock::now() + std::chrono::milliseconds(quick(batch::Clock::now()) ? 10 : 100);
    std::this_thread::sleep_until(std::min(until, wake));
    if (batch::Clock::now() >= wake) {
      tick();
    }
  }
  if (m_events.empty()) {
    return std::nullopt;
  }
  auto event = std::move(m_events.front());
  m_events.pop_front();
  return event;
}

void Follower::tick()
{
  ++m_tick;
  const auto now = batch::Clock::now();
  if (m_asked && !m_cancelled && now - m_asked_at > k_confirm_within) {
    m_asked = false;
    m_interrupts_before = m_interrupts;
    note("going on");
  }
  const bool done = fs::exists(path("final.done"));
  read_records(done);
  watch_ending(batch::Clock::now());
  const bool array_ending = m_complete_since && batch::Clock::now() - *m_complete_since < k_ending;
  if (done || array_ending || m_tick % 5 == 0) {
    ask_slurm(batch::Clock::now(), done);
  }
  if (done || m_self_finished) {
    const auto csv = m_out + "/ops_status.csv";
    batch::Event event;
    event.kind = batch::Event::Kind::done;
    event.rows = batch::parse_ops_status(util::read_file(csv), csv);
    m_events.push_back(std::move(event));
    m_done = true;
  }
}

void Follower::read_records(bool done)
{
  // Once every record is complete they change no more: the quick ticks read them every 100 ms
  // still, not every 10 ms (the campaign folder may be on a network filesystem).
  if (quick(batch::Clock::now()) && !done && m_tick % 10 != 0) {
    return;
  }
  for (size_t t = 0; t < m_sub.tasks; ++t) {
    if (!m_started.count(t) && fs::exists(path(fmt::format("task-{}.started", t)))) {
      m_started.insert(t);
    }
    const auto record = path(fmt::format("task-{}.csv", t));
    struct stat st = {};
    if (::stat(record.c_str(), &st) != 0) {
      continue;
    }
    // Written by rename: a new inode or time is a new record.
    const auto stamp = std::make_tuple(st.st_ino, st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
    if (m_record_time.count(t) && m_record_time[t] == stamp && !done) {
      continue;
    }
    m_record_time[t] = stamp;
    try {
      const auto recorded = batch::parse_ops_status(util::read_file(record), record);
      for (const auto& s : recorded) {
        if (s.status != results::OpState::pending && m_index.count(s.op) && m_shown.insert(s.op).second) {
          batch::Event event;
          event.kind = batch::Event::Kind::ended;
          event.op = m_index[s.op];
          event.row = s;
          m_events.push_back(std::move(event));
        }
      }
      if (std::none_of(recorded.begin(), recorded.end(),
                       [](const auto& s) { return s.status == results::OpState::pending; })) {
        m_complete.insert(t);
      }
    } catch (const Error&) {
      // being rewritten: the next tick reads it
    }
  }
}

void Follower::watch_ending(batch::Clock::time_point now)
{
  if (m_complete.size() == m_sub.tasks && !m_complete_since) {
    m_complete_since = now;
  }
  if (!m_complete_since || m_all_exited) {
    return;
  }
  // Only the tasks not yet seen ended are looked at, in order, stopping at the first still running.
  while (m_exited < m_sub.tasks && fs::exists(path(fmt::format("task-{}.exit", m_exited)))) {
    ++m_exited;
  }
  if (m_exited == m_sub.tasks) {
    m_all_exited = m_next_ask = now;
  }
}

void Follower::ask_slurm(batch::Clock::time_point now, bool done)
{
  // Slurm is asked once more when the final step is done: a task that ended without a record
  // here must be reported even when the final step was quick.
  if (!done && now < m_next_ask) {
    return;
  }
  const bool array_ending = m_complete_since && now - *m_complete_since < k_ending;
  m_next_ask = now + std::chrono::milliseconds(m_all_exited && now - *m_all_exited < k_quick ? 25
                                               : array_ending                                ? 100
                                               : m_started.size() < m_sub.tasks              ? 500
                                                                                             : 2000);
  const auto tasks = slurm::query(m_sub.array_id);
  size_t ended = 0;
  for (const auto& t : tasks) {
    if (!t.task) {
      continue;
    }
    ended += slurm::is_final(t.state);
    if (m_last_state[*t.task] != t.state) {
      m_last_state[*t.task] = t.state;
      if (t.state != "PENDING") {
        note(fmt::format("task {}: {}{}", *t.task, t.state, t.node.empty() ? "" : " on " + t.node));
      }
    }
    check_visible(t);
  }
  const bool array_ended = ended == m_sub.tasks && std::all_of(tasks.begin(), tasks.end(),
                                                               [](const auto& t) { return slurm::is_final(t.state); });
  if (!done && array_ended && !m_self_tried) {
    // The final step's work, done here (it would wait for Slurm to schedule it); the final step
    // is then cancelled. When the final step already holds the campaign's lock, zl waits for
    // its record as before.
    m_self_tried = true;
    try {
      if (finish_campaign(m_out, false, tasks)) {
        m_self_finished = true;
        slurm::cancel({m_sub.final_id});
        return;
      }
    } catch (const Error& e) {
      note(fmt::format("recording the campaign here failed ({}); the final step {} tries", e.what(), m_sub.final_id));
    }
  }
  if (!done) {
    check_final();
  }
}

void Follower::check_visible(const slurm::TaskState& t)
{
  // The nodes must see the campaign folder: a task that runs (or ran) but whose first record
  // never appears here wrote it somewhere this host cannot see.
  if (t.state != "PENDING" && !m_running_since.count(*t.task)) {
    m_running_since[*t.task] = batch::Clock::now();
  }
  const bool began = m_started.count(*t.task) || fs::exists(path(fmt::format("task-{}.started", *t.task)));
  if (began || !m_running_since.count(*t.task) || t.state == "CANCELLED" ||
      (!slurm::is_final(t.state) && batch::Clock::now() - m_running_since[*t.task] <= k_visibility_grace)) {
    return;
  }
  slurm::cancel({m_sub.array_id, m_sub.final_id});
  throw Error(fmt::format("task {} of array {} {} on {} but left no record in {}: the node cannot see or write the "
                          "campaign folder. zl cancelled the array and the final step (see its log there, {}); put "
                          "--out on a filesystem the nodes share",
                          *t.task, m_sub.array_id, t.state == "RUNNING" ? "runs" : "ended " + t.state,
                          t.node.empty() ? "its node" : t.node, m_out + "/" + k_slurm_dir,
                          fmt::format("task-{}.log", *t.task)));
}

void Follower::check_final()
{
  const auto fin = slurm::query(m_sub.final_id);
  const bool final_ended =
      fin.empty() || std::all_of(fin.begin(), fin.end(), [](const auto& t) { return slurm::is_final(t.state); });
  if (!final_ended || fs::exists(path("final.done"))) {
    return;
  }
  std::this_thread::sleep_for(std::chrono::seconds(2)); // a shared filesystem may show it late
  if (!fs::exists(path("final.done"))) {
    throw Error(fmt::format("the final step (job {}) ended{} without recording the campaign; see {}, then record it "
                            "with: zl batch --out {} --slurm-final",
                            m_sub.final_id, fin.empty() ? "" : " as " + fin.front().state, path("final.log"), m_out));
  }
}

} // namespace zl::slurm
