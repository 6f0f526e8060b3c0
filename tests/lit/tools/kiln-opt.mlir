// The kiln-opt driver: its pass list, and errors (never crashes) on bad
// input. `not` fails on a crash, so each error case also proves there is
// none.

// RUN: kiln-opt --help | FileCheck %s --check-prefix=HELP
// HELP: OVERVIEW: Kiln optimizer driver
// HELP: --kiln-graph-cleanup
// HELP-SAME: Canonicalize, fold constants and remove dead ops in a Kiln graph
// HELP-NEXT: --max-iterations=<long>

// A syntax error.
// RUN: echo 'func.func @f() -> tensor<2xf32> {' > %t.syntax.mlir
// RUN: not kiln-opt %t.syntax.mlir 2>&1 | FileCheck %s --check-prefix=SYNTAX
// SYNTAX: error: expected

// An unknown Kiln op, in the custom and in the generic form.
// RUN: echo 'func.func @f() { kiln.frobnicate return }' > %t.unknown.mlir
// RUN: not kiln-opt %t.unknown.mlir 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: error: custom op 'kiln.frobnicate' is unknown
// RUN: echo 'func.func @f() { "kiln.frobnicate"() : () -> () return }' > %t.unknown-generic.mlir
// RUN: not kiln-opt %t.unknown-generic.mlir 2>&1 | FileCheck %s --check-prefix=UNKNOWN-GENERIC
// UNKNOWN-GENERIC: error: unregistered operation 'kiln.frobnicate' found in dialect ('kiln') that does not allow unknown operations

// IR that does not verify.
// RUN: echo 'func.func @f(%%x: tensor<2x3xf32>) -> tensor<2x3xf32> { %%y = kiln.transpose %%x {perm = array<i64: 0, 0>} : tensor<2x3xf32> return %%x : tensor<2x3xf32> }' > %t.invalid.mlir
// RUN: not kiln-opt %t.invalid.mlir 2>&1 | FileCheck %s --check-prefix=INVALID
// INVALID: error: 'kiln.transpose' op perm [0, 0] is not a permutation of [0, 2): entry 1 repeats dimension 0

// The pass runs by its flag and in a pipeline, and its option is parsed.
// RUN: echo 'func.func @f(%%x: tensor<4xf32>) -> tensor<4xf32> { %%0 = kiln.neg %%x : tensor<4xf32> %%1 = kiln.neg %%0 : tensor<4xf32> return %%1 : tensor<4xf32> }' > %t.fold.mlir
// RUN: kiln-opt %t.fold.mlir --kiln-graph-cleanup | FileCheck %s --check-prefix=FOLD
// RUN: kiln-opt %t.fold.mlir --pass-pipeline='builtin.module(kiln-graph-cleanup{max-iterations=2})' | FileCheck %s --check-prefix=FOLD
// FOLD: func.func @f(%arg0: tensor<4xf32>) -> tensor<4xf32> {
// FOLD-NEXT: return %arg0 : tensor<4xf32>
