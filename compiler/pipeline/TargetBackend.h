//===- TargetBackend.h - What a code generation target provides -*- C++ -*-===//
//
// The compile pipeline is target-independent up to dispatch formation; from
// there each target (CPU today, CUDA next) turns the same dispatch
// functions into one executable of its own. A backend owns every pass of
// its target: the pipeline only calls the three steps below, in order, on
// a module that holds nothing but `kiln.dispatch` functions (a copy per
// target, so backends never see each other's IR).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_PIPELINE_TARGETBACKEND_H
#define KILN_COMPILER_PIPELINE_TARGETBACKEND_H

#include "compiler/artifact/ArtifactSpec.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::kiln {

// One kernel of a generated executable, as the host plan needs it: its ABI
// symbol (= the dispatch function's name), bindings (inputs then outputs,
// in the dispatch's argument order, then the scratch binding when
// scratchBytes > 0) and the workgroup count it was generated for.
struct KernelInfo {
  std::string name;
  uint32_t bindingCount = 0;
  uint32_t numInputs = 0;
  int64_t workgroups[3] = {1, 1, 1};
  // Bytes of the scratch binding, all workgroups together (each workgroup
  // uses its own slice); 0 when the kernel needs none. The plan binds an
  // arena buffer of this size, live during the step only, as the last
  // binding.
  uint64_t scratchBytes = 0;
  // Byte length of each binding as compiled (inputs, outputs, then the
  // scratch binding if any); bindingCount entries. Inputs are read, the
  // rest written.
  std::vector<uint64_t> bindingSizes;
};

// The name of the attribute holding a dispatch's lowering configuration
// (a dictionary chosen by the backend; see each backend's LoweringConfig).
inline constexpr llvm::StringLiteral kLoweringConfigAttr =
    "kiln.lowering_config";

// A short note a backend leaves on a dispatch function about how it will
// run it (the cuda target: "generated contraction kernel (...)" for a
// contraction no library call takes); kilnc --dump-dispatches prints it and
// the plan step's label (kiln inspect) ends with it.
inline constexpr llvm::StringLiteral kKernelNoteAttr = "kiln.kernel_note";

class TargetBackend {
public:
  virtual ~TargetBackend() = default;

  // Short name used on the command line and in the artifact ("cpu").
  virtual llvm::StringRef name() const = 0;

  // Data tiling: rewrites constants the host function passes to dispatches
  // into the layouts this target's kernels read best (e.g. weights packed
  // for a dot-product instruction), together with the dispatches that
  // read them. Runs on this backend's own copy of the whole module (host
  // function and dispatches), before configureDispatches; the host plan
  // then stores the packed constants. The default packs nothing.
  virtual LogicalResult packConstants(ModuleOp module) { return success(); }

  // Library calls: rewrites this backend's copy of the whole module (host
  // function and dispatches) so that work a vendor library does better
  // than generated kernels (cuBLASLt GEMMs on the GPU) becomes host-level
  // calls (kiln.gemm_call) that the host plan turns into LibraryCall
  // steps; the dispatches left are generated as usual. Runs after
  // packConstants, before configureDispatches. The default calls nothing.
  virtual LogicalResult formLibraryCalls(ModuleOp module) { return success(); }

  // Attaches a lowering configuration (`kiln.lowering_config`) to every
  // dispatch function that has none, chosen from the target's features.
  // Configurations already present (set by hand in a lit test, or by a
  // plugin) are kept, so the schedule can be tested apart from the choice.
  virtual LogicalResult configureDispatches(ModuleOp dispatches) = 0;

  // Rewrites the configured dispatch functions into the target's kernel
  // IR, in place, and returns the kernel table in module order.
  virtual FailureOr<llvm::SmallVector<KernelInfo>>
  generateKernels(ModuleOp dispatches) = 0;

  // Serializes the kernel IR into an executable for the artifact.
  virtual FailureOr<::kiln::artifact::ExecutableSpec>
  emitExecutable(ModuleOp kernels, llvm::ArrayRef<KernelInfo> table,
                 std::string &error) = 0;
};

} // namespace mlir::kiln

#endif // KILN_COMPILER_PIPELINE_TARGETBACKEND_H
