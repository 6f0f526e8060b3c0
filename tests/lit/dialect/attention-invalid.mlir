// RUN: kiln-opt %s -split-input-file -verify-diagnostics

// kiln.attention's verifier: one rank, equal batch dims, K^T as [.., D, Sk],
// V as [.., Sk, Dv], the output's shape, and a mask that broadcasts to the
// scores dim by dim.

func.func @rank(%q: tensor<2x3x4xf32>, %kt: tensor<4x5xf32>, %v: tensor<2x5x2xf32>) -> tensor<2x3x2xf32> {
  // expected-error @+1 {{query, key_t, value and output must have one rank}}
  %o = kiln.attention %q, %kt, %v {scale = 1.0 : f32} : tensor<2x3x4xf32>, tensor<4x5xf32>, tensor<2x5x2xf32> -> tensor<2x3x2xf32>
  return %o : tensor<2x3x2xf32>
}

// -----

func.func @batch(%q: tensor<2x3x4xf32>, %kt: tensor<1x4x5xf32>, %v: tensor<2x5x2xf32>) -> tensor<2x3x2xf32> {
  // expected-error @+1 {{batch dim 0 differs between query, key_t and value}}
  %o = kiln.attention %q, %kt, %v {scale = 1.0 : f32} : tensor<2x3x4xf32>, tensor<1x4x5xf32>, tensor<2x5x2xf32> -> tensor<2x3x2xf32>
  return %o : tensor<2x3x2xf32>
}

// -----

func.func @head_size(%q: tensor<2x3x4xf32>, %kt: tensor<2x5x4xf32>, %v: tensor<2x5x2xf32>) -> tensor<2x3x2xf32> {
  // expected-error @+1 {{key_t 'tensor<2x5x4xf32>' is not [..., 4, Sk] (query's head size 4)}}
  %o = kiln.attention %q, %kt, %v {scale = 1.0 : f32} : tensor<2x3x4xf32>, tensor<2x5x4xf32>, tensor<2x5x2xf32> -> tensor<2x3x2xf32>
  return %o : tensor<2x3x2xf32>
}

// -----

func.func @keys(%q: tensor<2x3x4xf32>, %kt: tensor<2x4x5xf32>, %v: tensor<2x6x2xf32>) -> tensor<2x3x2xf32> {
  // expected-error @+1 {{value 'tensor<2x6x2xf32>' is not [..., 5, Dv] (key_t's 5 keys)}}
  %o = kiln.attention %q, %kt, %v {scale = 1.0 : f32} : tensor<2x3x4xf32>, tensor<2x4x5xf32>, tensor<2x6x2xf32> -> tensor<2x3x2xf32>
  return %o : tensor<2x3x2xf32>
}

// -----

func.func @output(%q: tensor<2x3x4xf32>, %kt: tensor<2x4x5xf32>, %v: tensor<2x5x2xf32>) -> tensor<2x3x4xf32> {
  // expected-error @+1 {{output 'tensor<2x3x4xf32>' is not [2, 3, 2]}}
  %o = kiln.attention %q, %kt, %v {scale = 1.0 : f32} : tensor<2x3x4xf32>, tensor<2x4x5xf32>, tensor<2x5x2xf32> -> tensor<2x3x4xf32>
  return %o : tensor<2x3x4xf32>
}

// -----

func.func @mask(%q: tensor<2x3x4xf32>, %kt: tensor<2x4x5xf32>, %v: tensor<2x5x2xf32>, %m: tensor<2x3x4xf32>) -> tensor<2x3x2xf32> {
  // expected-error @+1 {{mask 'tensor<2x3x4xf32>' must have rank 3 and each dim 1 or that of the scores [2, 3, 5]}}
  %o = kiln.attention %q, %kt, %v mask %m {scale = 1.0 : f32} : tensor<2x3x4xf32>, tensor<2x4x5xf32>, tensor<2x5x2xf32>, tensor<2x3x4xf32> -> tensor<2x3x2xf32>
  return %o : tensor<2x3x2xf32>
}

// -----

func.func @dynamic(%q: tensor<?x3x4xf32>, %kt: tensor<2x4x5xf32>, %v: tensor<2x5x2xf32>) -> tensor<2x3x2xf32> {
  // expected-error @+1 {{query must have a static shape, got 'tensor<?x3x4xf32>'}}
  %o = kiln.attention %q, %kt, %v {scale = 1.0 : f32} : tensor<?x3x4xf32>, tensor<2x4x5xf32>, tensor<2x5x2xf32> -> tensor<2x3x2xf32>
  return %o : tensor<2x3x2xf32>
}

// -----

func.func @element(%q: tensor<2x3x4xf16>, %kt: tensor<2x4x5xf16>, %v: tensor<2x5x2xf16>) -> tensor<2x3x2xf16> {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float values}}
  %o = kiln.attention %q, %kt, %v {scale = 1.0 : f32} : tensor<2x3x4xf16>, tensor<2x4x5xf16>, tensor<2x5x2xf16> -> tensor<2x3x2xf16>
  return %o : tensor<2x3x2xf16>
}
