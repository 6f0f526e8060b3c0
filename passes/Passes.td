//===- Passes.td - Kiln graph and lowering passes ----------*- tablegen -*-===//
//
// Every Kiln pass is declared here and runnable alone in kiln-opt under
// its `kiln-*` name.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PASSES_TD
#define KILN_PASSES_TD

include "mlir/Pass/PassBase.td"

def GraphCleanup : Pass<"kiln-graph-cleanup"> {
  let summary = "Canonicalize, fold constants and remove dead ops in a Kiln graph";
  let description = [{
    Runs the folders and canonicalization patterns of every Kiln op (and of
    the builtin and func dialects) to a fixed point: x + 0 and x * 1 vanish,
    transposes and reshapes of their own kind merge, small constant tensors
    (and splats of any size) are evaluated, and ops whose results are unused
    are erased. Identical constants are merged.

    Example: `kiln-opt --kiln-graph-cleanup model.mlir`
  }];
  let options = [
    Option<"maxIterations", "max-iterations", "int64_t", /*default=*/"10",
           "Maximum number of rewrite sweeps before giving up on a fixed point">,
  ];
}

#endif // KILN_PASSES_TD
