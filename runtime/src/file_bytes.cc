#include "runtime/src/file_bytes.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace kiln {

Status FileBytes::Map(const std::string& path, std::unique_ptr<FileBytes>* out) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    StatusCode code = errno == ENOENT ? StatusCode::kNotFound : StatusCode::kInvalidArgument;
    return Status(code, "cannot open '" + path + "': " + std::strerror(errno));
  }
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return Status(StatusCode::kInvalidArgument, "'" + path + "' is not a regular file");
  }
  std::unique_ptr<FileBytes> bytes(new FileBytes());
  bytes->size_ = static_cast<size_t>(st.st_size);
  if (bytes->size_ > 0) {
    void* p = ::mmap(nullptr, bytes->size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      int err = errno;
      ::close(fd);
      return Status(StatusCode::kResourceExhausted,
                    "cannot mmap '" + path + "': " + std::strerror(err));
    }
    bytes->data_ = static_cast<const uint8_t*>(p);
    bytes->mapped_ = true;
  }
  ::close(fd);  // the mapping keeps the file's pages
  *out = std::move(bytes);
  return Status::Ok();
}

Status FileBytes::Copy(const void* data, size_t size, std::unique_ptr<FileBytes>* out) {
  if (data == nullptr && size > 0)
    return Status(StatusCode::kInvalidArgument, "artifact data pointer is null");
  std::unique_ptr<FileBytes> bytes(new FileBytes());
  if (size > 0) {
    void* p = std::aligned_alloc(64, (size + 63) / 64 * 64);
    if (p == nullptr)
      return Status(StatusCode::kResourceExhausted,
                    "cannot allocate " + std::to_string(size) + " bytes for the artifact");
    std::memcpy(p, data, size);
    bytes->data_ = static_cast<const uint8_t*>(p);
  }
  bytes->size_ = size;
  *out = std::move(bytes);
  return Status::Ok();
}

FileBytes::~FileBytes() {
  if (mapped_)
    ::munmap(const_cast<uint8_t*>(data_), size_);
  else
    std::free(const_cast<uint8_t*>(data_));
}

}  // namespace kiln
