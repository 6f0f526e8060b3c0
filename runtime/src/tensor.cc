// Status, DType and Tensor: the value types of the C++ API.
#include <cstdlib>
#include <cstring>

#include "kiln/runtime.h"
#include "runtime/src/guard_exceptions.h"
#include "runtime/schema/file_format.h"

namespace kiln {

const char* StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "OK";
    case StatusCode::kInvalidArgument: return "INVALID_ARGUMENT";
    case StatusCode::kNotFound: return "NOT_FOUND";
    case StatusCode::kDataLoss: return "DATA_LOSS";
    case StatusCode::kUnimplemented: return "UNIMPLEMENTED";
    case StatusCode::kFailedPrecondition: return "FAILED_PRECONDITION";
    case StatusCode::kResourceExhausted: return "RESOURCE_EXHAUSTED";
    case StatusCode::kInternal: return "INTERNAL";
  }
  return "UNKNOWN";
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  return std::string(StatusCodeName(code_)) + ": " + message_;
}

size_t DTypeSize(DType dtype) {
  return format::DTypeSize(static_cast<unsigned>(dtype));
}

const char* DTypeName(DType dtype) {
  return format::DTypeName(static_cast<unsigned>(dtype));
}

std::string DescribeShape(const std::vector<int64_t>& dims, DType dtype) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "] " + DTypeName(dtype);
}

Tensor Tensor::Borrow(DType dtype, std::vector<int64_t> dims, void* data) {
  Tensor t;
  t.dtype_ = dtype;
  t.dims_ = std::move(dims);
  t.data_ = data;
  return t;
}

Tensor Tensor::BorrowDevice(DType dtype, std::vector<int64_t> dims, void* data, int device_index) {
  Tensor t = Borrow(dtype, std::move(dims), data);
  t.device_index_ = device_index < 0 ? 0 : device_index;
  return t;
}

const char* GemmEpilogueName(GemmInfo::Epilogue epilogue) {
  switch (epilogue) {
    case GemmInfo::Epilogue::kNone: return "none";
    case GemmInfo::Epilogue::kBias: return "bias";
    case GemmInfo::Epilogue::kRelu: return "relu";
    case GemmInfo::Epilogue::kBiasRelu: return "bias+relu";
    case GemmInfo::Epilogue::kGelu: return "gelu";
    case GemmInfo::Epilogue::kBiasGelu: return "bias+gelu";
  }
  return "unknown";
}

Status Tensor::Allocate(DType dtype, std::vector<int64_t> dims, Tensor* out) {
  return GuardExceptions([&]() -> Status {
    uint64_t bytes = DTypeSize(dtype);
    if (bytes == 0) return Status(StatusCode::kInvalidArgument, "unknown dtype");
    for (int64_t d : dims) {
      if (d < 0)
        return Status(StatusCode::kInvalidArgument,
                      "cannot allocate shape " + DescribeShape(dims, dtype) + ": negative dimension");
      if (d > 0 && bytes > (1ull << 62) / static_cast<uint64_t>(d))
        return Status(StatusCode::kResourceExhausted, "shape " + DescribeShape(dims, dtype) + " is too large");
      bytes *= static_cast<uint64_t>(d);
    }
    // At least one cache line, so empty tensors still get a valid pointer.
    size_t rounded = static_cast<size_t>((bytes + 63) / 64 * 64);
    void* p = std::aligned_alloc(64, rounded == 0 ? 64 : rounded);
    if (p == nullptr)
      return Status(StatusCode::kResourceExhausted,
                    "cannot allocate " + std::to_string(bytes) + " bytes for " + DescribeShape(dims, dtype));
    std::memset(p, 0, rounded == 0 ? 64 : rounded);
    Tensor t;
    t.dtype_ = dtype;
    t.dims_ = std::move(dims);
    t.data_ = p;
    t.storage_ = std::shared_ptr<void>(p, std::free);
    *out = std::move(t);
    return Status::Ok();
  });
}

int64_t Tensor::element_count() const {
  int64_t n = 1;
  for (int64_t d : dims_) n *= d;
  return n;
}

}  // namespace kiln
