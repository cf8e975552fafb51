#include "batch/local_source.hpp"

#include "batch/lock.hpp"
#include "util/error.hpp"

#include <fmt/format.h>

#include <optional>

namespace zl::batch {

namespace {

// How often the running groups are looked for again (a benchmark may leave a process).
constexpr std::chrono::milliseconds k_scan_every{500};

} // namespace

LocalSource::LocalSource(const CampaignSpec& spec, std::vector<std::string> ops)
  : m_spec(spec), m_ops(std::move(ops)), m_slots(spec.devices.size()), m_next_scan(Clock::now() + k_scan_every)
{}

LocalSource::~LocalSource()
{
  for (size_t k = 0; k < m_slots.size(); ++k) {
    {
      std::lock_guard<std::mutex> lock(m_slots[k].m);
      if (m_slots[k].active && m_slots[k].pgid > 0) {
        m_spec.executor->stop(k, exec::Stop::kill);
      }
      m_slots[k].quit = true;
    }
    m_slots[k].wake.notify_one();
    if (m_slots[k].thread.joinable()) {
      m_slots[k].thread.join();
    }
  }
  m_spec.executor->shutdown();
}

unsigned LocalSource::start(size_t op, size_t slot)
{
  auto& s = m_slots.at(slot);
  {
    std::lock_guard<std::mutex> lock(s.m);
    s.job = op;
    s.active = true;
    s.pgid = 0;
  }
  m_slot_of[op] = slot;
  if (!s.thread.joinable()) {
    s.thread = std::thread([this, slot] { serve(slot); });
  }
  s.wake.notify_one();
  return m_spec.devices[slot].index;
}

void LocalSource::serve(size_t slot)
{
  auto& s = m_slots[slot];
  while (true) {
    size_t op = 0;
    {
      std::unique_lock<std::mutex> lock(s.m);
      s.wake.wait(lock, [&] { return s.quit || s.job; });
      if (s.quit) {
        return; // only an exception leaves the scheduler with a job just handed over
      }
      op = *s.job;
      s.job.reset();
    }
    run_op(op, slot);
  }
}

void LocalSource::run_op(size_t op, size_t slot)
{
  Event event;
  event.kind = Event::Kind::ended;
  event.op = op;
  // An exception must not leave the thread (std::terminate, with ops still running).
  try {
    const auto run_dir = m_spec.out_dir + "/" + m_ops[op];
    move_aside(run_dir);
    exec::OpLaunch launch;
    launch.request = m_spec.request;
    launch.request.op = m_ops[op];
    launch.request.device = m_spec.devices[slot].uuid;
    launch.request.out_dir = run_dir;
    launch.slot = slot;
    launch.device = m_spec.devices[slot];
    launch.log_path = m_spec.out_dir + "/logs/" + m_ops[op] + ".log";
    launch.on_group = [this, op, slot](int pgid) { on_group(op, slot, pgid); };
    event.end = m_spec.executor->run(launch);
  } catch (const std::exception& e) {
    Event broken;
    broken.kind = Event::Kind::broken;
    broken.text = e.what();
    push(broken);
    event.abandoned = true;
  }
  {
    std::lock_guard<std::mutex> lock(m_slots[slot].m);
    m_slots[slot].active = false;
    m_slots[slot].pgid = 0;
  }
  push(event);
}

void LocalSource::on_group(size_t op, size_t slot, int pgid)
{
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_groups.insert(pgid);
    record_groups();
  }
  bool first = false;
  {
    std::lock_guard<std::mutex> lock(m_slots[slot].m);
    first = m_slots[slot].pgid == 0;
    if (first) {
      m_slots[slot].pgid = pgid;
    }
  }
  if (first) {
    Event event;
    event.kind = Event::Kind::running;
    event.op = op;
    push(event);
  }
}

void LocalSource::stop(size_t op, exec::Stop how)
{
  const auto it = m_slot_of.find(op);
  if (it == m_slot_of.end()) {
    return;
  }
  // Under the slot's lock: an op whose run() has returned is never stopped (the executor's rule).
  std::lock_guard<std::mutex> lock(m_slots[it->second].m);
  if (m_slots[it->second].active && m_slots[it->second].pgid > 0) {
    m_spec.executor->stop(it->second, how);
  }
}

bool LocalSource::stop_requested(int, int)
{
  Event note;
  note.text = "stopping: no new op starts; running ops are interrupted";
  push(note);
  return true;
}

std::optional<Event> LocalSource::next(Clock::time_point until)
{
  std::unique_lock<std::mutex> lock(m_mutex);
  m_wake.wait_until(lock, std::min(until, m_next_scan), [this] { return !m_events.empty(); });
  if (m_events.empty()) {
    lock.unlock();
    if (Clock::now() >= m_next_scan) {
      track_groups();
    }
    return std::nullopt;
  }
  auto event = std::move(m_events.front());
  m_events.pop_front();
  return event;
}

void LocalSource::push(Event event)
{
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_events.push_back(std::move(event));
  }
  m_wake.notify_one();
}

void LocalSource::track_groups()
{
  m_next_scan = Clock::now() + k_scan_every;
  std::vector<int> leaders;
  for (auto& slot : m_slots) {
    std::lock_guard<std::mutex> lock(slot.m);
    if (slot.pgid > 0) {
      leaders.push_back(slot.pgid);
    }
  }
  std::vector<int> known;
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    known.assign(m_groups.begin(), m_groups.end());
  }
  // A group stays on record while anything of it runs (a benchmark may leave a process).
  const auto live = live_groups(known, m_spec.out_dir);
  std::set<int> seen(live.begin(), live.end());
  for (const int leader : leaders) {
    seen.insert(leader);
    for (const int g : descendant_groups(leader)) {
      seen.insert(g);
    }
  }
  std::lock_guard<std::mutex> lock(m_mutex);
  if (seen != m_groups) {
    m_groups = seen;
    record_groups();
  }
}

void LocalSource::record_groups()
{
  if (m_spec.lock == nullptr) {
    return;
  }
  try {
    m_spec.lock->set_running(std::vector<int>(m_groups.begin(), m_groups.end()));
  } catch (const Error& e) {
    Event note;
    note.text = e.what();
    m_events.push_back(note); // m_mutex is held
  }
}

} // namespace zl::batch
