// artifact_loader_fuzzer.cc - libFuzzer target for the .kiln loader:
// DescribeModelFile (verify only) and LoadModel (verify, load the code),
// then Session::Create (resolves every plan binding) and one Run.
//
// Random bytes almost never get past the header checksum, so the custom
// mutator below mutates a valid artifact's FlatBuffer metadata (now and then
// the header and constants as well) and then recomputes the checksum with
// the runtime's own function (format::UpdateChecksum). It leaves the embedded ELF objects and their
// length prefixes alone:
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

// The embedded objects, each with the u32 length in front of it (a
// FlatBuffer [ubyte] vector). Found by scanning for "\x7fELF" rather than
// by reading the FlatBuffer, which earlier mutations may have broken; an
// object's extent comes from its own header (the section headers end it),
// so a mutated length prefix cannot unprotect it. When that extent does not
// fit, everything to the end of the FlatBuffer is protected.
std::vector<Range> FindElfBlobs(const uint8_t* data, Range fb) {
  std::vector<Range> blobs;
  for (size_t i = fb.begin + 4; i + 64 <= fb.end; ++i) {
    if (std::memcmp(data + i, "\x7f" "ELF", 4) != 0) continue;
    uint64_t section_headers = format::LoadU64(data + i + 0x28);
    uint16_t entry_size, count;
    std::memcpy(&entry_size, data + i + 0x3A, 2);
    std::memcpy(&count, data + i + 0x3C, 2);
    uint64_t end = section_headers + uint64_t{entry_size} * count;
    if (end < 64 || end > fb.end - i) end = fb.end - i;
    blobs.push_back({i - 4, i + end});
    i += end - 1;
  }
  return blobs;
}

// The FlatBuffer range minus the ELF blobs.
std::vector<Range> MutableMetadata(const uint8_t* data, size_t size) {
  format::Header h = format::DecodeHeader(data);
  if (h.flatbuffer_offset < format::kHeaderSize || h.flatbuffer_offset >= size ||
      h.flatbuffer_size == 0 || h.flatbuffer_size > size - h.flatbuffer_offset)
    return {};
  Range fb{h.flatbuffer_offset, h.flatbuffer_offset + h.flatbuffer_size};
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
  format::UpdateChecksum(data, size);
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
  if (!artifact) return LLVMFuzzerMutate(data, size, max_size);
  if (segments.empty() || rng() % 8 == 0) {
    // Any byte of the header and the FlatBuffer, except the magic and the
    // objects' (put back afterwards). The size stays: truncation and extension are the
    // header's file size check, reached by mutating that field.
    std::vector<Range> blobs;
    std::vector<uint8_t> saved;
    format::Header h = format::DecodeHeader(data);
    if (h.flatbuffer_offset < size && h.flatbuffer_size <= size - h.flatbuffer_offset) {
      blobs = FindElfBlobs(data, {h.flatbuffer_offset, h.flatbuffer_offset + h.flatbuffer_size});
      for (const Range& b : blobs) saved.insert(saved.end(), data + b.begin, data + b.end);
    }
    // Not the constants: their values are the kernels' inputs (an integer
    // divisor of 0 traps in any runtime), not something the loader checks.
    size_t limit = size;
    if (h.flatbuffer_offset < size && h.flatbuffer_size <= size - h.flatbuffer_offset)
      limit = h.flatbuffer_offset + h.flatbuffer_size;
    LLVMFuzzerMutate(data, limit, limit);
    std::memcpy(data, format::kMagic, 4);  // a bad magic is one trivial case
    size_t at = 0;
    for (const Range& b : blobs) {
      std::memcpy(data + b.begin, saved.data() + at, b.end - b.begin);
      at += b.end - b.begin;
    }
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
  // A valid artifact may need an arena of gigabytes; allocating one per
  // input would only measure the allocator.
  if (model->description().arena_size > (256u << 20)) return 0;
  std::unique_ptr<kiln::Session> session;
  if (!kiln::Session::Create(model, &session).ok()) return 0;

  // Run once on inputs of 0x01 bytes when they are small: every plan step
  // that passed the loader's checks against the kernel table must stay
  // inside its buffers (what `kiln run` does with such a file).
  uint64_t input_bytes = 0;
  for (const kiln::TensorInfo& info : model->inputs()) {
    if (info.byte_size > (1u << 20)) return 0;
    input_bytes += info.byte_size;
  }
  if (input_bytes > (1u << 20)) return 0;
  for (const kiln::TensorInfo& info : model->outputs())
    if (info.byte_size > (1u << 20)) return 0;
  std::vector<kiln::Tensor> inputs;
  for (const kiln::TensorInfo& info : model->inputs()) {
    kiln::Tensor tensor;
    if (!kiln::Tensor::Allocate(info.dtype, info.dims, &tensor).ok()) return 0;
    // 0x01 bytes: no integer element is 0 (a zero divisor traps, as it
    // would in any runtime), and floats are small and finite.
    std::memset(tensor.data(), 1, tensor.byte_size());
    inputs.push_back(std::move(tensor));
  }
  std::vector<kiln::Tensor> outputs;
  (void)session->Run(inputs, &outputs);
  return 0;
}
