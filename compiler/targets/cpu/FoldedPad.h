//===- FoldedPad.h - Pads folded into the kernels that read them -*- C++ -*-===//
//
// What DepthwisePad.h and ChannelsLastPad.h share. A convolution whose
// input is padded by a dispatch of its own gets a copy of its dispatch
// that takes the unpadded input and computes the padded tensor by a
// marked generic,
//
//   P[.., h, w, ..] = 0 <= h - top < H && 0 <= w - left < W
//                     ? X[.., h - top, w - left, ..] : value
//
// reading X through `linalg.index` and `tensor.extract`: exact for every
// strategy, and left unfused (and never run) by the kernels that read X
// with the padding as bounds.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_TARGETS_CPU_FOLDEDPAD_H
#define KILN_COMPILER_TARGETS_CPU_FOLDEDPAD_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::kiln::cpu {

// The padding a folded-pad generic adds to dispatch argument `input`:
// `top` rows above and `left` columns before the plane (the bottom and
// right pads are implied by the result's shape).
struct FoldedPad {
  int64_t input = 0;
  int64_t top = 0, left = 0;

  DictionaryAttr toAttr(MLIRContext *context) const;
  // The padding on `op` under `attrName`, or nullopt when it has none or
  // it is malformed.
  static std::optional<FoldedPad> read(Operation *op, llvm::StringRef attrName);
};

// The padding the generic marked `attrName` that writes `buffer` (on
// memrefs; `buffer` or the source of its subview) adds, with that generic;
// nullopt when no such generic writes it or its padding is malformed.
struct FoldedPadWriter {
  linalg::GenericOp generic;
  FoldedPad pad;
  memref::SubViewOp slice; // the view the reader took, if any
};
std::optional<FoldedPadWriter> foldedPadWriter(Value buffer,
                                               llvm::StringRef attrName);

// The pad of a dispatch whose only op (besides tensor.empty and constants)
// is a constant pad of its single argument that pads dims `heightDim` and
// `heightDim + 1` only, statically; null otherwise.
tensor::PadOp padDispatchOf(func::FuncOp dispatch, int64_t heightDim);

// The padded tensor of `type` from `x` (the plane's rows in dim
// `heightDim`, its columns in `heightDim + 1`), `value` in the padding, as
// a generic marked `attrName` = `pad`.
Value buildFoldedPad(OpBuilder &b, Location loc, Value x, RankedTensorType type,
                     int64_t heightDim, const FoldedPad &pad, TypedAttr value,
                     llvm::StringRef attrName);

// A copy of `dispatch` (named after it, `_bounds`) whose argument `argNo`
// is the unpadded `xType` instead of the padded tensor, which `build`
// computes from it at the top of the body.
FailureOr<func::FuncOp> cloneTakingUnpadded(
    SymbolTable &symbols, func::FuncOp dispatch, unsigned argNo,
    RankedTensorType xType,
    function_ref<Value(OpBuilder &, Location, Value x, RankedTensorType padded)>
        build);

} // namespace mlir::kiln::cpu

#endif // KILN_COMPILER_TARGETS_CPU_FOLDEDPAD_H
