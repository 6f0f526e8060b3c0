// artifact_loader_fuzzer.cc - libFuzzer target for the .kiln loader:
// DescribeModelFile (verify only) and LoadModel (verify, load the code, and
// create a Session, which resolves every plan binding).
//
// Random bytes almost never get past the header checksum, so the custom
// mutator below mutates a valid artifact's FlatBuffer metadata (now and then
// the header and constants as well) and then recomputes the checksum with
// the runtime's own function. It leaves the embedded ELF objects alone:
// the loader hands those to dlopen, and the glibc loader is not built to
// survive a corrupt ELF (the trust model: an artifact is native code; the
// checksum catches corruption, the ELF inspection catches bad structure).
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "kiln/runtime.h"
#include "runtime/schema/file_format.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

namespace format = kiln::format;

// A byte range [begin, end) of the input.
struct Range {
  size_t begin, end;
};

// The embedded objects: a FlatBuffer [ubyte] vector is a u32 length followed
// by the bytes, so an "\x7fELF" whose preceding length fits in the
// FlatBuffer marks one. Found by scanning rather than by reading the
// FlatBuffer, which the mutations may have broken.
std::vector<Range> FindElfBlobs(const uint8_t* data, Range fb) {
  std::vector<Range> blobs;
  for (size_t i = fb.begin + 4; i + 4 <= fb.end; ++i) {
    if (std::memcmp(data + i, "\x7f" "ELF", 4) != 0) continue;
    uint64_t length = format::LoadU32(data + i - 4);
    if (length < 64 || length > fb.end - i) continue;
    blobs.push_back({i, i + length});
    i += length - 1;
  }
  return blobs;
}

// The FlatBuffer range minus the ELF blobs.
std::vector<Range> MutableMetadata(const uint8_t* data, size_t size) {
  format::Header h = format::DecodeHeader(data);
  Range fb{h.flatbuffer_offset, h.flatbuffer_offset + h.flatbuffer_size};
  if (fb.begin < format::kHeaderSize || fb.begin >= size || h.flatbuffer_size > size ||
      fb.end > size || fb.end <= fb.begin)
    return {};
  std::vector<Range> segments;
  size_t at = fb.begin;
  for (const Range& blob : FindElfBlobs(data, fb)) {
    if (blob.begin > at) segments.push_back({at, blob.begin});
    at = blob.end;
  }
  if (at < fb.end) segments.push_back({at, fb.end});
  return segments;
}

// Makes the header's file size and checksum match the (mutated) bytes, so
// that the mutation reaches the FlatBuffer verifier and everything after it.
void Reseal(uint8_t* data, size_t size, bool fix_file_size) {
  if (size < format::kHeaderSize || std::memcmp(data, format::kMagic, 4) != 0) return;
  if (fix_file_size) format::StoreU64(data + 56, size);
  format::StoreU64(data + 48, format::Checksum(data + format::kHeaderSize,
                                               size - format::kHeaderSize));
}

std::shared_ptr<kiln::Runtime> MakeRuntime() {
  std::shared_ptr<kiln::Runtime> runtime;
  kiln::RuntimeOptions options;
  options.num_threads = 1;  // no pool threads to start and stop per input
  if (!kiln::Runtime::Create(options, &runtime).ok()) std::abort();
  return runtime;
}

// DescribeModelFile reads a path; one file per process, rewritten per input.
std::string InputPath() {
  const char* dir = std::getenv("TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/kiln-loader-fuzz-" +
         std::to_string(::getpid()) + ".kiln";
}

bool WriteAll(const std::string& path, const uint8_t* data, size_t size) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  bool ok = true;
  for (size_t done = 0; ok && done < size;) {
    ssize_t n = ::write(fd, data + done, size - done);
    ok = n > 0;
    if (ok) done += static_cast<size_t>(n);
  }
  return ::close(fd) == 0 && ok;
}

}  // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  std::minstd_rand rng(seed);
  bool artifact = size >= format::kHeaderSize && std::memcmp(data, format::kMagic, 4) == 0;
  std::vector<Range> segments;
  if (artifact) segments = MutableMetadata(data, size);
  bool size_was_right = artifact && format::LoadU64(data + 56) == size;
  if (segments.empty() || rng() % 8 == 0) {
    // Anything, header and constants included; the size may change.
    size = LLVMFuzzerMutate(data, size, max_size);
  } else {
    // One metadata segment, picked in proportion to its size, in place.
    size_t total = 0;
    for (const Range& s : segments) total += s.end - s.begin;
    size_t pick = rng() % total;
    for (const Range& s : segments) {
      size_t length = s.end - s.begin;
      if (pick >= length) {
        pick -= length;
        continue;
      }
      // A shorter result leaves the segment's tail as it was.
      LLVMFuzzerMutate(data + s.begin, length, length);
      break;
    }
  }
  Reseal(data, size, size_was_right && rng() % 16 != 0);
  return size;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static std::shared_ptr<kiln::Runtime> runtime = MakeRuntime();
  static std::string path = InputPath();

  if (!WriteAll(path, data, size)) std::abort();
  kiln::ModelDescription description;
  (void)kiln::DescribeModelFile(path, &description);

  std::shared_ptr<const kiln::Model> model;
  if (!runtime->LoadModel(path, &model).ok()) return 0;
  std::unique_ptr<kiln::Session> session;
  (void)kiln::Session::Create(model, &session);
  return 0;
}
