//===- LibraryCalls.cpp - Contraction dispatches to cuBLASLt calls --------===//
//
// cuBLASLt's GEMMs beat anything this backend generates today, so a
// contraction that one cuBLASLt call computes is that call: the dispatch
// holding it is split, at each call site in the host function, into
//
//   [transposes read in place] -> kiln.gemm_call -> [residual dispatch]
//
// The GEMM is recovered from the contraction's indexing maps rather than
// from op names, so linalg.matmul, linalg.batch_matmul, the broadcasting
// MatMul generic and the im2col conv contraction take the same path: the
// result's last two dims are the rows (m, from operand A) and columns (n,
// from operand B) of D, the one reduction dim is k, and the result's
// leading dims are the batch. An operand is one row-major matrix per batch
// (it holds every non-unit batch dim, in the result's order: stride
// rows x cols) or one matrix for all (no batch dim: stride 0); anything else
// (an operand broadcast over some batch dims but not others) has no single
// batch stride and is refused.
//
// The fused elementwise consumer is matched against what cuBLASLt applies
// itself, `epilogue(alpha * acc + beta * C + bias[col])` with ReLU or
// tanh-GELU (cuBLASLt's GELU is the tanh form, so the erf form is not
// matched). When it matches, the dispatch disappears; otherwise the GEMM
// writes D and the consumer stays as its own dispatch
// (`<dispatch>_epilogue`) for the kernel generator. Splitting a consumer
// (taking its bias but leaving a sigmoid) is not done: the whole consumer
// is either absorbed or kept.
//
// A contraction no call computes (a depthwise/grouped/transposed conv, two
// k dims, a non-zero initial value, f64/f16/integer types, a contraction in
// the dispatch's own loop) stays a dispatch, marked for a generated kernel
// (kGeneratedContractionAttr) with a kiln.kernel_note saying why. Last, a
// dispatch that only pads its input moves into the dispatches that read its
// result, so the kernel generator reads the unpadded input with bounds
// checks instead of running a pad kernel.
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/cuda/LibraryCalls.h"

#include "compiler/pipeline/TargetBackend.h"
#include "compiler/targets/cuda/GpuDataMovement.h"

#include "dialects/kiln/KilnDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/BitVector.h"

#include <cmath>
#include <map>
#include <tuple>
#include <optional>

namespace mlir::kiln::cuda {

namespace {

// One GEMM operand as stored: a row-major `rows x cols` matrix per batch
// (or one for all batches), read from the dispatch argument `arg`.
struct Matrix {
  unsigned arg = 0;
  int64_t rows = 0, cols = 0;
  bool transposed = false; // A stored k x m, B stored n x k
  bool batched = false;    // else batch stride 0
};

// What one contraction dispatch computes, in GemmCall terms.
struct Gemm {
  int64_t batch = 1, m = 0, n = 0, k = 0;
  Matrix a, b;
  std::optional<Matrix> c;      // rows m, cols n
  std::optional<unsigned> bias; // dispatch argument holding n values
  float alpha = 1.0f, beta = 0.0f;
  GemmEpilogue epilogue = GemmEpilogue::none;
  RankedTensorType result; // the contraction's result type
};

// How a contraction dispatch is split.
struct Split {
  Gemm gemm;
  // The residual dispatch (the consumers left to the kernel generator);
  // null when the call needs none. It takes D, then the original
  // arguments `residualArgs`.
  func::FuncOp residual;
  SmallVector<unsigned> residualArgs;
  // Per result of the original dispatch: -1 for D itself, else the
  // residual's result index.
  SmallVector<int> resultSource;
};

// "(f16, f16) -> f32": the element types of a contraction, for errors.
std::string elementTypes(linalg::LinalgOp op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "(";
  llvm::interleaveComma(op.getDpsInputs(), os, [&](Value v) {
    os << getElementTypeOrSelf(v.getType());
  });
  os << ") -> " << getElementTypeOrSelf(op.getDpsInits()[0].getType());
  return text;
}

// The contraction roots of a dispatch: linalg ops with reduction loops
// whose body multiplies and adds (linalg's contraction interface). Other
// reductions (softmax, pooling, grouped convs with window maps) are not
// GEMMs and stay with the kernel generator.
bool isContraction(Operation &op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return linalgOp && linalgOp.getNumReductionLoops() > 0 &&
         linalg::isaContractionOpInterface(linalgOp);
}

// The loop dims an indexing map reads, in result order; nullopt when a
// result is not a plain dim (a constant, a window sum).
std::optional<SmallVector<unsigned>> mapDims(AffineMap map) {
  SmallVector<unsigned> dims;
  for (AffineExpr e : map.getResults()) {
    auto dim = dyn_cast<AffineDimExpr>(e);
    if (!dim)
      return std::nullopt;
    dims.push_back(dim.getPosition());
  }
  return dims;
}

// The GEMM a contraction computes, or a reason why no strided-batched GEMM
// does.
FailureOr<Gemm> analyzeContraction(linalg::LinalgOp op, func::FuncOp func,
                                   std::string &why) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1) {
    why = "it has " + std::to_string(op.getNumDpsInputs()) + " inputs and " +
          std::to_string(op.getNumDpsInits()) + " outputs";
    return failure();
  }
  SmallVector<int64_t> extents = op.getStaticLoopRanges();
  if (llvm::any_of(extents, ShapedType::isDynamic)) {
    why = "it has dynamic loop bounds";
    return failure();
  }
  SmallVector<unsigned> reductions;
  op.getReductionDims(reductions);
  if (reductions.size() != 1) {
    why = "it reduces over " + std::to_string(reductions.size()) +
          " dims (a GEMM has one k)";
    return failure();
  }
  unsigned kDim = reductions.front();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  std::optional<SmallVector<unsigned>> out = mapDims(maps[2]);
  std::optional<SmallVector<unsigned>> in0 = mapDims(maps[0]);
  std::optional<SmallVector<unsigned>> in1 = mapDims(maps[1]);
  if (!out || !in0 || !in1 || out->size() < 2) {
    why = "its operands are not indexed by plain loop dims";
    return failure();
  }
  unsigned rowDim = (*out)[out->size() - 2], colDim = out->back();
  ArrayRef<unsigned> batchDims(out->data(), out->size() - 2);
  bool zeroHasRow = llvm::is_contained(*in0, rowDim);
  SmallVector<unsigned> &aDims = zeroHasRow ? *in0 : *in1;
  SmallVector<unsigned> &bDims = zeroHasRow ? *in1 : *in0;
  unsigned aIndex = zeroHasRow ? 0 : 1;
  if (!llvm::is_contained(aDims, rowDim) || llvm::is_contained(aDims, colDim) ||
      !llvm::is_contained(bDims, colDim) || llvm::is_contained(bDims, rowDim)) {
    why = "no operand holds exactly the result's rows and the other its "
          "columns";
    return failure();
  }
  // Batch dims of extent 1 change no address.
  auto nonUnit = [&](ArrayRef<unsigned> dims) {
    SmallVector<unsigned> kept;
    for (unsigned d : dims)
      if (extents[d] != 1)
        kept.push_back(d);
    return kept;
  };
  SmallVector<unsigned> batch = nonUnit(batchDims);
  auto matrix = [&](ArrayRef<unsigned> dims, unsigned inner, unsigned outer,
                    unsigned index, StringRef name) -> FailureOr<Matrix> {
    Matrix mat;
    Value operand = op.getDpsInputs()[index];
    auto arg = dyn_cast<BlockArgument>(operand);
    if (!arg || arg.getOwner() != &func.getBody().front()) {
      why = ("operand " + name + " is computed inside the dispatch").str();
      return failure();
    }
    mat.arg = arg.getArgNumber();
    size_t r = dims.size();
    if (r < 2) {
      why = ("operand " + name + " is not a matrix").str();
      return failure();
    }
    if (dims[r - 2] == inner && dims[r - 1] == outer) {
      mat.transposed = false;
    } else if (dims[r - 2] == outer && dims[r - 1] == inner) {
      mat.transposed = true;
    } else {
      why = ("operand " + name + "'s last two dims are not its matrix").str();
      return failure();
    }
    mat.rows = extents[dims[r - 2]];
    mat.cols = extents[dims[r - 1]];
    SmallVector<unsigned> lead = nonUnit(dims.drop_back(2));
    if (lead.empty()) {
      mat.batched = false;
    } else if (ArrayRef<unsigned>(lead) == ArrayRef<unsigned>(batch)) {
      mat.batched = true;
    } else {
      why = ("operand " + name +
             " is broadcast over some batch dims but not others (no single "
             "batch stride)")
                .str();
      return failure();
    }
    return mat;
  };
  Gemm gemm;
  FailureOr<Matrix> a = matrix(aDims, rowDim, kDim, aIndex, "A");
  if (failed(a))
    return failure();
  FailureOr<Matrix> b = matrix(bDims, kDim, colDim, 1 - aIndex, "B");
  if (failed(b))
    return failure();
  gemm.a = *a;
  gemm.b = *b;
  gemm.m = extents[rowDim];
  gemm.n = extents[colDim];
  gemm.k = extents[kDim];
  for (unsigned d : batch)
    gemm.batch *= extents[d];
  gemm.result = cast<RankedTensorType>(op->getResult(0).getType());
  return gemm;
}

// --- Epilogue matching -------------------------------------------------------

bool isConstant(Value v, double expected) {
  FloatAttr attr;
  if (!matchPattern(v, m_Constant(&attr)))
    return false;
  double value = attr.getValueAsDouble();
  return std::abs(value - expected) <= 1e-6 * std::max(1.0, std::abs(expected));
}

std::optional<float> constantValue(Value v) {
  FloatAttr attr;
  if (!matchPattern(v, m_Constant(&attr)))
    return std::nullopt;
  return float(attr.getValueAsDouble());
}

// `v = OpTy(x, y)` with `first(x) && second(y)` in either order.
template <typename OpTy, typename F1, typename F2>
bool matchCommutative(Value v, F1 first, F2 second) {
  auto op = v.getDefiningOp<OpTy>();
  if (!op)
    return false;
  Value l = op->getOperand(0), r = op->getOperand(1);
  return (first(l) && second(r)) || (first(r) && second(l));
}

// x * (0.5 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))), as
// kiln-to-linalg writes tanh-GELU (operands in either order); sets `x`.
bool matchTanhGelu(Value v, Value &x) {
  auto outer = v.getDefiningOp<arith::MulFOp>();
  if (!outer)
    return false;
  for (int side = 0; side < 2; ++side) {
    Value candidate = outer->getOperand(side);
    Value cdf = outer->getOperand(1 - side);
    auto isX = [&](Value y) { return y == candidate; };
    auto cube = [&](Value y) {
      return matchCommutative<arith::MulFOp>(y, isX, [&](Value sq) {
        return matchCommutative<arith::MulFOp>(sq, isX, isX);
      });
    };
    auto poly = [&](Value y) {
      return matchCommutative<arith::AddFOp>(y, isX, [&](Value t) {
        return matchCommutative<arith::MulFOp>(
            t, cube, [](Value c) { return isConstant(c, 0.044715); });
      });
    };
    auto tanhOf = [&](Value y) {
      auto t = y.getDefiningOp<math::TanhOp>();
      return t &&
             matchCommutative<arith::MulFOp>(t.getOperand(), poly, [](Value c) {
               return isConstant(c, std::sqrt(2.0 / M_PI));
             });
    };
    bool ok = matchCommutative<arith::MulFOp>(
        cdf,
        [&](Value y) {
          return matchCommutative<arith::AddFOp>(
              y, tanhOf, [](Value c) { return isConstant(c, 1.0); });
        },
        [](Value c) { return isConstant(c, 0.5); });
    if (ok) {
      x = candidate;
      return true;
    }
  }
  return false;
}

// Matches the consumer `generic` of the contraction result `acc` against
// epilogue(alpha * acc + beta * C + bias). Fills alpha/beta/c/bias/epilogue
// of `gemm` and returns true on a match; leaves `gemm` alone otherwise.
bool matchEpilogue(linalg::GenericOp generic, Value acc, func::FuncOp func,
                   Gemm &gemm) {
  unsigned rank = gemm.result.getRank();
  if (generic.getNumLoops() != rank || generic.getNumParallelLoops() != rank ||
      generic.getNumDpsInits() != 1 ||
      !generic.getDpsInits()[0].getDefiningOp<tensor::EmptyOp>() ||
      !generic.getIndexingMapsArray().back().isIdentity() ||
      generic.getResult(0).getType() != gemm.result)
    return false;
  Block &body = generic.getRegion().front();
  Value accArg, cArg, biasArg;
  Gemm trial = gemm;
  for (OpOperand *input : generic.getDpsInputOperands()) {
    AffineMap map = generic.getMatchingIndexingMap(input);
    Value value = input->get();
    Value blockArg = body.getArgument(input->getOperandNumber());
    if (value == acc) {
      if (!map.isIdentity() || accArg)
        return false;
      accArg = blockArg;
      continue;
    }
    auto arg = dyn_cast<BlockArgument>(value);
    if (!arg || arg.getOwner() != &func.getBody().front())
      return false;
    auto type = cast<RankedTensorType>(value.getType());
    std::optional<SmallVector<unsigned>> dims = mapDims(map);
    if (!dims)
      return false;
    if (type.getRank() == 1 && dims->size() == 1 && dims->front() == rank - 1 &&
        !biasArg) {
      biasArg = blockArg;
      trial.bias = arg.getArgNumber();
    } else if (!cArg && type.getRank() >= 2 && dims->size() >= 2 &&
               (*dims)[dims->size() - 2] == rank - 2 &&
               dims->back() == rank - 1 &&
               (map.isIdentity() || dims->size() == 2)) {
      cArg = blockArg;
      Matrix c;
      c.arg = arg.getArgNumber();
      c.rows = gemm.m;
      c.cols = gemm.n;
      c.batched = map.isIdentity() && rank > 2;
      trial.c = c;
    } else {
      return false;
    }
  }
  if (!accArg || body.getNumArguments() != generic.getNumDpsInputs() + 1)
    return false;
  Value v = cast<linalg::YieldOp>(body.getTerminator()).getOperand(0);
  bool relu = false, gelu = false;
  Value inner;
  auto capture = [&](Value x) {
    inner = x;
    return true;
  };
  if (matchCommutative<arith::MaxNumFOp>(
          v, capture, [](Value z) { return isConstant(z, 0.0); })) {
    relu = true;
    v = inner;
  } else if (matchTanhGelu(v, inner)) {
    gelu = true;
    v = inner;
  }
  // The sum: one term from acc (times a constant: alpha), at most one of
  // C (times a constant: beta), at most one bias.
  SmallVector<Value> terms;
  std::function<void(Value)> flatten = [&](Value s) {
    if (auto add = s.getDefiningOp<arith::AddFOp>();
        add && add->getBlock() == &body) {
      flatten(add.getLhs());
      flatten(add.getRhs());
    } else {
      terms.push_back(s);
    }
  };
  flatten(v);
  bool sawAcc = false, sawBias = false, sawC = false;
  for (Value term : terms) {
    auto scaled = [&](Value arg, float &scale) {
      if (term == arg)
        return scale = 1.0f, true;
      auto mul = term.getDefiningOp<arith::MulFOp>();
      if (!mul)
        return false;
      for (int side = 0; side < 2; ++side)
        if (mul->getOperand(side) == arg)
          if (std::optional<float> s = constantValue(mul->getOperand(1 - side)))
            return scale = *s, true;
      return false;
    };
    float scale = 1.0f;
    if (!sawAcc && scaled(accArg, scale)) {
      sawAcc = true;
      trial.alpha = scale;
    } else if (!sawC && cArg && scaled(cArg, scale)) {
      sawC = true;
      trial.beta = scale;
    } else if (!sawBias && biasArg && term == biasArg) {
      sawBias = true;
    } else {
      return false;
    }
  }
  // Every operand read must have been used by the sum.
  if (!sawAcc || sawBias != bool(biasArg) || sawC != bool(cArg) ||
      (cArg && trial.beta == 0.0f))
    return false;
  if (!cArg)
    trial.beta = 0.0f;
  trial.epilogue =
      relu   ? (sawBias ? GemmEpilogue::bias_relu : GemmEpilogue::relu)
      : gelu ? (sawBias ? GemmEpilogue::bias_gelu : GemmEpilogue::gelu)
             : (sawBias ? GemmEpilogue::bias : GemmEpilogue::none);
  gemm = trial;
  return true;
}

// Ops of a dispatch that only set up others (they move with their users).
bool isSetup(Operation &op) {
  if (isa<tensor::EmptyOp, linalg::FillOp>(op))
    return true;
  auto constant = dyn_cast<arith::ConstantOp>(op);
  return constant && !isa<ShapedType>(constant.getType());
}

// Leaves dispatch `func` to the kernel generator: its contraction becomes a
// generated kernel (GpuKernelEmitter: one thread per output element, the
// reduction loops in the thread) because no cuBLASLt call computes it.
// `why` says so in --dump-dispatches and the plan step's label.
std::optional<Split> generateInstead(func::FuncOp func, const Twine &why) {
  func->setAttr(kGeneratedContractionAttr, UnitAttr::get(func.getContext()));
  func->setAttr(kKernelNoteAttr,
                StringAttr::get(func.getContext(),
                                "generated contraction kernel (" + why + ")"));
  return std::nullopt;
}

// A contraction-like op that is not a contraction to linalg (a depthwise,
// grouped or transposed conv read through window maps, a named conv),
// described for the kernel note.
std::string describeConvolution(linalg::LinalgOp op) {
  if (!isa<linalg::GenericOp>(op.getOperation()))
    return op->getName().getStringRef().str() + ", a convolution with no GEMM "
                                                "form";
  return "a convolution through window indexing maps (depthwise, grouped or "
         "transposed): not a GEMM";
}

// Splits dispatch `func` if its root is a contraction cuBLASLt computes:
// nullopt when there is none (a contraction that no call takes is marked
// for a generated kernel); failure when the split itself fails.
FailureOr<std::optional<Split>> splitDispatch(func::FuncOp func,
                                              SymbolTable &symbols) {
  SmallVector<linalg::LinalgOp> contractions;
  linalg::LinalgOp convolution;
  for (Operation &op : func.getBody().front()) {
    if (isContraction(op))
      contractions.push_back(cast<linalg::LinalgOp>(op));
    else if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
             linalgOp && !convolution && isContractionLike(linalgOp))
      convolution = linalgOp;
  }
  // A contraction in a loop of the dispatch (a recurrence run in one
  // kernel) is not at the host's level, where a library call would go.
  bool nested = false;
  func.walk([&](linalg::LinalgOp op) {
    nested |= op->getParentOp() != func.getOperation() &&
              isContractionLike(op);
  });
  if (nested)
    return generateInstead(func, "a contraction inside the dispatch's "
                                 "sequential loop");
  if (contractions.empty()) {
    if (convolution)
      return generateInstead(func, describeConvolution(convolution));
    return std::optional<Split>();
  }
  linalg::LinalgOp root = contractions.front();
  if (contractions.size() > 1)
    return generateInstead(func, Twine(contractions.size()) +
                                     " contractions in one dispatch; a "
                                     "library call computes one");
  if (convolution)
    return generateInstead(func, "a contraction and a convolution in one "
                                 "dispatch");
  // f32 only until mixed precision reaches the GPU (the hook: GemmCall's
  // dtype/compute fields); f16/bf16 tensor-core GEMMs come with it. Other
  // element types (f64, integer) have no cuBLASLt fast path to wait for.
  Type f32 = Float32Type::get(func.getContext());
  bool allF32 = llvm::all_of(root->getOperandTypes(), [&](Type t) {
    return getElementTypeOrSelf(t) == f32;
  });
  if (!allF32)
    return generateInstead(func, elementTypes(root) +
                                     "; library GEMMs here are f32 only");
  std::string why;
  FailureOr<Gemm> gemm = analyzeContraction(root, func, why);
  if (failed(gemm))
    return generateInstead(func, "no strided-batched GEMM computes it: " + why);
  // The result must start from zeros (beta * C is matched separately); a
  // recurrence's contraction accumulates onto its running state instead.
  auto fill = root.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
  if (!fill || !isConstant(fill.getInputs()[0], 0.0) ||
      !fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>())
    return generateInstead(func, "it accumulates into a tensor that is not "
                                 "zero-filled");

  Split split;
  split.gemm = *gemm;
  Value acc = root->getResult(0);
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());

  // The whole consumer as cuBLASLt's epilogue: one generic reading the
  // contraction, returned alone, nothing else in the dispatch.
  SmallVector<Operation *> rest;
  for (Operation &op : func.getBody().front().without_terminator())
    if (&op != root.getOperation() && !isSetup(op))
      rest.push_back(&op);
  if (rest.size() == 1 && acc.hasOneUse() && ret.getNumOperands() == 1 &&
      ret.getOperand(0) == rest.front()->getResult(0))
    if (auto generic = dyn_cast<linalg::GenericOp>(rest.front()))
      if (matchEpilogue(generic, acc, func, split.gemm)) {
        split.resultSource = {-1};
        return std::optional<Split>(std::move(split));
      }

  // Otherwise D is returned by the GEMM and the rest, if any, becomes the
  // residual dispatch (D first, then the arguments it still reads).
  for (Value v : ret.getOperands())
    split.resultSource.push_back(v == acc ? -1 : 0);
  if (rest.empty())
    return std::optional<Split>(std::move(split));
  func::FuncOp residual = func.clone();
  residual.setName((func.getSymName() + "_epilogue").str());
  symbols.insert(residual, std::next(func->getIterator()));
  if (failed(residual.insertArgument(0, split.gemm.result, DictionaryAttr(),
                                     root->getLoc())))
    return failure();
  Block &entry = residual.getBody().front();
  BlockArgument d = entry.getArgument(0);
  Operation *clonedRoot = nullptr;
  for (Operation &op : entry)
    if (isContraction(op))
      clonedRoot = &op;
  clonedRoot->getResult(0).replaceAllUsesWith(d);
  clonedRoot->erase();
  // Drop setup ops nothing uses any more (the fill and its empty).
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(entry)))
    if (isSetup(op) && op.use_empty())
      op.erase();
  // Results that are D itself come from the GEMM.
  auto residualRet = cast<func::ReturnOp>(entry.getTerminator());
  SmallVector<Value> kept;
  int next = 0;
  for (auto [i, v] : llvm::enumerate(residualRet.getOperands())) {
    if (v == d)
      continue;
    kept.push_back(v);
    split.resultSource[i] = next++;
  }
  residualRet->setOperands(kept);
  llvm::BitVector unused(entry.getNumArguments());
  for (BlockArgument arg : entry.getArguments())
    if (arg.use_empty() && arg.getArgNumber() != 0)
      unused.set(arg.getArgNumber());
  SmallVector<Type> results(ValueRange(kept).getTypes());
  if (failed(residual.eraseArguments(unused)))
    return failure();
  residual.setType(FunctionType::get(func.getContext(),
                                     residual.getArgumentTypes(), results));
  for (unsigned i = 1; i < unused.size(); ++i)
    if (!unused.test(i))
      split.residualArgs.push_back(i - 1);
  split.residual = residual;
  return std::optional<Split>(std::move(split));
}

// A dispatch that only swaps the last two dims of its one argument.
bool isMatrixTranspose(func::FuncOp func) {
  linalg::TransposeOp transpose;
  for (Operation &op : func.getBody().front().without_terminator()) {
    if (isSetup(op))
      continue;
    if (transpose || !(transpose = dyn_cast<linalg::TransposeOp>(op)))
      return false;
  }
  if (!transpose || func.getNumArguments() != 1 ||
      transpose.getInput() != func.getArgument(0))
    return false;
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  if (ret.getNumOperands() != 1 ||
      ret.getOperand(0) != transpose.getResult()[0])
    return false;
  ArrayRef<int64_t> perm = transpose.getPermutation();
  int64_t r = perm.size();
  for (int64_t i = 0; i < r - 2; ++i)
    if (perm[i] != i)
      return false;
  return r >= 2 && perm[r - 2] == r - 1 && perm[r - 1] == r - 2;
}

// Reads a transposed host operand in place: `value` produced by a
// transpose dispatch becomes that dispatch's input with the flag flipped.
void foldTranspose(Value &value, Matrix &mat, ModuleOp module) {
  auto call = value.getDefiningOp<func::CallOp>();
  if (!call)
    return;
  auto callee = module.lookupSymbol<func::FuncOp>(call.getCalleeAttr());
  if (!callee || !callee->hasAttr("kiln.dispatch") ||
      !isMatrixTranspose(callee))
    return;
  value = call.getOperand(0);
  mat.transposed = !mat.transposed;
  std::swap(mat.rows, mat.cols);
}

Value buildGemmCall(OpBuilder &b, func::CallOp call, const Gemm &g,
                    ModuleOp module) {
  Matrix a = g.a, bm = g.b;
  Value aValue = call.getOperand(a.arg), bValue = call.getOperand(bm.arg);
  foldTranspose(aValue, a, module);
  foldTranspose(bValue, bm, module);
  Value c = g.c ? call.getOperand(g.c->arg) : Value();
  Value bias = g.bias ? call.getOperand(*g.bias) : Value();
  bool batched = g.batch > 1;
  auto stride = [&](const Matrix &mat) -> int64_t {
    return batched && mat.batched ? mat.rows * mat.cols : 0;
  };
  auto i64 = [&](int64_t v) { return b.getI64IntegerAttr(v); };
  SmallVector<Value> operands = {aValue, bValue};
  if (c)
    operands.push_back(c);
  if (bias)
    operands.push_back(bias);
  return GemmCallOp::create(
      b, call.getLoc(), g.result, operands, i64(g.batch), i64(g.m), i64(g.n),
      i64(g.k), b.getBoolAttr(a.transposed), b.getBoolAttr(bm.transposed),
      i64(a.cols), i64(bm.cols), i64(g.c ? g.c->cols : 0), i64(g.n),
      i64(stride(a)), i64(stride(bm)), i64(g.c ? stride(*g.c) : 0),
      i64(g.m * g.n), b.getF32FloatAttr(g.alpha), b.getF32FloatAttr(g.beta),
      GemmEpilogueAttr::get(b.getContext(), g.epilogue));
}

// A dispatch that only pads its one argument with a constant.
bool isConstantPad(func::FuncOp func) {
  tensor::PadOp pad;
  for (Operation &op : func.getBody().front().without_terminator()) {
    if (isSetup(op))
      continue;
    if (pad || !(pad = dyn_cast<tensor::PadOp>(op)))
      return false;
  }
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  return pad && func.getNumArguments() == 1 &&
         pad.getSource() == func.getArgument(0) &&
         pad.getConstantPaddingValue() && ret.getNumOperands() == 1 &&
         ret.getOperand(0) == pad.getResult();
}

// Where a pad dispatch's result goes: through host reshapes (each used
// once) into one operand of a dispatch call.
struct PadUse {
  func::CallOp consumer;
  unsigned index = 0;
  SmallVector<Operation *> reshapes; // in order, from the pad
};

// `consumer` with its argument `index` padded (and reshaped) inside it: the
// new dispatch takes the pad's source there and starts with the pad
// (cloned from `padFunc`) and the reshapes. Memoized by what it holds, so
// every call site of the same combination shares one dispatch.
func::FuncOp padInside(func::FuncOp consumer, const PadUse &use,
                       func::FuncOp padFunc, SymbolTable &symbols,
                       std::map<std::string, func::FuncOp> &made) {
  std::string key;
  llvm::raw_string_ostream os(key);
  os << consumer.getSymName() << "/" << use.index << "/"
     << padFunc.getSymName();
  for (Operation *reshape : use.reshapes)
    os << "/" << reshape->getName() << reshape->getAttrDictionary()
       << reshape->getResult(0).getType();
  func::FuncOp &merged = made[key];
  if (merged)
    return merged;
  merged = consumer.clone();
  merged.setName((consumer.getSymName() + "_padded").str());
  symbols.insert(merged, std::next(consumer->getIterator()));
  Block &entry = merged.getBody().front();
  unsigned index = use.index;
  (void)merged.insertArgument(index, padFunc.getArgumentTypes().front(),
                              DictionaryAttr(), merged.getLoc());
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  IRMapping map;
  map.map(padFunc.getArgument(0), entry.getArgument(index));
  Block &padBody = padFunc.getBody().front();
  for (Operation &op : padBody.without_terminator())
    b.clone(op, map);
  Value value = map.lookup(padBody.getTerminator()->getOperand(0));
  for (Operation *reshape : use.reshapes) {
    IRMapping step;
    step.map(reshape->getOperand(0), value);
    value = b.clone(*reshape, step)->getResult(0);
  }
  entry.getArgument(index + 1).replaceAllUsesWith(value);
  (void)merged.eraseArgument(index + 1);
  return merged;
}

// A conv's padding as its own dispatch would cost a kernel and a pass over
// memory on the GPU: every call of a constant-pad dispatch whose result
// only feeds other dispatches (the im2col gather, a depthwise conv),
// directly or through host reshapes, moves into those dispatches, where the
// kernel generator reads the source with bounds checks (GpuDataMovement:
// the pad becomes a gather that fuses into its reader).
void foldPadsIntoConsumers(ModuleOp module, SymbolTable &symbols) {
  auto dispatchOf = [&](func::CallOp call) -> func::FuncOp {
    auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
    return callee && callee->hasAttr("kiln.dispatch") && !callee.isExternal()
               ? callee
               : func::FuncOp();
  };
  SmallVector<func::CallOp> pads;
  module.walk([&](func::CallOp call) {
    if (func::FuncOp callee = dispatchOf(call); callee && isConstantPad(callee))
      pads.push_back(call);
  });
  std::map<std::string, func::FuncOp> made;
  for (func::CallOp pad : pads) {
    SmallVector<PadUse> uses;
    bool foldable = !pad.getResult(0).use_empty();
    for (OpOperand &first : pad.getResult(0).getUses()) {
      PadUse use;
      OpOperand *at = &first;
      while (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(
                 at->getOwner()) &&
             at->getOwner()->getResult(0).hasOneUse()) {
        use.reshapes.push_back(at->getOwner());
        at = &*at->getOwner()->getResult(0).getUses().begin();
      }
      use.consumer = dyn_cast<func::CallOp>(at->getOwner());
      use.index = at->getOperandNumber();
      if (!use.consumer || !dispatchOf(use.consumer) ||
          llvm::count(use.consumer.getOperands(), at->get()) != 1) {
        foldable = false;
        break;
      }
      uses.push_back(std::move(use));
    }
    if (!foldable)
      continue;
    func::FuncOp padFunc = dispatchOf(pad);
    for (PadUse &use : uses) {
      func::FuncOp merged =
          padInside(dispatchOf(use.consumer), use, padFunc, symbols, made);
      SmallVector<Value> operands(use.consumer.getOperands());
      operands[use.index] = pad.getOperand(0);
      OpBuilder b(use.consumer);
      auto call =
          func::CallOp::create(b, use.consumer.getLoc(), merged, operands);
      // The merged call computes the pad's nodes too.
      call->setLoc(FusedLoc::get(module.getContext(),
                                 {pad.getLoc(), use.consumer.getLoc()}));
      use.consumer.replaceAllUsesWith(call.getResults());
      use.consumer.erase();
      for (Operation *reshape : llvm::reverse(use.reshapes))
        reshape->erase();
    }
    pad.erase();
  }
}

} // namespace

LogicalResult formLibraryCalls(ModuleOp module) {
  SymbolTable symbols(module);
  SmallVector<func::FuncOp> dispatches;
  for (auto func : module.getOps<func::FuncOp>())
    if (func->hasAttr("kiln.dispatch") && !func.isExternal())
      dispatches.push_back(func);
  bool failedAny = false;
  llvm::DenseMap<Operation *, Split> splits;
  for (func::FuncOp func : dispatches) {
    FailureOr<std::optional<Split>> split = splitDispatch(func, symbols);
    if (failed(split)) {
      failedAny = true;
      continue;
    }
    if (*split)
      splits[func] = std::move(**split);
  }
  if (failedAny)
    return failure();

  SmallVector<func::CallOp> calls;
  module.walk([&](func::CallOp call) {
    auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
    if (callee && splits.count(callee))
      calls.push_back(call);
  });
  for (func::CallOp call : calls) {
    const Split &split =
        splits.find(symbols.lookup<func::FuncOp>(call.getCallee()))->second;
    OpBuilder b(call);
    Value d = buildGemmCall(b, call, split.gemm, module);
    SmallVector<Value> residualResults;
    if (split.residual) {
      SmallVector<Value> operands = {d};
      for (unsigned i : split.residualArgs)
        operands.push_back(call.getOperand(i));
      auto residual =
          func::CallOp::create(b, call.getLoc(), split.residual, operands);
      residualResults.assign(residual.getResults().begin(),
                             residual.getResults().end());
    }
    assert(split.resultSource.size() == call.getNumResults() &&
           "every result of the dispatch has a source");
    for (auto [result, source] :
         llvm::zip_equal(call.getResults(), split.resultSource))
      result.replaceAllUsesWith(source < 0 ? d : residualResults[source]);
    call.erase();
  }
  // Transposes now read in place (dispatches are pure: an unused call
  // goes), then dispatches nobody calls.
  SmallVector<func::CallOp> dead;
  module.walk([&](func::CallOp call) {
    auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
    if (call.use_empty() && callee && callee->hasAttr("kiln.dispatch") &&
        isMatrixTranspose(callee))
      dead.push_back(call);
  });
  for (func::CallOp call : dead)
    call.erase();
  foldPadsIntoConsumers(module, symbols);
  for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
    if (func->hasAttr("kiln.dispatch") &&
        SymbolTable::symbolKnownUseEmpty(func, module))
      func.erase();
  return success();
}

} // namespace mlir::kiln::cuda
