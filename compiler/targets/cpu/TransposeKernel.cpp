//===- TransposeKernel.cpp - Transposes as register-block shuffles --------===//
#include "compiler/targets/cpu/TransposeKernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::kiln::cpu {

namespace {

constexpr int64_t kBlock = 16;

bool innermostContiguous(MemRefType type) {
  if (!type.hasStaticShape())
    return false;
  auto [strides, offset] = type.getStridesAndOffset();
  return !strides.empty() && strides.back() == 1;
}

LogicalResult rewrite(linalg::TransposeOp op) {
  auto inType = dyn_cast<MemRefType>(op.getInput().getType());
  auto outType = dyn_cast<MemRefType>(op.getInit().getType());
  if (!inType || !outType || !innermostContiguous(inType) ||
      !innermostContiguous(outType) ||
      inType.getElementTypeBitWidth() != 32)
    return failure();
  ArrayRef<int64_t> perm = op.getPermutation();
  ArrayRef<int64_t> shape = outType.getShape();
  if (!transposeRunsAsBlocks(perm, shape))
    return failure();
  int64_t n = perm.size();
  // Output dim j holds the input's innermost dim.
  int64_t j = llvm::find(perm, n - 1) - perm.begin();

  ImplicitLocOpBuilder b(op.getLoc(), op);
  auto index = [&](int64_t i) -> Value {
    return arith::ConstantIndexOp::create(b, i);
  };
  Type element = outType.getElementType();
  auto rowType = VectorType::get({kBlock}, element);
  auto blockType = VectorType::get({kBlock, kBlock}, element);
  Value zeroRow = arith::ConstantOp::create(
      b, DenseElementsAttr::get(rowType, b.getZeroAttr(element)));
  Value zeroBlock = arith::ConstantOp::create(
      b, DenseElementsAttr::get(blockType, b.getZeroAttr(element)));
  auto mask = [&](int64_t lanes) -> Value {
    return vector::ConstantMaskOp::create(
        b, VectorType::get({kBlock}, b.getI1Type()), ArrayRef<int64_t>{lanes});
  };
  // Loops over every output dim but j and the last one.
  SmallVector<Value> outIndex(n);
  {
  OpBuilder::InsertionGuard guard(b);
  for (int64_t k = 0; k < n - 1; ++k) {
    if (k == j)
      continue;
    if (shape[k] == 1) {
      outIndex[k] = index(0);
      continue;
    }
    auto loop = scf::ForOp::create(b, index(0), index(shape[k]), index(1));
    b.setInsertionPointToStart(loop.getBody());
    outIndex[k] = loop.getInductionVar();
  }
  // One block at (oj, ol) of cj x cl valid elements: input rows r < cl
  // (input dim perm[n - 1] at ol + r) of cj elements (along the input's
  // innermost, output dim j); output rows c < cj of cl elements.
  auto emitBlock = [&](Value oj, Value ol, int64_t cj, int64_t cl) {
    Value block = zeroBlock;
    for (int64_t r = 0; r < cl; ++r) {
      SmallVector<Value> inIndex(n);
      for (int64_t k = 0; k < n; ++k)
        inIndex[perm[k]] = k == j ? oj : k == n - 1 ? ol : outIndex[k];
      inIndex[perm[n - 1]] = arith::AddIOp::create(b, ol, index(r));
      Value row =
          cj == kBlock
              ? vector::LoadOp::create(b, rowType, op.getInput(), inIndex)
                    .getResult()
              : vector::MaskedLoadOp::create(b, rowType, op.getInput(),
                                             inIndex, mask(cj), zeroRow)
                    .getResult();
      block = vector::InsertOp::create(b, row, block, ArrayRef<int64_t>{r});
    }
    Value transposed =
        vector::TransposeOp::create(b, block, ArrayRef<int64_t>{1, 0});
    for (int64_t c = 0; c < cj; ++c) {
      SmallVector<Value> at(outIndex);
      at[j] = arith::AddIOp::create(b, oj, index(c));
      at[n - 1] = ol;
      Value row =
          vector::ExtractOp::create(b, transposed, ArrayRef<int64_t>{c});
      if (cl == kBlock)
        vector::StoreOp::create(b, row, op.getInit(), at);
      else
        vector::MaskedStoreOp::create(b, op.getInit(), at, mask(cl), row);
    }
  };
  // Whole blocks in loops; the edges (fewer than 16 left on j or on the
  // last dim) as static partial blocks with masked loads and stores.
  struct Range {
    int64_t begin, end, valid; // blocks at begin, begin + 16, ... < end
  };
  auto ranges = [&](int64_t extent) {
    SmallVector<Range> r;
    int64_t full = extent / kBlock * kBlock;
    if (full > 0)
      r.push_back({0, full, kBlock});
    if (extent > full)
      r.push_back({full, full + 1, extent - full});
    return r;
  };
  for (Range rj : ranges(shape[j])) {
    for (Range rl : ranges(shape[n - 1])) {
      OpBuilder::InsertionGuard inner(b);
      auto loopOver = [&](Range range) -> Value {
        if (range.end - range.begin <= kBlock)
          return index(range.begin);
        auto loop = scf::ForOp::create(b, index(range.begin),
                                       index(range.end), index(kBlock));
        b.setInsertionPointToStart(loop.getBody());
        return loop.getInductionVar();
      };
      Value oj = loopOver(rj);
      Value ol = loopOver(rl);
      emitBlock(oj, ol, rj.valid, rl.valid);
    }
  }
  }
  op.erase();
  return success();
}

} // namespace

bool transposeRunsAsBlocks(ArrayRef<int64_t> perm, ArrayRef<int64_t> shape) {
  int64_t n = perm.size();
  if (n < 2 || static_cast<int64_t>(shape.size()) != n || perm[n - 1] == n - 1)
    return false; // rows stay rows: a plain copy loop vectorizes
  int64_t j = llvm::find(perm, n - 1) - perm.begin();
  int64_t a = shape[j], c = shape[n - 1];
  if (a < kBlock || c < kBlock)
    return false; // a partial block costs a whole one
  int64_t lanes = (a + kBlock - 1) / kBlock * ((c + kBlock - 1) / kBlock) *
                  kBlock * kBlock;
  return 4 * a * c >= 3 * lanes;
}

void alignTransposeTiles(ArrayRef<int64_t> perm, ArrayRef<int64_t> shape,
                         SmallVectorImpl<int64_t> &tiles) {
  if (!transposeRunsAsBlocks(perm, shape) || tiles.size() != shape.size())
    return;
  int64_t n = perm.size();
  int64_t j = llvm::find(perm, n - 1) - perm.begin();
  for (int64_t d : {j, n - 1}) {
    int64_t &tile = tiles[d];
    if (tile > 0 && tile % kBlock != 0)
      tile = (tile + kBlock - 1) / kBlock * kBlock;
    if (tile >= shape[d] || (tile > 0 && shape[d] % tile != 0))
      tile = 0;
  }
}

int64_t emitTransposeBlocks(func::FuncOp kernel) {
  SmallVector<linalg::TransposeOp> transposes;
  kernel.walk([&](linalg::TransposeOp op) {
    if (op.hasPureBufferSemantics())
      transposes.push_back(op);
  });
  int64_t rewritten = 0;
  for (linalg::TransposeOp op : transposes)
    if (succeeded(rewrite(op)))
      ++rewritten;
  if (rewritten > 0) {
    // The blocks as shuffle networks right away: left to the LLVM
    // conversion, they were lowered element by element (256 extracts and
    // inserts per block).
    RewritePatternSet patterns(kernel.getContext());
    vector::populateVectorTransposeLoweringPatterns(
        patterns, vector::VectorTransposeLowering::Shuffle16x16);
    (void)applyPatternsGreedily(kernel, std::move(patterns));
  }
  return rewritten;
}

} // namespace mlir::kiln::cpu
