// file_bytes.h - an artifact's bytes: a read-only mmap of the file, or a
// 64-byte aligned heap copy for artifacts loaded from memory. Either way
// the constants segment (64-byte aligned in the file) stays aligned.
#ifndef KILN_RUNTIME_SRC_FILE_BYTES_H_
#define KILN_RUNTIME_SRC_FILE_BYTES_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "kiln/runtime.h"

namespace kiln {

class FileBytes {
 public:
  static Status Map(const std::string& path, std::unique_ptr<FileBytes>* out);
  static Status Copy(const void* data, size_t size, std::unique_ptr<FileBytes>* out);
  ~FileBytes();
  FileBytes(const FileBytes&) = delete;
  FileBytes& operator=(const FileBytes&) = delete;

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  FileBytes() = default;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  bool mapped_ = false;
};

}  // namespace kiln

#endif  // KILN_RUNTIME_SRC_FILE_BYTES_H_
