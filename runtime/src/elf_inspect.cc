#include "runtime/src/elf_inspect.h"

#include <elf.h>

#include <cstring>
#include <vector>

#include "kiln/kernel_abi.h"
#include "runtime/src/checked_math.h"

namespace kiln {
namespace {

class ElfReader {
 public:
  ElfReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  // Copies a T from file offset `offset`; false when it is not inside.
  template <typename T>
  bool Read(uint64_t offset, T* out) const {
    if (!RangeInside(offset, sizeof(T), size_)) return false;
    std::memcpy(out, data_ + offset, sizeof(T));
    return true;
  }
  // `count` entries of `entry_size` bytes at `offset`, all inside.
  bool TableInside(uint64_t offset, uint64_t count, uint64_t entry_size) const {
    uint64_t bytes;
    return CheckedMul(count, entry_size, &bytes) && RangeInside(offset, bytes, size_);
  }
  // A NUL-terminated string at `offset` inside [table, table + table_size).
  bool String(uint64_t table, uint64_t table_size, uint64_t offset, std::string* out) const {
    if (!RangeInside(table, table_size, size_) || offset >= table_size) return false;
    const char* begin = reinterpret_cast<const char*>(data_ + table + offset);
    const void* nul = std::memchr(begin, 0, table_size - offset);
    if (nul == nullptr) return false;
    out->assign(begin, static_cast<const char*>(nul));
    return true;
  }

 private:
  const uint8_t* data_;
  size_t size_;
};

Status Refuse(const std::string& what, const std::string& message) {
  return Status(StatusCode::kDataLoss, what + ": shared object " + message);
}

const char* DynamicTagName(int64_t tag) {
  switch (tag) {
    case DT_INIT: return "DT_INIT";
    case DT_FINI: return "DT_FINI";
    case DT_INIT_ARRAY: return "DT_INIT_ARRAY";
    case DT_FINI_ARRAY: return "DT_FINI_ARRAY";
    case DT_PREINIT_ARRAY: return "DT_PREINIT_ARRAY";
    case DT_INIT_ARRAYSZ: return "DT_INIT_ARRAYSZ";
    case DT_FINI_ARRAYSZ: return "DT_FINI_ARRAYSZ";
    case DT_PREINIT_ARRAYSZ: return "DT_PREINIT_ARRAYSZ";
  }
  return nullptr;
}

}  // namespace

Status InspectKernelObject(const uint8_t* data, size_t size, const std::string& what) {
  ElfReader elf(data, size);
  Elf64_Ehdr eh;
  if (!elf.Read(0, &eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0)
    return Refuse(what, "is not an ELF file");
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
      eh.e_machine != EM_X86_64 || eh.e_type != ET_DYN)
    return Refuse(what, "is not a little-endian x86-64 ELF shared object");
  if (eh.e_phentsize != sizeof(Elf64_Phdr) || !elf.TableInside(eh.e_phoff, eh.e_phnum, sizeof(Elf64_Phdr)))
    return Refuse(what, "has program headers outside the file (malformed)");

  std::vector<Elf64_Phdr> phdrs(eh.e_phnum);
  for (uint16_t i = 0; i < eh.e_phnum; ++i) elf.Read(eh.e_phoff + i * sizeof(Elf64_Phdr), &phdrs[i]);
  const Elf64_Phdr* dynamic = nullptr;
  for (const Elf64_Phdr& p : phdrs) {
    if (p.p_type == PT_TLS) return Refuse(what, "has thread-local storage (PT_TLS)");
    if ((p.p_type == PT_LOAD || p.p_type == PT_DYNAMIC) && !RangeInside(p.p_offset, p.p_filesz, size))
      return Refuse(what, "has a segment outside the file (malformed)");
    if (p.p_type == PT_DYNAMIC) dynamic = &p;
  }
  if (dynamic == nullptr) return Refuse(what, "has no dynamic section");
  // Dynamic addresses to file offsets, through the loadable segments.
  auto to_offset = [&](uint64_t address, uint64_t* offset) {
    for (const Elf64_Phdr& p : phdrs)
      if (p.p_type == PT_LOAD && address >= p.p_vaddr && address - p.p_vaddr < p.p_filesz) {
        *offset = p.p_offset + (address - p.p_vaddr);
        return true;
      }
    return false;
  };

  uint64_t strtab_address = 0, strtab_size = 0;
  std::vector<uint64_t> needed;
  for (uint64_t at = 0; at + sizeof(Elf64_Dyn) <= dynamic->p_filesz; at += sizeof(Elf64_Dyn)) {
    Elf64_Dyn d;
    elf.Read(dynamic->p_offset + at, &d);
    if (d.d_tag == DT_NULL) break;
    if (const char* name = DynamicTagName(d.d_tag))
      return Refuse(what, std::string("has code that runs when it is loaded or unloaded (") + name + ")");
    if (d.d_tag == DT_NEEDED) needed.push_back(d.d_un.d_val);
    if (d.d_tag == DT_STRTAB) strtab_address = d.d_un.d_ptr;
    if (d.d_tag == DT_STRSZ) strtab_size = d.d_un.d_val;
  }
  if (!needed.empty()) {
    uint64_t strtab = 0;
    std::string name;
    if (!to_offset(strtab_address, &strtab) || !elf.String(strtab, strtab_size, needed[0], &name))
      name = "an unreadable name";
    return Refuse(what, "depends on " + name + " (DT_NEEDED); kernels may depend on nothing");
  }

  // Sections: the init/fini arrays by name (a linker may keep them without
  // dynamic tags), TLS, and the dynamic symbol table.
  if (eh.e_shoff == 0 || eh.e_shnum == 0) return Refuse(what, "has no section headers");
  if (eh.e_shentsize != sizeof(Elf64_Shdr) || !elf.TableInside(eh.e_shoff, eh.e_shnum, sizeof(Elf64_Shdr)) ||
      eh.e_shstrndx >= eh.e_shnum)
    return Refuse(what, "has section headers outside the file (malformed)");
  std::vector<Elf64_Shdr> sections(eh.e_shnum);
  for (uint16_t i = 0; i < eh.e_shnum; ++i) elf.Read(eh.e_shoff + i * sizeof(Elf64_Shdr), &sections[i]);
  const Elf64_Shdr& names = sections[eh.e_shstrndx];
  const Elf64_Shdr* dynsym = nullptr;
  for (const Elf64_Shdr& s : sections) {
    std::string name;
    if (!elf.String(names.sh_offset, names.sh_size, s.sh_name, &name))
      return Refuse(what, "has a section with an unreadable name (malformed)");
    static const char* const kRefused[] = {".init_array", ".fini_array", ".preinit_array", ".ctors",
                                           ".dtors",      ".init",       ".fini",           ".tdata",
                                           ".tbss"};
    for (const char* refused : kRefused)
      if (name == refused || name.rfind(std::string(refused) + ".", 0) == 0)
        return Refuse(what, "has a " + name + " section (load-time code or thread-local storage)");
    if ((s.sh_flags & SHF_TLS) != 0) return Refuse(what, "has thread-local storage (" + name + ")");
    if (s.sh_type == SHT_DYNSYM) dynsym = &s;
  }
  if (dynsym == nullptr || dynsym->sh_entsize != sizeof(Elf64_Sym) || dynsym->sh_link >= eh.e_shnum ||
      !RangeInside(dynsym->sh_offset, dynsym->sh_size, size))
    return Refuse(what, "has no readable dynamic symbol table");
  const Elf64_Shdr& dynstr = sections[dynsym->sh_link];
  bool has_query = false;
  for (uint64_t at = 0; at + sizeof(Elf64_Sym) <= dynsym->sh_size; at += sizeof(Elf64_Sym)) {
    Elf64_Sym sym;
    elf.Read(dynsym->sh_offset + at, &sym);
    if (ELF64_ST_TYPE(sym.st_info) == STT_TLS) return Refuse(what, "has thread-local storage (STT_TLS)");
    // Imports (undefined symbols, e.g. memcpy or fmodf from the process's C
    // library) and local symbols are not exports.
    unsigned bind = ELF64_ST_BIND(sym.st_info);
    if (sym.st_shndx == SHN_UNDEF || bind == STB_LOCAL) continue;
    std::string name;
    if (!elf.String(dynstr.sh_offset, dynstr.sh_size, sym.st_name, &name))
      return Refuse(what, "has a symbol with an unreadable name (malformed)");
    if (name == KILN_CPU_LIBRARY_QUERY_SYMBOL && ELF64_ST_TYPE(sym.st_info) == STT_FUNC) {
      has_query = true;
      continue;
    }
    return Refuse(what, "exports '" + name + "'; a kernel library exports only " +
                            KILN_CPU_LIBRARY_QUERY_SYMBOL);
  }
  if (!has_query) return Refuse(what, "does not export " KILN_CPU_LIBRARY_QUERY_SYMBOL);
  return Status::Ok();
}

}  // namespace kiln
