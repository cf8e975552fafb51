#include "receipt/receipt.hpp"

#include "receipt/sha256.hpp"
#include "run/identity.hpp"
#include "run/identity_record.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/json.hpp"
#include "util/string.hpp"

#include <boost/filesystem.hpp>
#include <fmt/format.h>
#include <rapidjson/document.h>
#include <zl/version.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <set>
#include <sys/stat.h>

namespace zl::receipt {

namespace fs = boost::filesystem;

namespace {

// Files that change by design after a campaign (stores are re-ingested) or are the receipt.
bool excluded(const fs::path& p)
{
  const auto name = p.filename().string();
  return name.compare(0, 12, "receipt.json") == 0 || p.extension() == ".sqlite" ||
         name.find(".sqlite-") != std::string::npos || name.find(".tmp-") != std::string::npos;
}

// How deep arrays and objects nest in v, counted without recursion.
size_t depth(const rapidjson::Value& v)
{
  size_t deepest = 0;
  std::vector<std::pair<const rapidjson::Value*, size_t>> todo = {{&v, 1}};
  while (!todo.empty()) {
    const auto [at, level] = todo.back();
    todo.pop_back();
    deepest = std::max(deepest, level);
    if (at->IsArray()) {
      for (const auto& e : at->GetArray()) {
        todo.emplace_back(&e, level + 1);
      }
    } else if (at->IsObject()) {
      for (const auto& m : at->GetObject()) {
        todo.emplace_back(&m.value, level + 1);
      }
    }
  }
  return deepest;
}

rapidjson::Document read_json(const std::string& path)
{
  rapidjson::Document d;
  const auto text = util::read_file(path);
  if (d.Parse(text.c_str(), text.size()).HasParseError() || !d.IsObject()) {
    throw Error(fmt::format("{} is not valid JSON; the folder was damaged after the run", util::printable(path)));
  }
  // Copying it into the receipt recurses: no document zl writes nests this deep.
  if (depth(d) > 128) {
    throw Error(
        fmt::format("{} nests deeper than 128 levels; the folder was damaged after the run", util::printable(path)));
  }
  return d;
}

std::string str(const rapidjson::Value& v, const char* key)
{
  return v.IsObject() && v.HasMember(key) && v[key].IsString() ? v[key].GetString() : std::string();
}

std::vector<std::string> find_runs(const fs::path& folder)
{
  std::vector<std::string> runs;
  if (::access(folder.c_str(), R_OK | X_OK) != 0) {
    throw Error(fmt::format("cannot read the folder {}: {}", util::printable(folder.string()), std::strerror(errno)));
  }
  boost::system::error_code exists_ec;
  if (fs::exists(folder / run::k_identity_file, exists_ec)) {
    return {"."};
  }
  boost::system::error_code ec;
  for (fs::recursive_directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    if (it.depth() > 2) {
      it.disable_recursion_pending();
    } else if (it->path().filename() == run::k_identity_file) {
      runs.push_back(it->path().parent_path().lexically_relative(folder).string());
    }
  }
  std::sort(runs.begin(), runs.end());
  return runs;
}

// Every result file under root, relative and sorted; hidden folders (isolated caches) and
// stores are left out.
std::vector<std::string> result_files(const fs::path& root)
{
  std::vector<std::string> files;
  boost::system::error_code ec;
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    const auto rel = it->path().lexically_relative(root).string();
    if (fs::is_regular_file(it->path()) && !excluded(it->path()) && rel[0] != '.' &&
        rel.find("/.") == std::string::npos) {
      files.push_back(rel);
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Why path cannot be the harness file of role, by its name and first bytes; empty when it can.
// The identity and plan are documents anyone could edit: they must not make zl hash (and so
// reveal a digest of) any file at all.
std::string implausible(const std::string& role, const std::string& path)
{
  const fs::path p(path);
  const auto name = p.filename().string();
  const bool elf_role = role == "zl" || role.compare(0, 8, "backend:") == 0;
  if (role.compare(0, 8, "backend:") == 0 && (name.compare(0, 14, "libzl_backend_") != 0 || p.extension() != ".so")) {
    return "a backend module is named libzl_backend_<name>.so";
  }
  if (role == "shapes" && p.extension() != ".yaml" && p.extension() != ".yml") {
    return "a shape file is a .yaml file";
  }
  if (elf_role) {
    try {
      if (util::read_head(path, 4) != std::string("\177ELF")) {
        return "it is not an ELF file";
      }
    } catch (const Error&) {
      return {}; // absent or unreadable: said when it is hashed
    }
  }
  return {};
}

// Harness files are named by the runs' identities and plans; their digests come later.
void add_harness(Receipt& r, std::set<std::string>& seen, const std::string& role, const std::string& path)
{
  if (path.empty() || !seen.insert(path).second) {
    return;
  }
  const auto why = fs::path(path).is_absolute() ? implausible(role, path) : "it is not an absolute path";
  if (!why.empty()) {
    r.rejected.push_back(fmt::format("{} as {} ({})", util::printable(path), role, why));
    return;
  }
  r.harness.push_back({role, path, ""});
}

// The plugin files a run loaded: each -p module, the modules they import (zl_plan, zl_patch,
// zl_autotune_records, zl_samples) and, for a run of a warm worker, zl_worker, zl_state and zl_state_items;
// found along its PYTHONPATH.
void add_plugins(Receipt& r, std::set<std::string>& seen, const rapidjson::Document& plan, bool warm)
{
  if (!plan.HasMember("env_set") || !plan["env_set"].IsObject() || !plan.HasMember("plugins") ||
      !plan["plugins"].IsArray()) {
    return;
  }
  const auto dirs = util::split(str(plan["env_set"], "PYTHONPATH"), ':');
  std::vector<std::string> modules = {"zl_plan", "zl_patch", "zl_autotune_records", "zl_samples", "zl_metrics"};
  if (warm) {
    modules.insert(modules.end(), {"zl_worker", "zl_state", "zl_state_items"});
  }
  for (const auto& p : plan["plugins"].GetArray()) {
    const std::string m = p.IsString() ? p.GetString() : "";
    // A Python module name, never a path.
    if (m.empty() || !std::all_of(m.begin(), m.end(),
                                  [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; })) {
      r.rejected.push_back(fmt::format("plugin {} (not a Python module name)", util::printable(m)));
      continue;
    }
    modules.push_back(m);
  }
  for (const auto& m : modules) {
    for (const auto& d : dirs) {
      const auto file = d + "/" + m + ".py";
      if (fs::is_regular_file(file)) {
        add_harness(r, seen, "plugin:" + m, file);
        break;
      }
    }
  }
}

} // namespace

namespace {

// The runs and the harness files their identities and plans name, without digests.
Receipt harness_of(const std::string& folder)
{
  Receipt r;
  r.campaign = util::absolute(folder);
  const fs::path root(r.campaign);
  r.run_dirs = find_runs(root);
  if (r.run_dirs.empty()) {
    throw Error(fmt::format("{} holds no run (no run_identity.json at most two folders down); give a run folder or a "
                            "campaign folder",
                            r.campaign));
  }
  std::set<std::string> seen;
  for (const auto& run : r.run_dirs) {
    const auto dir = run == "." ? root : (root / run).lexically_normal();
    const auto identity = run::read_identity(dir.string());
    add_harness(r, seen, "zl", identity.zl_binary);
    add_harness(r, seen, "backend:" + identity.backend.name, identity.backend.module);
    if (fs::exists(dir / "plan.json")) {
      const auto plan = read_json((dir / "plan.json").string());
      add_plugins(r, seen, plan, identity.executor == "warm");
      add_harness(r, seen, "shapes", str(plan, "shape_source"));
    }
  }
  return r;
}

} // namespace

Receipt make_receipt(const std::string& folder)
{
  auto r = harness_of(folder);
  if (!r.rejected.empty()) {
    throw Error(fmt::format("the identities or plans in {} name harness files that cannot be ones: {}; the folder "
                            "was edited after the run, so no receipt is written",
                            util::printable(r.campaign), util::join(r.rejected, "; ")));
  }
  // Only the harness files still there (a run may name a module since removed).
  r.harness.erase(std::remove_if(r.harness.begin(), r.harness.end(),
                                 [](const Entry& e) {
                                   boost::system::error_code ec;
                                   return !fs::is_regular_file(e.path, ec);
                                 }),
                  r.harness.end());
  for (auto& e : r.harness) {
    e.sha256 = sha256_file(e.path);
  }
  const fs::path root(r.campaign);
  for (const auto& rel : result_files(root)) {
    // A link leading out of the folder is not a result of it: refused, never read.
    r.results.push_back({"result", rel, sha256_file(util::resolve_inside(r.campaign, rel, "the result file"))});
  }
  return r;
}

std::string write_receipt(const Receipt& r, bool force)
{
  const auto path = r.campaign + "/receipt.json";
  struct stat st
  {
  };
  if (::lstat(path.c_str(), &st) == 0) {
    if (!force) {
      throw Error(fmt::format("{} exists already; `zl receipt --verify {}` checks it, and --force writes a new "
                              "one (the old one is kept as receipt.json.N)",
                              util::printable(path), util::printable(r.campaign)));
    }
    std::string kept;
    for (int n = 1;; ++n) {
      kept = fmt::format("{}.{}", path, n);
      if (::lstat(kept.c_str(), &st) != 0) {
        break;
      }
    }
    if (::rename(path.c_str(), kept.c_str()) != 0) {
      throw Error(
          fmt::format("cannot move {} to {}: {}", util::printable(path), util::printable(kept), std::strerror(errno)));
    }
    util::write_file_atomic(path, receipt_json(r));
    return kept;
  }
  util::write_file_atomic(path, receipt_json(r));
  return {};
}

std::string receipt_json(const Receipt& r)
{
  util::JsonWriter j;
  auto& w = j.w();
  w.StartObject();
  j.field("schema", 1);
  j.field("zl_version", k_version);
  j.field("created_at", run::utc_now());
  j.field("campaign", r.campaign);
  for (const auto* list : {&r.harness, &r.results}) {
    j.key(list == &r.harness ? "harness" : "results");
    w.StartArray();
    for (const auto& e : *list) {
      w.StartObject();
      j.field("role", e.role);
      j.field("path", e.path);
      j.field("sha256", e.sha256);
      w.EndObject();
    }
    w.EndArray();
  }
  j.key("runs");
  w.StartArray();
  for (const auto& run : r.run_dirs) {
    w.StartObject();
    j.field("run_dir", run);
    j.key("identity");
    const auto dir = run == "." ? fs::path(r.campaign) : (fs::path(r.campaign) / run).lexically_normal();
    const auto path = (dir / run::k_identity_file).string();
    j.copy(read_json(path), fmt::format("{} (damaged after the run?)", util::printable(path)));
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return j.text();
}

std::vector<Mismatch> verify_receipt(const std::string& folder, std::vector<std::string>& added)
{
  const fs::path root(util::absolute(folder));
  const auto path = (root / "receipt.json").string();
  struct stat st
  {
  };
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) {
      throw Error(fmt::format("cannot read {}: {}", util::printable(path), std::strerror(errno)));
    }
    throw Error(fmt::format("{} has no receipt.json; write one with `zl receipt {}`", util::printable(root.string()),
                            util::printable(folder)));
  }
  const auto doc = read_json(path);
  // The only harness files zl will read: those the folder's identities and plans name. A
  // receipt naming another file (an edited one) gets it refused, never read.
  std::set<std::string> harness;
  try {
    for (const auto& e : harness_of(root.string()).harness) {
      harness.insert(e.path);
    }
  } catch (const Error&) {
    // No run left, or an identity damaged: every harness entry is refused below, and the
    // result entries say what is missing.
  }
  std::vector<Mismatch> out;
  std::set<std::string> known;
  for (const char* section : {"harness", "results"}) {
    if (!doc.HasMember(section) || !doc[section].IsArray()) {
      throw Error(fmt::format("{} has no {} list; it is not a zl receipt", path, section));
    }
    for (const auto& e : doc[section].GetArray()) {
      const auto role = str(e, "role");
      const auto rel = str(e, "path");
      known.insert(rel);
      std::string file;
      try {
        if (std::string(section) == "results") {
          file = util::resolve_inside(root.string(), rel, "the result entry");
        } else if (harness.count(rel) == 0) {
          throw Error(fmt::format("the harness entry {} is not a file that a run's identity or plan in {} names; "
                                  "the receipt was edited",
                                  util::printable(rel), util::printable(root.string())));
        } else {
          file = rel;
        }
      } catch (const Error& err) {
        out.push_back({"refused", role, rel, str(e, "sha256"), err.what()});
        continue;
      }
      if (::lstat(file.c_str(), &st) != 0) {
        out.push_back({"missing", role, rel, str(e, "sha256"), ""});
        continue;
      }
      try {
        const auto now = sha256_file(file);
        if (now != str(e, "sha256")) {
          out.push_back({"changed", role, rel, str(e, "sha256"), now});
        }
      } catch (const Error& err) {
        out.push_back({"unreadable", role, rel, str(e, "sha256"), err.what()});
      }
    }
  }
  for (const auto& rel : result_files(root)) {
    if (known.count(rel) == 0) {
      added.push_back(rel);
    }
  }
  return out;
}

} // namespace zl::receipt
