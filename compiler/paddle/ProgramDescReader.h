//===- ProgramDescReader.h - Reading legacy Paddle .pdmodel files -*- C++ -*-=//
//
// A legacy inference model (`model.pdmodel`, what Paddle 2.x writes and
// Paddle 3 with FLAGS_enable_pir_api=0) is a serialized ProgramDesc
// (compiler/paddle/paddle_framework.proto holds the fields Kiln reads).
// Inference exports use block 0 only; control flow (while,
// conditional_block, ...) refers to other blocks through BLOCK attributes,
// which this reader rejects.
//
// What the reader fills in the Program (see PaddleProgram.h):
//   * vars: every DENSE_TENSOR variable of block 0 (dtype, dims,
//     persistable); the `feed` / `fetch` holder variables (FEED_MINIBATCH,
//     FETCH_LIST) are left out.
//   * ops: block 0's ops in order, without `feed` and `fetch`; slots in file
//     order; every attribute but `op_callstack` (Python stack traces).
//     Attribute kinds map onto AttrValue as: INT, LONG -> int64_t; FLOAT,
//     FLOAT64 -> double; STRING -> string; BOOLEAN -> bool; INTS, LONGS ->
//     vector<int64_t>; FLOATS, FLOAT64S -> vector<double>; STRINGS ->
//     vector<string>; BOOLEANS -> vector<bool>; SCALAR -> bool, int64_t or
//     double by its kind; SCALARS -> the vector of that kind.
//   * feeds / fetches: the variables of the feed ops' `Out` and the fetch
//     ops' `X`, in the order of their `col` attributes.
// It does not read parameters (ParamsReader does).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_PADDLE_PROGRAMDESCREADER_H
#define KILN_COMPILER_PADDLE_PROGRAMDESCREADER_H

#include "compiler/paddle/PaddleProgram.h"

#include <cstddef>
#include <string>

namespace kiln::paddle {

/// Reads the ProgramDesc at `path` into `out` (format, modelPath, ops, vars,
/// feeds, fetches). Returns false and sets `error`, naming the file and the
/// op or variable at fault, for an unreadable file, bytes that are not a
/// ProgramDesc, no block 0, an unknown variable dtype, an unknown attribute
/// kind, block/variable attributes (control flow), and feed/fetch columns
/// that are missing, repeated or not 0..n-1.
bool readProgramDesc(const std::string &path, Program &out, std::string &error);

/// Same, from bytes in memory; `path` is used in messages.
bool parseProgramDesc(const void *bytes, size_t size, const std::string &path,
                      Program &out, std::string &error);

} // namespace kiln::paddle

#endif // KILN_COMPILER_PADDLE_PROGRAMDESCREADER_H
