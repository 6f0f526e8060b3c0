// elf_needed.h - the DT_NEEDED entries of an ELF64 file, read by hand so
// the dependency test needs neither ldd nor readelf.
#ifndef KILN_RUNTIME_ELF_NEEDED_H_
#define KILN_RUNTIME_ELF_NEEDED_H_

#include <elf.h>

#include <cstring>
#include <string>
#include <vector>

namespace kiln::testing {

// False when `bytes` is not a little-endian ELF64 with a dynamic section.
inline bool ReadElfNeeded(const std::vector<uint8_t>& bytes, std::vector<std::string>* needed) {
  if (bytes.size() < sizeof(Elf64_Ehdr) || std::memcmp(bytes.data(), ELFMAG, SELFMAG) != 0) return false;
  Elf64_Ehdr eh;
  std::memcpy(&eh, bytes.data(), sizeof eh);
  std::vector<Elf64_Phdr> phdrs(eh.e_phnum);
  if (eh.e_phoff + eh.e_phnum * sizeof(Elf64_Phdr) > bytes.size()) return false;
  std::memcpy(phdrs.data(), bytes.data() + eh.e_phoff, eh.e_phnum * sizeof(Elf64_Phdr));
  auto to_offset = [&](uint64_t vaddr, uint64_t* offset) {
    for (const Elf64_Phdr& p : phdrs)
      if (p.p_type == PT_LOAD && vaddr >= p.p_vaddr && vaddr < p.p_vaddr + p.p_filesz) {
        *offset = vaddr - p.p_vaddr + p.p_offset;
        return true;
      }
    return false;
  };
  for (const Elf64_Phdr& p : phdrs) {
    if (p.p_type != PT_DYNAMIC || p.p_offset + p.p_filesz > bytes.size()) continue;
    std::vector<Elf64_Dyn> dyns(p.p_filesz / sizeof(Elf64_Dyn));
    std::memcpy(dyns.data(), bytes.data() + p.p_offset, dyns.size() * sizeof(Elf64_Dyn));
    uint64_t strtab = 0;
    for (const Elf64_Dyn& d : dyns)
      if (d.d_tag == DT_STRTAB && !to_offset(d.d_un.d_ptr, &strtab)) return false;
    for (const Elf64_Dyn& d : dyns) {
      if (d.d_tag == DT_NULL) break;
      if (d.d_tag != DT_NEEDED) continue;
      uint64_t at = strtab + d.d_un.d_val;
      if (at >= bytes.size()) return false;
      needed->push_back(reinterpret_cast<const char*>(bytes.data() + at));
    }
    return true;
  }
  return false;
}

}  // namespace kiln::testing

#endif  // KILN_RUNTIME_ELF_NEEDED_H_
