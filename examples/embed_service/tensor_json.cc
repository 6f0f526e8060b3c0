// tensor_json.cc - JSON <-> kiln::Tensor for the service's requests.
#include "tensor_json.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

namespace kiln_service {
namespace {

using nlohmann::json;
using kiln::DType;
using kiln::Status;
using kiln::StatusCode;

constexpr DType kAllDTypes[] = {DType::F32, DType::F16, DType::BF16, DType::F64, DType::I8,
                                DType::I16, DType::I32, DType::I64,  DType::U8,  DType::U16,
                                DType::U32, DType::U64, DType::Bool};

Status Invalid(const std::string& message) {
  return Status(StatusCode::kInvalidArgument, message);
}

// The offending value as the client wrote it, shortened for a message.
std::string Quote(const json& value) {
  std::string text = value.dump();
  return text.size() > 40 ? text.substr(0, 37) + "..." : text;
}

bool ParseDType(const std::string& name, DType* out) {
  for (DType dtype : kAllDTypes) {
    if (name == kiln::DTypeName(dtype)) {
      *out = dtype;
      return true;
    }
  }
  return false;
}

std::string DTypeNames() {
  std::string names;
  for (DType dtype : kAllDTypes) names += (names.empty() ? "" : ", ") + std::string(kiln::DTypeName(dtype));
  return names;
}

// IEEE binary16 and bfloat16, rounding to nearest even (what a cast in
// numpy or PyTorch gives).
uint16_t FloatToHalf(float value) {
  uint32_t x;
  std::memcpy(&x, &value, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t exponent = (x >> 23) & 0xffu;
  uint32_t mantissa = x & 0x7fffffu;
  if (exponent == 0xffu) return static_cast<uint16_t>(sign | 0x7c00u | (mantissa ? 0x200u : 0u));
  const int half_exponent = static_cast<int>(exponent) - 127 + 15;
  if (half_exponent >= 0x1f) return static_cast<uint16_t>(sign | 0x7c00u);
  uint32_t half, remainder, halfway;
  if (half_exponent <= 0) {
    // A subnormal half: the value in units of 2^-24.
    const int shift = 14 - half_exponent;
    if (shift > 25) return static_cast<uint16_t>(sign);
    mantissa |= 0x800000u;
    half = mantissa >> shift;
    remainder = mantissa & ((1u << shift) - 1);
    halfway = 1u << (shift - 1);
  } else {
    half = (static_cast<uint32_t>(half_exponent) << 10) | (mantissa >> 13);
    remainder = mantissa & 0x1fffu;
    halfway = 0x1000u;
  }
  // A carry out of the mantissa correctly bumps the exponent (up to inf).
  if (remainder > halfway || (remainder == halfway && (half & 1u))) ++half;
  return static_cast<uint16_t>(sign | half);
}

float HalfToFloat(uint16_t h) {
  const uint32_t sign = (h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu;
  const uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0) {
    float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  uint32_t bits = exponent == 0x1fu ? (sign | 0x7f800000u | (mantissa << 13))
                                    : (sign | ((exponent + 112u) << 23) | (mantissa << 13));
  float out;
  std::memcpy(&out, &bits, 4);
  return out;
}

uint16_t FloatToBf16(float value) {
  uint32_t x;
  std::memcpy(&x, &value, 4);
  if (std::isnan(value)) return static_cast<uint16_t>((x >> 16) | 0x40u);
  return static_cast<uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

float Bf16ToFloat(uint16_t b) {
  uint32_t bits = static_cast<uint32_t>(b) << 16;
  float out;
  std::memcpy(&out, &bits, 4);
  return out;
}

// A JSON element as a floating-point value: a number, or one of the
// strings that stand for what JSON cannot write. `max` is the largest
// finite value of the target type: a finite number beyond it is refused
// (converting it would be undefined, and a silent infinity is no better).
bool ReadFloat(const json& element, double max, double* out) {
  if (element.is_number()) {
    *out = element.get<double>();
    return std::fabs(*out) <= max;
  }
  if (element.is_string()) {
    const std::string& s = element.get_ref<const std::string&>();
    if (s == "NaN") *out = std::numeric_limits<double>::quiet_NaN();
    else if (s == "Infinity") *out = std::numeric_limits<double>::infinity();
    else if (s == "-Infinity") *out = -std::numeric_limits<double>::infinity();
    else return false;
    return true;
  }
  return false;
}

json WriteFloat(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  return value;
}

template <typename T>
bool ReadInteger(const json& element, T* out) {
  if (element.is_number_unsigned()) {
    uint64_t v = element.get<uint64_t>();
    if (v > static_cast<uint64_t>(std::numeric_limits<T>::max())) return false;
    *out = static_cast<T>(v);
    return true;
  }
  if (element.is_number_integer()) {
    int64_t v = element.get<int64_t>();
    if (std::is_unsigned<T>::value && v < 0) return false;
    if (!std::is_unsigned<T>::value &&
        (v < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
         v > static_cast<int64_t>(std::numeric_limits<T>::max())))
      return false;
    *out = static_cast<T>(v);
    return true;
  }
  // 3.0 is an integer written by a client that only has doubles. The
  // upper bound is max + 1 (a power of two, exact as a double): comparing
  // with max itself, which rounds up to 2^63 for i64, would let 2^63 through
  // to an undefined conversion.
  if (element.is_number_float()) {
    double v = element.get<double>();
    if (v != std::floor(v) || v < static_cast<double>(std::numeric_limits<T>::lowest()) ||
        v >= static_cast<double>(std::numeric_limits<T>::max()) + 1.0)
      return false;
    *out = static_cast<T>(v);
    return true;
  }
  return false;
}

// Writes element `i` of `tensor` from `element`; false when it does not fit
// the dtype.
bool ReadElement(const json& element, const kiln::Tensor& tensor, size_t i) {
  constexpr double kFloatMax = std::numeric_limits<float>::max();
  double f;
  switch (tensor.dtype()) {
    case DType::F32:
      if (!ReadFloat(element, kFloatMax, &f)) return false;
      tensor.data_as<float>()[i] = static_cast<float>(f);
      return true;
    case DType::F64:
      if (!ReadFloat(element, std::numeric_limits<double>::max(), &f)) return false;
      tensor.data_as<double>()[i] = f;
      return true;
    case DType::F16:
      // Via float, whose range covers f16's; 65520 and beyond round to inf.
      if (!ReadFloat(element, kFloatMax, &f)) return false;
      tensor.data_as<uint16_t>()[i] = FloatToHalf(static_cast<float>(f));
      return true;
    case DType::BF16:
      if (!ReadFloat(element, kFloatMax, &f)) return false;
      tensor.data_as<uint16_t>()[i] = FloatToBf16(static_cast<float>(f));
      return true;
    case DType::I8: return ReadInteger(element, &tensor.data_as<int8_t>()[i]);
    case DType::I16: return ReadInteger(element, &tensor.data_as<int16_t>()[i]);
    case DType::I32: return ReadInteger(element, &tensor.data_as<int32_t>()[i]);
    case DType::I64: return ReadInteger(element, &tensor.data_as<int64_t>()[i]);
    case DType::U8: return ReadInteger(element, &tensor.data_as<uint8_t>()[i]);
    case DType::U16: return ReadInteger(element, &tensor.data_as<uint16_t>()[i]);
    case DType::U32: return ReadInteger(element, &tensor.data_as<uint32_t>()[i]);
    case DType::U64: return ReadInteger(element, &tensor.data_as<uint64_t>()[i]);
    case DType::Bool:
      if (!element.is_boolean()) return false;
      tensor.data_as<uint8_t>()[i] = element.get<bool>() ? 1 : 0;
      return true;
  }
  return false;
}

json WriteElement(const kiln::Tensor& tensor, size_t i) {
  switch (tensor.dtype()) {
    case DType::F32: return WriteFloat(tensor.data_as<float>()[i]);
    case DType::F64: return WriteFloat(tensor.data_as<double>()[i]);
    case DType::F16: return WriteFloat(HalfToFloat(tensor.data_as<uint16_t>()[i]));
    case DType::BF16: return WriteFloat(Bf16ToFloat(tensor.data_as<uint16_t>()[i]));
    case DType::I8: return tensor.data_as<int8_t>()[i];
    case DType::I16: return tensor.data_as<int16_t>()[i];
    case DType::I32: return tensor.data_as<int32_t>()[i];
    case DType::I64: return tensor.data_as<int64_t>()[i];
    case DType::U8: return tensor.data_as<uint8_t>()[i];
    case DType::U16: return tensor.data_as<uint16_t>()[i];
    case DType::U32: return tensor.data_as<uint32_t>()[i];
    case DType::U64: return tensor.data_as<uint64_t>()[i];
    case DType::Bool: return tensor.data_as<uint8_t>()[i] != 0;
  }
  return nullptr;
}

const char* KindOf(DType dtype) {
  switch (dtype) {
    case DType::F32: case DType::F64: case DType::F16: case DType::BF16:
      return "a number in the dtype's range (or \"NaN\", \"Infinity\", \"-Infinity\")";
    case DType::Bool:
      return "true or false";
    default:
      return "an integer in the dtype's range";
  }
}

Status ParseInput(const std::string& name, const json& spec, kiln::NamedTensor* out) {
  const std::string what = "input '" + name + "'";
  if (!spec.is_object())
    return Invalid(what + ": expected an object with \"dtype\", \"shape\" and \"data\"");
  for (const char* key : {"dtype", "shape", "data"})
    if (!spec.contains(key)) return Invalid(what + ": missing \"" + key + "\"");

  const json& dtype_json = spec["dtype"];
  DType dtype;
  if (!dtype_json.is_string() || !ParseDType(dtype_json.get<std::string>(), &dtype))
    return Invalid(what + ": unknown dtype " + Quote(dtype_json) + " (one of " + DTypeNames() + ")");

  const json& shape_json = spec["shape"];
  if (!shape_json.is_array()) return Invalid(what + ": \"shape\" must be an array of sizes");
  std::vector<int64_t> dims;
  // The element count saturates: it only has to be compared with the
  // length of "data", which is in memory.
  constexpr uint64_t kTooMany = std::numeric_limits<uint64_t>::max();
  uint64_t elements = 1;
  bool has_zero = false;
  for (size_t d = 0; d < shape_json.size(); ++d) {
    const json& dim = shape_json[d];
    if (!dim.is_number_integer() || dim.get<int64_t>() < 0)
      return Invalid(what + ": shape[" + std::to_string(d) + "] is " + Quote(dim) +
                     ", not a size (an integer >= 0)");
    dims.push_back(dim.get<int64_t>());
    const uint64_t size = static_cast<uint64_t>(dims.back());
    if (size == 0) has_zero = true;
    else elements = elements > kTooMany / size ? kTooMany : elements * size;
  }
  if (has_zero) elements = 0;

  const json& data = spec["data"];
  if (!data.is_array()) return Invalid(what + ": \"data\" must be a flat array of values");
  if (data.size() != elements)
    return Invalid(what + ": shape " + kiln::DescribeShape(dims, dtype) + " needs " +
                   (elements == kTooMany ? std::string("too many")
                                                                     : std::to_string(elements)) +
                   " values, \"data\" has " + std::to_string(data.size()));

  kiln::Tensor tensor;
  Status s = kiln::Tensor::Allocate(dtype, dims, &tensor);
  if (!s.ok()) return Status(s.code(), what + ": " + s.message());
  for (size_t i = 0; i < data.size(); ++i)
    if (!ReadElement(data[i], tensor, i))
      return Invalid(what + ": data[" + std::to_string(i) + "] is " + Quote(data[i]) + ", not " +
                     KindOf(dtype) + " for dtype " + kiln::DTypeName(dtype));
  out->name = name;
  out->tensor = std::move(tensor);
  return Status::Ok();
}

json TensorToJson(const kiln::Tensor& tensor) {
  json data = json::array();
  const size_t count = static_cast<size_t>(tensor.element_count());
  data.get_ref<json::array_t&>().reserve(count);
  for (size_t i = 0; i < count; ++i) data.push_back(WriteElement(tensor, i));
  return {{"dtype", kiln::DTypeName(tensor.dtype())}, {"shape", tensor.dims()}, {"data", std::move(data)}};
}

}  // namespace

Status ParseInferRequest(const std::string& body, std::vector<kiln::NamedTensor>* inputs) {
  json request;
  try {
    request = json::parse(body);
  } catch (const json::parse_error& e) {
    return Invalid(std::string("malformed JSON: ") + e.what());
  }
  if (!request.is_object() || !request.contains("inputs") || !request["inputs"].is_object())
    return Invalid("the request must be a JSON object with an \"inputs\" object "
                   "({\"inputs\": {\"NAME\": {\"dtype\": ..., \"shape\": [...], \"data\": [...]}}})");
  inputs->clear();
  for (const auto& item : request["inputs"].items()) {
    kiln::NamedTensor named;
    Status s = ParseInput(item.key(), item.value(), &named);
    if (!s.ok()) return s;
    inputs->push_back(std::move(named));
  }
  return Status::Ok();
}

json OutputsToJson(const std::vector<kiln::NamedTensor>& outputs) {
  // ordered_json would keep signature order in the object; a plain object
  // sorts keys, which is as good for lookup by name.
  json result = json::object();
  for (const kiln::NamedTensor& output : outputs) result[output.name] = TensorToJson(output.tensor);
  return {{"outputs", std::move(result)}};
}

json SignatureToJson(const kiln::Model& model) {
  auto describe = [](const std::vector<kiln::TensorInfo>& infos) {
    json list = json::array();
    for (const kiln::TensorInfo& info : infos)
      list.push_back({{"name", info.name}, {"dtype", kiln::DTypeName(info.dtype)}, {"shape", info.dims}});
    return list;
  };
  return {{"inputs", describe(model.inputs())}, {"outputs", describe(model.outputs())}};
}

std::string ErrorBody(const std::string& code, const std::string& message) {
  return json{{"error", {{"code", code}, {"message", message}}}}.dump();
}

}  // namespace kiln_service
