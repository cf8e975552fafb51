// One backend module file: loading it, checking its descriptor, asking it for devices.
#pragma once

#include "devices/peaks.hpp"
#include "devices/reading.hpp"

#include <zl/backend_abi.h>

#include <memory>
#include <string>
#include <vector>

namespace boost::dll {
class shared_library;
}

namespace zl::host {
class HostApi;
}

namespace zl::loader {

enum class ModuleState { loaded, failed, shadowed };

const char* to_string(ModuleState state);

struct Device
{
  unsigned index = 0;
  std::string uuid;
  std::string name;
  unsigned long long memory_bytes = 0;
  std::string visibility_id;
  // What the inherited visibility mask makes of it: whether zl may use it, and the value of the
  // visibility variable that pins it without widening the mask (visibility_id when unmasked).
  bool visible = true;
  std::string pin;
};

struct Enumeration
{
  zl_status status = ZL_OK;
  std::vector<Device> devices;
  std::string source;    // what answered: "NVML", "nvidia-smi"
  std::string reason;    // why there are no devices, or what failed
  bool masked = false;   // the process inherited a visibility mask
  std::string mask;      // that mask, "VAR=value" as the backend reads it; "" when none
  std::string mask_note; // how the mask was read (entries the runtime ignores, …)
};

class Module
{
public:
  std::string path;          // absolute path of the file
  std::string file_name;     // the <name> in libzl_backend_<name>.so
  std::string folder_origin; // which search entry found it ("--backend-path", …)
  ModuleState state = ModuleState::failed;
  std::string error; // why it failed or is shadowed; names the file

  // Valid when state is loaded: the module's descriptor, copied up to the size both sides know.
  zl_backend_descriptor desc{};

  std::string name() const;
  std::vector<std::string> aliases() const;
  std::string abi_version() const;
  bool has(uint64_t capability) const { return (desc.capabilities & capability) != 0; }

  // Asks the module for its devices. Never throws for the module's own failures: they are
  // reported in the result.
  // Asks the module for its devices, then applies the visibility mask the process inherited
  // (the module's filter_visible, else the generic reading of visibility_var): every device is
  // listed, each marked visible or not.
  Enumeration enumerate() const;

  // The inherited mask as "VAR=value", "" when none: what run_identity.json records.
  std::string inherited_mask() const;

  // Whether the module reads telemetry: ABI 1.2 or later, with read_telemetry set.
  bool has_telemetry() const;

  // One reading of the device's state now (loader/telemetry.cpp). Never throws for the module's
  // own failures: a module without telemetry, or one that failed, gives a reading with a status
  // and a reason. Calls from several threads take turns: a module is never called concurrently.
  devices::Reading read_telemetry(const Device& device, devices::Phase phase) const;

  // Whether the module has a spec-peak table, though maybe an empty one: ABI 1.3 or later, its
  // descriptor's struct_size reaching peak_count. An older module's descriptor ends before it.
  bool has_peaks() const;

  // Its table (devices/peaks.hpp); empty without one.
  devices::PeakTable peaks() const;

private:
  struct Mask
  {
    zl_status status = ZL_OK;
    bool masked = false;
    std::string text;
    std::string note;
    std::vector<zl_visible_device> visible;
  };
  Mask filter(const host::HostApi& host, const zl_device_info* devices, uint32_t count) const;
  void apply_mask(const host::HostApi& host, const zl_device_info* devices, uint32_t count, Enumeration& e) const;

  friend Module load_module(const std::string&, const std::string&);
  std::shared_ptr<boost::dll::shared_library> m_library;
};

// Loads the file at path. Never throws: a failure leaves state failed and a sentence in error.
Module load_module(const std::string& path, const std::string& origin);

// Names of the ZL_CAP_* flags set in capabilities ("graph_capture", …); unknown bits as "bit N".
std::vector<std::string> capability_names(uint64_t capabilities);

// The strings of a NULL-terminated list; empty for NULL.
std::vector<std::string> string_list(const char* const* list);

} // namespace zl::loader
