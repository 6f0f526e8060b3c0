//===- GpuKernelCodegen.cpp - Dispatches to NVVM kernels ------------------===//
//
// Every dispatch kiln-cuda-library-calls left (all but the cuBLASLt GEMMs)
// becomes one NVVM kernel: data movement as gathers, elementwise fusion,
// bufferization, then GpuKernelEmitter's launch shapes. A contraction
// reaches here only in a dispatch marked kGeneratedContractionAttr (one
// cuBLASLt cannot take); an unmarked one, a dynamic shape or an
// unsupported op is refused, all such dispatches named in one error.
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/cuda/GpuKernelCodegen.h"

#include "compiler/targets/cuda/GpuDataMovement.h"
#include "compiler/targets/cuda/GpuKernelEmitter.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

namespace mlir::kiln::cuda {

namespace {

constexpr StringLiteral kBlockSizeKey = "block_size";

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

// Why `func` (after the data-movement rewrites and fusion) cannot become a
// generated kernel, or "" when it can; the emitter may still refuse it.
std::string unsupportedReason(func::FuncOp func) {
  for (Type t : func.getFunctionType().getInputs())
    if (!cast<ShapedType>(t).hasStaticShape())
      return "a dynamic shape";
  for (Type t : func.getFunctionType().getResults())
    if (!cast<ShapedType>(t).hasStaticShape())
      return "a dynamic shape";
  std::string reason;
  func.walk([&](Operation *op) {
    if (!reason.empty())
      return WalkResult::interrupt();
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
      if (isContractionLike(linalgOp) &&
          !func->hasAttr(kGeneratedContractionAttr)) {
        reason = "root " + describeOp(*op) +
                 " (a contraction: becomes a cuBLASLt library call, or a "
                 "generated kernel once kiln-cuda-library-calls marks its "
                 "dispatch)";
        return WalkResult::interrupt();
      }
      if (!isa<linalg::GenericOp, linalg::FillOp>(op))
        reason = "root " + describeOp(*op);
      return WalkResult::advance();
    }
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      if (isa<ShapedType>(constant.getType()))
        reason = "root " + describeOp(*op) + " (a tensor constant)";
      return WalkResult::advance();
    }
    if (isa<tensor::EmptyOp, tensor::ExtractSliceOp, tensor::ExpandShapeOp,
            tensor::CollapseShapeOp, tensor::ExtractOp, func::FuncOp,
            func::ReturnOp, linalg::YieldOp, linalg::IndexOp,
            affine::AffineApplyOp>(op))
      return WalkResult::advance();
    // Sequential loops over tensors (TopK's passes, ScatterND's updates):
    // the kernel runs them in one thread.
    if (isa<scf::ForOp, scf::YieldOp, tensor::InsertOp, tensor::InsertSliceOp>(
            op))
      return WalkResult::advance();
    if (isa<arith::ArithDialect, math::MathDialect>(op->getDialect()))
      return WalkResult::advance();
    reason = "root " + describeOp(*op);
    return WalkResult::interrupt();
  });
  return reason;
}

uint64_t byteSize(Type type) {
  auto shaped = cast<ShapedType>(type);
  unsigned bits = shaped.getElementTypeBitWidth();
  return uint64_t(shaped.getNumElements()) * std::max(1u, (bits + 7) / 8);
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

FailureOr<SmallVector<GpuKernelInfo>>
generateKernels(ModuleOp dispatches, StringRef chip,
                const GenerateOptions &options) {
  MLIRContext *context = dispatches.getContext();
  // Twice: fusion makes new generics whose gathers fuse, and the other
  // way round.
  for (int round = 0; round < 2; ++round) {
    for (auto func : dispatches.getOps<func::FuncOp>())
      if (func->hasAttr("kiln.dispatch"))
        rewriteDataMovement(func);
    // Elementwise chains (and the gathers above) become one generic,
    // splat constants fold into it.
    PassManager pm(context);
    pm.addNestedPass<func::FuncOp>(createLinalgElementwiseOpFusionPass());
    pm.addPass(createCanonicalizerPass());
    if (failed(pm.run(dispatches)))
      return failure();
  }
  for (auto func : dispatches.getOps<func::FuncOp>())
    if (func->hasAttr("kiln.dispatch"))
      separateFills(func);

  // Dispatches that cannot be generated are taken out of the module (their
  // reasons kept, in dispatch order) so that every other one is still
  // tried: the error names them all at once.
  SmallVector<func::FuncOp> funcs;
  SmallVector<std::pair<std::string, std::string>> refused;
  int total = 0, skipped = 0;
  for (auto func :
       llvm::make_early_inc_range(dispatches.getOps<func::FuncOp>())) {
    if (!func->hasAttr("kiln.dispatch"))
      continue;
    ++total;
    std::string reason = unsupportedReason(func);
    if (reason.empty()) {
      funcs.push_back(func);
      continue;
    }
    if (!(options.skipContractions &&
          StringRef(reason).contains("(a contraction")))
      refused.push_back({func.getName().str(), reason});
    else
      ++skipped;
    func.erase();
  }

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

  // Inputs are read-only bindings (weights, other steps' results, the
  // caller's tensors): bufferization copies rather than updating one in
  // place.
  for (func::FuncOp func : funcs)
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      func.setArgAttr(i, "bufferization.writable",
                      BoolAttr::get(context, false));
  {
    PassManager pm(context);
    bufferization::OneShotBufferizePassOptions bufferize;
    bufferize.bufferizeFunctionBoundaries = true;
    // TopK's and ScatterND's loops carry tensors they replace (serial
    // kernels; their buffers become the thread's stack).
    bufferize.allowReturnAllocsFromLoops = true;
    bufferize.functionBoundaryTypeConversion =
        bufferization::LayoutMapOption::IdentityLayoutMap;
    pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
    bufferization::BufferResultsToOutParamsPassOptions outParams;
    outParams.hoistStaticAllocs = true;
    outParams.modifyPublicFunctions = true;
    pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
    pm.addPass(createCanonicalizerPass());
    if (failed(pm.run(dispatches)))
      return failure();
  }
  for (auto [func, info] : llvm::zip(funcs, table)) {
    if (func.getNumResults() != 0 ||
        func.getNumArguments() != info.kernel.bindingCount)
      return func.emitOpError("did not bufferize to inputs then outputs");
    std::string reason;
    FailureOr<EmittedKernel> emitted =
        emitKernel(func, configuredBlockSize(func), reason);
    if (failed(emitted)) {
      refused.push_back({func.getName().str(), reason});
      continue;
    }
    info.sharedMemoryBytes = emitted->sharedMemoryBytes;
    info.shape = emitted->shape;
    info.kernel.workgroups[0] = emitted->grid;
    info.block[0] = emitted->block;
  }
  if (!refused.empty()) {
    // Dispatch order: dispatch_2 before dispatch_10.
    auto number = [](const std::string &name) {
      size_t at = name.find_last_of('_');
      int64_t n = 0;
      if (at == std::string::npos ||
          StringRef(name).substr(at + 1).getAsInteger(10, n))
        return int64_t(-1);
      return n;
    };
    llvm::stable_sort(refused, [&](const auto &a, const auto &b) {
      return number(a.first) < number(b.first);
    });
    std::string list;
    for (const auto &[name, reason] : refused)
      list += "\n  " + name + ": " + reason;
    // Not dispatches.emitError(): that would print the whole module.
    return mlir::emitError(dispatches.getLoc())
           << "the cuda target cannot generate " << refused.size() << " of "
           << total
           << " dispatches (kilnc --dump-dispatches names their ONNX "
              "nodes):"
           << list;
  }
  (void)skipped;
  {
    PassManager pm(context);
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
    pm.addPass(createLowerAffinePass());
    // The canonicalizer hoists constants out of the launch; back in.
    pm.addPass(createGpuLaunchSinkIndexComputationsPass());
    if (failed(pm.run(dispatches)))
      return failure();
  }
  if (options.stopAtLaunch)
    return table;
  for (func::FuncOp func : funcs)
    anchorBindingOrder(func);
  {
    PassManager pm(context);
    pm.addPass(createGpuKernelOutliningPass());
    pm.addNestedPass<gpu::GPUModuleOp>(
        memref::createExpandStridedMetadataPass());
    pm.addNestedPass<gpu::GPUModuleOp>(createLowerAffinePass());
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
  // The NVVM lowering declares dynamic shared memory as an internal
  // zero-length array, which the NVPTX backend "demotes" to a one-byte
  // static .shared variable; an external declaration is PTX's
  // `.extern .shared .b8 name[]`, the block's dynamic shared memory.
  dispatches.walk([](LLVM::GlobalOp global) {
    if (global.getAddrSpace() == 3 &&
        global.getSymName().starts_with("__dynamic_shmem__"))
      global.setLinkage(LLVM::Linkage::External);
  });

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
  }
  return table;
}

} // namespace mlir::kiln::cuda
