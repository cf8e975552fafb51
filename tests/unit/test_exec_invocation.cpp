#include "exec/invocation.hpp"

#include <doctest/doctest.h>

#include <algorithm>

using namespace zl;

TEST_CASE("zl::exec::run_argv: every caliber value as an option, paths absolute, extra arguments last")
{
  exec::ZlCommand zl{"/bin/zl", "cuda", {"/mods"}};
  run::Request r;
  r.flaggems_dir = "/fg";
  r.op = "abs";
  r.dtypes = {"float16", "bfloat16"};
  r.device = "GPU-1";
  r.shape_file = "/s.yaml";
  r.isolate_tuner_cache = true;
  r.out_dir = "/out/abs";
  r.extra_args = {"-x"};
  const auto a = exec::run_argv(zl, r);
  const std::vector<std::string> head = {"/bin/zl", "--backend", "cuda", "--backend-path", "/mods", "run"};
  CHECK(std::vector<std::string>(a.begin(), a.begin() + 6) == head);
  auto after = [&](const std::string& option) {
    const auto it = std::find(a.begin(), a.end(), option);
    return it == a.end() || it + 1 == a.end() ? std::string("(absent)") : *(it + 1);
  };
  CHECK(after("--flaggems") == "/fg");
  CHECK(after("--op") == "abs");
  CHECK(after("--level") == "core");
  CHECK(after("--mode") == "kernel");
  CHECK(after("--timer") == "auto");
  CHECK(after("--python") == "(absent)"); // empty: the child finds its own (ZL_PYTHON, python3)
  CHECK(after("--dtypes") == "float16,bfloat16");
  CHECK(after("--device") == "GPU-1");
  CHECK(after("--shape-file") == "/s.yaml");
  CHECK(after("--out") == "/out/abs");
  CHECK(std::count(a.begin(), a.end(), "--isolate-tuner-cache") == 1);
  CHECK(std::count(a.begin(), a.end(), "--record-autotune") == 0);
  CHECK(std::count(a.begin(), a.end(), "--shape-mode") == 0);
  CHECK(std::count(a.begin(), a.end(), "--replay-from") == 0);
  CHECK(a[a.size() - 2] == "--");
  CHECK(a.back() == "-x");
  r.flaggems_dir = "relative/fg";
  CHECK(exec::run_argv(zl, r)[7].front() == '/');
}
