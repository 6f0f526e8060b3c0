// file_format.h - the bytes around the FlatBuffer in a .kiln file.
//
//   [ 64-byte header                                   ]
//   [ FlatBuffer (kiln.fbs), starting at byte 64       ]
//   [ zero padding to a multiple of 64                 ]
//   [ constants segment; every constant 64-byte aligned ]
//
// Header fields, all little-endian:
//   0  char[4] magic "KILN"     4 u32 format_version    8 u32 flags (0)
//   12 u32 header_size (64)    16 u64 flatbuffer_offset 24 u64 flatbuffer_size
//   32 u64 constants_offset    40 u64 constants_size    48 u64 checksum
//   56 u64 file_size
// The checksum covers every byte after the header (file_size - 64 bytes).
//
// The writer (compiler side) and the loader (runtime side) must agree bit
// for bit, so both include this file; only the checksum lives in
// file_format.cc (it needs xxHash).
#ifndef KILN_RUNTIME_SCHEMA_FILE_FORMAT_H_
#define KILN_RUNTIME_SCHEMA_FILE_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace kiln::format {

// Element types by their kiln.fbs DType number (F32 = 0 ... Bool = 12);
// kiln::artifact::DType and kiln::DType use the same numbering.
constexpr int kDTypeCount = 13;
constexpr size_t kDTypeSizes[kDTypeCount] = {4, 2, 2, 8, 1, 2, 4, 8,
                                             1, 2, 4, 8, 1};
constexpr const char *kDTypeNames[kDTypeCount] = {
    "f32", "f16", "bf16", "f64", "i8",  "i16", "i32",
    "i64", "u8",  "u16",  "u32", "u64", "bool"};
// 0 / "unknown" for numbers outside the enum.
constexpr size_t DTypeSize(unsigned code) {
  return code < kDTypeCount ? kDTypeSizes[code] : 0;
}
constexpr const char *DTypeName(unsigned code) {
  return code < kDTypeCount ? kDTypeNames[code] : "unknown";
}

constexpr char kMagic[4] = {'K', 'I', 'L', 'N'};
// 2: XXH3-64 checksum; the kernel table records binding sizes, access and
// workgroup counts. Version 1 (a hand-written hash, no binding sizes) is
// refused with "built by an older kilnc; recompile".
constexpr uint32_t kFormatVersion = 2;
constexpr uint32_t kHeaderSize = 64;
// Constants are used in place from an mmap; 64 bytes is a cache line and
// the widest vector load (AVX-512).
constexpr uint64_t kAlignment = 64;

struct Header {
  uint32_t format_version = kFormatVersion;
  uint32_t flags = 0;
  uint32_t header_size = kHeaderSize;
  uint64_t flatbuffer_offset = 0;
  uint64_t flatbuffer_size = 0;
  uint64_t constants_offset = 0;
  uint64_t constants_size = 0;
  uint64_t checksum = 0;
  uint64_t file_size = 0;
};

inline uint64_t AlignUp(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

// x86-64 is little-endian, so memcpy gives the file's byte order.
inline uint64_t LoadU64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
inline uint32_t LoadU32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
inline void StoreU64(uint8_t* p, uint64_t v) { std::memcpy(p, &v, 8); }
inline void StoreU32(uint8_t* p, uint32_t v) { std::memcpy(p, &v, 4); }

inline void EncodeHeader(const Header& h, uint8_t out[kHeaderSize]) {
  std::memset(out, 0, kHeaderSize);
  std::memcpy(out, kMagic, 4);
  StoreU32(out + 4, h.format_version);
  StoreU32(out + 8, h.flags);
  StoreU32(out + 12, h.header_size);
  StoreU64(out + 16, h.flatbuffer_offset);
  StoreU64(out + 24, h.flatbuffer_size);
  StoreU64(out + 32, h.constants_offset);
  StoreU64(out + 40, h.constants_size);
  StoreU64(out + 48, h.checksum);
  StoreU64(out + 56, h.file_size);
}

// The caller checks the magic; this only decodes the fields.
inline Header DecodeHeader(const uint8_t in[kHeaderSize]) {
  Header h;
  h.format_version = LoadU32(in + 4);
  h.flags = LoadU32(in + 8);
  h.header_size = LoadU32(in + 12);
  h.flatbuffer_offset = LoadU64(in + 16);
  h.flatbuffer_size = LoadU64(in + 24);
  h.constants_offset = LoadU64(in + 32);
  h.constants_size = LoadU64(in + 40);
  h.checksum = LoadU64(in + 48);
  h.file_size = LoadU64(in + 56);
  return h;
}

// The checksum: xxHash's XXH3-64 (seed 0) of every byte after the header
// (file.data() + 64, file_size - 64 bytes). Fast (tens of GB/s) and well
// tested against accidental corruption; not cryptographic, so it detects
// corruption, not tampering (docs/design.md, "Trust model"). Defined in
// file_format.cc so that the writer, the loader and the fuzzers' custom
// mutator all compute it the same way.
uint64_t Checksum(const uint8_t* data, size_t size);

// Recomputes and stores the header checksum of a whole .kiln file in
// place, e.g. after a test or a fuzzer mutated its FlatBuffer. False when
// `size` is smaller than the header.
bool UpdateChecksum(uint8_t* file, size_t size);

}  // namespace kiln::format

#endif  // KILN_RUNTIME_SCHEMA_FILE_FORMAT_H_
