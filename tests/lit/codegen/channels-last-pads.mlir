// RUN: kiln-opt %s --kiln-channels-last --kiln-graph-cleanup --kiln-to-linalg --kiln-form-dispatches --kiln-cpu-fold-channels-last-pads | FileCheck %s
// RUN: kiln-opt %s --kiln-channels-last --kiln-graph-cleanup --kiln-to-linalg --kiln-form-dispatches --kiln-cpu-fold-channels-last-pads --kiln-cpu-pack-weights=cpu=x86-64-v4 --kiln-cpu-lowering-config=cpu=x86-64-v4 | FileCheck %s --check-prefix=CONFIG

// kiln-cpu-fold-channels-last-pads (ChannelsLastPad.h): the NHWC pad
// dispatch of a channels-last conv goes; the conv's dispatch takes the
// unpadded input and computes the padded one with a generic marked
// kiln.channels_last_pad (exact: P = inside ? X[n, h - 1, w - 1, c] : 0),
// which the register-tiled kernel never runs (it reads X with the padding
// as kh bounds and skipped edge rows). Values: //tests/e2e:channels_last_e2e.
// CHECK-LABEL: func.func @main(
// CHECK: %[[T:.*]] = call @dispatch_0(%arg0) : (tensor<1x64x5x5xf32>) -> tensor<1x5x5x64xf32>
// CHECK-NEXT: %[[C:.*]] = call @dispatch_2_bounds(%[[T]], %{{.*}}) : (tensor<1x5x5x64xf32>, tensor<3x3x64x70xf32>) -> tensor<1x5x5x70xf32>
// CHECK-NOT: tensor.pad
// CHECK-LABEL: func.func private @dispatch_2_bounds(
// CHECK-SAME: %[[X:.*]]: tensor<1x5x5x64xf32>
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x7x7x64xf32>) attrs =  {kiln.channels_last_pad = {input = 0 : i64, pads = array<i64: 1, 1>}}
// CHECK: arith.cmpi ult
// CHECK: tensor.extract %[[X]]
// CHECK: arith.select
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]{{.*}} tensor<1x7x7x64xf32>, tensor<3x3x64x70xf32>

// The configuration is the padded conv's (5 x 64 tiles on AVX-512).
// CONFIG-LABEL: func.func private @dispatch_2_bounds(
// CONFIG-SAME: register_tile = array<i64: 5, 64>
func.func @main(%x: tensor<1x64x5x5xf32>) -> tensor<1x70x5x5xf32> {
  %w = kiln.constant dense<0.02> : tensor<70x64x3x3xf32>
  %0 = kiln.conv %x, %w {pads = array<i64: 1, 1, 1, 1>} : tensor<1x64x5x5xf32>, tensor<70x64x3x3xf32>
  %1 = kiln.relu %0 : tensor<1x70x5x5xf32>
  return %1 : tensor<1x70x5x5xf32>
}
