//===- PaddleLoader.h - Loading a Paddle inference model --------*- C++ -*-===//
//
// The entry point of the Paddle readers: a model file (PIR `model.json` or
// legacy `model.pdmodel`) plus its `.pdiparams`, into one Program.
//
// The format comes from the extension (.json, .pdmodel); for any other
// extension from the content (a '{' first is PIR JSON, anything else a
// ProgramDesc). The parameters file is found beside the model (the same
// stem with .pdiparams: dir/model.json -> dir/model.pdiparams) unless given.
// A program without persistable variables needs no parameters file.
//
// Errors: bool + message (no exceptions, no LLVM types, so that tools and
// tests without MLIR can use it). Every message starts with the file at
// fault and names the op, variable or parameter where there is one.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_PADDLE_PADDLELOADER_H
#define KILN_COMPILER_PADDLE_PADDLELOADER_H

#include "compiler/paddle/PaddleProgram.h"

#include <string>

namespace kiln::paddle {

/// The default parameters file of `modelPath`: its stem + ".pdiparams".
std::string defaultParamsPath(const std::string &modelPath);

/// Reads the model at `modelPath` and its parameters (`paramsPath`, or
/// defaultParamsPath(modelPath) when empty) into `out`. On failure returns
/// false, sets `error` and leaves `out` as it was.
bool loadPaddleModel(const std::string &modelPath,
                     const std::string &paramsPath, Program &out,
                     std::string &error);

} // namespace kiln::paddle

#endif // KILN_COMPILER_PADDLE_PADDLELOADER_H
