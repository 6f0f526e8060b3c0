//===- paddle_dump.cpp - Print what the Paddle readers read ---------------===//
//
// paddle-dump MODEL [--params=FILE]
//
// Loads a Paddle inference model with loadPaddleModel and prints a JSON
// summary on stdout: format, feeds and fetches (with dtype and dims), the op
// count per op type, and every parameter's dtype, dims and element sum.
// tests/paddle/check_readers.py compares it with what Paddle itself says
// about the same model; it is also a debugging aid. Errors go to stderr
// ("error: ...") with exit status 1.
//
//===----------------------------------------------------------------------===//

#include "compiler/paddle/PaddleLoader.h"
#include "compiler/paddle/ParamsReader.h"

#include <nlohmann/json.hpp>

#include <cstring>
#include <iostream>

using namespace kiln::paddle;

namespace {

float halfToFloat(uint16_t h) {
  uint32_t sign = (h & 0x8000u) << 16, exponent = (h >> 10) & 0x1f,
           mantissa = h & 0x3ff, bits;
  if (exponent == 0x1f)
    bits = sign | 0x7f800000u | (mantissa << 13);
  else if (exponent != 0)
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
  else if (mantissa == 0)
    bits = sign;
  else {
    exponent = 113;
    while (!(mantissa & 0x400)) {
      mantissa <<= 1;
      --exponent;
    }
    bits = sign | (exponent << 23) | ((mantissa & 0x3ff) << 13);
  }
  float value;
  std::memcpy(&value, &bits, 4);
  return value;
}

template <typename T> double sumOf(const Param &param) {
  double sum = 0;
  const auto *bytes = static_cast<const unsigned char *>(param.data);
  for (uint64_t i = 0; i < param.bytes / sizeof(T); ++i) {
    T value;
    std::memcpy(&value, bytes + i * sizeof(T), sizeof(T));
    sum += static_cast<double>(value);
  }
  return sum;
}

double elementSum(const Param &param) {
  switch (param.dtype) {
  case DType::F32:
    return sumOf<float>(param);
  case DType::F64:
    return sumOf<double>(param);
  case DType::I8:
    return sumOf<int8_t>(param);
  case DType::U8:
    return sumOf<uint8_t>(param);
  case DType::Bool:
    return sumOf<uint8_t>(param);
  case DType::I16:
    return sumOf<int16_t>(param);
  case DType::I32:
    return sumOf<int32_t>(param);
  case DType::I64:
    return sumOf<int64_t>(param);
  case DType::F16:
  case DType::BF16: {
    double sum = 0;
    const auto *bytes = static_cast<const unsigned char *>(param.data);
    for (uint64_t i = 0; i < param.bytes / 2; ++i) {
      uint16_t bits;
      std::memcpy(&bits, bytes + 2 * i, 2);
      if (param.dtype == DType::F16) {
        sum += halfToFloat(bits);
      } else {
        uint32_t wide = uint32_t(bits) << 16;
        float value;
        std::memcpy(&value, &wide, 4);
        sum += value;
      }
    }
    return sum;
  }
  }
  return 0;
}

nlohmann::json varJson(const Program &program, const std::string &name) {
  auto it = program.vars.find(name);
  if (it == program.vars.end())
    return {{"name", name}};
  return {{"name", name},
          {"dtype", dtypeName(it->second.dtype)},
          {"dims", it->second.dims}};
}

} // namespace

int main(int argc, char **argv) {
  std::string model, params;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--params=", 0) == 0)
      params = arg.substr(9);
    else if (model.empty() && arg.rfind("--", 0) != 0)
      model = arg;
    else {
      std::cerr << "usage: paddle-dump MODEL [--params=FILE]\n";
      return 2;
    }
  }
  if (model.empty()) {
    std::cerr << "usage: paddle-dump MODEL [--params=FILE]\n";
    return 2;
  }
  Program program;
  std::string error;
  if (!loadPaddleModel(model, params, program, error)) {
    std::cerr << "error: " << error << "\n";
    return 1;
  }
  nlohmann::json out;
  out["format"] = program.format == Format::PirJson ? "pir" : "pdmodel";
  out["params_path"] = program.paramsPath;
  out["feeds"] = nlohmann::json::array();
  for (const auto &name : program.feeds)
    out["feeds"].push_back(varJson(program, name));
  out["fetches"] = nlohmann::json::array();
  for (const auto &name : program.fetches)
    out["fetches"].push_back(varJson(program, name));
  out["ops"] = program.ops.size();
  out["op_counts"] = nlohmann::json::object();
  for (const Op &op : program.ops)
    out["op_counts"][op.type] = out["op_counts"].value(op.type, 0) + 1;
  out["vars"] = program.vars.size();
  out["params"] = nlohmann::json::object();
  for (const auto &[name, param] : program.params)
    out["params"][name] = {{"dtype", dtypeName(param.dtype)},
                           {"dims", param.dims},
                           {"bytes", param.bytes},
                           {"sum", elementSum(param)}};
  std::cout << out.dump(1) << "\n";
  return 0;
}
