#include "tools/kiln/tensor_files.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace kiln::tools {
namespace {

Status Bad(const std::string& message) { return Status(StatusCode::kInvalidArgument, message); }

// The element count of `dims`, or false when a dimension is negative or the
// product leaves int64 at any point. The readers check a file's declared
// shape against the bytes or values it holds before allocating, so a few
// header bytes cannot ask for terabytes.
bool CountElements(const std::vector<int64_t>& dims, int64_t* count) {
  int64_t n = 1;
  for (int64_t d : dims)
    if (d < 0 || __builtin_mul_overflow(n, d, &n)) return false;
  *count = n;
  return true;
}

struct NpyType {
  const char* descr;
  DType dtype;
};
constexpr NpyType kNpyTypes[] = {
    {"f4", DType::F32}, {"f2", DType::F16}, {"f8", DType::F64}, {"i1", DType::I8},
    {"i2", DType::I16}, {"i4", DType::I32}, {"i8", DType::I64}, {"u1", DType::U8},
    {"u2", DType::U16}, {"u4", DType::U32}, {"u8", DType::U64}, {"b1", DType::Bool},
};

// The value text after 'key': in a numpy header dict.
bool FindValue(const std::string& header, const std::string& key, std::string* value) {
  size_t at = header.find("'" + key + "'");
  if (at == std::string::npos) return false;
  at = header.find(':', at);
  if (at == std::string::npos) return false;
  *value = header.substr(at + 1);
  size_t start = value->find_first_not_of(' ');
  *value = start == std::string::npos ? "" : value->substr(start);
  return true;
}

float HalfToFloat(uint16_t h) {
  int exponent = (h >> 10) & 0x1F, mantissa = h & 0x3FF;
  float sign = (h & 0x8000) ? -1.0f : 1.0f;
  if (exponent == 0) return sign * std::ldexp(static_cast<float>(mantissa), -24);
  if (exponent == 31) return mantissa ? NAN : sign * INFINITY;
  return sign * std::ldexp(static_cast<float>(mantissa + 1024), exponent - 25);
}

// Round-to-nearest is not needed for random test data; truncation is.
uint16_t FloatToHalf(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  uint16_t sign = (bits >> 16) & 0x8000;
  int exponent = static_cast<int>((bits >> 23) & 0xFF) - 127 + 15;
  if (exponent <= 0) return sign;
  if (exponent >= 31) return sign | 0x7C00;
  return sign | static_cast<uint16_t>(exponent << 10) | ((bits >> 13) & 0x3FF);
}

bool ReadVarint(const uint8_t*& p, const uint8_t* end, uint64_t* value) {
  *value = 0;
  for (int shift = 0; shift < 64 && p < end; shift += 7) {
    uint8_t byte = *p++;
    *value |= static_cast<uint64_t>(byte & 0x7F) << shift;
    if (!(byte & 0x80)) return true;
  }
  return false;
}

// ONNX TensorProto.DataType -> DType.
bool FromOnnxType(uint64_t onnx, DType* dtype) {
  switch (onnx) {
    case 1: *dtype = DType::F32; return true;
    case 2: *dtype = DType::U8; return true;
    case 3: *dtype = DType::I8; return true;
    case 4: *dtype = DType::U16; return true;
    case 5: *dtype = DType::I16; return true;
    case 6: *dtype = DType::I32; return true;
    case 7: *dtype = DType::I64; return true;
    case 9: *dtype = DType::Bool; return true;
    case 10: *dtype = DType::F16; return true;
    case 11: *dtype = DType::F64; return true;
    case 12: *dtype = DType::U32; return true;
    case 13: *dtype = DType::U64; return true;
    case 16: *dtype = DType::BF16; return true;
  }
  return false;
}

}  // namespace

Status ParseNpy(const std::vector<uint8_t>& bytes, Tensor* out) {
  if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0)
    return Bad("not a .npy file (no \\x93NUMPY magic)");
  uint8_t major = bytes[6];
  size_t header_len, header_start;
  if (major == 1) {
    header_len = bytes[8] | (bytes[9] << 8);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return Bad(".npy header is truncated");
    header_len = bytes[8] | (bytes[9] << 8) | (bytes[10] << 16) | (static_cast<size_t>(bytes[11]) << 24);
    header_start = 12;
  } else {
    return Bad(".npy version " + std::to_string(major) + " is not supported (1, 2 or 3)");
  }
  if (header_start + header_len > bytes.size()) return Bad(".npy header is truncated");
  std::string header(bytes.begin() + header_start, bytes.begin() + header_start + header_len);

  std::string descr, fortran, shape;
  if (!FindValue(header, "descr", &descr) || !FindValue(header, "fortran_order", &fortran) ||
      !FindValue(header, "shape", &shape))
    return Bad(".npy header lacks descr, fortran_order or shape: " + header);
  if (fortran.compare(0, 4, "True") == 0) return Bad(".npy file is in Fortran order; only C order is supported");
  if (descr.size() < 4 || (descr[0] != '\'' && descr[0] != '"'))
    return Bad(".npy descr is not a simple type: " + descr.substr(0, 20));
  char order = descr[1];
  std::string type = descr.substr(2, 2);
  bool found = false;
  DType dtype = DType::F32;
  for (const NpyType& t : kNpyTypes)
    if (type == t.descr) {
      dtype = t.dtype;
      found = true;
    }
  if (!found || descr[4] != descr[0])
    return Bad(".npy dtype '" + descr.substr(1, descr.find(descr[0], 1) - 1) + "' is not supported");
  if (order == '>' && DTypeSize(dtype) > 1) return Bad(".npy file is big-endian; only little-endian is supported");

  std::vector<int64_t> dims;
  if (shape.empty() || shape[0] != '(') return Bad(".npy shape is malformed: " + shape.substr(0, 20));
  size_t pos = 1;
  while (pos < shape.size() && shape[pos] != ')') {
    if (shape[pos] == ' ' || shape[pos] == ',') {
      ++pos;
      continue;
    }
    char* end = nullptr;
    long long d = std::strtoll(shape.c_str() + pos, &end, 10);
    if (end == shape.c_str() + pos || d < 0) return Bad(".npy shape is malformed: " + shape.substr(0, 40));
    dims.push_back(d);
    pos = end - shape.c_str();
  }
  int64_t count;
  uint64_t needed;
  if (!CountElements(dims, &count) ||
      __builtin_mul_overflow(static_cast<uint64_t>(count), DTypeSize(dtype), &needed))
    return Bad(".npy shape " + DescribeShape(dims, dtype) + " is too large");
  size_t data_start = header_start + header_len;
  if (bytes.size() - data_start != needed)
    return Bad(".npy data is " + std::to_string(bytes.size() - data_start) + " bytes; shape " +
               DescribeShape(dims, dtype) + " needs " + std::to_string(needed));
  Tensor tensor;
  Status s = Tensor::Allocate(dtype, dims, &tensor);
  if (!s.ok()) return s;
  std::memcpy(tensor.data(), bytes.data() + data_start, tensor.byte_size());
  *out = std::move(tensor);
  return Status::Ok();
}

std::vector<uint8_t> EncodeNpy(const Tensor& tensor) {
  const char* descr = "<f4";
  for (const NpyType& t : kNpyTypes)
    if (t.dtype == tensor.dtype()) descr = t.descr;
  std::string type = std::string(DTypeSize(tensor.dtype()) == 1 ? "|" : "<") + descr;
  // numpy has no bf16; its bits are written as u2.
  if (tensor.dtype() == DType::BF16) type = "<u2";
  std::string shape = "(";
  for (int64_t d : tensor.dims()) shape += std::to_string(d) + ", ";
  if (tensor.dims().size() > 1) shape.resize(shape.size() - 2);
  if (tensor.dims().size() == 1) shape.resize(shape.size() - 1);
  shape += ")";
  std::string header = "{'descr': '" + type + "', 'fortran_order': False, 'shape': " + shape + ", }";
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  const uint8_t prefix[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                              static_cast<uint8_t>(header.size() & 0xFF),
                              static_cast<uint8_t>(header.size() >> 8)};
  std::vector<uint8_t> bytes;
  bytes.reserve(sizeof prefix + header.size() + tensor.byte_size());
  bytes.insert(bytes.end(), prefix, prefix + sizeof prefix);
  bytes.insert(bytes.end(), header.begin(), header.end());
  const uint8_t* data = static_cast<const uint8_t*>(tensor.data());
  bytes.insert(bytes.end(), data, data + tensor.byte_size());
  return bytes;
}

Status ParseTensorProto(const std::vector<uint8_t>& bytes, Tensor* out, std::string* name) {
  const uint8_t* p = bytes.data();
  const uint8_t* end = p + bytes.size();
  std::vector<int64_t> dims;
  uint64_t onnx_type = 0;
  std::vector<uint8_t> raw;
  bool has_raw = false;
  std::vector<double> float_values;      // float_data, double_data
  std::vector<uint64_t> integer_values;  // int32_data, int64_data, uint64_data
  name->clear();
  auto malformed = [] { return Bad("not a valid ONNX TensorProto (malformed protobuf)"); };
  while (p < end) {
    uint64_t key;
    if (!ReadVarint(p, end, &key)) return malformed();
    uint64_t field = key >> 3, wire = key & 7;
    if (wire == 0) {  // varint
      uint64_t v;
      if (!ReadVarint(p, end, &v)) return malformed();
      if (field == 1) dims.push_back(static_cast<int64_t>(v));
      else if (field == 2) onnx_type = v;
      else if (field == 5 || field == 7 || field == 11) integer_values.push_back(v);
    } else if (wire == 2) {  // length-delimited: strings, bytes, packed
      uint64_t length;
      if (!ReadVarint(p, end, &length) || length > static_cast<uint64_t>(end - p)) return malformed();
      const uint8_t* q = p;
      const uint8_t* stop = p + length;
      p = stop;
      if (field == 8) name->assign(reinterpret_cast<const char*>(q), length);
      else if (field == 9) {
        raw.assign(q, stop);
        has_raw = true;
      } else if (field == 1 || field == 5 || field == 7 || field == 11) {
        while (q < stop) {
          uint64_t v;
          if (!ReadVarint(q, stop, &v)) return malformed();
          if (field == 1) dims.push_back(static_cast<int64_t>(v));
          else integer_values.push_back(v);
        }
      } else if (field == 4) {
        if (length % 4) return malformed();
        for (; q < stop; q += 4) {
          float f;
          std::memcpy(&f, q, 4);
          float_values.push_back(f);
        }
      } else if (field == 10) {
        if (length % 8) return malformed();
        for (; q < stop; q += 8) {
          double d;
          std::memcpy(&d, q, 8);
          float_values.push_back(d);
        }
      }
    } else if (wire == 5) {  // fixed32: an unpacked float_data
      if (end - p < 4) return malformed();
      float f;
      std::memcpy(&f, p, 4);
      if (field == 4) float_values.push_back(f);
      p += 4;
    } else if (wire == 1) {  // fixed64: an unpacked double_data
      if (end - p < 8) return malformed();
      double d;
      std::memcpy(&d, p, 8);
      if (field == 10) float_values.push_back(d);
      p += 8;
    } else {
      return malformed();
    }
  }
  DType dtype;
  if (!FromOnnxType(onnx_type, &dtype))
    return Bad("TensorProto data_type " + std::to_string(onnx_type) + " is not supported");
  for (int64_t d : dims)
    if (d < 0) return Bad("TensorProto has a negative dimension");
  int64_t signed_count;
  uint64_t needed;
  if (!CountElements(dims, &signed_count) ||
      __builtin_mul_overflow(static_cast<uint64_t>(signed_count), DTypeSize(dtype), &needed))
    return Bad("TensorProto shape " + DescribeShape(dims, dtype) + " is too large");
  size_t count = static_cast<size_t>(signed_count);
  // What the file holds must match the shape before anything is allocated.
  bool typed_float = dtype == DType::F32 || dtype == DType::F64;
  if (has_raw && raw.size() != needed)
    return Bad("TensorProto raw_data is " + std::to_string(raw.size()) + " bytes; shape " +
               DescribeShape(dims, dtype) + " needs " + std::to_string(needed));
  if (!has_raw && typed_float && float_values.size() != count)
    return Bad("TensorProto has " + std::to_string(float_values.size()) + " values; shape " +
               DescribeShape(dims, dtype) + " needs " + std::to_string(count));
  if (!has_raw && !typed_float && integer_values.size() != count)
    return Bad("TensorProto has " + std::to_string(integer_values.size()) + " values; shape " +
               DescribeShape(dims, dtype) + " needs " + std::to_string(count));
  Tensor tensor;
  Status s = Tensor::Allocate(dtype, dims, &tensor);
  if (!s.ok()) return s;
  uint8_t* data = static_cast<uint8_t*>(tensor.data());
  if (has_raw) {
    // An empty raw_data leaves raw.data() null, which memcpy must not get.
    if (!raw.empty()) std::memcpy(data, raw.data(), raw.size());
  } else if (typed_float) {
    for (size_t i = 0; i < count; ++i) {
      if (dtype == DType::F32) reinterpret_cast<float*>(data)[i] = static_cast<float>(float_values[i]);
      else reinterpret_cast<double*>(data)[i] = float_values[i];
    }
  } else {
    // int32_data holds every narrow type (and f16/bf16 bits) one per entry.
    size_t size = DTypeSize(dtype);
    for (size_t i = 0; i < count; ++i) std::memcpy(data + i * size, &integer_values[i], size);
  }
  *out = std::move(tensor);
  return Status::Ok();
}

Status ReadTensorFile(const std::string& path, Tensor* out, std::string* proto_name) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return Status(StatusCode::kNotFound, "cannot open '" + path + "'");
  std::vector<uint8_t> bytes;
  uint8_t buffer[65536];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0) bytes.insert(bytes.end(), buffer, buffer + n);
  std::fclose(f);
  Status s;
  if (proto_name != nullptr) proto_name->clear();
  if (bytes.size() >= 6 && std::memcmp(bytes.data(), "\x93NUMPY", 6) == 0) {
    s = ParseNpy(bytes, out);
  } else {
    std::string name;
    s = ParseTensorProto(bytes, out, &name);
    if (proto_name != nullptr) *proto_name = name;
  }
  if (!s.ok()) return Status(s.code(), path + ": " + s.message());
  return s;
}

Status WriteFile(const std::string& path, const std::vector<uint8_t>& bytes) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return Status(StatusCode::kNotFound, "cannot create '" + path + "'");
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  if (std::fclose(f) != 0 || !ok) return Status(StatusCode::kInternal, "cannot write '" + path + "'");
  return Status::Ok();
}

double ElementAsDouble(const Tensor& t, int64_t i) {
  const void* d = t.data();
  switch (t.dtype()) {
    case DType::F32: return static_cast<const float*>(d)[i];
    case DType::F64: return static_cast<const double*>(d)[i];
    case DType::F16: return HalfToFloat(static_cast<const uint16_t*>(d)[i]);
    case DType::BF16: {
      uint32_t bits = static_cast<uint32_t>(static_cast<const uint16_t*>(d)[i]) << 16;
      float f;
      std::memcpy(&f, &bits, 4);
      return f;
    }
    case DType::I8: return static_cast<const int8_t*>(d)[i];
    case DType::I16: return static_cast<const int16_t*>(d)[i];
    case DType::I32: return static_cast<const int32_t*>(d)[i];
    case DType::I64: return static_cast<double>(static_cast<const int64_t*>(d)[i]);
    case DType::U8: case DType::Bool: return static_cast<const uint8_t*>(d)[i];
    case DType::U16: return static_cast<const uint16_t*>(d)[i];
    case DType::U32: return static_cast<const uint32_t*>(d)[i];
    case DType::U64: return static_cast<double>(static_cast<const uint64_t*>(d)[i]);
  }
  return 0;
}

void FillRandom(Tensor* t, uint64_t seed) {
  uint64_t state = seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
  auto next = [&state] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return state >> 33;
  };
  uint8_t* d = static_cast<uint8_t*>(t->data());
  size_t size = DTypeSize(t->dtype());
  for (int64_t i = 0; i < t->element_count(); ++i) {
    uint64_t r = next();
    float f = static_cast<float>(r & 0xFFFFFF) / 8388607.5f - 1.0f;
    switch (t->dtype()) {
      case DType::F32: reinterpret_cast<float*>(d)[i] = f; break;
      case DType::F64: reinterpret_cast<double*>(d)[i] = f; break;
      case DType::F16: reinterpret_cast<uint16_t*>(d)[i] = FloatToHalf(f); break;
      case DType::BF16: {
        uint32_t bits;
        std::memcpy(&bits, &f, 4);
        reinterpret_cast<uint16_t*>(d)[i] = static_cast<uint16_t>(bits >> 16);
        break;
      }
      case DType::Bool: d[i] = r & 1; break;
      default: {
        uint64_t small = r % 4;  // small and non-negative: valid as an index too
        std::memcpy(d + i * size, &small, size);
      }
    }
  }
}

std::string SafeFileName(const std::string& name) {
  std::string out = name;
  for (char& c : out)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-')) c = '_';
  if (out.empty() || out == "." || out == "..") out = "_" + out;
  return out;
}

}  // namespace kiln::tools
