//===- CpuVectorize.h - Loop order for vector code --------------*- C++ -*-===//
#ifndef KILN_COMPILER_CPU_CPUVECTORIZE_H
#define KILN_COMPILER_CPU_CPUVECTORIZE_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::kiln::cpu {

// Reorders the loops of every reduction op inside the kernel (on tensors,
// before bufferization) so that its innermost parallel dim runs innermost,
// the order in which LLVM's loop vectorizer emits FMA vector code.
LogicalResult vectorizeKernel(func::FuncOp kernel);

} // namespace mlir::kiln::cpu

#endif
