#include "runtime/schema/file_format.h"

// Header-only use of xxHash: its functions become static inline here, so
// neither libkilnrt nor kilnc needs libxxhash.so at run time.
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace kiln::format {

uint64_t Checksum(const uint8_t* data, size_t size) {
  return XXH3_64bits(data, size);
}

bool UpdateChecksum(uint8_t* file, size_t size) {
  if (size < kHeaderSize) return false;
  StoreU64(file + 48, Checksum(file + kHeaderSize, size - kHeaderSize));
  return true;
}

}  // namespace kiln::format
