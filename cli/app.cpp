#include "app.hpp"

#include "output.hpp"

#include "devices/peaks.hpp"
#include "util/error.hpp"
#include "util/process.hpp"
#include "util/string.hpp"

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <zl/version.hpp>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <iostream>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

namespace zl::cli {

namespace po = boost::program_options;

namespace {

struct Command
{
  const char* name;
  const char* summary;
  int (*run)(Context&, const Args&);
};

// Every subcommand, in the order --help lists them.
const Command k_commands[] = {
    {"backends", "list every backend module found, with its state (loaded, or why not)", cmd_backends},
    {"devices", "list the devices of the selected backend", cmd_devices},
    {"calibrate", "measure the device's own copy bandwidth and GEMM throughput once, and keep them", cmd_calibrate},
    {"run", "run one FlagGems benchmark node through pytest and leave a run folder", cmd_run},
    {"plan", "print what `zl run` would do with the same options, and run nothing", cmd_plan},
    {"batch", "run many ops across the devices of one host; ops_status.csv and a results store", cmd_batch},
    {"summary", "summarize run folders, campaigns or logs; --ab compares one build against another", cmd_summary},
    {"history", "where each series of a results store changed level or drifts, and what changed", cmd_history},
    {"report", "one self-contained HTML page of a campaign, an A/B (--ab) or a store's history", cmd_report},
    {"sweep", "tune an op's shapes across devices and publish one autotune config set", cmd_sweep},
    {"ab", "one op under two settings of a compiler switch, in interleaved rounds", cmd_ab},
    {"receipt", "record (or --verify) the SHA-256 of a campaign's harness files and results", cmd_receipt},
};

constexpr const char* k_help_tail = R"(
Backends:
  A backend is a module libzl_backend_<name>.so, loaded at run time. zl looks for modules in
  --backend-path folders, then ZL_BACKEND_PATH (a colon list), then <prefix>/lib/zl/backends
  beside the zl binary, then the build tree. --backend NAME (else ZL_BACKEND) picks one by name
  or alias; without either, zl uses the one backend that finds devices, or the host backend
  when none does. A backend that cannot be loaded stops zl with the reason; zl never falls back
  to another backend on its own. A module is refused when anyone but you or root owns, or others
  can write, the file or a folder above it (a sticky folder like /tmp is safe for your entries).

Examples:
  zl run --flaggems corpus --op abs    the bundled sample corpus on the host backend
  zl --backend=cuda run --flaggems ~/FlagGems --op mm --timer graph
  zl plan --flaggems ~/FlagGems --op abs --json
  zl backends                      every module found, and why any failed to load
  zl --backend=cuda devices        the GPUs the CUDA backend sees, by index and UUID
  zl --backend-path=./mine backends --json

Exit codes:
  0  success
  2  usage or configuration error: bad option, backend not loadable or not unique
  3  preflight failure of a run (PREFLIGHT_FAILED check=<name> says which)
  6  zl summary or zl history --fail-on-regression found a regression
  14 zl run: pytest was killed by a signal (zl names it; the identity says crashed)
  130 zl run, batch, ab: interrupted (Ctrl-C, SIGTERM, SIGHUP)
  70 internal error (a bug in zl: please report it with the command line)
  74 the output could not be written (standard output closed or its disk full); the reason is
     on stderr. A pipe whose reader stopped early (zl ... | head) is not an error.
)";

void print_help(std::ostream& out)
{
  out << "zl " << k_version << ": benchmark harness for Triton operator libraries (FlagGems) on\n"
      << "accelerators of several vendors, each behind a runtime-loaded backend.\n\n"
      << "Usage: zl [--backend NAME] [--backend-path DIR]... COMMAND [OPTIONS]\n\n"
      << "Global options:\n"
      << "  --backend NAME       backend by name or alias (default: ZL_BACKEND, else automatic)\n"
      << "  --backend-path DIR   look for backend modules in DIR first (repeatable)\n"
      << "  --version            print zl's version and backend ABI\n"
      << "  -h, --help           this text; `zl COMMAND --help` for a command's options\n\n"
      << "Commands:\n";
  for (const auto& c : k_commands) {
    out << fmt::format("  {:<10} {}\n", c.name, c.summary);
  }
  out << k_help_tail;
}

const Command& find_command(const std::string& name)
{
  for (const auto& c : k_commands) {
    if (name == c.name) {
      return c;
    }
  }
  std::string suggestion;
  size_t best = 3;
  for (const auto& c : k_commands) {
    const auto d = util::edit_distance(name, c.name);
    if (d < best) {
      best = d;
      suggestion = c.name;
    }
  }
  throw Error(fmt::format("unknown command '{}'{}; `zl --help` lists the commands", name,
                          suggestion.empty() ? "" : fmt::format(" (did you mean '{}'?)", suggestion)));
}

// Whether standard output is a pipe or socket whose reader has left: errno from the failed
// write may be long overwritten, the pipe's state is not.
bool reader_gone()
{
  struct stat st
  {
  };
  if (::fstat(STDOUT_FILENO, &st) != 0 || !(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) {
    return false;
  }
  pollfd p{STDOUT_FILENO, POLLOUT, 0};
  return ::poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP)) != 0;
}

// Every write to standard output is checked here, once: the stream's state, then the flush and
// a close, which report what the buffered writes met (a full disk, a closed descriptor). A
// pipe whose reader left (EPIPE, when SIGPIPE is ignored) stays quiet, as in most tools.
// A failure turns success into k_exit_output; a command's own failure code is kept.
int finish_stdout(int rc, bool stdout_was_closed)
{
  std::cout.flush();
  int err = stdout_was_closed ? EBADF : 0;
  if (err == 0 && (!std::cout.good() || std::ferror(stdout) != 0)) {
    err = errno != 0 ? errno : EIO;
  }
  errno = 0;
  if (std::fflush(stdout) != 0 && err == 0) {
    err = errno != 0 ? errno : EIO;
  }
  // Closing a duplicate reports what a close would (NFS flushes on every close), and leaves
  // stdout open for what vendor runtimes print from their exit handlers.
  errno = 0;
  if (const int dup = ::dup(STDOUT_FILENO); dup >= 0 && ::close(dup) != 0 && err == 0) {
    err = errno != 0 ? errno : EIO;
  }
  if (err == 0 || err == EPIPE || reader_gone()) {
    return rc;
  }
  std::cerr << fmt::format("zl: error: cannot write the output to standard output: {}; what it shows is missing "
                           "or cut\n",
                           err == EBADF ? "it is closed" : std::strerror(err));
  return rc == k_exit_ok ? k_exit_output : rc;
}

int run(int argc, char** argv)
{
  // Global options stand before the command; everything after it belongs to the command.
  std::vector<std::string> global;
  int i = 1;
  for (; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.empty() || arg[0] != '-') {
      break;
    }
    global.push_back(arg);
    if ((arg == "--backend" || arg == "--backend-path") && i + 1 < argc) {
      global.push_back(argv[++i]);
    }
  }
  po::options_description desc;
  desc.add_options()("backend", po::value<std::string>())("backend-path", po::value<std::vector<std::string>>())(
      "version", "")("help,h", "");
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(global).options(desc).run(), vm);
  } catch (const po::error& e) {
    throw Error(fmt::format("{}; `zl --help` lists the global options", option_error(e, global)));
  }
  if (vm.count("version")) {
    std::cout << fmt::format("zl {} (backend ABI {}.{})\n", k_version, ZL_ABI_MAJOR, ZL_ABI_MINOR);
    return k_exit_ok;
  }
  if (vm.count("help") || i >= argc) {
    print_help(i >= argc && !vm.count("help") ? std::cerr : std::cout);
    return vm.count("help") ? k_exit_ok : k_exit_usage;
  }
  Context ctx;
  ctx.command_line.assign(argv, argv + argc);
  if (vm.count("backend")) {
    ctx.backend = vm["backend"].as<std::string>();
  }
  if (vm.count("backend-path")) {
    ctx.backend_paths = vm["backend-path"].as<std::vector<std::string>>();
  }
  // The spec peaks (zl summary's %BW, %TFLOPS) come from the modules these folders hold too.
  devices::search_backend_paths(ctx.backend_paths);
  const auto& command = find_command(argv[i]);
  return command.run(ctx, Args(argv + i + 1, argv + argc));
}

} // namespace

const loader::Registry& Context::registry()
{
  if (!m_registry) {
    m_registry = std::make_unique<loader::Registry>(loader::Registry::discover(loader::search_dirs(backend_paths)));
  }
  return *m_registry;
}

loader::Selection Context::select_backend()
{
  if (backend) {
    return registry().select(backend, "--backend");
  }
  if (const char* env = std::getenv("ZL_BACKEND"); env != nullptr && *env != '\0') {
    return registry().select(std::string(env), "ZL_BACKEND");
  }
  auto selection = registry().select(std::nullopt, "");
  std::cerr << fmt::format("zl: using backend {}: {}\n", selection.module->name(), selection.how);
  return selection;
}

std::vector<std::string> command_names()
{
  std::vector<std::string> names;
  for (const auto& c : k_commands) {
    names.emplace_back(c.name);
  }
  return names;
}

int main(int argc, char** argv)
{
  // Before anything opens a file: a closed 0, 1 or 2 would make it zl's standard stream.
  const bool stdout_was_closed = util::ensure_standard_descriptors();
  int rc = k_exit_internal;
  try {
    rc = run(argc, argv);
  } catch (const Error& e) {
    std::cerr << "zl: error: " << e.what() << "\n";
    rc = e.exit_code();
  } catch (const std::exception& e) {
    std::cerr << "zl: internal error: " << e.what() << "\n";
    rc = k_exit_internal;
  }
  return finish_stdout(rc, stdout_was_closed);
}

} // namespace zl::cli
