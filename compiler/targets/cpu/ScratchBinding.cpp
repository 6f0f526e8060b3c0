//===- ScratchBinding.cpp - Kernel scratch: stack or an arena binding -----===//
#include "compiler/targets/cpu/ScratchBinding.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/Support/CheckedArithmetic.h"

namespace mlir::kiln::cpu {

namespace {

constexpr int64_t kAlign = 64;
constexpr llvm::StringLiteral kScratchOffsetAttr = "kiln.scratch_offset";

std::optional<int64_t> alignUp(int64_t value) {
  std::optional<int64_t> padded = llvm::checkedAdd<int64_t>(value, kAlign - 1);
  if (!padded)
    return std::nullopt;
  return *padded / kAlign * kAlign;
}

// Whether `alloca` is allocated anew in every iteration of a loop inside
// the kernel. The workgroup loop (a top-level scf.forall) does not count:
// each of its iterations is one workgroup with its own scratch.
bool insideLoop(memref::AllocaOp alloca, func::FuncOp kernel) {
  for (Operation *op = alloca->getParentOp(); op && op != kernel;
       op = op->getParentOp()) {
    if (isa<scf::ForallOp>(op) && op->getParentOp() == kernel)
      continue;
    if (isa<LoopLikeOpInterface>(op))
      return true;
  }
  return false;
}

// Whether the buffer, or a view of it, may outlive the region iteration
// that allocated it: yielded by a terminator or handed to an op with
// regions (a loop's initial value). Conservative: any other op with a
// memref result is followed as if it were a view.
bool mayEscapeIteration(Value buffer) {
  SmallVector<Value> worklist = {buffer};
  DenseSet<Value> seen;
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (!seen.insert(value).second)
      continue;
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (user->hasTrait<OpTrait::IsTerminator>() ||
          isa<RegionBranchOpInterface>(user))
        return true;
      for (Value result : user->getResults())
        if (isa<BaseMemRefType>(result.getType()))
          worklist.push_back(result);
    }
  }
  return false;
}

struct Scratch {
  memref::AllocaOp alloca;
  int64_t bytes = 0;   // static upper bound, 64-byte aligned
  bool movable = false;
};

// A static upper bound of the alloca's size in bytes.
FailureOr<int64_t> boundBytes(memref::AllocaOp alloca, const DataLayout &layout) {
  MemRefType type = alloca.getType();
  uint64_t elementBytes = layout.getTypeSize(type.getElementType());
  if (elementBytes == 0)
    return alloca.emitOpError("scratch buffer of element type ")
           << type.getElementType() << " has no size in memory";
  int64_t bytes = static_cast<int64_t>(elementBytes);
  unsigned dynamicIndex = 0;
  for (int64_t dim : type.getShape()) {
    int64_t extent = dim;
    if (ShapedType::isDynamic(dim)) {
      Value size = alloca.getDynamicSizes()[dynamicIndex++];
      FailureOr<int64_t> bound = ValueBoundsConstraintSet::computeConstantBound(
          presburger::BoundType::UB, ValueBoundsConstraintSet::Variable(size),
          /*stopCondition=*/nullptr, /*closedUB=*/true);
      if (failed(bound))
        return alloca.emitOpError("scratch buffer ")
               << type << " has a dynamic size with no static upper bound";
      extent = std::max<int64_t>(0, *bound);
    }
    std::optional<int64_t> product = llvm::checkedMul<int64_t>(bytes, extent);
    if (!product)
      return alloca.emitOpError("scratch buffer ") << type << " is too large";
    bytes = *product;
  }
  std::optional<int64_t> aligned = alignUp(bytes);
  if (!aligned)
    return alloca.emitOpError("scratch buffer ") << type << " is too large";
  return *aligned;
}

} // namespace

FailureOr<int64_t> planScratch(func::FuncOp kernel, int64_t stackBudget) {
  DataLayout layout = DataLayout::closest(kernel);
  SmallVector<Scratch> buffers;
  int64_t stackBytes = 0;
  WalkResult walk = kernel.walk([&](memref::AllocaOp alloca) {
    FailureOr<int64_t> bytes = boundBytes(alloca, layout);
    if (failed(bytes))
      return WalkResult::interrupt();
    MemRefType type = alloca.getType();
    // memref.view makes identity-layout buffers in the default memory
    // space; one allocated per loop iteration may sit at a fixed offset
    // only if it dies within the iteration.
    bool movable = type.getLayout().isIdentity() && !type.getMemorySpace() &&
                   (!insideLoop(alloca, kernel) ||
                    !mayEscapeIteration(alloca.getResult()));
    buffers.push_back({alloca, *bytes, movable});
    std::optional<int64_t> sum = llvm::checkedAdd<int64_t>(stackBytes, *bytes);
    if (!sum) {
      alloca.emitOpError("scratch is too large");
      return WalkResult::interrupt();
    }
    stackBytes = *sum;
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  // The largest buffers move first, so that tile-sized ones stay on the
  // (hot) stack.
  llvm::stable_sort(buffers, [](const Scratch &a, const Scratch &b) {
    return a.bytes > b.bytes;
  });
  int64_t arenaBytes = 0;
  for (Scratch &buffer : buffers) {
    if (stackBytes <= stackBudget)
      break;
    if (!buffer.movable)
      continue;
    buffer.alloca->setAttr(
        kScratchOffsetAttr,
        IntegerAttr::get(IntegerType::get(kernel.getContext(), 64), arenaBytes));
    arenaBytes += buffer.bytes;
    stackBytes -= buffer.bytes;
  }
  if (stackBytes > stackBudget) {
    InFlightDiagnostic diag = kernel.emitError("needs ")
        << stackBytes << " bytes of stack scratch inside one workgroup, more "
        << "than the " << stackBudget << "-byte stack budget, in buffers that "
        << "cannot move to the scratch binding";
    for (Scratch &buffer : buffers)
      if (!buffer.movable)
        diag.attachNote(buffer.alloca.getLoc())
            << buffer.bytes << " bytes of " << buffer.alloca.getType()
            << (insideLoop(buffer.alloca, kernel)
                    ? ", allocated in a loop and carried across iterations"
                    : ", not a plain buffer");
    return failure();
  }
  return arenaBytes;
}

FailureOr<int64_t> bindScratch(func::FuncOp kernel, int64_t bytesPerWorkgroup,
                               ArrayRef<int64_t> workgroups) {
  Block &entry = kernel.getBody().front();
  // Stack buffers allocated in a loop but dead at the end of each iteration
  // move to the kernel's entry: LLVM reuses only entry-block allocas, one in
  // a loop body would grow the stack on every iteration.
  SmallVector<memref::AllocaOp> hoist;
  kernel.walk([&](memref::AllocaOp alloca) {
    if (!alloca->hasAttr(kScratchOffsetAttr) &&
        alloca.getType().hasStaticShape() && insideLoop(alloca, kernel) &&
        !mayEscapeIteration(alloca.getResult()))
      hoist.push_back(alloca);
  });
  for (memref::AllocaOp alloca : hoist)
    alloca->moveBefore(&entry, entry.begin());
  if (bytesPerWorkgroup == 0)
    return 0;
  std::optional<int64_t> total = bytesPerWorkgroup;
  for (int64_t count : workgroups)
    if (total)
      total = llvm::checkedMul<int64_t>(*total, count);
  if (!total || *total > kMaxArenaScratchBytes)
    return kernel.emitError("needs ")
           << bytesPerWorkgroup << " bytes of scratch per workgroup for "
           << workgroups[0] << "x" << workgroups[1] << "x" << workgroups[2]
           << " workgroups, more than the " << kMaxArenaScratchBytes
           << " bytes a dispatch may take from the arena";
  MLIRContext *ctx = kernel.getContext();
  Location loc = kernel.getLoc();
  // Bindings come first, the three workgroup ids last: the scratch binding
  // is the last binding.
  unsigned index = entry.getNumArguments() - 3;
  auto type = MemRefType::get({*total}, IntegerType::get(ctx, 8));
  OpBuilder builder(ctx);
  DictionaryAttr attrs = builder.getDictionaryAttr(
      builder.getNamedAttr("llvm.noalias", builder.getUnitAttr()));
  if (failed(kernel.insertArgument(index, type, attrs, loc)))
    return kernel.emitError("could not add the scratch binding");
  Value scratch = entry.getArgument(index);
  // This workgroup's slice: (x + cx * (y + cy * z)) * bytesPerWorkgroup.
  builder.setInsertionPointToStart(&entry);
  auto constant = [&](int64_t v) {
    return arith::ConstantIndexOp::create(builder, loc, v).getResult();
  };
  Value x = entry.getArgument(index + 1), y = entry.getArgument(index + 2),
        z = entry.getArgument(index + 3);
  Value linear = arith::AddIOp::create(
      builder, loc, y, arith::MulIOp::create(builder, loc, z, constant(workgroups[1])));
  linear = arith::AddIOp::create(
      builder, loc, x, arith::MulIOp::create(builder, loc, linear, constant(workgroups[0])));
  Value base = arith::MulIOp::create(builder, loc, linear,
                                     constant(bytesPerWorkgroup));
  SmallVector<memref::AllocaOp> planned;
  kernel.walk([&](memref::AllocaOp alloca) {
    if (alloca->hasAttr(kScratchOffsetAttr))
      planned.push_back(alloca);
  });
  for (memref::AllocaOp alloca : planned) {
    int64_t offset =
        alloca->getAttrOfType<IntegerAttr>(kScratchOffsetAttr).getInt();
    builder.setInsertionPoint(alloca);
    Value shift = arith::AddIOp::create(builder, alloca.getLoc(), base,
                                        constant(offset));
    Value view = memref::ViewOp::create(builder, alloca.getLoc(),
                                        alloca.getType(), scratch, shift,
                                        alloca.getDynamicSizes());
    alloca.replaceAllUsesWith(view);
    alloca.erase();
  }
  kernel->setAttr("kiln.scratch_bytes",
                  IntegerAttr::get(IntegerType::get(ctx, 64), *total));
  return *total;
}

} // namespace mlir::kiln::cpu
