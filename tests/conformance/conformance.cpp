// Checks every module found in the --modules folders against the descriptor's invariants.
#define DOCTEST_CONFIG_IMPLEMENT
#include "loader/registry.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cstring>
#include <iostream>
#include <map>
#include <regex>
#include <set>

namespace {

std::vector<std::string> g_folders;

bool matches(const std::string& s, const char* pattern)
{
  return std::regex_match(s, std::regex(pattern));
}

// Spec peaks (ABI 1.3): each entry a device name, a SKU, positive figures and its sheet's
// address; every spelling of one SKU with one set of figures.
void check_peaks(const zl::loader::Module& m)
{
  const auto table = m.peaks();
  std::map<std::string, const zl_peak*> first;
  for (size_t i = 0; i < table.count; ++i) {
    const auto& p = table.entries[i];
    INFO("spec peak ", i);
    CHECK(std::strlen(p.device_name) > 0);
    CHECK(std::strlen(p.sku) > 0);
    CHECK(p.bandwidth_gbps > 0);
    CHECK(p.fp16_tflops > 0);
    CHECK(p.fp32_tflops >= 0);
    CHECK(std::strstr(p.source, "https://") != nullptr);
    const auto [it, fresh] = first.emplace(p.sku, &p);
    if (!fresh) {
      CHECK(p.bandwidth_gbps == it->second->bandwidth_gbps);
      CHECK(p.fp16_tflops == it->second->fp16_tflops);
      CHECK(p.fp32_tflops == it->second->fp32_tflops);
    }
  }
}

void check_descriptor(const zl::loader::Module& m)
{
  using zl::loader::string_list;
  const auto& d = m.desc;
  INFO("module ", m.path);
  CHECK(d.abi_major == ZL_ABI_MAJOR);
  CHECK(d.struct_size >= ZL_DESCRIPTOR_MIN_SIZE_1_0);
  CHECK(d.reserved == 0);
  CHECK(matches(d.name, "[a-z0-9_]+"));
  CHECK(std::strlen(d.version) > 0);
  CHECK(std::strlen(d.description) > 0);
  CHECK(std::strlen(d.flaggems_vendor) > 0);
  CHECK(std::strlen(d.torch_device) > 0);

  const auto aliases = string_list(d.aliases);
  CHECK(std::set<std::string>(aliases.begin(), aliases.end()).size() == aliases.size());
  for (const auto& a : aliases) {
    CHECK(matches(a, "[a-z0-9_]+"));
    CHECK(a != d.name);
  }

  // Visibility: one variable that pins, and others unset so they cannot mask it.
  const std::string var = d.visibility_var;
  CHECK((var.empty() || matches(var, "[A-Z][A-Z0-9_]*")));
  for (const auto& u : string_list(d.visibility_unset)) {
    CHECK(matches(u, "[A-Z][A-Z0-9_]*"));
    CHECK(u != var);
  }

  // Graph capture needs a device module and a graph class; without it there is none.
  if ((d.capabilities & ZL_CAP_GRAPH_CAPTURE) != 0) {
    CHECK(matches(d.graph_class, "[A-Za-z_][A-Za-z0-9_]*"));
    CHECK(matches(d.torch_module, "torch(\\.[a-z_]+)+"));
  } else {
    CHECK(std::string(d.graph_class).empty());
  }

  // Verdict lists: non-empty strings, and no text in two lists (it would have two verdicts).
  std::set<std::string> seen;
  for (const auto* list : {d.capture.refused, d.capture.device_fault, d.capture.poisoned}) {
    for (const auto& s : string_list(list)) {
      INFO("verdict string '", s, "'");
      CHECK(!s.empty());
      CHECK(seen.insert(s).second);
    }
  }

  // Deny ops are keyed as FLAGGEMS_PERF_CURRENT_OP holds them: the function name minus test_.
  for (const auto& op : string_list(d.capture_deny_ops)) {
    CHECK(matches(op, "[a-z0-9_]+"));
    CHECK(op.rfind("test_", 0) != 0);
  }

  // Compat rules: one benchmark file, one exact reason, this backend's own vendor.
  for (size_t i = 0; i < d.compat_rule_count; ++i) {
    const auto& r = d.compat_rules[i];
    REQUIRE(r.file != nullptr);
    REQUIRE(r.skip_reason != nullptr);
    REQUIRE(r.vendor != nullptr);
    REQUIRE(r.why != nullptr);
    CHECK(matches(r.file, "benchmark/[A-Za-z0-9_/]+\\.py"));
    CHECK(std::strlen(r.skip_reason) > 0);
    CHECK(std::string(r.vendor) == d.flaggems_vendor);
    CHECK((r.action == ZL_COMPAT_DROP_SKIP || r.action == ZL_COMPAT_KEEP_SKIP));
    CHECK(std::strlen(r.why) > 0);
  }
  CHECK(matches(d.flagtree_token, "[A-Z0-9]*"));
  check_peaks(m);
}

void check_enumeration(const zl::loader::Module& m)
{
  INFO("module ", m.path);
  const auto e = m.enumerate();
  if (e.status != ZL_OK || e.devices.empty()) {
    CHECK_MESSAGE(!e.reason.empty(), "no devices and no reason");
    return;
  }
  CHECK(!e.source.empty());
  std::set<unsigned> indices;
  std::set<std::string> uuids;
  for (const auto& dev : e.devices) {
    CHECK(indices.insert(dev.index).second);
    CHECK(uuids.insert(dev.uuid).second);
    CHECK(!dev.name.empty());
    CHECK((std::strlen(m.desc.visibility_var) == 0 || !dev.visibility_id.empty()));
  }
}

} // namespace

TEST_CASE("conformance: every module found loads and keeps the descriptor's invariants")
{
  std::vector<zl::loader::SearchDir> dirs;
  for (const auto& f : g_folders) {
    dirs.push_back({f, "--modules"});
  }
  const auto registry = zl::loader::Registry::discover(dirs);
  // The analyzer loses doctest's own String (heap or inline, told by a flag byte) inside the macro's
  // ResultBuilder and reports its buffer as leaked; no memory of ours is involved.
  // NOLINTNEXTLINE(clang-analyzer-cplusplus.NewDeleteLeaks)
  REQUIRE_MESSAGE(!registry.modules().empty(), "no libzl_backend_*.so in the given folders");
  std::set<std::string> names;
  for (const auto& m : registry.modules()) {
    MESSAGE("checking ", m.path);
    REQUIRE_MESSAGE(m.state == zl::loader::ModuleState::loaded, m.error);
    check_descriptor(m);
    check_enumeration(m);
    CHECK(names.insert(m.name()).second);
    for (const auto& a : m.aliases()) {
      CHECK_MESSAGE(names.insert(a).second, "alias '", a, "' is claimed twice");
    }
  }
}

int main(int argc, char** argv)
{
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--modules") == 0 && i + 1 < argc) {
      g_folders.emplace_back(argv[++i]);
    } else {
      rest.push_back(argv[i]);
    }
  }
  if (g_folders.empty()) {
    std::cerr << "usage: zl_conformance --modules DIR [--modules DIR]... [doctest options]\n";
    return 2;
  }
  doctest::Context context(static_cast<int>(rest.size()), rest.data());
  return context.run();
}
