// RUN: kiln-opt --kiln-cpu-codegen %s -split-input-file -verify-diagnostics

// kiln-cpu-codegen runs on a module that holds only dispatch functions.

func.func private @dispatch_0(%arg0: tensor<4xf32>) -> tensor<4xf32> attributes {kiln.dispatch} {
  return %arg0 : tensor<4xf32>
}

// expected-error @+1 {{kiln-cpu-codegen expects only kiln.dispatch functions (split the host function off first)}}
func.func @host(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = call @dispatch_0(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Dispatch arguments must be static tensors.
// expected-error @+1 {{dispatch arguments must be static tensors}}
func.func private @dispatch_0(%arg0: tensor<?x4xf32>) -> tensor<4xf32> attributes {kiln.dispatch} {
  %c0 = arith.constant 0 : index
  %0 = tensor.extract_slice %arg0[0, 0] [1, 4] [1, 1] : tensor<?x4xf32> to tensor<4xf32>
  return %0 : tensor<4xf32>
}
