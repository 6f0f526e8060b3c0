// tensor_files.h - reads and writes tensors as .npy files and ONNX
// TensorProto (.pb) files, for the `kiln` tool. The TensorProto reader
// decodes the protobuf wire format itself so the tool links no protobuf.
#ifndef KILN_TOOLS_KILN_TENSOR_FILES_H_
#define KILN_TOOLS_KILN_TENSOR_FILES_H_

#include <string>
#include <vector>

#include "kiln/runtime.h"

namespace kiln::tools {

// .npy versions 1-3, little-endian or byte-sized, C order.
Status ParseNpy(const std::vector<uint8_t>& bytes, Tensor* out);
// Version 1 header, padded so the data starts 64-byte aligned.
std::vector<uint8_t> EncodeNpy(const Tensor& tensor);

// An ONNX TensorProto; `name` receives its name field ("" if none).
Status ParseTensorProto(const std::vector<uint8_t>& bytes, Tensor* out, std::string* name);

// By content: .npy magic, else TensorProto. `proto_name`, when given,
// receives a TensorProto's name field ("" for .npy files or no name).
Status ReadTensorFile(const std::string& path, Tensor* out, std::string* proto_name = nullptr);
Status WriteFile(const std::string& path, const std::vector<uint8_t>& bytes);

// Element `index` as a double, for summaries (f16/bf16 decoded).
double ElementAsDouble(const Tensor& tensor, int64_t index);
// Fills a tensor with uniform [-1, 1] floats, or small non-negative ints /
// bools, from a seeded generator (the same seed gives the same values).
void FillRandom(Tensor* tensor, uint64_t seed);

// Output name -> file name: characters outside [A-Za-z0-9._-] become '_'.
std::string SafeFileName(const std::string& name);

}  // namespace kiln::tools

#endif  // KILN_TOOLS_KILN_TENSOR_FILES_H_
