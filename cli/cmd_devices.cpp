// zl devices: the selected backend's devices, by physical index and UUID.
#include "output.hpp"

#include "loader/fields.hpp"
#include "util/error.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>

namespace zl::cli {

namespace {

constexpr const char* k_usage =
    "zl [--backend NAME] devices [--json] [--telemetry]\n\n"
    "Lists every device of the backend by its physical index and UUID. When the process inherited a\n"
    "visibility mask (the backend's visibility variable, set by Slurm, a container runtime or a device\n"
    "plugin), the backend reads it as its runtime would and zl uses only the devices it leaves visible:\n"
    "the list says which, and the value zl would set to pin each one without widening the mask.\n\n"
    "--telemetry reads each visible device's state now, through the backend (ABI 1.2): SM and memory\n"
    "clocks with their maxima, a locked clock, temperature, power and its limit, throttle reasons, ECC,\n"
    "MIG, driver and firmware; what zl run records around each op (telemetry.jsonl). A backend that\n"
    "reads none says so. Nothing on the device is changed.";

using D = loader::DeviceField;

std::string clock(const std::optional<unsigned>& now, const std::optional<unsigned>& max)
{
  return fmt::format("{}/{} MHz", now ? std::to_string(*now) : "?", max ? std::to_string(*max) : "?");
}

// One line of what a reading says; fields the backend could not read are left out or "?".
std::string describe(const devices::Reading& r)
{
  std::string out;
  const auto field = [&out](const std::string& text) { out += (out.empty() ? "" : ", ") + text; };
  if (r.sm_clock_mhz || r.sm_clock_max_mhz || r.mem_clock_mhz || r.mem_clock_max_mhz) {
    out = fmt::format("SM {}, memory {}", clock(r.sm_clock_mhz, r.sm_clock_max_mhz),
                      clock(r.mem_clock_mhz, r.mem_clock_max_mhz));
  }
  if (r.locked_mhz) {
    out += *r.locked_mhz != 0 ? fmt::format(", locked at {} MHz", *r.locked_mhz) : ", not locked";
  }
  if (r.temperature_c) {
    field(fmt::format("{} C", *r.temperature_c));
  }
  if (r.power_w || r.power_limit_w) {
    field(fmt::format("{} of {} W", r.power_w ? fmt::format("{:.1f}", *r.power_w) : "?",
                      r.power_limit_w ? fmt::format("{:.0f}", *r.power_limit_w) : "?"));
  }
  if (r.throttle) {
    const auto names = devices::throttle_names(*r.throttle);
    field(names.empty() ? "no throttle" : fmt::format("throttle {}", fmt::join(names, ",")));
  }
  if (r.ecc)
    field(*r.ecc ? "ECC on" : "ECC off");
  if (r.mig)
    field(*r.mig ? "MIG on" : "MIG off");
  if (!r.driver.empty())
    field("driver " + r.driver);
  if (!r.firmware.empty())
    field("firmware " + r.firmware);
  return out.empty() ? "nothing read" : out;
}

void print_telemetry(const loader::Module& module, const loader::Enumeration& e, bool json)
{
  util::JsonWriter j;
  if (json) {
    j.w().StartArray();
  }
  for (const auto& d : e.devices) {
    if (!d.visible) {
      continue;
    }
    const auto r = module.read_telemetry(d, devices::Phase::now);
    if (json) {
      rapidjson::Document doc;
      doc.Parse(devices::to_json_line(r).c_str());
      j.copy(doc, "a telemetry reading");
      continue;
    }
    std::cout << fmt::format("{} {}: {}{}\n", d.index, d.uuid, r.status == ZL_OK ? describe(r) : "no reading",
                             r.source.empty() ? "" : " (" + r.source + ")");
    if (!r.reason.empty()) {
      std::cout << fmt::format("  not read: {}\n", r.reason);
    }
  }
  if (json) {
    j.w().EndArray();
    std::cout << j.text();
  }
}

} // namespace

int cmd_devices(Context& ctx, const Args& args)
{
  po::options_description desc("Options");
  desc.add_options()("json", "print JSON (backend, selected_by, source, reason, visibility_var, inherited_mask, "
                             "mask_note, devices with visible and pin)")(
      "telemetry", "read each visible device's state now (with --json: a list of readings, as telemetry.jsonl)");
  const auto vm = parse_options("devices", k_usage, desc, args);
  if (!vm) {
    return 0;
  }
  const auto selection = ctx.select_backend();
  const auto& module = *selection.module;
  const auto e = module.enumerate();
  if (e.status != ZL_OK) {
    throw Error(fmt::format("backend {} could not list its devices: {} ({})", module.name(), e.reason, module.path));
  }
  if (vm->count("telemetry")) {
    if (!module.has_telemetry()) {
      throw Error(fmt::format("backend {} (ABI {}, {}) reads no telemetry: it was built before ABI 1.2, or its vendor "
                              "offers none; zl run records none with it",
                              module.name(), module.abi_version(), module.path),
                  k_exit_usage);
    }
    print_telemetry(module, e, vm->count("json") > 0);
    return 0;
  }
  if (vm->count("json")) {
    util::JsonWriter json;
    auto& w = json.w();
    w.StartObject();
    using B = loader::BackendField;
    loader::to_json(json, selection, {{B::name, "backend"}, B::selected_by, B::module});
    json.field("source", e.source);
    json.field("reason", e.devices.empty() ? e.reason : "");
    loader::to_json(json, selection, {B::visibility_var});
    json.nullable("inherited_mask", e.masked ? e.mask : "");
    json.nullable("mask_note", e.mask_note);
    json.key("devices");
    w.StartArray();
    for (const auto& d : e.devices) {
      w.StartObject();
      loader::to_json(json, d, {D::index, D::uuid, D::name, D::memory_bytes, D::visibility_id, D::visible, D::pin});
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
    std::cout << json.text();
    return 0;
  }
  if (e.devices.empty()) {
    std::cout << fmt::format("backend {}: no devices, because {}\n", module.name(), e.reason);
    return 0;
  }
  // VISIBLE only where a mask hides some
  std::vector<D> columns = {D::index, D::uuid, D::name, D::memory_bytes};
  if (e.masked) {
    columns.push_back(D::visible);
  }
  std::vector<std::vector<std::string>> rows;
  size_t visible = 0;
  for (const auto& d : e.devices) {
    rows.push_back(loader::text_row(d, columns));
    visible += d.visible ? 1 : 0;
  }
  std::cout << fmt::format("backend {} ({} devices via {})\n", module.name(), e.devices.size(), e.source);
  if (e.masked) {
    std::cout << fmt::format("inherited mask {}: {} of {} devices visible; zl uses only those\n", e.mask, visible,
                             e.devices.size());
    if (!e.mask_note.empty()) {
      std::cout << fmt::format("note: {}\n", e.mask_note);
    }
  }
  print_table(std::cout, loader::text_header(columns), rows);
  return 0;
}

} // namespace zl::cli
