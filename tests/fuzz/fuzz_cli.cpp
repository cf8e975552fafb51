// zl's command line, in-process through zl::cli::main (what main.cpp calls): random argv vectors
// of known options, values and junk. Each must end in a usage error (2), a preflight failure (3)
// or a valid action (0; 6 from --fail-on-regression), never an internal error (70) or a signal.
//
// Only what is safe in-process is built: `backends`, `devices`, `plan`, `summary` and
// `receipt --verify` of the fixtures, `--help`, `--version`, and `run` with ZL_PYTHON pointing at
// no file, so that its preflight fails before anything is spawned or written. Every other command
// (zl::cli::command_names(): `batch`, `sweep` and `ab` spawn `zl run`, `report` writes a page)
// comes only as `<command> --help`; junk can spell a command name, so that is checked on the argv
// built, not on the tokens. `--python` and `--db` (a program to run, a file to write) are never
// given; junk never starts with '-' or '/', so it cannot name an option boost would guess from a
// prefix, and holds no "..", so it names no file outside the scratch folder, which is the working
// folder. The fixtures are copies in the scratch folder: `zl report FIXTURE --out FIXTURE` once
// wrote its page over tests/fixtures/flaggems_output/tflops.log (boost took --out for --output).
#include "fuzz_util.hpp"
#include "run_cli.hpp"
#include "util/error.hpp"

#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include <fcntl.h>
#include <unistd.h>

namespace {

const std::vector<std::string>& known()
{
  static const std::string fixtures = zl::fuzz::scratch() + "/fixtures"; // LLVMFuzzerInitialize copies them
  static const std::vector<std::string> tokens = {
      // global options and the safe commands
      "--backend", "--backend-path", "--version", "--help", "-h", "backends", "devices", "plan", "run", "summary",
      "receipt", "--verify", "--json",
      // run and plan
      "--flaggems", "--op", "--op-file", "--test-node", "--level", "--mode", "--dtypes", "--timer", "--device",
      "--shape-file", "--shape-mode", "--replay-from", "--record-autotune", "--isolate-tuner-cache", "--out", "--",
      // summary
      "--ab", "--format", "--force", "--fail-on-regression", "--alpha", "--threshold",
      // values
      "cpu", "cuda", "host", "core", "comprehensive", "kernel", "operator", "cudagraph", "auto", "graph", "direct",
      "float16,float32", "upstream", "abs", "mm", "0", "-1", "1e309", "nan", "text", "md", "csv", "json", "all",
      fixtures + "/shapes_flaggems", fixtures + "/shapes_flaggems/benchmark/core_shapes.yaml",
      fixtures + "/flaggems_output/tflops.log", fixtures + "/flaggems_output/record.log",
      fixtures + "/flaggems_output/markers.log", fixtures + "/flaggems_output/garbage.log", fixtures + "/smi",
      "benchmark/test_mm.py::test_mm", "nowhere"};
  return tokens;
}

// Whether argv (after zl's own name) is one the header allows.
bool safe(const std::vector<std::string>& args)
{
  std::size_t i = 0;
  while (i < args.size() && !args[i].empty() && args[i][0] == '-') {
    i += args[i] == "--backend" || args[i] == "--backend-path" ? 2 : 1;
  }
  if (i >= args.size()) {
    return true;
  }
  const auto& command = args[i];
  static const std::vector<std::string> commands = zl::cli::command_names();
  static const std::vector<std::string> runnable = {"backends", "devices", "plan", "run", "summary", "receipt"};
  if (std::find(commands.begin(), commands.end(), command) == commands.end()) {
    return true; // junk: a usage error
  }
  if (std::find(runnable.begin(), runnable.end(), command) == runnable.end()) {
    return args.size() == i + 2 && args[i + 1] == "--help";
  }
  if (command == "receipt") {
    return std::find(args.begin(), args.end(), "--verify") != args.end();
  }
  return true;
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***)
{
  // The scratch folder as working folder: relative junk names nothing there.
  if (::chdir(zl::fuzz::scratch().c_str()) != 0) {
    std::abort();
  }
  namespace fs = std::filesystem;
  fs::create_directories(fs::path(zl::fuzz::scratch()) / "fixtures");
  for (const char* d : {"shapes_flaggems", "flaggems_output", "smi"}) {
    fs::copy(fs::path(ZL_FIXTURE_DIR) / d, fs::path(zl::fuzz::scratch()) / "fixtures" / d, fs::copy_options::recursive);
  }
  ::setenv("ZL_PYTHON", "/nonexistent/zl-fuzz/python3", 1);
  for (const char* v : {"FLAGGEMS_DIR", "ZL_BACKEND", "ZL_BACKEND_PATH", "OP", "OP_FILE", "TEST_NODE", "SHAPE_FILE",
                        "SHAPE_MODE", "REPLAY_FROM", "BENCH_LEVEL", "ZL_ISOLATE_TUNER_CACHE"}) {
    ::unsetenv(v);
  }
  // What zl prints goes nowhere; the fuzzer's own reports go to stderr before this, or to a
  // crash file.
  const int null = ::open("/dev/null", O_WRONLY);
  ::dup2(null, STDOUT_FILENO);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  FuzzedDataProvider in(data, size);
  std::vector<std::string> args;
  while (in.remaining_bytes() > 0 && args.size() < 16) {
    if (in.ConsumeBool()) {
      args.push_back(known()[in.ConsumeIntegralInRange<std::size_t>(0, known().size() - 1)]);
    } else {
      auto junk = in.ConsumeRandomLengthString(32);
      if (junk.find('\0') != std::string::npos || junk.find("..") != std::string::npos ||
          (!junk.empty() && (junk[0] == '-' || junk[0] == '/'))) {
        return -1; // not kept in the corpus
      }
      args.push_back(std::move(junk));
    }
  }
  if (!safe(args)) {
    return -1;
  }
  if (std::getenv("ZL_FUZZ_SHOW_ARGV") != nullptr) { // to see what a failing input ran
    for (const auto& a : args) {
      std::fprintf(stderr, "[%s] ", a.c_str());
    }
    std::fprintf(stderr, "\n");
  }
  const int rc = zl::fuzz::run_cli(args);
  if (rc != zl::k_exit_ok && rc != zl::k_exit_usage && rc != zl::k_exit_preflight && rc != zl::k_exit_regression) {
    std::fprintf(stderr, "zl exited %d (70 is an internal error)\n", rc);
    __builtin_trap();
  }
  return 0;
}
