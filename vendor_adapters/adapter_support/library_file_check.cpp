#include "library_file_check.h"

#include <elf.h>
#include <link.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <vector>

namespace hal_library_check {
namespace {

namespace fs = std::filesystem;

constexpr unsigned char kNativeClass = sizeof(void*) == 8 ? ELFCLASS64 : ELFCLASS32;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
constexpr unsigned char kNativeByteOrder = ELFDATA2LSB;
#else
constexpr unsigned char kNativeByteOrder = ELFDATA2MSB;
#endif

// The ELF machine this library was built for; EM_NONE where not listed (the machine is then left to dlopen,
// whose message for a foreign machine is clear enough).
constexpr uint16_t native_machine() {
#if defined(__x86_64__)
  return EM_X86_64;
#elif defined(__aarch64__)
  return EM_AARCH64;
#elif defined(__powerpc64__)
  return EM_PPC64;
#elif defined(__riscv)
  return EM_RISCV;
#elif defined(__s390x__)
  return EM_S390;
#else
  return EM_NONE;
#endif
}

const char* class_name(unsigned char elf_class) {
  return elf_class == ELFCLASS32 ? "32-bit" : elf_class == ELFCLASS64 ? "64-bit" : "unknown-class";
}

// Whether [offset, offset + size) lies inside a file of `file_size` bytes; written so that nothing overflows.
bool inside(uint64_t offset, uint64_t size, uint64_t file_size) {
  return offset <= file_size && size <= file_size - offset;
}

std::string truncated(const std::string& part, uint64_t offset, uint64_t size, uint64_t file_size) {
  const uint64_t end = offset > std::numeric_limits<uint64_t>::max() - size ? std::numeric_limits<uint64_t>::max()
                                                                             : offset + size;
  return "is truncated: its " + part + " ends at byte " + std::to_string(end) + ", but the file has only " +
         std::to_string(file_size) + " bytes (an interrupted build, copy or download)";
}

}  // namespace

std::string elf_load_problem(const std::string& path) {
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec || !fs::exists(status)) return "";  // dlopen's own message ("No such file or directory") says it
  if (fs::is_directory(status)) return "is a directory, not a shared library";
  if (!fs::is_regular_file(status)) return "is not a regular file";
  const uint64_t file_size = fs::file_size(path, ec);
  if (ec) return "cannot be read: " + ec.message();
  if (file_size == 0) return "is empty (0 bytes)";

  std::ifstream in(path, std::ios::binary);
  if (!in) return "cannot be opened for reading";
  ElfW(Ehdr) header{};
  in.read(reinterpret_cast<char*>(&header), sizeof header);
  const auto header_bytes = static_cast<uint64_t>(in.gcount());
  if (header_bytes < SELFMAG || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0) {
    return "is not a shared library: it does not start with the ELF magic number";
  }
  if (header_bytes < sizeof header) return truncated("ELF header", 0, sizeof header, file_size);
  if (header.e_ident[EI_CLASS] != kNativeClass) {
    return std::string("is a ") + class_name(header.e_ident[EI_CLASS]) + " ELF file, but this process is " +
           class_name(kNativeClass);
  }
  if (header.e_ident[EI_DATA] != kNativeByteOrder) return "has the other byte order than this process";
  if (header.e_type != ET_DYN) {
    return "is an ELF file of type " + std::to_string(header.e_type) + ", not a shared library (ET_DYN)";
  }
  if (native_machine() != EM_NONE && header.e_machine != native_machine()) {
    return "is built for ELF machine " + std::to_string(header.e_machine) + ", but this process runs on machine " +
           std::to_string(native_machine());
  }
  if (header.e_phnum == 0 || header.e_phentsize != sizeof(ElfW(Phdr))) return "has no program headers to load";

  const uint64_t table_bytes = uint64_t{header.e_phnum} * header.e_phentsize;
  if (!inside(header.e_phoff, table_bytes, file_size)) {
    return truncated("program header table", header.e_phoff, table_bytes, file_size);
  }
  std::vector<ElfW(Phdr)> segments(header.e_phnum);
  in.seekg(static_cast<std::streamoff>(header.e_phoff));
  in.read(reinterpret_cast<char*>(segments.data()), static_cast<std::streamsize>(table_bytes));
  if (!in) return "cannot be read: its program header table is cut short";
  for (size_t i = 0; i < segments.size(); ++i) {
    const ElfW(Phdr)& s = segments[i];
    // What dlopen maps (PT_LOAD) and reads (PT_DYNAMIC) must be in the file: past its end lies SIGBUS.
    if ((s.p_type == PT_LOAD || s.p_type == PT_DYNAMIC) && !inside(s.p_offset, s.p_filesz, file_size)) {
      return truncated("segment " + std::to_string(i), s.p_offset, s.p_filesz, file_size);
    }
  }
  // The loader never reads section headers, but the linker writes them last: missing ones mean a cut file.
  const uint64_t section_bytes = uint64_t{header.e_shnum} * header.e_shentsize;
  if (header.e_shnum > 0 && !inside(header.e_shoff, section_bytes, file_size)) {
    return truncated("section header table", header.e_shoff, section_bytes, file_size);
  }
  return "";
}

}  // namespace hal_library_check
