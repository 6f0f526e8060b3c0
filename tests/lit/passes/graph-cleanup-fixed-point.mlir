// RUN: not kiln-opt %s --kiln-graph-cleanup=max-iterations=1 2>&1 | FileCheck %s
// RUN: kiln-opt %s --kiln-graph-cleanup=max-iterations=2 | FileCheck %s --check-prefix=TWO

// The greedy driver needs a sweep that changes nothing to confirm a fixed
// point, so with one sweep allowed any fold makes the pass fail, loudly and
// with the number of sweeps in the message.
// CHECK: error: kiln-graph-cleanup did not reach a fixed point in 1 sweeps

// TWO-LABEL: func.func @f(
// TWO-NEXT: return %arg0 : tensor<4xf32>
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = kiln.neg %x : tensor<4xf32>
  %1 = kiln.neg %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}
