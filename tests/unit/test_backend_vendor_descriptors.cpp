// The four vendor modules as the core sees them: loaded with dlopen from the build tree, their
// descriptors checked for the per-vendor facts (README.md in each backend folder) and for the
// verdict-list rules: every string non-empty, none in two lists of one backend.
#include <zl/backend_abi.h>

#include <doctest/doctest.h>

#include <dlfcn.h>
#include <set>
#include <string>
#include <vector>

namespace {

const zl_backend_descriptor* load(const std::string& name)
{
  const std::string path = std::string(ZL_TEST_BACKEND_DIR) + "/libzl_backend_" + name + ".so";
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL); // kept open: descriptors are static
  if (handle == nullptr) {
    const char* err = dlerror();
    FAIL("cannot load " << path << ": " << (err != nullptr ? err : "?"));
    return nullptr;
  }
  const auto entry = reinterpret_cast<zl_backend_entry_fn>(dlsym(handle, ZL_BACKEND_ENTRY_POINT));
  REQUIRE(static_cast<bool>(entry));
  return entry();
}

std::vector<std::string> list(const char* const* items)
{
  std::vector<std::string> out;
  for (auto p = items; p != nullptr && *p != nullptr; ++p) {
    out.emplace_back(*p);
  }
  return out;
}

void check_common(const zl_backend_descriptor* d, const std::string& name)
{
  REQUIRE(d != nullptr);
  CHECK(d->abi_major == ZL_ABI_MAJOR);
  CHECK(d->struct_size == sizeof(zl_backend_descriptor));
  CHECK(std::string(d->name) == name);
  CHECK(d->reserved == 0);
  CHECK((d->capabilities & ZL_CAP_GRAPH_CAPTURE) != 0);
  CHECK((d->capabilities & ZL_CAP_PROFILER_TIMER) != 0);
  CHECK((d->capabilities & ZL_CAP_HOST_FALLBACK) == 0);
  CHECK(static_cast<bool>(d->enumerate_devices));
  // Verdict lists are matched as substrings: an empty text would match everything, and a text in
  // two lists (or containing a text of another list) would give one message two verdicts.
  std::vector<std::pair<std::string, std::string>> texts; // (text, verdict)
  const std::pair<const char*, const char* const*> verdicts[] = {
      {"refused", d->capture.refused}, {"device_fault", d->capture.device_fault}, {"poisoned", d->capture.poisoned}};
  for (const auto& [verdict, items] : verdicts) {
    REQUIRE(items != nullptr);
    for (const auto& text : list(items)) {
      texts.emplace_back(text, verdict);
    }
  }
  std::string clashes;
  for (const auto& [a, va] : texts) {
    if (a.empty()) {
      clashes += " empty text in " + va + ";";
    }
    for (const auto& [b, vb] : texts) {
      if (va != vb && !b.empty() && a.find(b) != std::string::npos) {
        clashes += " " + va + " '" + a + "' contains " + vb + " '" + b + "';";
      }
    }
  }
  CHECK_MESSAGE(clashes.empty(), name << ":" << clashes);
  for (const auto& op : list(d->capture_deny_ops)) {
    CHECK_MESSAGE(op.rfind("test_", 0) != 0, "deny ops are keyed without test_: " << op);
  }
}

} // namespace

TEST_CASE("zl::backend_cuda::descriptor")
{
  const auto* d = load("cuda");
  check_common(d, "cuda");
  CHECK(list(d->aliases) == std::vector<std::string>{"nvidia"});
  CHECK(std::string(d->flaggems_vendor) == "nvidia");
  CHECK(std::string(d->torch_module) == "torch.cuda");
  CHECK(std::string(d->visibility_var) == "CUDA_VISIBLE_DEVICES");
  CHECK(std::string(d->graph_class) == "CUDAGraph");
  CHECK(list(d->capture.poisoned).empty()); // none guessed for CUDA (backend_cuda/README.md)
  CHECK(std::string(d->flagtree_token).empty());
}

TEST_CASE("zl::backend_musa::descriptor")
{
  const auto* d = load("musa");
  check_common(d, "musa");
  CHECK(list(d->aliases) == std::vector<std::string>{"mthreads", "moore"});
  CHECK(std::string(d->flaggems_vendor) == "mthreads");
  CHECK(std::string(d->torch_module) == "torch.musa");
  CHECK(std::string(d->torch_device) == "musa");
  CHECK(std::string(d->visibility_var) == "MUSA_VISIBLE_DEVICES");
  CHECK(list(d->visibility_unset) == std::vector<std::string>{"CUDA_VISIBLE_DEVICES"});
  CHECK(std::string(d->graph_class) == "MUSAGraph");
  CHECK(list(d->capture.poisoned) == std::vector<std::string>{"MUSA error: unknown error"});
  CHECK(list(d->capture_deny_ops) == std::vector<std::string>{"unique2"}); // not "unique" (backend_musa/README.md)
  REQUIRE(d->compat_rule_count == 1);
  CHECK(std::string(d->compat_rules[0].file) == "benchmark/test_fft.py");
  CHECK(std::string(d->compat_rules[0].skip_reason) == "CUDA is not available");
  CHECK(std::string(d->compat_rules[0].vendor) == "mthreads");
  CHECK(d->compat_rules[0].action == ZL_COMPAT_DROP_SKIP);
  CHECK(std::string(d->flagtree_token) == "MUSA");
}

TEST_CASE("zl::backend_rocm::descriptor")
{
  const auto* d = load("rocm");
  check_common(d, "rocm");
  CHECK(list(d->aliases) == std::vector<std::string>{"amd", "hip"});
  CHECK(std::string(d->flaggems_vendor) == "amd");
  CHECK(std::string(d->torch_module) == "torch.cuda");
  CHECK(std::string(d->torch_device) == "cuda");
  // Exactly one variable is set, and none of the others may stay behind to mask it.
  CHECK(std::string(d->visibility_var) == "ROCR_VISIBLE_DEVICES");
  const auto unset = list(d->visibility_unset);
  CHECK(std::set<std::string>(unset.begin(), unset.end()) ==
        std::set<std::string>{"HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL"});
  CHECK(std::string(d->graph_class) == "CUDAGraph");
  CHECK(list(d->capture.poisoned).empty());
}

TEST_CASE("zl::backend_ascend::descriptor")
{
  const auto* d = load("ascend");
  check_common(d, "ascend");
  CHECK(list(d->aliases) == std::vector<std::string>{"npu", "huawei"});
  CHECK(std::string(d->flaggems_vendor) == "ascend");
  CHECK(std::string(d->torch_module) == "torch.npu");
  CHECK(std::string(d->torch_device) == "npu");
  CHECK(std::string(d->visibility_var) == "ASCEND_RT_VISIBLE_DEVICES"); // not the container's ASCEND_VISIBLE_DEVICES
  CHECK(list(d->visibility_unset).empty());
  CHECK(std::string(d->graph_class) == "NPUGraph");
  CHECK(std::string(d->flagtree_token).empty());
}
