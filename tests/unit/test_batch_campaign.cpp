// The campaign logic (core/batch/campaign.cpp) against a fake executor: no process is started,
// each op does what the test tells it.
#include "batch/campaign.hpp"

#include "batch/ops_status.hpp"
#include "results/store/store.hpp"
#include "results_helpers.hpp"
#include "temp_dir.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

#include <doctest/doctest.h>

#include <boost/filesystem.hpp>

#include <algorithm>
#include <condition_variable>
#include <csignal>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>

using namespace zl;
namespace fs = boost::filesystem;

namespace {

constexpr int k_fake_group = 4194304 + 7;

class FakeExecutor;
using OpBehaviour = std::function<exec::OpEnd(const exec::OpLaunch&, FakeExecutor&)>;

class FakeExecutor : public exec::Executor
{
public:
  std::string name() const override { return "fake"; }
  exec::OpEnd run(const exec::OpLaunch& launch) override
  {
    {
      std::lock_guard<std::mutex> lock(m);
      ran.push_back(launch.request.op);
      launches.push_back(launch);
    }
    // As a started op does; the campaign stops only an op that has told it a group. No process
    // has this id (above the kernel's pid_max default), so nothing real is ever looked at.
    launch.on_group(k_fake_group);
    const auto it = behaviour.find(launch.request.op);
    return it != behaviour.end() ? it->second(launch, *this) : exec::OpEnd{0, ""};
  }
  void stop(size_t slot, exec::Stop how) override
  {
    std::lock_guard<std::mutex> lock(m);
    stops.emplace_back(slot, how);
    cv.notify_all();
  }
  void shutdown() override { shut_down = true; }

  // Blocks until the campaign asks for how (at most 20 s, so that a broken campaign fails the
  // test instead of hanging it).
  bool wait_for(exec::Stop how)
  {
    std::unique_lock<std::mutex> lock(m);
    return cv.wait_for(lock, std::chrono::seconds(20), [&] {
      return std::any_of(stops.begin(), stops.end(), [&](const auto& s) { return s.second == how; });
    });
  }

  std::map<std::string, OpBehaviour> behaviour;
  std::mutex m;
  std::condition_variable cv;
  std::vector<std::string> ran;
  std::vector<exec::OpLaunch> launches;
  std::vector<std::pair<size_t, exec::Stop>> stops;
  bool shut_down = false;
};

// An op that leaves a run folder with one row, as `zl run` would.
exec::OpEnd ok_with_rows(const exec::OpLaunch& launch, FakeExecutor&)
{
  test::write_run(launch.request.out_dir, test::table(launch.request.op, "float16", {{"[1024]", 0.2, 0.1}}),
                  launch.request.op);
  return {0, ""};
}

OpBehaviour exits(int code)
{
  return [code](const exec::OpLaunch&, FakeExecutor&) { return exec::OpEnd{code, ""}; };
}

struct Campaign
{
  test::TempDir dir;
  FakeExecutor executor;
  batch::CampaignSpec spec;
  std::vector<batch::OpStatus> statuses;
  results::store::Store store{dir / "results.sqlite"};
  std::map<std::string, double> expected;

  Campaign()
  {
    spec.executor = &executor;
    spec.backend = "cuda";
    spec.request.level = "core";
    spec.request.flaggems_dir = "/fg";
    loader::Device d;
    d.index = 0;
    d.uuid = "GPU-0";
    spec.devices = {d};
    spec.out_dir = dir / "campaign";
    store.set_report_stream(nullptr);
  }
  void add(const std::string& op, results::OpState status = results::OpState::pending)
  {
    batch::OpStatus s;
    s.op = op;
    s.status = status;
    statuses.push_back(s);
  }
  batch::CampaignOutcome run()
  {
    return batch::run_campaign(spec, statuses, store, [this](const std::string& op) {
      const auto it = expected.find(op);
      return it == expected.end() ? std::nullopt : std::optional<double>(it->second);
    });
  }
  const batch::OpStatus& status(const std::string& op) const
  {
    return *std::find_if(statuses.begin(), statuses.end(), [&](const auto& s) { return s.op == op; });
  }
};

} // namespace

TEST_CASE("zl::batch::run_campaign: longest expected first, unknown first of all; each op's request")
{
  Campaign c;
  for (const auto* op : {"short", "long", "new", "middle"}) {
    c.add(op);
  }
  c.expected = {{"short", 1}, {"long", 30}, {"middle", 10}};
  const auto outcome = c.run();
  CHECK(c.executor.ran == std::vector<std::string>{"new", "long", "middle", "short"});
  CHECK(outcome.ran == 4);
  CHECK(c.executor.shut_down);
  const auto& l = c.executor.launches.front();
  CHECK(l.request.device == "GPU-0");
  CHECK(l.request.out_dir == c.spec.out_dir + "/new");
  CHECK(l.request.flaggems_dir == "/fg");
  CHECK(l.log_path == c.spec.out_dir + "/logs/new.log");
  CHECK(l.slot == 0);
}

TEST_CASE("zl::batch::run_campaign: statuses from exit codes and rows; ops_status.csv and the store as it goes")
{
  Campaign c;
  for (const auto* op : {"good", "empty", "failing", "refused", "crashing", "check"}) {
    c.add(op);
  }
  c.executor.behaviour["good"] = ok_with_rows;
  c.executor.behaviour["empty"] = exits(0);
  c.executor.behaviour["failing"] = exits(1);
  c.executor.behaviour["refused"] = exits(3);
  c.executor.behaviour["crashing"] = exits(14);
  // The last op looks at what the campaign wrote before it started.
  std::string csv_then;
  std::optional<double> stored_then;
  c.executor.behaviour["check"] = [&](const exec::OpLaunch&, FakeExecutor&) {
    csv_then = util::read_file(c.spec.out_dir + "/ops_status.csv");
    stored_then = c.store.expected_duration("cuda", "good");
    return exec::OpEnd{0, ""};
  };
  c.expected = {{"good", 6}, {"empty", 5}, {"failing", 4}, {"refused", 3}, {"crashing", 2}, {"check", 1}};
  const auto outcome = c.run();
  CHECK(outcome.exit_code == 1);
  CHECK(c.status("good").status == results::OpState::ok);
  CHECK(c.status("good").rows == 1);
  CHECK(c.status("empty").status == results::OpState::no_rows);
  CHECK(c.status("failing").status == results::OpState::failed);
  CHECK(c.status("refused").status == results::OpState::preflight_failed);
  CHECK(c.status("crashing").status == results::OpState::crashed);
  CHECK(c.status("crashing").exit_code == 14);
  CHECK(c.status("good").device_uuid == "GPU-0");
  CHECK(c.status("good").level == "core");
  // Rewritten after each op: the five earlier rows were on disk when the sixth began.
  const auto then = batch::parse_ops_status(csv_then, "ops_status.csv");
  REQUIRE(then.size() == 6);
  CHECK(then[0].status == results::OpState::ok);
  CHECK(then[4].status == results::OpState::crashed);
  CHECK(then[5].status == results::OpState::pending);
  CHECK(stored_then.has_value()); // ingested before the next op started
  const auto now = batch::parse_ops_status(util::read_file(c.spec.out_dir + "/ops_status.csv"), "ops_status.csv");
  CHECK(now[5].status == results::OpState::no_rows);
}

TEST_CASE("zl::batch::run_campaign: resume runs only the ops not ok, keeping earlier folders as .attempt-N")
{
  Campaign c;
  c.add("done", results::OpState::ok);
  c.add("again", results::OpState::failed);
  c.add("never");
  fs::create_directories(c.spec.out_dir + "/again");
  fs::create_directories(c.spec.out_dir + "/again.attempt-1");
  test::write_text(c.spec.out_dir + "/again/run.log", "first try\n");
  c.executor.behaviour["again"] = ok_with_rows;
  c.executor.behaviour["never"] = ok_with_rows;
  const auto outcome = c.run();
  std::sort(c.executor.ran.begin(), c.executor.ran.end());
  CHECK(c.executor.ran == std::vector<std::string>{"again", "never"});
  CHECK(util::read_file(c.spec.out_dir + "/again.attempt-2/run.log") == "first try\n");
  CHECK(fs::exists(c.spec.out_dir + "/again/run_identity.json"));
  CHECK(c.status("done").status == results::OpState::ok);
  CHECK(outcome.exit_code == 0);
}

TEST_CASE("zl::batch::run_campaign: a timeout asks the executor to terminate and records timeout")
{
  Campaign c;
  c.add("hangs");
  c.add("next");
  c.spec.timeout_per_op = 0.3;
  c.executor.behaviour["hangs"] = [](const exec::OpLaunch&, FakeExecutor& x) {
    return exec::OpEnd{x.wait_for(exec::Stop::terminate) ? 143 : 0, ""};
  };
  const auto outcome = c.run();
  CHECK(c.status("hangs").status == results::OpState::timeout);
  REQUIRE(!c.executor.stops.empty());
  CHECK(c.executor.stops.front() == std::make_pair(size_t{0}, exec::Stop::terminate));
  CHECK(c.status("next").status == results::OpState::no_rows); // the campaign goes on
  CHECK(outcome.exit_code == 1);
}

TEST_CASE("zl::batch::run_campaign: a stop signal interrupts the running op, starts nothing new, exits 130")
{
  Campaign c;
  c.add("first");
  c.add("second");
  c.executor.behaviour["first"] = [](const exec::OpLaunch&, FakeExecutor& x) {
    std::raise(SIGINT); // as Ctrl-C would: the campaign's handler is in place while it runs
    return exec::OpEnd{x.wait_for(exec::Stop::interrupt) ? 130 : 0, ""};
  };
  const auto outcome = c.run();
  CHECK(outcome.exit_code == 130);
  CHECK(c.executor.ran == std::vector<std::string>{"first"});
  CHECK(c.status("first").status == results::OpState::interrupted);
  CHECK(c.status("second").status == results::OpState::pending);
  REQUIRE(!c.executor.stops.empty());
  CHECK(c.executor.stops.front().second == exec::Stop::interrupt);
}

TEST_CASE("zl::batch::run_campaign: an executor that throws stops the campaign with the folder's error")
{
  Campaign c;
  c.add("first");
  c.add("second");
  c.executor.behaviour["first"] = [](const exec::OpLaunch&, FakeExecutor&) -> exec::OpEnd {
    throw Error("No space left on device");
  };
  CHECK_THROWS_WITH_AS(c.run(), doctest::Contains("No space left on device"), Error);
  try {
    c.run();
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find(c.spec.out_dir) != std::string::npos);
    CHECK(std::string(e.what()).find("--resume") != std::string::npos);
  }
  CHECK(std::count(c.executor.ran.begin(), c.executor.ran.end(), "second") == 0);
}

TEST_CASE("zl::batch::run_campaign: an identity whose timer is not a string is read as unknown, not trusted")
{
  Campaign c;
  c.add("odd");
  c.executor.behaviour["odd"] = [](const exec::OpLaunch& launch, FakeExecutor& fake) {
    ok_with_rows(launch, fake);
    // A run folder is read back, not trusted: a number where a string belongs (found by review
    // of what fuzz_run_folder cannot reach) must not be read as a string.
    util::write_file_atomic(launch.request.out_dir + "/run_identity.json",
                            R"({"timer": {"effective": 5}, "level": ["core"]})");
    return exec::OpEnd{0, ""};
  };
  const auto outcome = c.run();
  CHECK(outcome.ran == 1);
  CHECK(c.status("odd").timer.empty());
  CHECK(c.status("odd").level == "core"); // the campaign's own, since the identity's is not a string
}

TEST_CASE("zl::batch::all_ops: every op mark, and each file that marks nothing by its name")
{
  test::TempDir fg;
  boost::filesystem::create_directories(fg / "benchmark");
  std::ofstream(fg / "benchmark/base.py") << "class Benchmark:\n    pass\n";
  std::ofstream(fg / "benchmark/test_abs.py")
      << "@pytest.mark.abs\ndef test_abs():\n    pass\n\n@pytest.mark.abs_\ndef test_abs_inplace():\n    pass\n";
  // Its tests run as the ops they mark: a run of `div` would run them twice.
  std::ofstream(fg / "benchmark/test_div.py")
      << "@pytest.mark.div_tensor\n@pytest.mark.parametrize('x', [1])\ndef test_div(x):\n    pass\n";
  std::ofstream(fg / "benchmark/test_chunk_gla.py") << "def test_chunk_gla():\n    pass\n";
  CHECK(batch::all_ops(fg.path(), "") == std::vector<std::string>{"abs", "abs_", "chunk_gla", "div_tensor"});
  // A computed mark with no interpreter to collect it: said, not a shorter list.
  std::ofstream(fg / "benchmark/test_unary.py") << "marks=getattr(pytest.mark, name, None)\n";
  CHECK_THROWS_WITH_AS(batch::all_ops(fg.path(), ""), doctest::Contains("only pytest's collection can list"), Error);
}
