// The campaign's scheduler (core/batch/scheduler.cpp) against a scripted source on a virtual
// clock: no thread, no process, no sleep. One source stands for the local executors (it runs what
// it is told to start), another for a Slurm follower (it places the ops itself).
#include "batch/scheduler.hpp"

#include "batch/progress.hpp"
#include "util/error.hpp"

#include <doctest/doctest.h>

#include <csignal>
#include <map>
#include <set>

using namespace zl;
using namespace zl::batch;
using namespace std::chrono_literals;
using results::OpState;

namespace {

// What an op does once started: when it becomes stoppable, when it ends by itself (never: runs
// until stopped), and how long it takes to answer each stop (never: ignores it).
struct Script
{
  Clock::duration running_after = 0s;
  std::optional<Clock::duration> ends_after = 1s;
  int exit_code = 0;
  std::map<exec::Stop, std::optional<Clock::duration>> answers = {
      {exec::Stop::interrupt, 10ms}, {exec::Stop::terminate, 10ms}, {exec::Stop::kill, 0s}};
};

class ScriptedSource : public EventSource
{
public:
  explicit ScriptedSource(size_t slots) : m_slots(slots) {}

  size_t slots() const override { return m_slots; }
  unsigned start(size_t op, size_t slot) override
  {
    starts.push_back({op, slot});
    const auto& s = scripts[op];
    at(m_now + s.running_after, Event{Event::Kind::running, op, {}, {}, {}, {}});
    if (s.ends_after) {
      end(op, m_now + *s.ends_after, s.exit_code);
    }
    return static_cast<unsigned>(slot) + 10;
  }
  void stop(size_t op, exec::Stop how) override
  {
    stops.push_back({op, how, m_now});
    if (const auto answer = scripts[op].answers[how]) {
      end(op, m_now + *answer, how == exec::Stop::kill ? 137 : k_exit_interrupted);
    }
  }
  bool stop_requested(int signal, int n) override
  {
    requests.push_back({signal, n});
    return stop_on_first || n >= 2;
  }
  std::optional<Event> next(Clock::time_point until) override
  {
    if (m_pending.empty() || m_pending.begin()->first > until) {
      m_now = std::max(m_now, until);
      return std::nullopt;
    }
    const auto it = m_pending.begin();
    m_now = std::max(m_now, it->first);
    auto event = it->second;
    m_pending.erase(it);
    if (event.kind == Event::Kind::ended && !event.row && m_ended.count(event.op)) {
      return std::nullopt; // already ended (a stop answered before the op's own end)
    }
    if (event.kind == Event::Kind::ended) {
      m_ended.insert(event.op);
    }
    return event;
  }
  Clock::time_point now() const override { return m_now; }

  void at(Clock::time_point when, Event event) { m_pending.emplace(when, std::move(event)); }
  Clock::time_point origin() const { return m_origin; }

  struct Start
  {
    size_t op, slot;
  };
  struct StopCall
  {
    size_t op;
    exec::Stop how;
    Clock::time_point when;
  };
  std::map<size_t, Script> scripts;
  std::vector<Start> starts;
  std::vector<StopCall> stops;
  std::vector<std::pair<int, int>> requests;
  bool stop_on_first = true;

private:
  void end(size_t op, Clock::time_point when, int exit_code)
  {
    Event event{Event::Kind::ended, op, {}, {}, {}, {}};
    event.end.exit_code = exit_code;
    at(when, event);
  }

  size_t m_slots;
  Clock::time_point m_origin = Clock::time_point(1000s);
  Clock::time_point m_now = m_origin;
  std::multimap<Clock::time_point, Event> m_pending;
  std::set<size_t> m_ended;
};

std::vector<OpStatus> table_of(std::initializer_list<const char*> ops)
{
  std::vector<OpStatus> table;
  for (const char* op : ops) {
    OpStatus row;
    row.op = op;
    row.status = OpState::pending;
    table.push_back(row);
  }
  return table;
}

// A finish that records how each op ended and judges it the way a campaign does.
SchedulerSpec spec_recording(std::map<std::string, Ending>& endings)
{
  SchedulerSpec spec;
  spec.finish = [&endings](OpStatus& row, const Ending& how) {
    endings[row.op] = how;
    row.exit_code = how.end.exit_code;
    row.status = status_from_exit(how.end.exit_code, 1, how.timed_out, how.interrupted);
  };
  return spec;
}

double seconds(Clock::duration d)
{
  return std::chrono::duration<double>(d).count();
}

} // namespace

TEST_CASE("zl::batch::Scheduler: queued ops start in the order given, one a slot, a slot reused once free")
{
  auto table = table_of({"abs", "mm", "add"});
  ScriptedSource source(2);
  source.scripts[0].ends_after = 1s;
  source.scripts[1].ends_after = 5s;
  source.scripts[2].ends_after = 2s;
  std::map<std::string, Ending> endings;
  Progress progress(table.size(), 2);
  const auto out = Scheduler(spec_recording(endings), table, {1, 2, 0}, progress).run(source);
  REQUIRE(source.starts.size() == 3);
  CHECK(source.starts[0].op == 1);
  CHECK(source.starts[0].slot == 0);
  CHECK(source.starts[1].op == 2);
  CHECK(source.starts[1].slot == 1);
  CHECK(source.starts[2].op == 0); // after add freed slot 1, at 2 s
  CHECK(source.starts[2].slot == 1);
  CHECK(endings["abs"].slot == 1);
  CHECK(out.exit_code == 0);
  CHECK(out.ran == 3);
  CHECK(out.makespan_s == doctest::Approx(5).epsilon(0.01));
  CHECK(out.total_work_s == doctest::Approx(8).epsilon(0.01));
  for (const auto& row : table) {
    CHECK(row.status == OpState::ok);
  }
  CHECK(source.stops.empty());
}

TEST_CASE("zl::batch::Scheduler: a timeout terminates the op, and kills it once the grace has passed")
{
  auto table = table_of({"hang"});
  ScriptedSource source(1);
  source.scripts[0].ends_after = std::nullopt;
  source.scripts[0].answers[exec::Stop::terminate] = std::nullopt; // ignores SIGTERM
  std::map<std::string, Ending> endings;
  auto spec = spec_recording(endings);
  spec.timeout = 10s;
  spec.kill_after = 5s;
  Progress progress(table.size(), 1);
  const auto out = Scheduler(spec, table, {0}, progress).run(source);
  REQUIRE(source.stops.size() == 2);
  CHECK(source.stops[0].how == exec::Stop::terminate);
  CHECK(seconds(source.stops[0].when - source.origin()) == doctest::Approx(10).epsilon(0.01));
  CHECK(source.stops[1].how == exec::Stop::kill);
  CHECK(seconds(source.stops[1].when - source.origin()) == doctest::Approx(15).epsilon(0.01));
  CHECK(endings["hang"].timed_out);
  CHECK_FALSE(endings["hang"].interrupted);
  CHECK(table[0].status == OpState::timeout);
  CHECK(out.exit_code == 1);
}

TEST_CASE("zl::batch::Scheduler: an op that answers the timeout's terminate is not killed")
{
  auto table = table_of({"slow"});
  ScriptedSource source(1);
  source.scripts[0].ends_after = std::nullopt;
  std::map<std::string, Ending> endings;
  auto spec = spec_recording(endings);
  spec.timeout = 3s;
  spec.kill_after = 5s;
  Progress progress(table.size(), 1);
  Scheduler(spec, table, {0}, progress).run(source);
  REQUIRE(source.stops.size() == 1);
  CHECK(source.stops[0].how == exec::Stop::terminate);
  CHECK(table[0].status == OpState::timeout);
}

TEST_CASE("zl::batch::Scheduler: an op is stopped only once it can be; its timeout then applies at once")
{
  auto table = table_of({"starting"});
  ScriptedSource source(1);
  source.scripts[0].running_after = 7s; // its first process group is told late
  source.scripts[0].ends_after = std::nullopt;
  std::map<std::string, Ending> endings;
  auto spec = spec_recording(endings);
  spec.timeout = 2s;
  spec.kill_after = 5s;
  Progress progress(table.size(), 1);
  Scheduler(spec, table, {0}, progress).run(source);
  REQUIRE_FALSE(source.stops.empty());
  CHECK(seconds(source.stops[0].when - source.origin()) == doctest::Approx(7).epsilon(0.01));
}

TEST_CASE("zl::batch::Scheduler: a stop signal interrupts the running ops, starts nothing new, exits 130")
{
  auto table = table_of({"a", "b", "c"});
  ScriptedSource source(2);
  for (size_t k = 0; k < 3; ++k) {
    source.scripts[k].ends_after = std::nullopt;
  }
  // The Ctrl-C comes at 4 s, while the two first ops run; the scheduler reads the count after
  // each event, and the note at 4 s is one.
  source.at(source.origin() + 4s, Event{Event::Kind::note, 0, {}, {}, {}, "Ctrl-C"});
  std::map<std::string, Ending> endings;
  auto spec = spec_recording(endings);
  spec.signals = [&](int sig) { return sig == SIGINT && source.now() >= source.origin() + 4s ? 1 : 0; };
  Progress progress(table.size(), 2);
  const auto out = Scheduler(spec, table, {0, 1, 2}, progress).run(source);
  CHECK(out.exit_code == k_exit_interrupted);
  CHECK(source.starts.size() == 2); // c never started
  REQUIRE(source.stops.size() == 2);
  for (const auto& s : source.stops) {
    CHECK(s.how == exec::Stop::interrupt);
  }
  CHECK(endings["a"].interrupted);
  CHECK(table[0].status == OpState::interrupted);
  CHECK(table[2].status == OpState::pending);
  REQUIRE(source.requests.size() == 1);
  CHECK(source.requests[0] == std::make_pair(SIGINT, 1));
}

TEST_CASE("zl::batch::Scheduler: a source that breaks stops new starts; running ops end; the reason comes back")
{
  auto table = table_of({"a", "b", "c"});
  ScriptedSource source(1);
  source.scripts[0].ends_after = 2s;
  source.at(source.origin() + 1s, Event{Event::Kind::broken, 0, {}, {}, {}, "the folder is read-only"});
  std::map<std::string, Ending> endings;
  Progress progress(table.size(), 1);
  const auto out = Scheduler(spec_recording(endings), table, {0, 1, 2}, progress).run(source);
  CHECK(out.broken == "the folder is read-only");
  CHECK(source.starts.size() == 1);
  CHECK(table[0].status == OpState::ok); // it ran to its end and is recorded
  CHECK(table[1].status == OpState::pending);
}

TEST_CASE("zl::batch::Scheduler: a finish that throws (a full disk) breaks the campaign, no op is lost")
{
  auto table = table_of({"a", "b"});
  ScriptedSource source(1);
  SchedulerSpec spec;
  spec.finish = [](OpStatus&, const Ending&) { throw Error("ops_status.csv: No space left on device"); };
  Progress progress(table.size(), 1);
  const auto out = Scheduler(spec, table, {0, 1}, progress).run(source);
  CHECK(out.broken == "ops_status.csv: No space left on device");
  CHECK(source.starts.size() == 1);
}

TEST_CASE("zl::batch::Scheduler: a source that places ops itself (Slurm) reports rows; the final table decides")
{
  auto table = table_of({"a", "b"});
  ScriptedSource source(0);
  source.stop_on_first = false; // a first Ctrl-C only asks
  OpStatus a = table[0];
  a.status = OpState::ok;
  a.device_index = 0;
  Event ended{Event::Kind::ended, 0, {}, a, {}, {}};
  source.at(source.origin() + 1s, ended);
  auto final_rows = table;
  final_rows[0].status = OpState::ok;
  final_rows[1].status = OpState::failed;
  source.at(source.origin() + 3s, Event{Event::Kind::done, 0, {}, {}, final_rows, {}});
  SchedulerSpec spec;
  spec.signals = [&](int sig) { return sig == SIGINT && source.now() >= source.origin() + 2s ? 1 : 0; };
  Progress progress(table.size(), 1);
  const auto out = Scheduler(spec, table, {}, progress).run(source);
  CHECK(source.starts.empty());
  CHECK(table[0].status == OpState::ok);
  CHECK(table[1].status == OpState::failed);
  CHECK(out.exit_code == 1); // asked once, not cancelled: the campaign's own answer
  REQUIRE(source.requests.size() == 1);
  CHECK(source.requests[0] == std::make_pair(SIGINT, 1));
}
