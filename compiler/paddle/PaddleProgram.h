//===- PaddleProgram.h - A Paddle inference program in memory ---*- C++ -*-===//
//
// The Paddle frontend has two halves that meet here:
//   * the readers (PirJsonReader, ProgramDescReader, ParamsReader) turn the
//     files `paddle.jit.save` writes - PIR `model.json` or legacy
//     `model.pdmodel`, plus `model.pdiparams` - into one PaddleProgram;
//   * the converters (PaddleImporter, one file per op family) turn a
//     PaddleProgram into a `func.func @main` of Kiln ops, like the ONNX
//     frontend does.
// Neither half links Paddle or runs Python.
//
// The two file formats name ops and their operands differently, and this
// structure keeps what the file says rather than guessing a common form:
//   * legacy ops keep their type ("conv2d", "elementwise_add", "matmul_v2")
//     and named slots ("Input", "Filter", "Output"), one or more values
//     per slot, as the ProgramDesc lists them;
//   * PIR ops keep their full name ("pd_op.conv2d", "pd_op.add",
//     "builtin.combine") and positional operands, stored as slots named
//     "0", "1", ... in operand order (results the same way).
// Converters are registered per exact op type, so "conv2d" and
// "pd_op.conv2d" each get an entry (usually sharing one builder).
// Value names: legacy values keep their variable names; a PIR value is named
// "%<id>" from the file, except that the PIR reader names the result of a
// `builtin.parameter` op by its parameter name and the result of a
// `pd_op.data` op by its `name` attribute, and drops those ops (and
// pd_op.fetch / legacy feed and fetch), so converters see parameters and
// graph inputs by name in both formats.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_PADDLE_PADDLEPROGRAM_H
#define KILN_COMPILER_PADDLE_PADDLEPROGRAM_H

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace kiln::paddle {

/// Element types of Paddle tensors and variables. The values are Kiln's own;
/// each reader maps its file's codes (ProgramDesc VarType, PIR "0.t_f32",
/// the .pdiparams TensorDesc data_type) onto them and rejects the rest.
enum class DType { F32, F64, F16, BF16, I8, U8, I16, I32, I64, Bool };

/// One attribute value. Paddle's attribute kinds: scalar bool/int/long/
/// float/double/string, and lists of each. Block and variable references
/// (control flow) are not needed by inference exports and are rejected by
/// the readers with a clear error.
using AttrValue = std::variant<bool, int64_t, double, std::string,
                               std::vector<bool>, std::vector<int64_t>,
                               std::vector<double>, std::vector<std::string>>;

/// A named list of values: a legacy slot ("X" -> {"x0", "x1"}) or one PIR
/// operand ("0" -> {"%3"}).
struct Slot {
  std::string name;
  std::vector<std::string> values;
};

struct Op {
  std::string type;          // as in the file
  std::vector<Slot> inputs;  // file order
  std::vector<Slot> outputs; // file order
  std::map<std::string, AttrValue> attrs;
  /// For error messages: "op #12 (conv2d) in block 0" plus the first output
  /// name, assembled by the reader.
  std::string where;
};

/// A variable or PIR value. dims use -1 for unknown (Paddle's convention).
struct Var {
  std::string name;
  DType dtype = DType::F32;
  std::vector<int64_t> dims;
  bool persistable = false; // a parameter, found in .pdiparams
};

/// One parameter from .pdiparams. `data` points into `Program::paramsFile`
/// storage (an mmap or a buffer the Program owns), little-endian, dense,
/// row-major; it lives as long as the Program.
struct Param {
  std::string name;
  DType dtype = DType::F32;
  std::vector<int64_t> dims;
  const void *data = nullptr;
  uint64_t bytes = 0;
};

/// Owner of the parameter bytes (kept abstract so the reader can mmap).
struct ParamStorage {
  virtual ~ParamStorage() = default;
};

enum class Format { PirJson, ProgramDesc };

/// Block 0 of an inference program: its ops in execution order, its
/// variables, the feed/fetch interface, and the parameters.
struct Program {
  Format format = Format::ProgramDesc;
  std::string modelPath; // for error messages
  std::string paramsPath;
  std::vector<Op> ops; // feed/fetch ops removed by the reader
  std::map<std::string, Var> vars;
  /// Graph inputs and outputs in feed/fetch column order (legacy: the `col`
  /// attribute of feed/fetch ops; PIR: pd_op.data / pd_op.fetch order).
  std::vector<std::string> feeds;
  std::vector<std::string> fetches;
  std::map<std::string, Param> params;
  std::unique_ptr<ParamStorage> paramStorage;
};

} // namespace kiln::paddle

#endif // KILN_COMPILER_PADDLE_PADDLEPROGRAM_H
