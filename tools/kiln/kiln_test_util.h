// kiln_test_util.h - runs the kiln binary from a test's runfiles; writes
// TensorProto test inputs.
#ifndef KILN_TOOLS_KILN_KILN_TEST_UTIL_H_
#define KILN_TOOLS_KILN_KILN_TEST_UTIL_H_

#include <sys/wait.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace kiln::testing {

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// `args` is appended to the kiln binary's path as shell words.
inline CommandResult RunKiln(const std::string& args) {
  CommandResult result;
  std::string command = "tools/kiln/kiln " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) result.output.append(buffer, n);
  int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

// An ONNX TensorProto of FLOAT [4, 100] (the hand-built artifacts' shape)
// named `name`, with raw_data or packed float_data.
inline std::vector<uint8_t> TensorProtoBytes(const std::string& name, const std::vector<float>& values,
                                             bool raw) {
  // dims 4 and 100 (field 1, varint), data_type FLOAT (field 2), name
  // (field 8), then raw_data (field 9) or packed float_data (field 4).
  std::vector<uint8_t> b = {0x08, 4, 0x08, 100, 0x10, 1, 0x42, static_cast<uint8_t>(name.size())};
  b.insert(b.end(), name.begin(), name.end());
  size_t bytes = values.size() * 4;
  b.push_back(raw ? 0x4A : 0x22);
  b.push_back(static_cast<uint8_t>(0x80 | (bytes & 0x7F)));
  b.push_back(static_cast<uint8_t>(bytes >> 7));
  const uint8_t* p = reinterpret_cast<const uint8_t*>(values.data());
  b.insert(b.end(), p, p + bytes);
  return b;
}

}  // namespace kiln::testing

#endif  // KILN_TOOLS_KILN_KILN_TEST_UTIL_H_
