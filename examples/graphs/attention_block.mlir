// A small transformer attention block as an exporter would leave it: shape
// arithmetic on constants, a reshape chain, x * 1 and + 0 left over from
// scaling code, a dead branch. `kiln-graph-cleanup` reduces it to the ops
// that compute something. Run it with:
//   kiln-opt --kiln-graph-cleanup examples/graphs/attention_block.mlir
func.func @attention(%x: tensor<1x16x64xf32>, %wq: tensor<64x64xf32>,
                     %wk: tensor<64x64xf32>, %wv: tensor<64x64xf32>,
                     %gamma: tensor<64xf32>, %beta: tensor<64xf32>)
    -> tensor<1x16x64xf32> {
  // Shape arithmetic: heads = 64 / 16 = 4, computed on constants.
  %hidden = kiln.constant dense<64> : tensor<1xi64>
  %head_dim = kiln.constant dense<16> : tensor<1xi64>
  %heads = kiln.div %hidden, %head_dim : tensor<1xi64>, tensor<1xi64>
  %shape = kiln.concat %heads, %head_dim {axis = 0 : i64} : tensor<1xi64>, tensor<1xi64>
  %unused_count = kiln.reduce prod %shape {axes = array<i64: 0>, keepdims = false} : tensor<2xi64>

  %xn = kiln.layer_norm %x, %gamma, %beta {axis = -1 : i64, epsilon = 1.0e-5 : f32}
        : tensor<1x16x64xf32>, tensor<64xf32>, tensor<64xf32>
  %q = kiln.matmul %xn, %wq : tensor<1x16x64xf32>, tensor<64x64xf32>
  %k = kiln.matmul %xn, %wk : tensor<1x16x64xf32>, tensor<64x64xf32>
  %v = kiln.matmul %xn, %wv : tensor<1x16x64xf32>, tensor<64x64xf32>

  // [1, 16, 64] -> [1, 16, 4, 16] -> [1, 4, 16, 16], through a redundant
  // reshape pair.
  %q0 = kiln.reshape %q {shape = array<i64: 16, 64>} : tensor<1x16x64xf32>
  %q1 = kiln.reshape %q0 {shape = array<i64: 1, 16, 4, 16>} : tensor<16x64xf32>
  %qh = kiln.transpose %q1 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x16x4x16xf32>
  %k1 = kiln.reshape %k {shape = array<i64: 1, 16, 4, 16>} : tensor<1x16x64xf32>
  %kt = kiln.transpose %k1 {perm = array<i64: 0, 2, 3, 1>} : tensor<1x16x4x16xf32>
  %v1 = kiln.reshape %v {shape = array<i64: 1, 16, 4, 16>} : tensor<1x16x64xf32>
  %vh = kiln.transpose %v1 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x16x4x16xf32>

  // scale = 1 / sqrt(16), computed from constants; then a no-op * 1.
  %dim = kiln.constant dense<16.0> : tensor<f32>
  %root = kiln.sqrt %dim : tensor<f32>
  %scale = kiln.reciprocal %root : tensor<f32>
  %scores = kiln.matmul %qh, %kt : tensor<1x4x16x16xf32>, tensor<1x4x16x16xf32>
  %scaled = kiln.mul %scores, %scale : tensor<1x4x16x16xf32>, tensor<f32>
  %one = kiln.constant dense<1.0> : tensor<1x4x16x16xf32>
  %same = kiln.mul %scaled, %one : tensor<1x4x16x16xf32>, tensor<1x4x16x16xf32>
  %probs = kiln.softmax %same {axis = -1 : i64} : tensor<1x4x16x16xf32>
  %ctx = kiln.matmul %probs, %vh : tensor<1x4x16x16xf32>, tensor<1x4x16x16xf32>

  // Back to [1, 16, 64]; a transpose pair that cancels, then + 0.
  %ct = kiln.transpose %ctx {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x16x16xf32>
  %ct2 = kiln.transpose %ct {perm = array<i64: 0, 1, 3, 2>} : tensor<1x16x4x16xf32>
  %ct3 = kiln.transpose %ct2 {perm = array<i64: 0, 1, 3, 2>} : tensor<1x16x16x4xf32>
  %merged = kiln.reshape %ct3 {shape = array<i64: 1, 16, 64>} : tensor<1x16x4x16xf32>
  %zero = kiln.constant dense<0.0> : tensor<64xf32>
  %out0 = kiln.add %merged, %zero : tensor<1x16x64xf32>, tensor<64xf32>
  %out = kiln.add %out0, %x : tensor<1x16x64xf32>, tensor<1x16x64xf32>
  return %out : tensor<1x16x64xf32>
}
