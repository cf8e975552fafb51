#include "fake_vendor_host.hpp"

#include <zl/sdk/tool.hpp>

#include <doctest/doctest.h>

using namespace zl;

TEST_CASE("zl::sdk::run_tool")
{
  test::FakeVendorHost host;
  host.on("smi --list", "GPU 0\nGPU 1\n");
  const auto ok = sdk::run_tool(host.api(), {"smi", "--list"});
  CHECK(ok.ok());
  CHECK(ok.out == "GPU 0\nGPU 1\n"); // the chunks in order
  CHECK(ok.failure_status() == ZL_OK);
  CHECK(host.calls() == std::vector<std::string>{"smi --list"});

  const auto absent = sdk::run_tool(host.api(), {"other"});
  CHECK_FALSE(absent.ok());
  CHECK(absent.failure_status() == ZL_ERR_UNAVAILABLE);
  CHECK(sdk::unavailable_reason("other", absent) == "other not found on PATH");
  CHECK(sdk::unavailable_reason("other", sdk::ToolOutput{ZL_ERR_UNAVAILABLE, 0, "", ""}) == "other not found on PATH");
}

TEST_CASE("zl::sdk::tool_failure")
{
  sdk::ToolOutput out;
  CHECK(sdk::tool_failure("smi", out).empty());
  out.exit_code = 9;
  out.out = "\nNVIDIA-SMI has failed\n";
  CHECK(out.failure_status() == ZL_ERR_TOOL_FAILED);
  CHECK(sdk::tool_failure("nvidia-smi", out) == "nvidia-smi exited with code 9: 'NVIDIA-SMI has failed'");
  out.reason = "  no driver  ";
  CHECK(sdk::tool_failure("nvidia-smi", out) == "nvidia-smi exited with code 9: 'no driver'");
  out = sdk::ToolOutput{ZL_OK, 2, "", ""};
  CHECK(sdk::tool_failure("gmi", out) == "gmi exited with code 2: (nothing on standard output)");
  out = sdk::ToolOutput{ZL_ERR_TOOL_FAILED, 0, "", "killed after 20 s"};
  CHECK(sdk::tool_failure("npu-smi info", out) == "npu-smi info failed: killed after 20 s");
}
