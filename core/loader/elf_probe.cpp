#include "loader/elf_probe.hpp"

#include "util/error.hpp"
#include "util/fs.hpp"

#include <fmt/format.h>

#include <cstring>
#include <elf.h>

namespace zl::loader {

std::optional<ElfHeader> read_elf_header(const std::string& path)
{
  std::string head;
  try {
    head = util::read_head(path, EI_NIDENT + 4);
  } catch (const Error&) {
    return std::nullopt; // not a regular file, or unreadable
  }
  if (head.size() < EI_NIDENT + 4) {
    return std::nullopt;
  }
  unsigned char ident[EI_NIDENT] = {};
  std::memcpy(ident, head.data(), EI_NIDENT);
  if (ident[EI_MAG0] != ELFMAG0 || ident[EI_MAG1] != ELFMAG1 || ident[EI_MAG2] != ELFMAG2 ||
      ident[EI_MAG3] != ELFMAG3) {
    return std::nullopt;
  }
  // e_type and e_machine sit right after e_ident in both classes.
  uint16_t type_machine[2] = {};
  std::memcpy(type_machine, head.data() + EI_NIDENT, sizeof(type_machine));
  ElfHeader header;
  header.elf_class = ident[EI_CLASS] == ELFCLASS64 ? 64 : ident[EI_CLASS] == ELFCLASS32 ? 32 : 0;
  header.type = type_machine[0];
  header.machine = type_machine[1];
  return header;
}

std::string machine_name(unsigned machine)
{
  switch (machine) {
  case EM_X86_64:
    return "x86-64";
  case EM_AARCH64:
    return "aarch64";
  case EM_386:
    return "i386";
  case EM_ARM:
    return "arm";
  case EM_RISCV:
    return "riscv";
  case EM_PPC64:
    return "ppc64";
  case EM_S390:
    return "s390";
#ifdef EM_LOONGARCH
  case EM_LOONGARCH:
    return "loongarch";
#endif
  default:
    return fmt::format("machine {}", machine);
  }
}

std::optional<std::string> check_elf(const std::string& path)
{
  static const auto self = read_elf_header("/proc/self/exe");
  const auto header = read_elf_header(path);
  if (!header) {
    return std::string("not a shared object (no ELF header)");
  }
  if (self && (header->machine != self->machine || header->elf_class != self->elf_class)) {
    return fmt::format("built for {} ({}-bit), but this zl runs on {} ({}-bit)", machine_name(header->machine),
                       header->elf_class, machine_name(self->machine), self->elf_class);
  }
  if (header->type != ET_DYN) {
    return std::string(header->type == ET_EXEC ? "an ELF executable, not a shared object"
                                               : "an ELF object file, not a shared object");
  }
  return std::nullopt;
}

} // namespace zl::loader
