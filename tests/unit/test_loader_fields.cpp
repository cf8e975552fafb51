#include "loader/fields.hpp"

#include "temp_dir.hpp"

#include <doctest/doctest.h>
#include <rapidjson/document.h>

using namespace zl;
using B = loader::BackendField;
using D = loader::DeviceField;
using zl::test::add_test_module;
using zl::test::TempDir;

namespace {

// The object that write fills in, parsed back.
template <typename Write>
rapidjson::Document object_of(Write&& write)
{
  util::JsonWriter j;
  j.w().StartObject();
  write(j);
  j.w().EndObject();
  rapidjson::Document d;
  d.Parse(j.text().c_str());
  REQUIRE(d.IsObject());
  return d;
}

std::vector<std::string> keys(const rapidjson::Document& d)
{
  std::vector<std::string> out;
  for (const auto& m : d.GetObject()) {
    out.emplace_back(m.name.GetString());
  }
  return out;
}

loader::Device device(bool visible)
{
  loader::Device d;
  d.index = 3;
  d.uuid = "GPU-3";
  d.name = "NVIDIA H200";
  d.memory_bytes = 2ULL << 30;
  d.visibility_id = "GPU-3";
  d.visible = visible;
  d.pin = visible ? "1" : "";
  return d;
}

} // namespace

TEST_CASE("zl::loader::to_json")
{
  SUBCASE("a device: the fields picked, in that order, under the keys picked")
  {
    const auto doc = object_of([](auto& j) {
      loader::to_json(j, device(true), {D::pin, D::index, {D::uuid, "device_uuid"}, D::memory_bytes, D::visible});
    });
    CHECK(keys(doc) == std::vector<std::string>{"pin", "index", "device_uuid", "memory_bytes", "visible"});
    CHECK(doc["index"].GetUint() == 3);
    CHECK(std::string(doc["device_uuid"].GetString()) == "GPU-3");
    CHECK(doc["memory_bytes"].GetUint64() == (2ULL << 30));
    CHECK(std::string(doc["pin"].GetString()) == "1");
  }
  SUBCASE("a device the mask hides has no pin")
  {
    const auto doc = object_of([](auto& j) { loader::to_json(j, device(false), {D::visible, D::pin}); });
    CHECK(doc["visible"].IsFalse());
    CHECK(doc["pin"].IsNull());
  }
  SUBCASE("a loaded backend, as a run selected it")
  {
    TempDir dir;
    const auto m = loader::load_module(add_test_module(dir, "fakegpu"), "test");
    REQUIRE(m.state == loader::ModuleState::loaded);
    const auto doc = object_of([&](auto& j) {
      loader::to_json(j, {&m, "--backend"},
                      {B::name, B::module, B::abi, B::version, B::selected_by, B::aliases, B::capabilities,
                       B::flaggems_vendor, B::torch_module, B::torch_device, B::graph_class, B::visibility_var});
    });
    CHECK(std::string(doc["name"].GetString()) == "fakegpu");
    CHECK(std::string(doc["module"].GetString()) == m.path);
    CHECK(std::string(doc["abi"].GetString()) == "1.3");
    CHECK(std::string(doc["version"].GetString()) == "9.9.9");
    CHECK(std::string(doc["selected_by"].GetString()) == "--backend");
    CHECK(std::string(doc["aliases"][0].GetString()) == "fg");
    CHECK(std::string(doc["capabilities"][0].GetString()) == "graph_capture");
    CHECK(std::string(doc["flaggems_vendor"].GetString()) == "fakevendor");
    CHECK(std::string(doc["torch_module"].GetString()) == "torch.fake");
    CHECK(std::string(doc["torch_device"].GetString()) == "fake");
    CHECK(std::string(doc["graph_class"].GetString()) == "FakeGraph");
    CHECK(std::string(doc["visibility_var"].GetString()) == "FAKE_VISIBLE_DEVICES");
  }
  SUBCASE("a module that failed has empty descriptor fields and no capabilities")
  {
    loader::Module m;
    m.path = "/x/libzl_backend_bad.so";
    m.file_name = "bad";
    m.error = "the reason";
    const auto doc = object_of([&](auto& j) {
      loader::to_json(j, {&m, ""},
                      {B::name,
                       B::state,
                       {B::module, "path"},
                       B::version,
                       B::abi,
                       B::description,
                       B::capabilities,
                       B::torch_module,
                       B::visibility_var,
                       B::error});
    });
    CHECK(keys(doc) == std::vector<std::string>{"name", "state", "path", "version", "abi", "description",
                                                "capabilities", "torch_module", "visibility_var", "error"});
    CHECK(std::string(doc["name"].GetString()) == "bad");
    CHECK(std::string(doc["state"].GetString()) == "failed");
    CHECK(std::string(doc["version"].GetString()).empty());
    CHECK(doc["capabilities"].Empty());
    CHECK(std::string(doc["torch_module"].GetString()).empty());
    CHECK(std::string(doc["error"].GetString()) == "the reason");
  }
}

TEST_CASE("zl::loader::text_row")
{
  SUBCASE("a device's columns, from the same table as its JSON")
  {
    const std::vector<D> columns = {D::index, D::uuid, D::name, D::memory_bytes, D::visible};
    CHECK(loader::text_header(columns) == std::vector<std::string>{"INDEX", "UUID", "NAME", "MEMORY", "VISIBLE"});
    CHECK(loader::text_row(device(true), columns) ==
          std::vector<std::string>{"3", "GPU-3", "NVIDIA H200", "2.0 GiB", "yes (pin 1)"});
    CHECK(loader::text_row(device(false), {D::visible}) == std::vector<std::string>{"no"});
  }
  SUBCASE("a module's columns: a dash for what a failed module lacks")
  {
    loader::Module m;
    m.path = "/x/libzl_backend_bad.so";
    m.file_name = "bad";
    const std::vector<B> columns = {B::name, B::aliases, B::version, B::abi, B::peaks, B::state, B::module};
    CHECK(loader::text_header(columns) ==
          std::vector<std::string>{"NAME", "ALIASES", "VERSION", "ABI", "PEAKS", "STATE", "PATH"});
    CHECK(loader::text_row(m, columns) ==
          std::vector<std::string>{"bad", "-", "-", "-", "-", "failed", "/x/libzl_backend_bad.so"});
  }
  SUBCASE("the spec peaks: a count from ABI 1.3, a dash (null) before it")
  {
    TempDir dir;
    const auto peaks = loader::load_module(add_test_module(dir, "peakgpu"), "test");
    const auto empty = loader::load_module(add_test_module(dir, "fakegpu"), "test");
    const auto older = loader::load_module(add_test_module(dir, "abi12gpu"), "test");
    CHECK(loader::text_row(peaks, {B::peaks}) == std::vector<std::string>{"2"});
    CHECK(loader::text_row(empty, {B::peaks}) == std::vector<std::string>{"0"});
    CHECK(loader::text_row(older, {B::peaks}) == std::vector<std::string>{"-"});
    CHECK(object_of([&](auto& j) { loader::to_json(j, {&peaks, ""}, {B::peaks}); })["peaks"].GetUint64() == 2);
    CHECK(object_of([&](auto& j) { loader::to_json(j, {&older, ""}, {B::peaks}); })["peaks"].IsNull());
  }
  SUBCASE("a field that is no column is refused")
  {
    CHECK_THROWS_AS(loader::text_header({D::pin}), Error);
    CHECK_THROWS_AS(loader::text_row(device(true), {D::visibility_id}), Error);
  }
}
