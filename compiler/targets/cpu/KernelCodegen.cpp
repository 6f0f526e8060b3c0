//===- KernelCodegen.cpp - kiln-cpu-codegen -------------------------------===//
//
// Turns every `kiln.dispatch` function (linalg on tensors) into a CPU kernel
// of the Kiln kernel ABI (runtime/include/kiln/kernel_abi.h), in the LLVM
// dialect, plus the `kiln_cpu_library_query` table.
//
// Per dispatch, following its lowering configuration (LoweringConfig.h):
//  1. Destination passing: `@d_impl(memref inputs..., memref outputs...,
//     index wg_x, wg_y, wg_z)`; inputs enter as restrict tensors and
//     results are materialized straight into the output buffers.
//  2. Workgroup tiling: the dispatch's root op (producing its first
//     result) is tiled into an scf.forall by the configured workgroup
//     tile, its producers fused into the tile (matmul into the tiles of
//     its bias + activation consumer).
//  3. Strategy "contraction": the contraction is marked for register
//     tiles; other reductions get the loop order of LoopOrder.cpp.
//  4. One-shot bufferization; empty tensors reuse the output buffers, the
//     few scratch buffers left are stack allocas (kernels never malloc);
//     when they exceed the stack budget, the largest become views of a
//     scratch binding the host plan places in the arena
//     (ScratchBinding.h).
//  5. Marked contractions become register-tiled vector loop nests
//     (ContractionKernel.cpp).
//  6. The forall becomes "this workgroup's tile": its induction variables
//     are computed from the workgroup ids, and the trip counts are the
//     dispatch's workgroup counts (`kiln.workgroups`).
//  7. Lowering to LLVM with bare-pointer memref arguments (all `noalias`:
//     the plan never binds overlapping buffers to one dispatch), then an
//     ABI wrapper per kernel that reads binding pointers from the
//     kiln_dispatch_state.
//
//===----------------------------------------------------------------------===//

#include "compiler/targets/cpu/KernelCodegen.h"
#include "compiler/targets/cpu/AmxKernel.h"
#include "compiler/targets/cpu/AttentionKernel.h"
#include "compiler/targets/cpu/ChannelsLastPad.h"
#include "compiler/targets/cpu/ContractionKernel.h"
#include "compiler/targets/cpu/DepthwiseKernel.h"
#include "compiler/targets/cpu/DepthwisePad.h"
#include "compiler/targets/cpu/ErfApproximation.h"
#include "compiler/targets/cpu/HalfArithmetic.h"
#include "compiler/targets/cpu/ImplicitGemm.h"
#include "compiler/targets/cpu/LoopOrder.h"
#include "compiler/targets/cpu/LoweringConfig.h"
#include "compiler/targets/cpu/ScratchBinding.h"
#include "compiler/targets/cpu/TransposeKernel.h"

#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/AMX/AMXDialect.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Transforms.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/Passes.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::kiln::cpu {

namespace {

// Step 1: a destination-passing kernel function over memrefs.
FailureOr<func::FuncOp> makeKernelFunction(func::FuncOp dispatch) {
  OpBuilder builder(dispatch);
  MLIRContext *ctx = dispatch.getContext();
  Location loc = dispatch.getLoc();
  SmallVector<Type> argTypes;
  for (Type t : dispatch.getArgumentTypes()) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (!tensor || !tensor.hasStaticShape())
      return dispatch.emitError("dispatch arguments must be static tensors");
    argTypes.push_back(MemRefType::get(tensor.getShape(), tensor.getElementType()));
  }
  for (Type t : dispatch.getResultTypes()) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (!tensor || !tensor.hasStaticShape())
      return dispatch.emitError("dispatch results must be static tensors");
    argTypes.push_back(MemRefType::get(tensor.getShape(), tensor.getElementType()));
  }
  argTypes.append(3, builder.getIndexType());
  auto kernel = func::FuncOp::create(
      builder, loc, (dispatch.getName() + "_impl").str(),
      builder.getFunctionType(argTypes, {}));
  kernel->setAttr("kiln.kernel", StringAttr::get(ctx, dispatch.getName()));
  kernel->setAttr("kiln.num_inputs",
                  builder.getI64IntegerAttr(dispatch.getNumArguments()));
  kernel->setAttr("kiln.num_outputs",
                  builder.getI64IntegerAttr(dispatch.getNumResults()));
  for (unsigned i = 0; i < argTypes.size() - 3; ++i)
    kernel.setArgAttr(i, "llvm.noalias", builder.getUnitAttr());
  Block *entry = kernel.addEntryBlock();
  builder.setInsertionPointToStart(entry);
  // Move (not clone) the body: inputs become restrict tensors of the
  // input buffers.
  Block &body = dispatch.getBody().front();
  for (auto [i, arg] : llvm::enumerate(body.getArguments())) {
    Value tensor = bufferization::ToTensorOp::create(
        builder, loc, arg.getType(), entry->getArgument(i),
        /*restrict=*/true, /*writable=*/false);
    arg.replaceAllUsesWith(tensor);
  }
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  SmallVector<Value> results(ret.getOperands());
  ret.erase();
  entry->getOperations().splice(entry->end(), body.getOperations());
  builder.setInsertionPointToEnd(entry);
  for (auto [i, value] : llvm::enumerate(results)) {
    Value out = entry->getArgument(dispatch.getNumArguments() + i);
    auto materialize = bufferization::MaterializeInDestinationOp::create(
        builder, loc, value, out);
    materialize.setRestrict(true);
    materialize.setWritable(true);
  }
  func::ReturnOp::create(builder, loc);
  return kernel;
}

// Step 2, for a concat: one workgroup loop over the result's tiled dims
// whose body copies that tile of every piece. (The pieces are dispatch
// inputs, so there is nothing to fuse; tiling the last insert alone would
// copy the whole chain before it in every workgroup.)
LogicalResult tileConcat(func::FuncOp kernel, ConcatChain concat,
                         ArrayRef<int64_t> tiles) {
  tensor::InsertSliceOp last = concat.inserts.back();
  ArrayRef<int64_t> shape = last.getDestType().getShape();
  if (tiles.size() != shape.size())
    return last->emitOpError("has ")
           << shape.size() << " dims but the lowering config's "
           << "workgroup_tile has " << tiles.size() << " sizes";
  SmallVector<int64_t> tiledDims;
  for (auto [d, tile] : llvm::enumerate(tiles)) {
    if (tile == 0 || tile >= shape[d])
      continue;
    if (static_cast<int64_t>(d) == concat.axis || shape[d] % tile != 0)
      return last->emitOpError("concat workgroup tiles must divide their "
                               "dim and leave the concat axis whole; dim ")
             << d << " has tile " << tile;
    tiledDims.push_back(d);
  }
  if (tiledDims.empty())
    return success();
  if (tiledDims.size() > 3)
    return last->emitOpError("workgroup tiles split at most 3 dims (the "
                             "workgroup grid is 3-D)");
  IRRewriter rewriter(kernel.getContext());
  rewriter.setInsertionPoint(last);
  Location loc = last.getLoc();
  SmallVector<OpFoldResult> lbs, ubs, steps;
  for (int64_t d : tiledDims) {
    lbs.push_back(rewriter.getIndexAttr(0));
    ubs.push_back(rewriter.getIndexAttr(shape[d]));
    steps.push_back(rewriter.getIndexAttr(tiles[d]));
  }
  Value base = concat.inserts.front().getDest();
  auto forall = scf::ForallOp::create(rewriter, loc, lbs, ubs, steps,
                                      ValueRange{base},
                                      /*mapping=*/std::nullopt);
  Block *body = forall.getBody();
  Value shared = forall.getRegionIterArgs().front();
  rewriter.setInsertionPointToStart(body);
  // Per piece: its slice at this tile, and where that slice goes.
  SmallVector<std::pair<Value, SmallVector<OpFoldResult>>> pieces;
  SmallVector<OpFoldResult> ones(shape.size(), rewriter.getIndexAttr(1));
  for (tensor::InsertSliceOp insert : concat.inserts) {
    ArrayRef<int64_t> pieceShape = insert.getSourceType().getShape();
    SmallVector<OpFoldResult> srcOffsets, sizes, destOffsets;
    for (size_t d = 0; d < shape.size(); ++d) {
      srcOffsets.push_back(rewriter.getIndexAttr(0));
      sizes.push_back(rewriter.getIndexAttr(pieceShape[d]));
      destOffsets.push_back(rewriter.getIndexAttr(insert.getStaticOffsets()[d]));
    }
    for (auto [i, d] : llvm::enumerate(tiledDims)) {
      srcOffsets[d] = body->getArgument(i);
      sizes[d] = rewriter.getIndexAttr(tiles[d]);
      destOffsets[d] = body->getArgument(i);
    }
    Value slice = tensor::ExtractSliceOp::create(
        rewriter, loc, insert.getSource(), srcOffsets, sizes, ones);
    pieces.push_back({slice, destOffsets});
  }
  rewriter.setInsertionPointToStart(forall.getTerminator().getBody());
  for (auto &[slice, destOffsets] : pieces) {
    SmallVector<OpFoldResult> sizes;
    for (int64_t size : cast<RankedTensorType>(slice.getType()).getShape())
      sizes.push_back(rewriter.getIndexAttr(size));
    tensor::ParallelInsertSliceOp::create(rewriter, loc, slice, shared,
                                          destOffsets, sizes, ones);
  }
  rewriter.replaceAllUsesWith(last.getResult(), forall.getResult(0));
  for (tensor::InsertSliceOp insert : llvm::reverse(concat.inserts))
    rewriter.eraseOp(insert);
  return success();
}

// Step 2: tile the last op into workgroups and fuse its producers.
LogicalResult tileWorkgroups(func::FuncOp kernel,
                             const LoweringConfig &config) {
  // The op writing the (first) output.
  Operation *last = nullptr;
  kernel.walk([&](bufferization::MaterializeInDestinationOp m) {
    if (!last)
      last = m.getSource().getDefiningOp();
  });
  if (std::optional<ConcatChain> concat = matchConcat(last)) {
    if (config.workgroupTile.empty() || !kernel.getOps<scf::ForOp>().empty())
      return success(); // Runs as one workgroup.
    return tileConcat(kernel, *concat, config.workgroupTile);
  }
  // Linalg ops and pads (whose tiles are pads of input slices) split into
  // workgroups.
  auto tileable = dyn_cast_or_null<TilingInterface>(last);
  if (!tileable || !isa<linalg::LinalgOp, tensor::PadOp>(last) ||
      !kernel.getOps<scf::ForOp>().empty())
    return success(); // Runs as one workgroup.
  // Workgroups each write their own tile of the output. That holds only if
  // the op starts from a fresh (empty or filled) tensor: an op updating an
  // input in place would have every workgroup copy the whole input.
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(last)) {
    for (Value init : linalgOp.getDpsInits()) {
      Operation *def = init.getDefiningOp();
      if (auto fill = dyn_cast_or_null<linalg::FillOp>(def))
        def = fill.getDpsInits()[0].getDefiningOp();
      if (!isa_and_nonnull<tensor::EmptyOp>(def))
        return success();
    }
  }
  SmallVector<int64_t> tiles = config.workgroupTile;
  if (tiles.empty())
    return success(); // Runs as one workgroup.
  size_t numLoops = tileable.getLoopIteratorTypes().size();
  if (tiles.size() != numLoops)
    return last->emitOpError("has ")
           << numLoops << " loops but the lowering config's "
           << "workgroup_tile has " << tiles.size() << " sizes";
  if (llvm::count_if(tiles, [](int64_t t) { return t != 0; }) > 3)
    return last->emitOpError("workgroup tiles split at most 3 dims (the "
                             "workgroup grid is 3-D)");
  if (llvm::all_of(tiles, [](int64_t t) { return t == 0; }))
    return success();
  IRRewriter rewriter(kernel.getContext());
  rewriter.setInsertionPoint(last);
  scf::SCFTilingOptions tiling;
  tiling.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
  tiling.setTileSizes(getAsIndexOpFoldResult(kernel.getContext(), tiles));
  scf::SCFTileAndFuseOptions options;
  options.setTilingOptions(tiling);
  // A convolution's column gather stays out of the tiles when the kernel
  // gathers its B panels from the input itself (`gather_b`): the
  // contraction then reads a slice of the whole gather's result, whose
  // offsets tell the kernel where its tile starts, and the gather itself
  // is erased once the kernel is built.
  // So does a channels-last conv's folded pad (ChannelsLastPad.h): the
  // register tiles read the unpadded input.
  if (config.strategy == Strategy::Contraction)
    options.setFusionControlFn(
        [gatherB = config.gatherB](tensor::ExtractSliceOp, OpResult producer,
                                   bool)
            -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
          if ((gatherB && producer.getOwner()->hasAttr(kConvGatherAttr)) ||
              producer.getOwner()->hasAttr(kChannelsLastPadAttr))
            return std::nullopt;
          return scf::SCFTileAndFuseOptions::ControlFnResult{};
        });
  // Likewise a folded depthwise pad: the depthwise kernel reads the
  // unpadded input (DepthwisePad.h).
  if (config.strategy == Strategy::Depthwise)
    options.setFusionControlFn(
        [](tensor::ExtractSliceOp, OpResult producer,
           bool) -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
          if (producer.getOwner()->hasAttr(kDepthwisePadAttr))
            return std::nullopt;
          return scf::SCFTileAndFuseOptions::ControlFnResult{};
        });
  FailureOr<scf::SCFTileAndFuseResult> result =
      scf::tileConsumerAndFuseProducersUsingSCF(
          rewriter, cast<TilingInterface>(last), options);
  if (failed(result))
    return last->emitOpError("could not be tiled into workgroups");
  for (auto [original, replacement] : result->replacements)
    rewriter.replaceAllUsesWith(original, replacement);
  // The untiled originals are dead now; left in place they would be
  // bufferized into whole-tensor scratch.
  // Only the function's own ops: erasing one frees everything nested in it.
  // Sweep until nothing changes: an op may only die once a later one is
  // gone.
  Block &body = kernel.getBody().front();
  for (bool changed = true; changed;) {
    changed = false;
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
      if (isOpTriviallyDead(&op)) {
        rewriter.eraseOp(&op);
        changed = true;
      }
  }
  return success();
}

// Step 4.
LogicalResult bufferize(func::FuncOp kernel) {
  {
    // tensor.pad as fill + insert_slice, so that the padded tensor is
    // built in place in the output buffer instead of a scratch copy.
    RewritePatternSet patterns(kernel.getContext());
    linalg::populateDecomposePadPatterns(patterns);
    // Slices of an empty tensor (the init of a fused producer) become
    // tile-sized empty tensors: tile-sized scratch instead of a whole one.
    tensor::populateFoldTensorEmptyPatterns(patterns);
    if (failed(applyPatternsGreedily(kernel, std::move(patterns))))
      return kernel.emitError("pad decomposition did not converge");
  }
  IRRewriter rewriter(kernel.getContext());
  if (failed(bufferization::eliminateEmptyTensors(rewriter, kernel)))
    return kernel.emitError("empty-tensor elimination failed");
  bufferization::OneShotBufferizationOptions options;
  options.bufferizeFunctionBoundaries = false;
  options.allowReturnAllocsFromLoops = true;
  options.setFunctionBoundaryTypeConversion(
      bufferization::LayoutMapOption::IdentityLayoutMap);
  options.allocationFn = [](OpBuilder &b, Location loc, MemRefType type,
                            ValueRange dynamicSizes,
                            unsigned alignment) -> FailureOr<Value> {
    // Kernels never allocate from the heap: scratch starts on the stack;
    // planScratch (ScratchBinding.h) bounds it and moves what does not fit
    // the stack budget to the scratch binding.
    return memref::AllocaOp::create(b, loc, type, dynamicSizes,
                                    b.getI64IntegerAttr(64))
        .getResult();
  };
  options.memCpyFn = [](OpBuilder &b, Location loc, Value from,
                        Value to) -> LogicalResult {
    linalg::CopyOp::create(b, loc, from, to);
    return success();
  };
  bufferization::BufferizationState state;
  if (failed(bufferization::runOneShotBufferize(kernel, options, state)))
    return kernel.emitError("bufferization failed");
  return success();
}

// Step 5: the top-level forall becomes this workgroup's iteration.
LogicalResult bindWorkgroups(func::FuncOp kernel) {
  SmallVector<int64_t> counts = {1, 1, 1};
  SmallVector<scf::ForallOp> foralls;
  for (auto forall : kernel.getBody().front().getOps<scf::ForallOp>())
    foralls.push_back(forall);
  if (foralls.size() > 1)
    return kernel.emitError("more than one workgroup loop");
  if (!foralls.empty()) {
    scf::ForallOp forall = foralls.front();
    if (forall.getRank() > 3 || forall.getNumResults() != 0)
      return forall.emitOpError("cannot be bound to workgroups");
    SmallVector<int64_t> lbv(forall.getStaticLowerBound());
    SmallVector<int64_t> ubv(forall.getStaticUpperBound());
    SmallVector<int64_t> stepv(forall.getStaticStep());
    auto isDynamic = [](int64_t v) { return ShapedType::isDynamic(v); };
    if (llvm::any_of(lbv, isDynamic) || llvm::any_of(ubv, isDynamic) ||
        llvm::any_of(stepv, isDynamic))
      return forall.emitOpError("has dynamic bounds");
    SmallVector<int64_t> *lbs = &lbv, *ubs = &ubv, *steps = &stepv;
    OpBuilder builder(forall);
    Location loc = forall.getLoc();
    Block &entry = kernel.getBody().front();
    unsigned wgBase = entry.getNumArguments() - 3;
    SmallVector<Value> ivs;
    for (int64_t d = 0; d < forall.getRank(); ++d) {
      counts[d] = ((*ubs)[d] - (*lbs)[d] + (*steps)[d] - 1) / (*steps)[d];
      Value wg = entry.getArgument(wgBase + d);
      Value iv = arith::AddIOp::create(
          builder, loc,
          arith::ConstantIndexOp::create(builder, loc, (*lbs)[d]),
          arith::MulIOp::create(
              builder, loc, wg,
              arith::ConstantIndexOp::create(builder, loc, (*steps)[d])));
      ivs.push_back(iv);
    }
    Block *body = forall.getBody();
    body->getTerminator()->erase();
    for (auto [arg, iv] : llvm::zip(body->getArguments(), ivs))
      arg.replaceAllUsesWith(iv);
    entry.getOperations().splice(Block::iterator(forall), body->getOperations());
    forall.erase();
  }
  kernel->setAttr("kiln.workgroups",
                  DenseI64ArrayAttr::get(kernel.getContext(), counts));
  return success();
}

LogicalResult checkNoHeap(ModuleOp module) {
  WalkResult walk = module.walk([](memref::AllocOp alloc) {
    alloc.emitOpError("heap allocation left in a kernel");
    return WalkResult::interrupt();
  });
  return failure(walk.wasInterrupted());
}

// runtime/include/kiln/kernel_abi.h's KILN_CPU_ABI_VERSION.
constexpr int32_t kAbiVersion = 2;

// Step 6b: wrappers with the ABI signature and the query table.
void emitAbi(ModuleOp module, ArrayRef<KernelInfo> kernels) {
  MLIRContext *ctx = module.getContext();
  OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
  Location loc = module.getLoc();
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  auto i32 = IntegerType::get(ctx, 32);
  auto i64 = IntegerType::get(ctx, 64);
  // struct kiln_dispatch_state { ptr bindings; ptr binding_sizes;
  //   ptr push_constants; i32 workgroup_count[3]; i32 binding_count;
  //   i32 push_constant_count; }
  auto stateType = LLVM::LLVMStructType::getLiteral(
      ctx, {ptr, ptr, ptr, LLVM::LLVMArrayType::get(i32, 3), i32, i32});
  auto i1 = IntegerType::get(ctx, 1);
  auto constant = [&](OpBuilder &b, Type t, int64_t v) {
    return LLVM::ConstantOp::create(b, loc, t, b.getIntegerAttr(t, v))
        .getResult();
  };
  for (const KernelInfo &kernel : kernels) {
    auto impl = module.lookupSymbol<LLVM::LLVMFuncOp>(kernel.name + "_impl");
    impl.setLinkage(LLVM::Linkage::Internal);
    auto type = LLVM::LLVMFunctionType::get(i32, {ptr, i32, i32, i32});
    auto wrapper = LLVM::LLVMFuncOp::create(builder, loc, kernel.name, type,
                                            LLVM::Linkage::Internal);
    // The checks run once per call (per workgroup), before any binding is
    // touched; each failure returns its KILN_KERNEL_BAD_* code.
    Block *entry = wrapper.addEntryBlock(builder);
    Region &region = wrapper.getBody();
    // The failure block (return its argument) goes last, after the body.
    Block *fail = new Block();
    fail->addArgument(i32, loc);
    Value state = entry->getArgument(0);
    auto field = [&](OpBuilder &b, Type t, ArrayRef<LLVM::GEPArg> path) {
      Value address = LLVM::GEPOp::create(b, loc, ptr, stateType, state, path);
      return LLVM::LoadOp::create(b, loc, t, address).getResult();
    };
    auto differs = [&](OpBuilder &b, Value v, Value expected) {
      return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, v, expected)
          .getResult();
    };
    auto orAll = [&](OpBuilder &b, ArrayRef<Value> conditions) -> Value {
      if (conditions.empty())
        return LLVM::ConstantOp::create(b, loc, i1, b.getBoolAttr(false));
      Value any = conditions.front();
      for (Value c : conditions.drop_front())
        any = LLVM::OrOp::create(b, loc, i1, any, c);
      return any;
    };
    // Ends `b`'s block with "if (bad) return code" and continues in a new
    // block.
    auto check = [&](OpBuilder &b, Value bad, int32_t code) {
      Block *next = new Block();
      region.push_back(next);
      Value codeValue = constant(b, i32, code);
      LLVM::CondBrOp::create(b, loc, bad, fail, ValueRange(codeValue), next,
                             ValueRange());
      b.setInsertionPointToStart(next);
    };
    OpBuilder b = OpBuilder::atBlockBegin(entry);
    // Counts first: binding_sizes has binding_count entries.
    check(b,
          orAll(b, {differs(b, field(b, i32, {0, 4}),
                            constant(b, i32, kernel.bindingCount)),
                    differs(b, field(b, i32, {0, 5}), constant(b, i32, 0))}),
          /*KILN_KERNEL_BAD_BINDING_COUNT*/ 1);
    {
      Value sizes = field(b, ptr, {0, 1});
      SmallVector<Value> bad;
      for (auto [i, size] : llvm::enumerate(kernel.bindingSizes)) {
        Value address = LLVM::GEPOp::create(b, loc, ptr, i64, sizes,
                                            ArrayRef<LLVM::GEPArg>{int32_t(i)});
        bad.push_back(differs(b, LLVM::LoadOp::create(b, loc, i64, address),
                              constant(b, i64, size)));
      }
      check(b, orAll(b, bad), /*KILN_KERNEL_BAD_BINDING_SIZE*/ 2);
    }
    SmallVector<Value> counts, badCount, badId;
    for (int d = 0; d < 3; ++d) {
      counts.push_back(field(b, i32, {0, 3, d}));
      badCount.push_back(
          differs(b, counts[d], constant(b, i32, kernel.workgroups[d])));
    }
    check(b, orAll(b, badCount), /*KILN_KERNEL_BAD_WORKGROUP_COUNT*/ 3);
    for (int d = 0; d < 3; ++d)
      badId.push_back(LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::uge,
                                           entry->getArgument(1 + d),
                                           counts[d]));
    check(b, orAll(b, badId), /*KILN_KERNEL_BAD_WORKGROUP_ID*/ 4);

    Value bindings = LLVM::LoadOp::create(b, loc, ptr, state);
    SmallVector<Value> args;
    for (uint32_t i = 0; i < kernel.bindingCount; ++i) {
      Value slot = LLVM::GEPOp::create(b, loc, ptr, ptr, bindings,
                                       ArrayRef<LLVM::GEPArg>{int32_t(i)});
      args.push_back(LLVM::LoadOp::create(b, loc, ptr, slot));
    }
    for (int d = 0; d < 3; ++d)
      args.push_back(LLVM::ZExtOp::create(b, loc, i64, entry->getArgument(1 + d)));
    LLVM::CallOp::create(b, loc, impl, args);
    LLVM::ReturnOp::create(b, loc, constant(b, i32, 0));
    region.push_back(fail);
    b.setInsertionPointToStart(fail);
    LLVM::ReturnOp::create(b, loc, fail->getArgument(0));
  }
  // struct kiln_binding_info { i64 size; i32 access; i32 reserved; }, one
  // array per kernel.
  auto bindingType = LLVM::LLVMStructType::getLiteral(ctx, {i64, i32, i32});
  for (const KernelInfo &kernel : kernels) {
    auto arrayType =
        LLVM::LLVMArrayType::get(bindingType, kernel.bindingSizes.size());
    auto global = LLVM::GlobalOp::create(builder, loc, arrayType, true,
                                         LLVM::Linkage::Internal,
                                         kernel.name + "_bindings", Attribute());
    Block *block = builder.createBlock(&global.getInitializerRegion());
    OpBuilder b = OpBuilder::atBlockBegin(block);
    Value value = LLVM::UndefOp::create(b, loc, arrayType);
    for (auto [i, size] : llvm::enumerate(kernel.bindingSizes)) {
      // KILN_BINDING_READ for inputs, READ_WRITE for the scratch binding,
      // WRITE for outputs (as CpuBackend writes the artifact's table).
      int32_t access = i < kernel.numInputs ? 0 : 1;
      if (kernel.scratchBytes && i + 1 == kernel.bindingSizes.size())
        access = 2;
      Value entryValue = LLVM::UndefOp::create(b, loc, bindingType);
      entryValue = LLVM::InsertValueOp::create(
          b, loc, entryValue, constant(b, i64, size), ArrayRef<int64_t>{0});
      entryValue = LLVM::InsertValueOp::create(
          b, loc, entryValue, constant(b, i32, access), ArrayRef<int64_t>{1});
      entryValue = LLVM::InsertValueOp::create(
          b, loc, entryValue, constant(b, i32, 0), ArrayRef<int64_t>{2});
      value = LLVM::InsertValueOp::create(b, loc, value, entryValue,
                                          ArrayRef<int64_t>{int64_t(i)});
    }
    LLVM::ReturnOp::create(b, loc, value);
    builder.setInsertionPointToEnd(module.getBody());
  }
  // struct kiln_kernel_info { ptr name; ptr fn; i32 bindings; i32 push;
  //   ptr binding_info; i32 workgroup_count[3]; i32 reserved; }
  auto infoType = LLVM::LLVMStructType::getLiteral(
      ctx, {ptr, ptr, i32, i32, ptr, LLVM::LLVMArrayType::get(i32, 3), i32});
  auto tableType = LLVM::LLVMArrayType::get(infoType, kernels.size());
  auto libraryType = LLVM::LLVMStructType::getLiteral(ctx, {i32, i32, ptr});
  for (const KernelInfo &kernel : kernels) {
    std::string text = kernel.name;
    text.push_back('\0');
    LLVM::GlobalOp::create(
        builder, loc, LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), text.size()),
        /*isConstant=*/true, LLVM::Linkage::Internal, kernel.name + "_name",
        builder.getStringAttr(text));
  }
  auto table = LLVM::GlobalOp::create(builder, loc, tableType, true,
                                      LLVM::Linkage::Internal,
                                      "kiln_kernel_table", Attribute());
  {
    Block *block = builder.createBlock(&table.getInitializerRegion());
    OpBuilder b = OpBuilder::atBlockBegin(block);
    Value value = LLVM::UndefOp::create(b, loc, tableType);
    for (auto [i, kernel] : llvm::enumerate(kernels)) {
      Value info = LLVM::UndefOp::create(b, loc, infoType);
      Value name = LLVM::AddressOfOp::create(b, loc, ptr, kernel.name + "_name");
      Value fn = LLVM::AddressOfOp::create(b, loc, ptr, kernel.name);
      info = LLVM::InsertValueOp::create(b, loc, info, name, ArrayRef<int64_t>{0});
      info = LLVM::InsertValueOp::create(b, loc, info, fn, ArrayRef<int64_t>{1});
      info = LLVM::InsertValueOp::create(
          b, loc, info,
          LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(kernel.bindingCount)),
          ArrayRef<int64_t>{2});
      info = LLVM::InsertValueOp::create(
          b, loc, info,
          LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(0)),
          ArrayRef<int64_t>{3});
      info = LLVM::InsertValueOp::create(
          b, loc, info,
          LLVM::AddressOfOp::create(b, loc, ptr, kernel.name + "_bindings"),
          ArrayRef<int64_t>{4});
      for (int64_t d = 0; d < 3; ++d)
        info = LLVM::InsertValueOp::create(
            b, loc, info,
            LLVM::ConstantOp::create(b, loc, i32,
                                     b.getI32IntegerAttr(kernel.workgroups[d])),
            ArrayRef<int64_t>{5, d});
      info = LLVM::InsertValueOp::create(
          b, loc, info,
          LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(0)),
          ArrayRef<int64_t>{6});
      value = LLVM::InsertValueOp::create(b, loc, value, info,
                                          ArrayRef<int64_t>{int64_t(i)});
    }
    LLVM::ReturnOp::create(b, loc, value);
  }
  builder.setInsertionPointToEnd(module.getBody());
  auto library = LLVM::GlobalOp::create(builder, loc, libraryType, true,
                                        LLVM::Linkage::Internal,
                                        "kiln_library", Attribute());
  {
    Block *block = builder.createBlock(&library.getInitializerRegion());
    OpBuilder b = OpBuilder::atBlockBegin(block);
    Value value = LLVM::UndefOp::create(b, loc, libraryType);
    value = LLVM::InsertValueOp::create(
        b, loc, value,
        LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(kAbiVersion)),
        ArrayRef<int64_t>{0});
    value = LLVM::InsertValueOp::create(
        b, loc, value,
        LLVM::ConstantOp::create(b, loc, i32,
                                 b.getI32IntegerAttr(kernels.size())),
        ArrayRef<int64_t>{1});
    value = LLVM::InsertValueOp::create(
        b, loc, value, LLVM::AddressOfOp::create(b, loc, ptr, "kiln_kernel_table"),
        ArrayRef<int64_t>{2});
    LLVM::ReturnOp::create(b, loc, value);
  }
  builder.setInsertionPointToEnd(module.getBody());
  auto query = LLVM::LLVMFuncOp::create(
      builder, loc, "kiln_cpu_library_query",
      LLVM::LLVMFunctionType::get(ptr, {i32}), LLVM::Linkage::External);
  {
    Block *entry = query.addEntryBlock(builder);
    OpBuilder b = OpBuilder::atBlockBegin(entry);
    Value version =
        LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(kAbiVersion));
    Value same = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq,
                                      entry->getArgument(0), version);
    Value address = LLVM::AddressOfOp::create(b, loc, ptr, "kiln_library");
    Value null = LLVM::ZeroOp::create(b, loc, ptr);
    Value result = LLVM::SelectOp::create(b, loc, same, address, null);
    LLVM::ReturnOp::create(b, loc, result);
  }
}

/// Loads and stores of bf16 (scalars and vectors, masked or not) become
/// i16 ones: the same bits. Without AVX512-BF16, LLVM has no legal bf16
/// moves: it scalarizes masked ones, and the optimizer turns the integer
/// rounding of a bf16 result into a select on bf16 vectors before a store;
/// both lower through compiler-rt's __truncsfbf2, which kernels are not
/// linked with (the artifact would not load). With i16 memory accesses the
/// bf16 values are only bitcasts that cancel.
void bf16MovesAsI16(ModuleOp module) {
  module.walk([](Operation *op) {
    OpBuilder b(op);
    auto asI16 = [&](Type type) -> Type {
      if (type.isBF16())
        return b.getI16Type();
      auto vector = dyn_cast<VectorType>(type);
      if (!vector || !vector.getElementType().isBF16())
        return Type();
      return VectorType::get(vector.getShape(), b.getI16Type());
    };
    if (auto load = dyn_cast<LLVM::LoadOp>(op)) {
      Type bf16 = load.getType(), i16 = asI16(bf16);
      if (!i16)
        return;
      load.getResult().setType(i16);
      b.setInsertionPointAfter(load);
      auto cast = LLVM::BitcastOp::create(b, load.getLoc(), bf16, load.getResult());
      load.getResult().replaceAllUsesExcept(cast.getResult(), cast);
    } else if (auto store = dyn_cast<LLVM::StoreOp>(op)) {
      Type i16 = asI16(store.getValue().getType());
      if (!i16)
        return;
      store.getValueMutable().assign(
          LLVM::BitcastOp::create(b, store.getLoc(), i16, store.getValue()));
    } else if (auto load = dyn_cast<LLVM::MaskedLoadOp>(op)) {
      Type i16 = asI16(load.getType());
      if (!i16)
        return;
      Value passThru = load.getPassThru();
      if (passThru)
        passThru = LLVM::BitcastOp::create(b, load.getLoc(), i16, passThru);
      Value bits = LLVM::MaskedLoadOp::create(
          b, load.getLoc(), i16, load.getData(), load.getMask(), passThru,
          load.getAlignmentAttr(), load.getNontemporalAttr());
      load.replaceAllUsesWith(
          LLVM::BitcastOp::create(b, load.getLoc(), load.getType(), bits)
              .getResult());
      load.erase();
    } else if (auto store = dyn_cast<LLVM::MaskedStoreOp>(op)) {
      Type i16 = asI16(store.getValue().getType());
      if (!i16)
        return;
      Value bits =
          LLVM::BitcastOp::create(b, store.getLoc(), i16, store.getValue());
      LLVM::MaskedStoreOp::create(b, store.getLoc(), bits, store.getData(),
                                  store.getMask(), store.getAlignmentAttr());
      store.erase();
    }
  });
}

// Strategy "depthwise": marks the depthwise convolution (also as register
// tiled, so that the loop ordering leaves it alone) after checking that the
// target has the configured path's instruction.
LogicalResult markDepthwise(func::FuncOp kernel, const LoweringConfig &config,
                            const TargetChoice &target) {
  bool supported = config.native == "vnni" ? target.hasVnni
                                           : target.vectorBits >= 256;
  if (!supported)
    return kernel.emitError("the depthwise path '")
           << config.native << "' needs an instruction CPU '" << target.cpu
           << "' does not have";
  int64_t count = 0;
  kernel.walk([&](linalg::LinalgOp op) {
    if (failed(matchDepthwise(op)))
      return;
    op->setAttr(kDepthwiseTileAttr, UnitAttr::get(op->getContext()));
    op->setAttr(kRegisterTileAttr, UnitAttr::get(op->getContext()));
    ++count;
  });
  if (count == 0)
    return kernel.emitError("the lowering config asks for depthwise tiles "
                            "but the dispatch has no depthwise convolution "
                            "they apply to");
  return success();
}

LogicalResult emitDepthwise(func::FuncOp kernel, const LoweringConfig &config,
                            const TargetChoice &target) {
  SmallVector<linalg::LinalgOp> convs;
  kernel.walk([&](linalg::LinalgOp op) {
    if (op->hasAttr(kDepthwiseTileAttr))
      convs.push_back(op);
  });
  if (convs.empty())
    return kernel.emitError("bufferization lost the depthwise convolution");
  DepthwiseTile tile{config.native, config.pixelTile, config.flatPlane,
                     config.pixelRows};
  IRRewriter rewriter(kernel.getContext());
  for (linalg::LinalgOp op : convs)
    if (failed(emitDepthwiseKernel(rewriter, op, tile, target.vectorBits)))
      return failure();
  // The kernels read the unpadded input: a folded pad's generic and its
  // whole-tensor buffer must be unread now, and go.
  SmallVector<linalg::GenericOp> pads;
  kernel.walk([&](linalg::GenericOp op) {
    if (op->hasAttr(kDepthwisePadAttr))
      pads.push_back(op);
  });
  for (linalg::GenericOp pad : pads) {
    Value padded = pad.getDpsInits()[0];
    for (bool changed = true; changed;) {
      changed = false;
      for (Operation *user : llvm::make_early_inc_range(padded.getUsers()))
        if (user != pad.getOperation() && isOpTriviallyDead(user)) {
          rewriter.eraseOp(user);
          changed = true;
        }
    }
    if (!llvm::all_of(padded.getUsers(), [&](Operation *user) {
          return user == pad.getOperation();
        }))
      return pad.emitOpError("the padded input is still read after the "
                             "depthwise kernel folded its pad");
    Operation *buffer = padded.getDefiningOp();
    rewriter.eraseOp(pad);
    if (isa_and_nonnull<memref::AllocaOp, memref::AllocOp>(buffer) &&
        buffer->use_empty())
      rewriter.eraseOp(buffer);
  }
  // The epilogue (bias, requantization, activation) loops over whole
  // planes: its two innermost dims become one where the buffers allow, so
  // LLVM vectorizes 49 outputs of a 7x7 plane rather than rows of 7.
  SmallVector<linalg::GenericOp> epilogues;
  kernel.walk([&](linalg::GenericOp op) {
    if (op.hasPureBufferSemantics() && op.getNumLoops() >= 2 &&
        op.getNumReductionLoops() == 0)
      epilogues.push_back(op);
  });
  for (linalg::GenericOp op : epilogues) {
    unsigned n = op.getNumLoops();
    ReassociationIndices inner = {static_cast<int64_t>(n - 2),
                                  static_cast<int64_t>(n - 1)};
    // Only plain dims in every map (a broadcast through constant indices,
    // e.g. (d0, d1, 0, 0), is left alone: the collapse does not handle
    // it).
    if (!llvm::all_of(op.getIndexingMapsArray(),
                      [](AffineMap m) { return m.isProjectedPermutation(); }) ||
        !linalg::areDimSequencesPreserved(op.getIndexingMapsArray(), {inner}))
      continue;
    bool contiguous = llvm::all_of(op->getOperands(), [&](Value v) {
      auto type = dyn_cast<MemRefType>(v.getType());
      if (!type || type.getRank() < 2)
        return true;
      auto [strides, offset] = type.getStridesAndOffset();
      int64_t r = type.getRank();
      return strides[r - 1] == 1 && !type.isDynamicDim(r - 1) &&
             strides[r - 2] == type.getDimSize(r - 1);
    });
    if (!contiguous)
      continue;
    rewriter.setInsertionPoint(op);
    FailureOr<linalg::CollapseResult> collapsed =
        linalg::collapseOpIterationDims(cast<linalg::LinalgOp>(*op), {inner},
                                        rewriter);
    if (succeeded(collapsed))
      rewriter.replaceOp(op, collapsed->results);
  }
  return success();
}

// cf-to-llvm as its pass does it, with AMX tiles among the types: the AMX
// kernels' K loops carry their accumulator tiles as block arguments,
// which the pass's own type converter does not know.
LogicalResult convertControlFlowToLlvm(ModuleOp module) {
  MLIRContext *ctx = module.getContext();
  LLVMTypeConverter converter(ctx);
  converter.addConversion([](amx::TileType type) -> Type {
    return LLVM::LLVMX86AMXType::get(type.getContext());
  });
  RewritePatternSet patterns(ctx);
  cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
  cf::populateAssertToLLVMConversionPattern(converter, patterns);
  LLVMConversionTarget target(*ctx);
  return applyPartialConversion(module, target, std::move(patterns));
}

} // namespace

FailureOr<SmallVector<KernelInfo>> generateKernels(ModuleOp module,
                                                   const TargetChoice &target) {
  // The AMX kernels' tile ops (a dependent dialect of kiln-cpu-codegen;
  // loaded here for the pipeline, which calls this outside a pass).
  module.getContext()->getOrLoadDialect<amx::AMXDialect>();
  SmallVector<func::FuncOp> dispatches;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (!func->hasAttr("kiln.dispatch"))
      return func.emitError("kiln-cpu-codegen expects only kiln.dispatch "
                            "functions (split the host function off first)");
    dispatches.push_back(func);
  }
  SmallVector<KernelInfo> kernels;
  for (func::FuncOp dispatch : dispatches) {
    FailureOr<LoweringConfig> config = LoweringConfig::read(dispatch);
    if (failed(config))
      return failure();
    FailureOr<func::FuncOp> kernel = makeKernelFunction(dispatch);
    if (failed(kernel))
      return failure();
    KernelInfo info;
    info.name = dispatch.getName().str();
    info.bindingCount = dispatch.getNumArguments() + dispatch.getNumResults();
    info.numInputs = dispatch.getNumArguments();
    // As the host plan sizes buffers: i1 is stored as one byte.
    for (Type t : llvm::concat<const Type>(dispatch.getArgumentTypes(),
                                      dispatch.getResultTypes())) {
      auto tensor = cast<RankedTensorType>(t);
      info.bindingSizes.push_back(
          std::max<uint64_t>(8, tensor.getElementTypeBitWidth()) / 8 *
          tensor.getNumElements());
    }
    dispatch.erase();
    if (config->strategy == Strategy::Attention) {
      // Built at memref level: no tiling or bufferization.
      if (failed(emitAttentionKernel(*kernel, *config, target)))
        return failure();
    } else if (failed(tileWorkgroups(*kernel, *config))) {
      return failure();
    }
    int64_t marked = 0;
    if (config->strategy == Strategy::Contraction) {
      WalkResult walk = kernel->walk([&](linalg::LinalgOp op) {
        FailureOr<ContractionLoops> loops = matchContraction(op);
        if (failed(loops))
          return WalkResult::advance();
        // A packed B needs the target's instruction for its layout; so
        // does a B the kernel packs (the configuration's path).
        StringRef path =
            config->packPanels ? StringRef(config->native) : nativePath(*loops);
        if (config->gatherB &&
            (!loops->operandType.isF32() || config->packPanels ||
             !convGatherProducer(op.getDpsInputs()[loops->rhs]))) {
          op->emitOpError("the lowering config asks for B gathered from a "
                          "convolution's input (gather_b), but B is not an "
                          "f32 im2col gather (kiln.conv_gather)");
          return WalkResult::interrupt();
        }
        if (config->packPanels && !canPackPanels(*loops, op)) {
          op->emitOpError("the lowering config asks for B packed in panels "
                          "(pack_b), but B is packed already or is not a "
                          "computed i8/bf16 operand with contiguous lanes "
                          "and A contiguous along k");
          return WalkResult::interrupt();
        }
        if (config->native == "amx") {
          bool packed = config->packPanels ? !loops->amxTiles &&
                                                 loops->kGroup == 1
                                           : loops->amxTiles;
          if (config->gatherB || !amxContractionOk(op, *loops, target) ||
              !packed) {
            op->emitOpError("the lowering config asks for AMX tiles, which "
                            "need bf16 or i8 operands with B packed in AMX "
                            "tile panels by the data tiling (or, with "
                            "pack_b, a B to pack), "
                            "C filled before it, static M, N >= 16, K a "
                            "multiple of 32 bf16 or 64 i8, and CPU '")
                << target.cpu << "' with AMX-"
                << (loops->operandType.isInteger(8) ? "INT8" : "BF16");
            return WalkResult::interrupt();
          }
          op->setAttr(kRegisterTileAttr, UnitAttr::get(op->getContext()));
          ++marked;
          return WalkResult::advance();
        }
        bool supported = path == "vnni"      ? target.hasVnni
                         : path == "dpbf16"  ? target.hasBf16Dot
                         : path == "pmaddwd" ? target.vectorBits >= 256
                                             : true;
        if (!supported) {
          op->emitOpError("reads B packed for the '")
              << path << "' path, which CPU '" << target.cpu
              << "' has no instruction for";
          return WalkResult::interrupt();
        }
        op->setAttr(kRegisterTileAttr, UnitAttr::get(op->getContext()));
        ++marked;
        return WalkResult::advance();
      });
      if (walk.wasInterrupted())
        return failure();
      if (marked == 0)
        return kernel->emitError("the lowering config asks for register "
                                 "tiles but the dispatch has no f32 "
                                 "contraction they apply to");
    }
    if (config->strategy == Strategy::Depthwise) {
      if (failed(markDepthwise(*kernel, *config, target)))
        return failure();
      marked = 1;
    }
    if (config->strategy != Strategy::Scalar &&
        config->strategy != Strategy::Attention &&
        failed(orderLoopsForVectorization(*kernel)))
      return failure();
    if (config->strategy != Strategy::Attention && failed(bufferize(*kernel)))
      return failure();
    // Transposes that move the innermost dim as 16 x 16 register blocks.
    if (config->strategy == Strategy::LoopOrder)
      (void)emitTransposeBlocks(*kernel);
    if (config->strategy == Strategy::Depthwise) {
      if (failed(emitDepthwise(*kernel, *config, target)))
        return failure();
    } else if (marked > 0) {
      SmallVector<linalg::LinalgOp> contractions;
      kernel->walk([&](linalg::LinalgOp op) {
        if (op->hasAttr(kRegisterTileAttr))
          contractions.push_back(op);
      });
      // Untiled copies that were only dead after tiling disappear in
      // bufferization; at least the tiled one must be left.
      if (contractions.empty())
        return kernel->emitError("bufferization lost the register-tiled "
                                 "contraction");
      IRRewriter rewriter(kernel->getContext());
      for (linalg::LinalgOp op : contractions)
        if (config->native == "amx") {
          if (failed(emitAmxContraction(rewriter, op)))
            return failure();
        } else if (failed(emitContractionKernel(rewriter, op, config->tileRows,
                                         config->tileLanes,
                                         config->reductionTile,
                                         target.vectorBits,
                                         config->packPanels
                                             ? StringRef(config->native)
                                             : StringRef(),
                                         config->gatherB,
                                         config->gatherRows,
                                         config->copyLanes)))
          return failure();
      // The kernels gathered their panels from the input (or read a
      // channels-last conv's input unpadded): the whole-tensor gather or
      // pad and its buffer must be unread now, and go.
      {
        SmallVector<linalg::GenericOp> gathers;
        kernel->walk([&](linalg::GenericOp op) {
          if ((config->gatherB && op->hasAttr(kConvGatherAttr)) ||
              op->hasAttr(kChannelsLastPadAttr))
            gathers.push_back(op);
        });
        for (linalg::GenericOp gather : gathers) {
          Value columns = gather.getDpsInits()[0];
          // Views of the columns the kernels no longer read.
          for (bool changed = true; changed;) {
            changed = false;
            for (Operation *user : llvm::make_early_inc_range(columns.getUsers()))
              if (user != gather.getOperation() && isOpTriviallyDead(user)) {
                rewriter.eraseOp(user);
                changed = true;
              }
          }
          if (!llvm::all_of(columns.getUsers(), [&](Operation *user) {
                return user == gather.getOperation();
              }))
            return gather.emitOpError(
                "its whole-tensor result (im2col columns or a padded input) "
                "is still read after the kernel read the input itself");
          Operation *buffer = columns.getDefiningOp();
          rewriter.eraseOp(gather);
          if (isa_and_nonnull<memref::AllocaOp, memref::AllocOp>(buffer) &&
              buffer->use_empty())
            rewriter.eraseOp(buffer);
        }
      }
    }
    FailureOr<int64_t> scratchPerWorkgroup = planScratch(*kernel);
    if (failed(scratchPerWorkgroup))
      return failure();
    if (failed(bindWorkgroups(*kernel)))
      return failure();
    auto counts = (*kernel)->getAttrOfType<DenseI64ArrayAttr>("kiln.workgroups");
    for (int d = 0; d < 3; ++d)
      info.workgroups[d] = counts[d];
    FailureOr<int64_t> scratch =
        bindScratch(*kernel, *scratchPerWorkgroup, counts.asArrayRef());
    if (failed(scratch))
      return failure();
    if (*scratch > 0) {
      info.scratchBytes = *scratch;
      ++info.bindingCount; // the scratch binding comes last
      info.bindingSizes.push_back(*scratch);
    }
    kernels.push_back(info);
  }

  MLIRContext *ctx = module.getContext();
  PassManager pm(ctx);
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createConvertLinalgToLoopsPass());
  pm.addPass(memref::createFoldMemRefAliasOpsPass());
  if (failed(pm.run(module)))
    return failure();
  // 16-bit arithmetic the CPU has no instructions for (bf16 everywhere,
  // f16 without AVX512-FP16) runs in f32 and rounds once per chain.
  SmallVector<Type> emulatedHalves = {Float16Type::get(module.getContext())};
  if (target.hasFp16Arith)
    emulatedHalves.clear();
  emulatedHalves.push_back(BFloat16Type::get(module.getContext()));
  if (failed(widenHalfArithmetic(module, emulatedHalves)))
    return failure();
  pm.clear();
  // bf16 arithmetic outside the contraction kernels (a bf16 region's relu,
  // max pooling, bias adds) computes in f32 and rounds back: one
  // vcvtneps2bf16 with AVX512-BF16, else the integer bit operations of the
  // expansion below. Left to LLVM without AVX512-BF16, bf16
  // arithmetic on a CPU without AVX512-BF16 rounds by calling compiler-rt's
  // __truncsfbf2, which the kernels are not linked with (the artifact
  // would not load). Math functions on 16-bit floats likewise run in f32.
  pm.addPass(math::createMathExtendToSupportedTypes());
  arith::ArithEmulateUnsupportedFloatsOptions emulateBf16;
  emulateBf16.sourceTypeStrs = {"bf16"};
  pm.addPass(arith::createArithEmulateUnsupportedFloats(emulateBf16));
  pm.addPass(createCanonicalizerPass());
  if (failed(pm.run(module)))
    return failure();
  if (failed(checkNoHeap(module)))
    return failure();
  {
    // Transcendentals as polynomials: vectorizable and no libm calls.
    RewritePatternSet patterns(ctx);
    // roundeven (every quantize's rounding) is one vroundps/vrndscaleps
    // where SSE4.1 exists (any AVX target): LLVM only calls libm's
    // roundevenf below that, and the bit-twiddling expansion costs ~25
    // vector instructions per vector (measured: it dominated int8
    // depthwise dispatches' requantizing epilogues).
    // tanh is not expanded (into (1 - e^-2x) / (1 + e^-2x), ~45 AVX2
    // instructions per 8 lanes, 0 for tanh(1e-30) and +0 for -0) but
    // approximated below: MLIR's rational of the clamped argument, within
    // 4 ulp (//tests/e2e:erf_tanh_e2e).
    SmallVector<StringRef> expanded = {"powf", "fpowi", "ipowi", "sinh",
                                       "cosh", "tan",   "ceil",  "round"};
    if (target.vectorBits < 256)
      expanded.push_back("roundeven");
    math::populateExpansionPatterns(patterns, expanded);
    populateMathF32ExpansionPatterns(patterns, [](StringRef) { return true; });
    // erf as Kiln's single-range rational function (ErfApproximation.h)
    // rather than MLIR's three-interval one.
    populateErfApproximationPatterns(patterns);
    populatePolynomialApproximateTanhPattern(patterns);
    // The predicate sees full operation names ("math.exp"); matching bare
    // mnemonics here once left exp/log/sin/cos as scalar libm calls that
    // LLVM cannot vectorize.
    populateMathPolynomialApproximationPatterns(
        patterns, [](StringRef name) {
          return llvm::is_contained(
              {math::TanhOp::getOperationName(), math::ExpOp::getOperationName(),
               math::LogOp::getOperationName(),
               math::SinOp::getOperationName(), math::CosOp::getOperationName(),
               math::ExpM1Op::getOperationName(),
               math::Log1pOp::getOperationName(),
               math::Log2Op::getOperationName(),
               math::AtanOp::getOperationName(),
               math::Atan2Op::getOperationName()},
              name);
        });
    // bf16 conversions as integer bit operations: without AVX512-BF16,
    // LLVM would call compiler-rt's __truncsfbf2, which the kernels are
    // not linked with. With it, LLVM rounds with vcvtneps2bf16 (one
    // instruction instead of about six; denormal results flush to zero,
    // which bf16's 8-bit exponent makes immaterial) and widens with a
    // shift, as the expansion would.
    if (!target.hasBf16Convert)
      arith::populateExpandBFloat16Patterns(patterns);
    if (failed(applyPatternsGreedily(module, std::move(patterns))))
      return module.emitError("math expansion did not converge");
  }
  if (target.hasBf16Convert)
    requestBf16Vectorization(module, target.f32Lanes());
  PassManager lower(ctx);
  // Integer powers (math.ipowi) as small helper functions in the module.
  lower.addPass(createConvertMathToFuncs());
  VectorTransferToSCFOptions vectorToScf;
  vectorToScf.enableFullUnroll(true);
  lower.addPass(createConvertVectorToSCFPass(vectorToScf));
  lower.addPass(memref::createExpandStridedMetadataPass());
  lower.addPass(createLowerAffinePass());
  lower.addPass(createSCFToControlFlowPass());
  ConvertVectorToLLVMPassOptions vectorToLlvm;
  vectorToLlvm.amx = target.hasAmxBf16 || target.hasAmxInt8;
  lower.addPass(createConvertVectorToLLVMPass(vectorToLlvm));
  lower.addPass(createConvertMathToLLVMPass());
  lower.addPass(createArithToLLVMConversionPass());
  lower.addPass(createFinalizeMemRefToLLVMConversionPass());
  if (failed(lower.run(module)) || failed(convertControlFlowToLlvm(module)))
    return failure();
  PassManager finish(ctx);
  ConvertFuncToLLVMPassOptions funcOptions;
  funcOptions.useBarePtrCallConv = true;
  finish.addPass(createConvertFuncToLLVMPass(funcOptions));
  finish.addPass(createReconcileUnrealizedCastsPass());
  if (failed(finish.run(module)))
    return failure();
  applyLoopAnnotations(module);
  bf16MovesAsI16(module);
  emitAbi(module, kernels);
  return kernels;
}

} // namespace mlir::kiln::cpu
