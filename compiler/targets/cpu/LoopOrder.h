//===- LoopOrder.h - Loop order for LLVM's vectorizer ------------*- C++ -*-===//
#ifndef KILN_COMPILER_TARGETS_CPU_LOOPORDER_H
#define KILN_COMPILER_TARGETS_CPU_LOOPORDER_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::kiln::cpu {

// Reorders the loops of every reduction op inside the kernel (on tensors,
// before bufferization) so that its innermost parallel dim runs innermost,
// the order in which LLVM's loop vectorizer emits FMA vector code.
// Contractions marked for register tiles are left alone.
LogicalResult orderLoopsForVectorization(func::FuncOp kernel);

} // namespace mlir::kiln::cpu

#endif
