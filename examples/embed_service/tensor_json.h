// tensor_json.h - the service's wire format: named tensors as JSON.
//
//   {"inputs": {"image": {"dtype": "f32", "shape": [1, 3, 32, 32],
//                         "data": [0.5, -1.25, ...]}}}
//
// "data" is the tensor's elements flattened in row-major order. dtype is a
// runtime dtype name (kiln::DTypeName: f32, f16, bf16, f64, i8, i16, i32,
// i64, u8, u16, u32, u64, bool). Floating-point values are JSON numbers or
// the strings "NaN", "Infinity", "-Infinity" (JSON has no literal for
// them); integers must be integral and in range; bool is true/false.
// Outputs are written the same way under "outputs".
//
// This layer checks only what the runtime cannot: the JSON's structure,
// dtype names, that "data" holds exactly as many representable values as
// "shape" asks for. Whether the names, shapes and dtypes fit the model is
// left to Session::Run, so clients see the runtime's own message.
#ifndef KILN_EXAMPLES_EMBED_SERVICE_TENSOR_JSON_H_
#define KILN_EXAMPLES_EMBED_SERVICE_TENSOR_JSON_H_

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kiln/runtime.h"

namespace kiln_service {

// Parses a request body into tensors the caller owns (each Tensor owns its
// buffer). On failure returns INVALID_ARGUMENT with a message that names
// the input and the element at fault.
kiln::Status ParseInferRequest(const std::string& body, std::vector<kiln::NamedTensor>* inputs);

// {"outputs": {name: {"dtype", "shape", "data"}, ...}} in signature order.
nlohmann::json OutputsToJson(const std::vector<kiln::NamedTensor>& outputs);

// The model's signature: {"inputs": [{"name", "dtype", "shape"}], "outputs": [...]}.
nlohmann::json SignatureToJson(const kiln::Model& model);

// {"error": {"code": "INVALID_ARGUMENT", "message": "..."}}
std::string ErrorBody(const std::string& code, const std::string& message);

}  // namespace kiln_service

#endif  // KILN_EXAMPLES_EMBED_SERVICE_TENSOR_JSON_H_
