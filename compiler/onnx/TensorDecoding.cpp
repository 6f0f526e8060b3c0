//===- TensorDecoding.cpp - ONNX TensorProto -> MLIR constants ------------===//
//
// Every encoding is first turned into one byte buffer laid out as MLIR's
// dense storage expects (host order, one element after the other), which is
// then handed over in one piece (DenseElementsAttr::getFromRawBuffer):
// large weights never go through per-element APFloat/APInt objects.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/TensorDecoding.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SwapByteOrder.h"

#include <cstring>
#include <vector>

using namespace mlir;

namespace mlir::kiln::onnx_import {

using onnx::TensorProto;

llvm::StringRef dtypeName(int32_t dtype) {
  if (TensorProto::DataType_IsValid(dtype) && dtype != TensorProto::UNDEFINED)
    return TensorProto::DataType_Name(static_cast<TensorProto::DataType>(dtype));
  switch (dtype) {
  // Types newer than the ONNX release the system headers come from.
  case 17: return "FLOAT8E4M3FN";
  case 18: return "FLOAT8E4M3FNUZ";
  case 19: return "FLOAT8E5M2";
  case 20: return "FLOAT8E5M2FNUZ";
  case 21: return "UINT4";
  case 22: return "INT4";
  case 23: return "FLOAT4E2M1";
  case 0: return "UNDEFINED";
  default: return "UNKNOWN";
  }
}

FailureOr<Type> convertElementType(MLIRContext *context, int32_t dtype,
                                   llvm::StringRef tensorName, Location loc) {
  Builder b(context);
  switch (dtype) {
  case TensorProto::FLOAT: return b.getF32Type();
  case TensorProto::FLOAT16: return b.getF16Type();
  case TensorProto::BFLOAT16: return b.getBF16Type();
  case TensorProto::DOUBLE: return b.getF64Type();
  // UINT8 is stored biased in i8 (u8 - 128): see docs/design.md "INT8".
  // The importer accepts such tensors only where they are quantized data.
  case TensorProto::INT8:
  case TensorProto::UINT8: return b.getIntegerType(8);
  case TensorProto::INT32: return b.getIntegerType(32);
  case TensorProto::INT64: return b.getIntegerType(64);
  case TensorProto::BOOL: return b.getI1Type();
  default:
    return emitError(loc) << "Kiln does not handle dtype " << dtypeName(dtype)
                          << " of tensor '" << tensorName
                          << "' (supported: FLOAT, FLOAT16, BFLOAT16, DOUBLE, "
                             "INT8, UINT8 (quantized data), INT32, INT64, "
                             "BOOL)";
  }
}

FailureOr<std::string> resolveExternalDataPath(llvm::StringRef modelDir,
                                               llvm::StringRef location,
                                               llvm::StringRef tensorName,
                                               Location loc) {
  namespace path = llvm::sys::path;
  auto fail = [&](llvm::StringRef why) {
    return emitError(loc) << "external data file '" << location
                          << "' of tensor '" << tensorName << "' " << why;
  };
  if (location.empty())
    return fail("is empty (the 'location' key is missing)");
  // Both POSIX and Windows absolute forms: a model from elsewhere must not
  // read arbitrary files on this machine.
  if (path::is_absolute(location, path::Style::posix) ||
      path::is_absolute(location, path::Style::windows) ||
      location.starts_with("\\") || location.starts_with("/"))
    return fail("is an absolute path; external data must be given relative "
                "to the model's folder");
  llvm::SmallString<256> relative(location);
  path::native(relative);
  path::remove_dots(relative, /*remove_dot_dot=*/true);
  if (relative.empty() || relative == "." ||
      *path::begin(relative) == "..")
    return fail("is outside the model's folder");

  llvm::SmallString<256> full(modelDir.empty() ? "." : modelDir);
  path::append(full, relative);
  if (!llvm::sys::fs::exists(full))
    return fail(("does not exist (looked for '" + full + "')").str());
  // A symbolic link inside the folder may still point outside it.
  llvm::SmallString<256> realDir, realFile;
  if (llvm::sys::fs::real_path(modelDir.empty() ? "." : modelDir, realDir) ||
      llvm::sys::fs::real_path(full, realFile))
    return fail(("cannot be resolved ('" + full + "')").str());
  llvm::SmallString<256> prefix(realDir);
  path::append(prefix, "");
  if (!llvm::StringRef(realFile).starts_with(prefix))
    return fail(("resolves to '" + realFile +
                 "', outside the model's folder")
                    .str());
  if (!llvm::sys::fs::is_regular_file(realFile))
    return fail("is not a regular file");
  return std::string(realFile);
}

namespace {

/// Bytes per element in MLIR's dense storage for the supported dtypes.
int64_t storageBytes(int32_t dtype) {
  switch (dtype) {
  case TensorProto::FLOAT:
  case TensorProto::INT32: return 4;
  case TensorProto::FLOAT16:
  case TensorProto::BFLOAT16: return 2;
  case TensorProto::INT8:
  case TensorProto::UINT8:
  case TensorProto::BOOL: return 1;
  case TensorProto::INT64:
  case TensorProto::DOUBLE: return 8;
  default: return 0;
  }
}

/// Reads the external data of `tensor` into `bytes`.
LogicalResult readExternal(const TensorProto &tensor, llvm::StringRef modelDir,
                           int64_t expectedBytes, Location loc,
                           std::vector<char> &bytes) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const auto &entry : tensor.external_data()) {
    auto parseInt = [&](int64_t &out) -> LogicalResult {
      if (llvm::StringRef(entry.value()).getAsInteger(10, out) || out < 0)
        return emitError(loc) << "external data of tensor '" << tensor.name()
                              << "' has a bad '" << entry.key()
                              << "' value '" << entry.value() << "'";
      return success();
    };
    if (entry.key() == "location")
      location = entry.value();
    else if (entry.key() == "offset" && failed(parseInt(offset)))
      return failure();
    else if (entry.key() == "length" && failed(parseInt(length)))
      return failure();
  }
  FailureOr<std::string> file =
      resolveExternalDataPath(modelDir, location, tensor.name(), loc);
  if (failed(file))
    return failure();
  uint64_t fileSize = 0;
  if (llvm::sys::fs::file_size(*file, fileSize))
    return emitError(loc) << "cannot read external data file '" << location
                          << "' of tensor '" << tensor.name() << "'";
  if (length < 0)
    length = static_cast<int64_t>(fileSize) - offset;
  if (length != expectedBytes)
    return emitError(loc) << "external data of tensor '" << tensor.name()
                          << "' in '" << location << "' has " << length
                          << " bytes, expected " << expectedBytes;
  if (offset < 0 || static_cast<uint64_t>(offset) > fileSize ||
      static_cast<uint64_t>(length) > fileSize - offset)
    return emitError(loc) << "external data of tensor '" << tensor.name()
                          << "' (offset " << offset << ", length " << length
                          << ") runs past the end of '" << location << "' ("
                          << fileSize << " bytes)";
  if (length == 0)
    return success();
  auto buffer = llvm::MemoryBuffer::getFileSlice(*file, length, offset,
                                                 /*IsVolatile=*/false);
  if (!buffer)
    return emitError(loc) << "cannot read external data file '" << location
                          << "' of tensor '" << tensor.name()
                          << "': " << buffer.getError().message();
  bytes.assign((*buffer)->getBufferStart(), (*buffer)->getBufferEnd());
  return success();
}

/// Copies a typed repeated field into `bytes`, narrowing each value to
/// `width` bytes (ONNX stores f16, bf16, i8 and bool in int32_data).
template <typename FieldT>
void copyTyped(const FieldT &field, int64_t width, std::vector<char> &bytes) {
  bytes.resize(field.size() * width);
  char *out = bytes.data();
  for (auto value : field) {
    switch (width) {
    case 1: {
      int8_t v = static_cast<int8_t>(value);
      std::memcpy(out, &v, 1);
      break;
    }
    case 2: {
      uint16_t v = static_cast<uint16_t>(value);
      std::memcpy(out, &v, 2);
      break;
    }
    case 4: {
      if constexpr (std::is_floating_point_v<decltype(value)>) {
        float v = static_cast<float>(value);
        std::memcpy(out, &v, 4);
      } else {
        int32_t v = static_cast<int32_t>(value);
        std::memcpy(out, &v, 4);
      }
      break;
    }
    case 8: {
      if constexpr (std::is_floating_point_v<decltype(value)>) {
        double v = static_cast<double>(value);
        std::memcpy(out, &v, 8);
      } else {
        int64_t v = static_cast<int64_t>(value);
        std::memcpy(out, &v, 8);
      }
      break;
    }
    }
    out += width;
  }
}

} // namespace

FailureOr<ElementsAttr> decodeTensor(MLIRContext *context,
                                     const TensorProto &tensor,
                                     llvm::StringRef modelDir, Location loc) {
  llvm::StringRef name = tensor.name();
  FailureOr<Type> elementType =
      convertElementType(context, tensor.data_type(), name, loc);
  if (failed(elementType))
    return failure();
  if (tensor.has_segment())
    return emitError(loc) << "tensor '" << name
                          << "' is segmented; Kiln does not handle segments";

  llvm::SmallVector<int64_t> shape;
  int64_t numElements = 1;
  for (int64_t dim : tensor.dims()) {
    if (dim < 0)
      return emitError(loc) << "tensor '" << name << "' has a negative dim "
                            << dim;
    shape.push_back(dim);
    if (dim != 0 && numElements > std::numeric_limits<int64_t>::max() / dim)
      return emitError(loc) << "tensor '" << name << "' is too large";
    numElements *= dim;
  }
  int64_t width = storageBytes(tensor.data_type());
  if (numElements > std::numeric_limits<int64_t>::max() / width)
    return emitError(loc) << "tensor '" << name << "' is too large";
  int64_t expectedBytes = numElements * width;
  auto type = RankedTensorType::get(shape, *elementType);

  std::vector<char> bytes;
  auto countError = [&](llvm::StringRef field, int64_t count) {
    return emitError(loc) << "tensor '" << name << "' of shape " << type
                          << " has " << count << " values in " << field
                          << ", expected " << numElements;
  };
  if (tensor.data_location() == TensorProto::EXTERNAL) {
    if (failed(readExternal(tensor, modelDir, expectedBytes, loc, bytes)))
      return failure();
  } else if (tensor.has_raw_data()) {
    const std::string &raw = tensor.raw_data();
    if (static_cast<int64_t>(raw.size()) != expectedBytes)
      return emitError(loc) << "tensor '" << name << "' of shape " << type
                            << " has " << raw.size()
                            << " bytes of raw_data, expected " << expectedBytes;
    bytes.assign(raw.begin(), raw.end());
  } else {
    switch (tensor.data_type()) {
    case TensorProto::FLOAT:
      if (tensor.float_data_size() != numElements)
        return countError("float_data", tensor.float_data_size());
      copyTyped(tensor.float_data(), width, bytes);
      break;
    case TensorProto::DOUBLE:
      if (tensor.double_data_size() != numElements)
        return countError("double_data", tensor.double_data_size());
      copyTyped(tensor.double_data(), width, bytes);
      break;
    case TensorProto::INT64:
      if (tensor.int64_data_size() != numElements)
        return countError("int64_data", tensor.int64_data_size());
      copyTyped(tensor.int64_data(), width, bytes);
      break;
    default:
      if (tensor.int32_data_size() != numElements)
        return countError("int32_data", tensor.int32_data_size());
      copyTyped(tensor.int32_data(), width, bytes);
      break;
    }
  }

  // raw_data and external files are little-endian.
  if (llvm::sys::IsBigEndianHost && width > 1) {
    for (size_t i = 0; i < bytes.size(); i += width)
      std::reverse(bytes.begin() + i, bytes.begin() + i + width);
  }

  if (tensor.data_type() == TensorProto::UINT8) {
    // u8 -> u8 - 128 in i8 is flipping the top bit.
    for (char &c : bytes)
      c = static_cast<char>(static_cast<unsigned char>(c) ^ 0x80u);
  }
  if (elementType->isInteger(1)) {
    // MLIR packs i1 storage; go through bools (1 byte each in ONNX).
    llvm::SmallVector<bool> values;
    values.reserve(bytes.size());
    for (char c : bytes)
      values.push_back(c != 0);
    return ElementsAttr(DenseElementsAttr::get(type, values));
  }
  return ElementsAttr(DenseElementsAttr::getFromRawBuffer(
      type, llvm::ArrayRef<char>(bytes.data(), bytes.size())));
}

} // namespace mlir::kiln::onnx_import
