//===- paddle_readers_fuzzer.cpp - libFuzzer target for the Paddle readers ===//
//
// The first byte picks the reader (mod 3): 0 the legacy ProgramDesc reader,
// 1 the PIR JSON reader, 2 the .pdiparams reader (the second byte, mod 16,
// is the program's parameter count; the program declares no shapes, so
// every record the file holds is taken as it is). A reader either fails
// with a message or returns a Program whose parameters lie inside the input
// and whose ops' values are named; every parameter byte is read back so
// ASan sees any out-of-bounds pointer.
//
//===----------------------------------------------------------------------===//

#include "compiler/paddle/ParamsReader.h"
#include "compiler/paddle/PirJsonReader.h"
#include "compiler/paddle/ProgramDescReader.h"

#include <cstdint>
#include <cstdlib>
#include <string>

using namespace kiln::paddle;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  const int reader = data[0] % 3;
  ++data;
  --size;
  Program program;
  std::string error;
  bool ok = false;
  if (reader == 0) {
    ok = parseProgramDesc(data, size, "fuzz.pdmodel", program, error);
  } else if (reader == 1) {
    ok = parsePirJson(std::string(reinterpret_cast<const char *>(data), size),
                      "fuzz.json", program, error);
  } else {
    if (size == 0)
      return 0;
    std::vector<std::string> names;
    for (int i = 0; i < data[0] % 16; ++i)
      names.push_back("p" + std::to_string(i));
    ++data;
    --size;
    program.paramsPath = "fuzz.pdiparams";
    ok = parseParams(data, size, program, names, error);
    if (ok && program.params.size() != names.size())
      std::abort();
  }
  if (!ok) {
    if (error.empty())
      std::abort(); // errors must say why
    return 0;
  }
  const uint8_t *end = data + size;
  unsigned sum = 0;
  for (const auto &[name, param] : program.params) {
    const auto *bytes = static_cast<const uint8_t *>(param.data);
    if (param.bytes && (bytes < data || bytes + param.bytes > end))
      std::abort();
    for (uint64_t i = 0; i < param.bytes; ++i)
      sum += bytes[i];
  }
  for (const Op &op : program.ops)
    for (const Slot &slot : op.inputs)
      for (const std::string &value : slot.values)
        if (value.empty())
          std::abort();
  volatile unsigned sink = sum;
  (void)sink;
  return 0;
}
