// A Kiln plugin (examples/custom_pass) loads into kiln-opt, its pass
// registers under its own name and runs on Kiln IR: a written-out layer
// normalization becomes kiln.layer_norm.
// RUN: kiln-opt %s --load-pass-plugin=%example_pass_plugin \
// RUN:   --pass-pipeline='builtin.module(func.func(kiln-example-fuse-layer-norm))' \
// RUN:   | FileCheck %s
// RUN: kiln-opt %s --load-pass-plugin %example_pass_plugin \
// RUN:   --kiln-example-fuse-layer-norm | FileCheck %s

// The plugin's pass is listed once the plugin is loaded.
// RUN: kiln-opt --load-pass-plugin=%example_pass_plugin --help \
// RUN:   | FileCheck %s --check-prefix=HELP
// HELP: --kiln-example-fuse-layer-norm
// HELP-SAME: Replaces a written-out layer normalization

// Loading a file that is not a shared object, or one that is neither a
// Kiln nor an MLIR plugin, is an error with a non-zero exit, not a warning
// followed by a run without the plugin.
// RUN: not kiln-opt %s --load-pass-plugin=%s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD
// BAD: kiln-opt: error: cannot load plugin '{{.*}}pass-plugin.mlir': {{.*}}
// RUN: not kiln-opt %s --load-pass-plugin=%no_entry_plugin 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOENTRY
// NOENTRY: kiln-opt: cannot load pass plugin '{{.*}}libKilnTestNoEntryPoint.so': {{.*}}entry point not found

// An MLIR pass plugin (mlirGetPassPluginInfo) goes to MLIR's own loader and
// its pass runs; kilnc, which places passes by stage, refuses it.
// RUN: kiln-opt %s --load-pass-plugin=%mlir_pass_plugin \
// RUN:   --pass-pipeline='builtin.module(func.func(example-count-kiln-ops))' \
// RUN:   | FileCheck %s --check-prefix=MLIR
// MLIR-LABEL: func.func @torch_layer_norm
// MLIR-SAME: kiln.op_count = 11
// RUN: not kilnc %S/../../../examples/models/tiny_classifier.onnx -o %t.kiln \
// RUN:   --load-pass-plugin=%mlir_pass_plugin 2>&1 | FileCheck %s --check-prefix=MLIR-KILNC
// MLIR-KILNC: kilnc: error: '{{.*}}libKilnTestMlirCountOps.so' is not a Kiln plugin: it does not export kilnGetPluginInfo

// A plugin for another plugin API version is refused, as in kilnc.
// RUN: not kiln-opt %s --load-pass-plugin=%wrong_api_plugin 2>&1 \
// RUN:   | FileCheck %s --check-prefix=VERSION
// VERSION: kiln-opt: error: plugin '{{.*}}libKilnTestWrongApiVersion.so' was built against Kiln plugin API version 3, but this tool has plugin API version 2 (Kiln 0.1.0): rebuild the plugin against this Kiln's KilnPlugin.h

// PyTorch's export of nn.LayerNorm (opset <= 16): pow(d, 2), then scale
// and shift by the normalized shape.
// CHECK-LABEL: func.func @torch_layer_norm
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x8xf32>, %[[G:.*]]: tensor<8xf32>, %[[B:.*]]: tensor<8xf32>)
// axis = -1 and epsilon = 1e-5 are the defaults, so they are not printed.
// CHECK-NEXT: %[[Y:.*]] = kiln.layer_norm %[[X]], %[[G]], %[[B]] : tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>
// CHECK-NEXT: return %[[Y]]
func.func @torch_layer_norm(%x: tensor<2x4x8xf32>, %gamma: tensor<8xf32>, %beta: tensor<8xf32>) -> tensor<2x4x8xf32> {
  %two = kiln.constant dense<2.0> : tensor<f32>
  %eps = kiln.constant dense<1.0e-5> : tensor<f32>
  %mean = kiln.reduce mean %x {axes = array<i64: -1>} : tensor<2x4x8xf32>
  %d = kiln.sub %x, %mean : tensor<2x4x8xf32>, tensor<2x4x1xf32>
  %sq = kiln.pow %d, %two : tensor<2x4x8xf32>, tensor<f32>
  %var = kiln.reduce mean %sq {axes = array<i64: -1>} : tensor<2x4x8xf32>
  %ve = kiln.add %var, %eps : tensor<2x4x1xf32>, tensor<f32>
  %std = kiln.sqrt %ve : tensor<2x4x1xf32>
  %n = kiln.div %d, %std : tensor<2x4x8xf32>, tensor<2x4x1xf32>
  %s = kiln.mul %n, %gamma : tensor<2x4x8xf32>, tensor<8xf32>
  %y = kiln.add %s, %beta : tensor<2x4x8xf32>, tensor<8xf32>
  return %y : tensor<2x4x8xf32>
}

// d * d instead of pow, eps on the left, two trailing axes, no affine part:
// the scale is a constant of ones over the normalized shape [4, 8].
// CHECK-LABEL: func.func @square_by_mul_two_axes
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x8xf32>)
// CHECK: %[[ONES:.*]] = kiln.constant dense<1.000000e+00> : tensor<4x8xf32>
// CHECK-NEXT: %[[Y:.*]] = kiln.layer_norm %[[X]], %[[ONES]] {axis = -2 : i64, epsilon = 9.99999996E-13 : f32} : tensor<2x4x8xf32>, tensor<4x8xf32>
// CHECK-NEXT: return %[[Y]]
func.func @square_by_mul_two_axes(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %eps = kiln.constant dense<1.0e-12> : tensor<f32>
  %mean = kiln.reduce mean %x {axes = array<i64: 2, 1>} : tensor<2x4x8xf32>
  %d = kiln.sub %x, %mean : tensor<2x4x8xf32>, tensor<2x1x1xf32>
  %sq = kiln.mul %d, %d : tensor<2x4x8xf32>, tensor<2x4x8xf32>
  %var = kiln.reduce mean %sq {axes = array<i64: -1, -2>} : tensor<2x4x8xf32>
  %ve = kiln.add %eps, %var : tensor<f32>, tensor<2x1x1xf32>
  %std = kiln.sqrt %ve : tensor<2x1x1xf32>
  %n = kiln.div %d, %std : tensor<2x4x8xf32>, tensor<2x1x1xf32>
  return %n : tensor<2x4x8xf32>
}

// A gamma that is not of the normalized shape stays a separate multiply.
// CHECK-LABEL: func.func @per_row_scale_stays
// CHECK: %[[ONES:.*]] = kiln.constant dense<1.000000e+00> : tensor<8xf32>
// CHECK-NEXT: %[[N:.*]] = kiln.layer_norm %arg0, %[[ONES]] : tensor<2x4x8xf32>, tensor<8xf32>
// CHECK-NEXT: %[[Y:.*]] = kiln.mul %[[N]], %arg1 : tensor<2x4x8xf32>, tensor<4x1xf32>
// CHECK-NEXT: return %[[Y]]
func.func @per_row_scale_stays(%x: tensor<2x4x8xf32>, %g: tensor<4x1xf32>) -> tensor<2x4x8xf32> {
  %two = kiln.constant dense<2.0> : tensor<f32>
  %eps = kiln.constant dense<1.0e-5> : tensor<f32>
  %mean = kiln.reduce mean %x {axes = array<i64: -1>} : tensor<2x4x8xf32>
  %d = kiln.sub %x, %mean : tensor<2x4x8xf32>, tensor<2x4x1xf32>
  %sq = kiln.pow %d, %two : tensor<2x4x8xf32>, tensor<f32>
  %var = kiln.reduce mean %sq {axes = array<i64: -1>} : tensor<2x4x8xf32>
  %ve = kiln.add %var, %eps : tensor<2x4x1xf32>, tensor<f32>
  %std = kiln.sqrt %ve : tensor<2x4x1xf32>
  %n = kiln.div %d, %std : tensor<2x4x8xf32>, tensor<2x4x1xf32>
  %y = kiln.mul %n, %g : tensor<2x4x8xf32>, tensor<4x1xf32>
  return %y : tensor<2x4x8xf32>
}

// Not a layer normalization, left alone: the mean is over a leading axis
// (layer_norm normalizes trailing ones), or the two means reduce different
// axes, or the exponent is 3.
// CHECK-LABEL: func.func @leading_axis
// CHECK-NOT: kiln.layer_norm
// CHECK: return
func.func @leading_axis(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %two = kiln.constant dense<2.0> : tensor<f32>
  %eps = kiln.constant dense<1.0e-5> : tensor<f32>
  %mean = kiln.reduce mean %x {axes = array<i64: 0>} : tensor<2x4x8xf32>
  %d = kiln.sub %x, %mean : tensor<2x4x8xf32>, tensor<1x4x8xf32>
  %sq = kiln.pow %d, %two : tensor<2x4x8xf32>, tensor<f32>
  %var = kiln.reduce mean %sq {axes = array<i64: 0>} : tensor<2x4x8xf32>
  %ve = kiln.add %var, %eps : tensor<1x4x8xf32>, tensor<f32>
  %std = kiln.sqrt %ve : tensor<1x4x8xf32>
  %n = kiln.div %d, %std : tensor<2x4x8xf32>, tensor<1x4x8xf32>
  return %n : tensor<2x4x8xf32>
}

// CHECK-LABEL: func.func @different_axes
// CHECK-NOT: kiln.layer_norm
// CHECK: return
func.func @different_axes(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %two = kiln.constant dense<2.0> : tensor<f32>
  %eps = kiln.constant dense<1.0e-5> : tensor<f32>
  %mean = kiln.reduce mean %x {axes = array<i64: -1>} : tensor<2x4x8xf32>
  %d = kiln.sub %x, %mean : tensor<2x4x8xf32>, tensor<2x4x1xf32>
  %sq = kiln.pow %d, %two : tensor<2x4x8xf32>, tensor<f32>
  %var = kiln.reduce mean %sq {axes = array<i64: -2, -1>} : tensor<2x4x8xf32>
  %ve = kiln.add %var, %eps : tensor<2x1x1xf32>, tensor<f32>
  %std = kiln.sqrt %ve : tensor<2x1x1xf32>
  %n = kiln.div %d, %std : tensor<2x4x8xf32>, tensor<2x1x1xf32>
  return %n : tensor<2x4x8xf32>
}

// CHECK-LABEL: func.func @cube
// CHECK-NOT: kiln.layer_norm
// CHECK: return
func.func @cube(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %three = kiln.constant dense<3.0> : tensor<f32>
  %eps = kiln.constant dense<1.0e-5> : tensor<f32>
  %mean = kiln.reduce mean %x {axes = array<i64: -1>} : tensor<2x4x8xf32>
  %d = kiln.sub %x, %mean : tensor<2x4x8xf32>, tensor<2x4x1xf32>
  %sq = kiln.pow %d, %three : tensor<2x4x8xf32>, tensor<f32>
  %var = kiln.reduce mean %sq {axes = array<i64: -1>} : tensor<2x4x8xf32>
  %ve = kiln.add %var, %eps : tensor<2x4x1xf32>, tensor<f32>
  %std = kiln.sqrt %ve : tensor<2x4x1xf32>
  %n = kiln.div %d, %std : tensor<2x4x8xf32>, tensor<2x4x1xf32>
  return %n : tensor<2x4x8xf32>
}
