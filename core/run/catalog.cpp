#include "run/catalog.hpp"

#include "receipt/sha256.hpp"
#include "run/plan.hpp"
#include "run/release.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/process.hpp"
#include "util/string.hpp"

#include <boost/filesystem.hpp>
#include <fmt/format.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <regex>
#include <set>
#include <unistd.h>

extern char** environ;

namespace zl::run {

namespace fs = boost::filesystem;

namespace {

// pytest's own marks and those of common plugins: never an op.
const std::set<std::string> k_builtin_marks = {"parametrize",    "skip",    "skipif",   "xfail",  "usefixtures",
                                               "filterwarnings", "timeout", "tryfirst", "trylast"};
// Bumped when what zl_collect writes, or how zl reads it, changes: older cache files are not read.
constexpr int k_collect_format = 1;
constexpr std::chrono::minutes k_collect_timeout{10};

std::vector<std::string> benchmark_sources(const fs::path& root)
{
  std::vector<std::string> files;
  boost::system::error_code ec;
  for (fs::recursive_directory_iterator it(root / "benchmark", ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() == ".py" && fs::is_regular_file(it->path())) {
      files.push_back(fs::relative(it->path(), root).string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string read_text(const fs::path& path)
{
  try {
    return util::read_file(path.string());
  } catch (const Error&) {
    return {};
  }
}

void add(Catalog& c, const std::string& op, const std::string& file)
{
  auto& files = c.files_of[op];
  if (std::find(files.begin(), files.end(), file) == files.end()) {
    files.push_back(file);
    std::sort(files.begin(), files.end());
  }
}

std::string cache_dir()
{
  if (const char* d = std::getenv("ZL_CACHE_DIR"); d != nullptr && *d != '\0') {
    return d;
  }
  if (const char* d = std::getenv("XDG_CACHE_HOME"); d != nullptr && *d != '\0') {
    return std::string(d) + "/zl";
  }
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr && *home != '\0' ? home : "/tmp") + "/.cache/zl";
}

// The tree's benchmark sources and pytest.ini, the interpreter, PYTHONPATH, the host (its
// accelerator: v3.0's op lists depend on the device) and the format: what the collection depends on.
std::string tree_key(const fs::path& root, const std::string& python)
{
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  const char* path = std::getenv("PYTHONPATH");
  std::string all = fmt::format("zl_collect {}\n{}\n{}\n{}\n", k_collect_format, python, host, path ? path : "");
  auto files = benchmark_sources(root);
  files.push_back("pytest.ini");
  for (const auto& file : files) {
    all += file + '\0' + read_text(root / file) + '\0';
  }
  return receipt::sha256_text(all);
}

std::vector<std::string> collect_environment(const std::string& out)
{
  std::vector<std::string> env;
  std::string python_path = util::join(plugin_python_path(), ":");
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    const auto name = entry.substr(0, entry.find('='));
    if (name == "PYTHONPATH" && entry.size() > name.size() + 1) {
      python_path += ":" + entry.substr(name.size() + 1);
    } else if (name != "PYTEST_ADDOPTS" && name != "PYTEST_PLUGINS" && name != "ZL_COLLECT_OUT" &&
               name != "PYTHONPATH") {
      env.push_back(entry);
    }
  }
  env.push_back("PYTHONPATH=" + python_path);
  env.push_back("ZL_COLLECT_OUT=" + out);
  return env;
}

// Reads what zl_collect wrote; false when it is not its document. The collection is the
// authority on the files it read: their statically read marks give way to it.
bool read_collection(const std::string& path, Catalog& c)
{
  rapidjson::Document d;
  const auto text = read_text(path);
  if (d.Parse(text.c_str(), text.size()).HasParseError() || !d.IsObject() || !d.HasMember("items") ||
      !d["items"].IsArray()) {
    return false;
  }
  for (auto& [op, files] : c.files_of) {
    files.erase(std::remove_if(files.begin(), files.end(),
                               [&](const std::string& f) {
                                 return std::find(c.uncertain.begin(), c.uncertain.end(), f) != c.uncertain.end();
                               }),
                files.end());
  }
  for (auto it = c.files_of.begin(); it != c.files_of.end();) {
    it = it->second.empty() ? c.files_of.erase(it) : std::next(it);
  }
  for (const auto& item : d["items"].GetArray()) {
    if (!item.IsObject() || !item.HasMember("file") || !item["file"].IsString() || !item.HasMember("marks") ||
        !item["marks"].IsArray()) {
      continue;
    }
    for (const auto& mark : item["marks"].GetArray()) {
      if (mark.IsString() && k_builtin_marks.count(mark.GetString()) == 0) {
        add(c, mark.GetString(), item["file"].GetString());
      }
    }
  }
  if (d.HasMember("errors") && d["errors"].IsArray()) {
    for (const auto& e : d["errors"].GetArray()) {
      if (e.IsObject() && e.HasMember("file") && e["file"].IsString() && e.HasMember("error") &&
          e["error"].IsString()) {
        c.errors.push_back(std::string(e["file"].GetString()) + ": " + e["error"].GetString());
      }
    }
  }
  return true;
}

// The last lines of a program's output, from a line's start, with what is known of the cause.
std::string output_tail(const std::string& output)
{
  auto start = output.size() > 600 ? output.find('\n', output.size() - 600) : std::string::npos;
  std::string tail(util::trim(start == std::string::npos ? output : output.substr(start + 1)));
  if (output.find("'tuple' object has no attribute 'replace'") != std::string::npos) {
    tail += " (FlagGems v4.2.0's conftest gives --mode a tuple help, which pytest before 8.1 cannot print: use "
            "pytest 8.1 or later)";
  }
  return tail;
}

// Runs the collection into `out`; "" when it wrote its document, else why not.
std::string run_collection(const fs::path& root, const Catalog& c, const std::string& python, const std::string& out)
{
  util::SpawnSpec spec;
  spec.argv = {python, "-m",         "pytest", "--collect-only",   "-q",
               "-p",   "zl_collect", "-p",     "no:cacheprovider", "--rootdir=."};
  if (fs::is_regular_file(root / "pytest.ini")) {
    spec.argv.insert(spec.argv.end(), {"-c", "pytest.ini"});
  }
  spec.argv.insert(spec.argv.end(), c.uncertain.begin(), c.uncertain.end());
  spec.env = collect_environment(out);
  spec.cwd = root.string();
  spec.timeout = k_collect_timeout;
  std::string output;
  const auto keep = [&](std::string_view s) {
    output.append(s.substr(0, 65536 - std::min<size_t>(output.size(), 65536)));
  };
  util::ProcessResult result;
  try {
    result = util::run(spec, keep, keep);
  } catch (const util::SpawnFailure& e) {
    return fmt::format("{} could not be started: {}", python, e.message);
  }
  const auto tail = output_tail(output);
  if (result.timed_out) {
    return fmt::format("it ran past {} minutes", k_collect_timeout.count());
  }
  if (!fs::is_regular_file(out)) {
    return fmt::format("exit {}, no collection written: {}", result.exit_code, tail);
  }
  return {};
}

} // namespace

// A scan, not std::regex: a tree of 700 files is read for every op that has no file of its own.
std::vector<std::string> written_marks(const std::string& text)
{
  static const std::string prefix = "pytest.mark.";
  std::vector<std::string> found;
  for (auto at = text.find(prefix); at != std::string::npos; at = text.find(prefix, at + 1)) {
    auto end = at + prefix.size();
    while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) != 0 || text[end] == '_')) {
      ++end;
    }
    auto name = text.substr(at + prefix.size(), end - at - prefix.size());
    if (!name.empty() && std::isdigit(static_cast<unsigned char>(name[0])) == 0 && k_builtin_marks.count(name) == 0) {
      found.push_back(std::move(name));
    }
  }
  return found;
}

Catalog read_catalog(const std::string& flaggems_dir)
{
  Catalog c;
  const fs::path root(flaggems_dir);
  const bool category = layout_of(flaggems_dir) == Layout::category;
  for (const auto& file : benchmark_sources(root)) {
    if (fs::path(file).filename().string().rfind("test_", 0) != 0) {
      continue;
    }
    const auto text = read_text(root / file);
    for (const auto& mark : written_marks(text)) {
      add(c, mark, file);
    }
    // In category files (v3.0 to v5.0.2) a written-out mark may stand on no test (v5.0.2's
    // `def tes_rms_norm`) and others are computed: pytest's collection tells them all.
    if (category || text.find("getattr(pytest.mark") != std::string::npos) {
      c.uncertain.push_back(file);
    }
  }
  return c;
}

void collect_uncertain(Catalog& c, const std::string& flaggems_dir, const std::string& python)
{
  if (c.uncertain.empty() || c.collected) {
    return;
  }
  const fs::path root(flaggems_dir);
  const auto cached = fmt::format("{}/collect/{}.json", cache_dir(), tree_key(root, python));
  if (read_collection(cached, c)) {
    c.collected = true;
    c.collection = "pytest's collection, cached in " + cached;
    return;
  }
  std::string out = cached;
  try {
    util::make_dirs(fs::path(cached).parent_path().string());
  } catch (const Error&) {
    out = fmt::format("{}/zl-collect-{}.json", fs::temp_directory_path().string(), ::getpid());
  }
  const auto temporary = out + fmt::format(".{}.tmp", ::getpid());
  const auto failed = run_collection(root, c, python, temporary);
  if (!failed.empty() || !read_collection(temporary, c)) {
    fs::remove(temporary);
    c.collection = "pytest's collection of " + util::join(c.uncertain, ", ") +
                   " failed: " + (failed.empty() ? "zl_collect wrote no collection document" : failed);
    return;
  }
  c.collected = true;
  boost::system::error_code ec;
  if (out == cached) {
    fs::rename(temporary, cached, ec);
  }
  if (out != cached || ec) {
    fs::remove(temporary, ec);
    c.collection = "pytest's collection (not cached: " + cache_dir() + "/collect is not writable)";
  } else {
    c.collection = "pytest's collection, now cached in " + cached;
  }
}

const std::vector<std::string>& files_marking(const Catalog& c, const std::string& op)
{
  static const std::vector<std::string> none;
  const auto it = c.files_of.find(op);
  return it == c.files_of.end() ? none : it->second;
}

std::vector<std::string> marked_ops(const Catalog& c)
{
  std::vector<std::string> ops;
  for (const auto& [op, _] : c.files_of) {
    ops.push_back(op);
  }
  return ops;
}

} // namespace zl::run
