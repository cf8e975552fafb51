// One backend module file: loading it, checking its descriptor, asking it for devices.
#pragma once

#include <zl/backend_abi.h>

#include <memory>
#include <string>
#include <vector>

namespace boost::dll {
class shared_library;
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
};

struct Enumeration
{
  zl_status status = ZL_OK;
  std::vector<Device> devices;
  std::string source; // what answered: "NVML", "nvidia-smi"
  std::string reason; // why there are no devices, or what failed
};

class Module
{
public:
  std::string path;      // absolute path of the file
  std::string file_name; // the <name> in libzl_backend_<name>.so
  std::string folder_origin; // which search entry found it ("--backend-path", …)
  ModuleState state = ModuleState::failed;
  std::string error;     // why it failed or is shadowed; names the file

  // Valid when state is loaded: the module's descriptor, copied up to the size both sides know.
  zl_backend_descriptor desc{};

  std::string name() const;
  std::vector<std::string> aliases() const;
  std::string abi_version() const;
  bool has(uint64_t capability) const { return (desc.capabilities & capability) != 0; }

  // Asks the module for its devices. Never throws for the module's own failures: they are
  // reported in the result.
  Enumeration enumerate() const;

private:
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
