//===- CpuVectorize.h - Register tiling and vectorization -------*- C++ -*-===//
#ifndef KILN_COMPILER_CPU_CPUVECTORIZE_H
#define KILN_COMPILER_CPU_CPUVECTORIZE_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::kiln::cpu {

// Tiles the ops inside one workgroup tile for registers and vectorizes
// them (on tensors, before bufferization). Ops it cannot vectorize are left
// for the scalar loop lowering.
LogicalResult vectorizeKernel(func::FuncOp kernel);

} // namespace mlir::kiln::cpu

#endif
