//===- ParamsReader.cpp - Reading Paddle .pdiparams files -----------------===//

#include "compiler/paddle/ParamsReader.h"

#include "compiler/paddle/paddle_framework.pb.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kiln::paddle {

namespace {

/// A read-only private mapping of a whole file.
struct MappedFile final : ParamStorage {
  void *addr = nullptr;
  size_t size = 0;
  ~MappedFile() override {
    if (addr)
      ::munmap(addr, size);
  }
};

/// Reads little-endian integers from a byte range; every read is checked
/// against the end, and a failed read leaves `pos` where it was.
class Cursor {
public:
  Cursor(const unsigned char *begin, size_t size) : base(begin), size(size) {}

  size_t offset() const { return pos; }
  size_t remaining() const { return size - pos; }
  bool atEnd() const { return pos == size; }

  template <typename T> bool read(T &value) {
    if (remaining() < sizeof(T))
      return false;
    std::memcpy(&value, base + pos, sizeof(T)); // x86-64: little-endian
    pos += sizeof(T);
    return true;
  }
  bool skip(uint64_t bytes) {
    if (bytes > remaining())
      return false;
    pos += bytes;
    return true;
  }
  const unsigned char *here() const { return base + pos; }

private:
  const unsigned char *base;
  size_t size;
  size_t pos = 0;
};

std::string dimsText(const std::vector<int64_t> &dims) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i)
    text += (i ? ", " : "") + std::to_string(dims[i]);
  return text + "]";
}

bool declaredDimsMatch(const std::vector<int64_t> &declared,
                       const std::vector<int64_t> &actual) {
  if (declared.size() != actual.size())
    return false;
  for (size_t i = 0; i < declared.size(); ++i)
    if (declared[i] >= 0 && declared[i] != actual[i])
      return false;
  return true;
}

} // namespace

bool dtypeFromVarType(int code, DType &dtype, std::string &why) {
  switch (code) {
  case 0:
    dtype = DType::Bool;
    return true;
  case 1:
    dtype = DType::I16;
    return true;
  case 2:
    dtype = DType::I32;
    return true;
  case 3:
    dtype = DType::I64;
    return true;
  case 4:
    dtype = DType::F16;
    return true;
  case 5:
    dtype = DType::F32;
    return true;
  case 6:
    dtype = DType::F64;
    return true;
  case 20:
    dtype = DType::U8;
    return true;
  case 21:
    dtype = DType::I8;
    return true;
  case 22:
    dtype = DType::BF16;
    return true;
  default:
    break;
  }
  const char *known = nullptr;
  switch (code) {
  case 19:
    known = "SIZE_T";
    break;
  case 23:
    known = "COMPLEX64";
    break;
  case 24:
    known = "COMPLEX128";
    break;
  case 32:
    known = "FP8_E4M3FN";
    break;
  case 33:
    known = "FP8_E5M2";
    break;
  case 36:
    known = "UINT16";
    break;
  case 37:
    known = "UINT32";
    break;
  case 38:
    known = "UINT64";
    break;
  default:
    break;
  }
  why = known ? "unsupported data type " + std::string(known) + " (" +
                    std::to_string(code) + ")"
              : "unknown data type " + std::to_string(code);
  return false;
}

size_t dtypeSize(DType dtype) {
  switch (dtype) {
  case DType::F64:
  case DType::I64:
    return 8;
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::F16:
  case DType::BF16:
  case DType::I16:
    return 2;
  case DType::I8:
  case DType::U8:
  case DType::Bool:
    return 1;
  }
  return 1;
}

const char *dtypeName(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "float32";
  case DType::F64:
    return "float64";
  case DType::F16:
    return "float16";
  case DType::BF16:
    return "bfloat16";
  case DType::I8:
    return "int8";
  case DType::U8:
    return "uint8";
  case DType::I16:
    return "int16";
  case DType::I32:
    return "int32";
  case DType::I64:
    return "int64";
  case DType::Bool:
    return "bool";
  }
  return "?";
}

std::vector<std::string> paramFileOrder(const Program &program) {
  std::vector<std::string> names;
  for (const auto &[name, var] : program.vars)
    if (var.persistable)
      names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

bool parseParams(const void *bytes, size_t size, Program &program,
                 const std::vector<std::string> &names, std::string &error) {
  const std::string &file = program.paramsPath;
  Cursor in(static_cast<const unsigned char *>(bytes), size);
  std::map<std::string, Param> params;

  for (size_t index = 0; index < names.size(); ++index) {
    const std::string &name = names[index];
    const size_t start = in.offset();
    auto fail = [&](const std::string &what) {
      error = file + ": parameter '" + name + "' (#" + std::to_string(index) +
              " of " + std::to_string(names.size()) + ", at byte " +
              std::to_string(start) + "): " + what;
      return false;
    };
    auto truncated = [&](const char *field, uint64_t need) {
      return fail("file truncated in the " + std::string(field) + " (needs " +
                  std::to_string(need) + " bytes at offset " +
                  std::to_string(in.offset()) + ", the file has " +
                  std::to_string(size) + ")");
    };
    if (in.atEnd()) {
      error = file + ": holds " + std::to_string(index) +
              " parameters but the program has " +
              std::to_string(names.size()) + "; the first missing is '" + name +
              "'";
      return false;
    }

    uint32_t version = 0;
    if (!in.read(version))
      return truncated("tensor version", 4);
    if (version != 0)
      return fail("tensor version " + std::to_string(version) +
                  " (expected 0; not a .pdiparams file, or a parameter "
                  "count that does not match the program)");
    uint64_t lodLevels = 0;
    if (!in.read(lodLevels))
      return truncated("LoD level count", 8);
    // Inference parameters have no LoD; a huge count is a corrupt file.
    if (lodLevels > 64)
      return fail("LoD level count " + std::to_string(lodLevels) +
                  " is not plausible");
    for (uint64_t level = 0; level < lodLevels; ++level) {
      uint64_t levelBytes = 0;
      if (!in.read(levelBytes))
        return truncated("LoD level size", 8);
      if (!in.skip(levelBytes))
        return truncated("LoD data", levelBytes);
    }
    uint32_t tensorVersion = 0;
    if (!in.read(tensorVersion))
      return truncated("dense tensor version", 4);
    if (tensorVersion != 0)
      return fail("dense tensor version " + std::to_string(tensorVersion) +
                  " (expected 0)");
    int32_t descSize = 0;
    if (!in.read(descSize))
      return truncated("TensorDesc size", 4);
    if (descSize < 0)
      return fail("negative TensorDesc size " + std::to_string(descSize));
    if (static_cast<uint64_t>(descSize) > in.remaining())
      return truncated("TensorDesc", static_cast<uint64_t>(descSize));
    proto::VarType::TensorDesc desc;
    if (!desc.ParseFromArray(in.here(), descSize) || !desc.has_data_type())
      return fail("malformed TensorDesc (" + std::to_string(descSize) +
                  " bytes)");
    in.skip(static_cast<uint64_t>(descSize));

    Param param;
    param.name = name;
    std::string why;
    if (!dtypeFromVarType(desc.data_type(), param.dtype, why))
      return fail(why);
    uint64_t elements = 1;
    for (int64_t dim : desc.dims()) {
      if (dim < 0)
        return fail("negative dimension in shape " +
                    dimsText({desc.dims().begin(), desc.dims().end()}));
      if (__builtin_mul_overflow(elements, static_cast<uint64_t>(dim),
                                 &elements))
        return fail("element count overflows");
      param.dims.push_back(dim);
    }
    if (__builtin_mul_overflow(elements, dtypeSize(param.dtype), &param.bytes))
      return fail("byte size overflows");

    auto var = program.vars.find(name);
    if (var != program.vars.end()) {
      if (var->second.dtype != param.dtype)
        return fail("the file holds " + std::string(dtypeName(param.dtype)) +
                    " but the program declares " +
                    dtypeName(var->second.dtype));
      if (!declaredDimsMatch(var->second.dims, param.dims))
        return fail("the file holds shape " + dimsText(param.dims) +
                    " but the program declares " + dimsText(var->second.dims));
    }
    if (param.bytes > in.remaining())
      return truncated("data", param.bytes);
    param.data = in.here();
    in.skip(param.bytes);
    params.emplace(name, std::move(param));
  }

  if (!in.atEnd()) {
    error = file + ": holds more than the program's " +
            std::to_string(names.size()) +
            " parameters: " + std::to_string(in.remaining()) +
            " bytes remain after '" +
            (names.empty() ? std::string("<none>") : names.back()) +
            "' (the parameter count does not match the program)";
    return false;
  }
  program.params = std::move(params);
  return true;
}

bool readParams(Program &program, const std::vector<std::string> &names,
                std::string &error) {
  const std::string &file = program.paramsPath;
  int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error = file + ": cannot open the parameters file: " + std::strerror(errno);
    return false;
  }
  struct stat info;
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    error = file + ": not a regular file";
    ::close(fd);
    return false;
  }
  auto storage = std::make_unique<MappedFile>();
  storage->size = static_cast<size_t>(info.st_size);
  if (storage->size > 0) {
    void *addr = ::mmap(nullptr, storage->size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (addr == MAP_FAILED) {
      error =
          file + ": cannot map the parameters file: " + std::strerror(errno);
      ::close(fd);
      return false;
    }
    storage->addr = addr;
  }
  ::close(fd);
  static const unsigned char empty = 0;
  const void *bytes = storage->addr ? storage->addr : &empty;
  if (!parseParams(bytes, storage->size, program, names, error)) {
    program.params.clear();
    return false;
  }
  program.paramStorage = std::move(storage);
  return true;
}

} // namespace kiln::paddle
