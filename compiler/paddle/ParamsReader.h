//===- ParamsReader.h - Reading Paddle .pdiparams files ---------*- C++ -*-===//
//
// A `.pdiparams` file (what Paddle's save_combine writes, in both the PIR and
// the legacy format) is the program's parameters one after another, with no
// names and no count. Each record, little-endian:
//
//   uint32  tensor version (0)
//   uint64  LoD level count L, then L times: uint64 byte size S, S bytes
//   uint32  dense tensor version (0)
//   int32   size N of the TensorDesc protobuf, then N bytes of
//           VarType.TensorDesc {data_type = 1, dims = 2}
//   the elements, dense and row-major: product(dims) * element size bytes
//
// The names come from the program: the parameters are stored in the byte
// order of their names (std::sort on std::string), in both formats (checked
// on models that paddlepaddle 3.3.1 writes, tests/paddle/gen_models.py).
//
// Thread-safety: the functions share no state; one Program per call.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_PADDLE_PARAMSREADER_H
#define KILN_COMPILER_PADDLE_PARAMSREADER_H

#include "compiler/paddle/PaddleProgram.h"

#include <cstddef>
#include <string>
#include <vector>

namespace kiln::paddle {

/// The names of the parameters of `program` in `.pdiparams` order: every
/// persistable variable in `program.vars`, sorted by name.
std::vector<std::string> paramFileOrder(const Program &program);

/// Maps `program.paramsPath` read-only and fills `program.params` (one entry
/// per name in `names`, the file's order) and `program.paramStorage` (the
/// mapping; `Param::data` points into it and lives as long as the Program).
/// A parameter's dtype must be the one its variable declares and its dims
/// must match the declared dims (a declared -1 matches any size).
///
/// Returns false and sets `error` (naming the file, and the parameter where
/// there is one) for: a missing or unreadable file, a record cut short, a
/// version other than 0, an unknown or unsupported data type, a malformed
/// TensorDesc, a size that does not match the declared shape or dtype, and
/// a file that holds fewer or more parameters than `names`. `program` keeps
/// no parameters then.
bool readParams(Program &program, const std::vector<std::string> &names,
                std::string &error);

/// Same as readParams, on bytes the caller keeps alive for as long as the
/// Program is used (tests, fuzzing); `program.paramsPath` is used in
/// messages only and `program.paramStorage` is left as it is.
bool parseParams(const void *bytes, size_t size, Program &program,
                 const std::vector<std::string> &names, std::string &error);

/// The Kiln dtype of a Paddle VarType.Type data type code (the same codes in
/// ProgramDesc variables and in .pdiparams TensorDescs). Returns false and a
/// description ("unknown data type 99", "unsupported data type COMPLEX64
/// (23)") for codes Kiln does not take.
bool dtypeFromVarType(int code, DType &dtype, std::string &why);

/// Bytes per element of `dtype`.
size_t dtypeSize(DType dtype);

/// "float32", "int64", ... for messages.
const char *dtypeName(DType dtype);

} // namespace kiln::paddle

#endif // KILN_COMPILER_PADDLE_PARAMSREADER_H
