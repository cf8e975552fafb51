// Reads an ELF header without loading the file, so that a module for another machine, or a
// file that is no shared object at all, is refused with a sentence instead of a dlerror.
#pragma once

#include <optional>
#include <string>

namespace zl::loader {

struct ElfHeader
{
  int elf_class = 0;    // 32 or 64
  unsigned machine = 0; // e_machine
  unsigned type = 0;    // e_type
};

// The header of the file at path; nullopt when it is not an ELF file (or cannot be read).
std::optional<ElfHeader> read_elf_header(const std::string& path);

// "x86-64", "aarch64", …, or "machine 1234".
std::string machine_name(unsigned machine);

// Why a file cannot be a module for this process, or nullopt when its header fits.
std::optional<std::string> check_elf(const std::string& path);

} // namespace zl::loader
