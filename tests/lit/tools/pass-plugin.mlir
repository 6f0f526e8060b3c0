// A pass plugin loads into kiln-opt and its pass runs on Kiln IR.
// RUN: kiln-opt %s --load-pass-plugin=%example_pass_plugin \
// RUN:   --pass-pipeline='builtin.module(func.func(example-count-kiln-ops))' \
// RUN:   | FileCheck %s

// The plugin's pass is listed once the plugin is loaded.
// RUN: kiln-opt --load-pass-plugin=%example_pass_plugin --help \
// RUN:   | FileCheck %s --check-prefix=HELP
// HELP: --example-count-kiln-ops

// Loading a file that is not a plugin is an error with a non-zero exit,
// not a warning followed by a run without the plugin.
// RUN: not kiln-opt %s --load-pass-plugin=%s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD
// BAD: kiln-opt: cannot load pass plugin '{{.*}}pass-plugin.mlir'

// CHECK-LABEL: func.func @two_ops
// CHECK-SAME: kiln.op_count = 2
func.func @two_ops(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = kiln.relu %x : tensor<4xf32>
  %e = kiln.exp %r : tensor<4xf32>
  return %e : tensor<4xf32>
}
