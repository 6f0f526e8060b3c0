//===- GpuKernelCodegen.cpp - Dispatches to NVVM kernels ------------------===//
//
// The first slice of the CUDA backend: elementwise and broadcast dispatches
// only. One dispatch is one linalg.generic of parallel loops; it becomes one
// kernel whose thread blocks each take `block_size` consecutive elements of
// the flattened iteration space, one element per thread. Contractions (to
// become cuBLASLt plan steps), convs and reductions (shared memory and warp
// shuffles) are refused with one error that names them all.
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/cuda/GpuKernelCodegen.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include <numeric>

namespace mlir::kiln::cuda {

namespace {

constexpr StringLiteral kBlockSizeKey = "block_size";

// Warp size: blocks are a whole number of warps.
constexpr int64_t kWarp = 32;

int64_t configuredBlockSize(func::FuncOp func) {
  if (auto config = func->getAttrOfType<DictionaryAttr>(kLoweringConfigAttr))
    if (auto size = config.getAs<IntegerAttr>(kBlockSizeKey))
      return size.getInt();
  return 256;
}

// "linalg.matmul", "linalg.generic[reduction]": how errors name an op.
std::string describeOp(Operation &op) {
  std::string name = op.getName().getStringRef().str();
  if (auto generic = dyn_cast<linalg::GenericOp>(op))
    name += generic.getNumReductionLoops() ? "[reduction]" : "[parallel]";
  return name;
}

// Why this slice cannot generate `func`, or "" when it can.
std::string unsupportedReason(func::FuncOp func) {
  SmallVector<linalg::GenericOp> generics;
  SmallVector<Operation *> fills;
  for (Operation &op : func.getBody().front().without_terminator()) {
    if (isa<tensor::EmptyOp>(op))
      continue;
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      if (!isa<ShapedType>(constant.getType()))
        continue;
      return "root " + describeOp(op) + " (a tensor constant)";
    }
    if (isa<linalg::FillOp>(op)) {
      // The initial value of a contraction or reduction: not the root.
      fills.push_back(&op);
      continue;
    }
    auto generic = dyn_cast<linalg::GenericOp>(op);
    if (!generic || generic.getNumReductionLoops() != 0)
      return "root " + describeOp(op);
    generics.push_back(generic);
  }
  if (!fills.empty())
    return "root " + describeOp(*fills.front());
  if (generics.size() != 1)
    return "root " + std::to_string(generics.size()) +
           " linalg.generic[parallel] loop nests (one kernel per dispatch "
           "so far)";
  linalg::GenericOp generic = generics.front();
  if (generic.getNumLoops() == 0)
    return "root linalg.generic[parallel] of rank 0";
  if (!generic.hasPureTensorSemantics() ||
      !llvm::all_of(generic.getDpsInits(), [](Value init) {
        return init.getDefiningOp<tensor::EmptyOp>();
      }))
    return "root linalg.generic[parallel] that updates a tensor in place";
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  if (ret.getOperands() != ValueRange(generic->getResults()))
    return "root linalg.generic[parallel] whose results are not returned "
           "as they are";
  for (Type t : func.getFunctionType().getInputs())
    if (!cast<ShapedType>(t).hasStaticShape())
      return "a dynamic shape";
  return "";
}

uint64_t byteSize(Type type) {
  auto shaped = cast<ShapedType>(type);
  unsigned bits = shaped.getElementTypeBitWidth();
  return uint64_t(shaped.getNumElements()) * std::max(1u, (bits + 7) / 8);
}

// Collapses every top-level scf.parallel of `func` to one dimension (the
// innermost dim varies fastest, so neighbouring threads touch neighbouring
// elements) and tiles it by the block size: the outer loop becomes the
// grid, the inner one the threads of a block.
void tileForBlocks(func::FuncOp func, int64_t blockSize) {
  IRRewriter rewriter(func.getContext());
  SmallVector<scf::ParallelOp> loops(func.getBody().getOps<scf::ParallelOp>());
  // Elements per loop nest (bounds are static: 0 to N by 1).
  SmallVector<std::optional<int64_t>> elements;
  for (scf::ParallelOp loop : loops) {
    std::optional<int64_t> product = 1;
    for (Value bound : loop.getUpperBound()) {
      std::optional<int64_t> n = getConstantIntValue(bound);
      product = n && product ? std::optional<int64_t>(*product * *n)
                             : std::nullopt;
    }
    elements.push_back(product);
    if (loop.getNumLoops() > 1) {
      std::vector<unsigned> all(loop.getNumLoops());
      std::iota(all.begin(), all.end(), 0u);
      rewriter.setInsertionPoint(loop);
      collapseParallelLoops(rewriter, loop, {all});
    }
  }
  loops.assign(func.getBody().getOps<scf::ParallelOp>().begin(),
               func.getBody().getOps<scf::ParallelOp>().end());
  for (auto [loop, count] : llvm::zip(loops, elements)) {
    // Small tensors get one block of just enough whole warps.
    int64_t block = blockSize;
    if (count)
      block = std::min(block, (*count + kWarp - 1) / kWarp * kWarp);
    scf::tileParallelLoop(loop, {block}, /*noMinMaxBounds=*/true);
  }
}

// Outlining passes the values a launch uses in the order it first meets
// them, which follows the generic's operands, not the bindings. An op that
// reads every binding, first in the launch body, fixes the kernel's
// parameters to the binding order (and keeps unread bindings as
// parameters); LLVM drops it as dead code.
void anchorBindingOrder(func::FuncOp func) {
  func.walk([&](gpu::LaunchOp launch) {
    OpBuilder builder = OpBuilder::atBlockBegin(&launch.getBody().front());
    for (BlockArgument arg : func.getArguments())
      memref::ExtractAlignedPointerAsIndexOp::create(builder, launch.getLoc(),
                                                     arg);
  });
}

} // namespace

void configureDispatches(ModuleOp dispatches, int64_t blockSize) {
  Builder builder(dispatches.getContext());
  for (auto func : dispatches.getOps<func::FuncOp>())
    if (func->hasAttr("kiln.dispatch") && !func->hasAttr(kLoweringConfigAttr))
      func->setAttr(kLoweringConfigAttr,
                    builder.getDictionaryAttr(builder.getNamedAttr(
                        kBlockSizeKey, builder.getI64IntegerAttr(blockSize))));
}

FailureOr<SmallVector<GpuKernelInfo>> generateKernels(ModuleOp dispatches,
                                                     StringRef chip) {
  MLIRContext *context = dispatches.getContext();
  {
    // Elementwise chains become one generic, splat constants fold into it.
    PassManager pm(context);
    pm.addNestedPass<func::FuncOp>(createLinalgElementwiseOpFusionPass());
    pm.addPass(createCanonicalizerPass());
    if (failed(pm.run(dispatches)))
      return failure();
  }

  SmallVector<func::FuncOp> funcs;
  std::string unsupported;
  int unsupportedCount = 0;
  for (auto func : dispatches.getOps<func::FuncOp>()) {
    if (!func->hasAttr("kiln.dispatch"))
      continue;
    funcs.push_back(func);
    std::string reason = unsupportedReason(func);
    if (reason.empty())
      continue;
    ++unsupportedCount;
    unsupported += "\n  " + func.getName().str() + ": " + reason;
  }
  if (unsupportedCount)
    // Not dispatches.emitError(): that would print the whole module.
    return mlir::emitError(dispatches.getLoc())
           << "the cuda target cannot generate " << unsupportedCount << " of "
           << funcs.size()
           << " dispatches yet (this slice generates elementwise and "
              "broadcast dispatches only; contractions will become cuBLASLt "
              "plan steps; kilnc --dump-dispatches names their ONNX nodes):"
           << unsupported;

  // The plan's view of each kernel, from the tensor signature.
  SmallVector<GpuKernelInfo> table;
  for (func::FuncOp func : funcs) {
    GpuKernelInfo info;
    info.kernel.name = func.getName().str();
    FunctionType type = func.getFunctionType();
    info.kernel.numInputs = type.getNumInputs();
    info.kernel.bindingCount = type.getNumInputs() + type.getNumResults();
    for (Type t : type.getInputs())
      info.kernel.bindingSizes.push_back(byteSize(t));
    for (Type t : type.getResults())
      info.kernel.bindingSizes.push_back(byteSize(t));
    table.push_back(std::move(info));
  }

  {
    PassManager pm(context);
    bufferization::OneShotBufferizePassOptions bufferize;
    bufferize.bufferizeFunctionBoundaries = true;
    bufferize.functionBoundaryTypeConversion =
        bufferization::LayoutMapOption::IdentityLayoutMap;
    pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
    bufferization::BufferResultsToOutParamsPassOptions outParams;
    outParams.hoistStaticAllocs = true;
    outParams.modifyPublicFunctions = true;
    pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
    pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
    pm.addPass(createCanonicalizerPass());
    if (failed(pm.run(dispatches)))
      return failure();
  }
  for (auto [func, info] : llvm::zip(funcs, table)) {
    if (func.getNumResults() != 0 ||
        func.getNumArguments() != info.kernel.bindingCount)
      return func.emitOpError("did not bufferize to inputs then outputs");
    tileForBlocks(func, configuredBlockSize(func));
  }
  {
    PassManager pm(context);
    pm.addNestedPass<func::FuncOp>(createGpuMapParallelLoopsPass());
    pm.addPass(createConvertParallelLoopToGpuPass());
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createLowerAffinePass());
    pm.addPass(createGpuLaunchSinkIndexComputationsPass());
    if (failed(pm.run(dispatches)))
      return failure();
  }
  for (func::FuncOp func : funcs)
    anchorBindingOrder(func);
  {
    PassManager pm(context);
    pm.addPass(createGpuKernelOutliningPass());
    pm.addPass(createSCFToControlFlowPass());
    GpuNVVMAttachTargetOptions target;
    target.chip = chip.str();
    target.optLevel = 3;
    pm.addPass(createGpuNVVMAttachTarget(target));
    ConvertGpuOpsToNVVMOpsOptions nvvm;
    nvvm.useBarePtrCallConv = true;
    pm.addNestedPass<gpu::GPUModuleOp>(createConvertGpuOpsToNVVMOps(nvvm));
    pm.addPass(createReconcileUnrealizedCastsPass());
    if (failed(pm.run(dispatches)))
      return failure();
  }

  for (auto [func, info] : llvm::zip(funcs, table)) {
    SmallVector<gpu::LaunchFuncOp> launches;
    func.walk([&](gpu::LaunchFuncOp launch) { launches.push_back(launch); });
    if (launches.size() != 1)
      return func.emitOpError("became ")
             << launches.size() << " GPU kernels; expected one";
    gpu::LaunchFuncOp launch = launches.front();
    if (launch.getKernelOperands() != ValueRange(func.getArguments()))
      return func.emitOpError(
          "kernel parameters are not the bindings in binding order");
    gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
    gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
    Value grids[3] = {grid.x, grid.y, grid.z};
    Value blocks[3] = {block.x, block.y, block.z};
    for (int d = 0; d < 3; ++d) {
      std::optional<int64_t> g = getConstantIntValue(grids[d]);
      std::optional<int64_t> b = getConstantIntValue(blocks[d]);
      if (!g || !b)
        return func.emitOpError("kernel launch size is not constant");
      info.kernel.workgroups[d] = *g;
      info.block[d] = *b;
    }
    info.entry = launch.getKernelName().str();
    info.module = launch.getKernelModuleName().str();
    info.sharedMemoryBytes = 0;
  }
  return table;
}

} // namespace mlir::kiln::cuda
