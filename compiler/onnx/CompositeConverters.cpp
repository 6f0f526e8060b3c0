//===- CompositeConverters.cpp - ONNX ops written with several Kiln ops ---===//
//
// OneHot, NonZero (constant inputs only), LRN, Hardmax, Einsum, Attention
// and Trilu have no Kiln op of their own: each is a short composition of
// existing ones, built through a Composer. The graph passes that recognize
// composite patterns (attention, normalizations) see the same ops they
// would see in a model exported without these ONNX ops.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/Composer.h"
#include "compiler/onnx/ConverterRegistry.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <cmath>
#include <limits>
#include <map>

using namespace mlir;

namespace mlir::kiln::onnx_import {
namespace {

/// A constant 0, 1, ..., size - 1 of `elementType`, laid along dim `axis` of
/// a tensor of `rank` whose other dims are 1, so that it broadcasts against
/// an index tensor with size 1 at `axis`.
Value rangeAlong(NodeContext &ctx, Type elementType, int64_t size, int64_t axis,
                 int64_t rank) {
  llvm::SmallVector<int64_t> shape(rank, 1);
  shape[axis] = size;
  auto type = RankedTensorType::get(shape, elementType);
  if (llvm::isa<FloatType>(elementType)) {
    llvm::SmallVector<double> values;
    for (int64_t i = 0; i < size; ++i)
      values.push_back(i);
    return ctx.constant(writeFloats(type, values));
  }
  return ctx.constant(
      writeInts(type, llvm::to_vector(llvm::seq<int64_t>(0, size))));
}

/// `shape` with a size-1 dim inserted at `axis`.
llvm::SmallVector<int64_t> withUnitDimAt(llvm::ArrayRef<int64_t> shape,
                                         int64_t axis) {
  llvm::SmallVector<int64_t> result(shape);
  result.insert(result.begin() + axis, 1);
  return result;
}

/// The product of `dims`, or kDynamic when one of them is.
int64_t productOrDynamic(llvm::ArrayRef<int64_t> dims) {
  int64_t product = 1;
  for (int64_t d : dims) {
    if (ShapedType::isDynamic(d))
      return ShapedType::kDynamic;
    product *= d;
  }
  return product;
}

//===----------------------------------------------------------------------===//
// OneHot
//===----------------------------------------------------------------------===//

/// output[..., j, ...] = on if indices[...] == j else off, with j along
/// `axis` of the output (rank of indices + 1). Negative indices count from
/// the back (opset 11; harmless before). Float indices are compared as they
/// are, as onnxruntime and the ONNX reference implementation do: 1.5 matches
/// no position.
LogicalResult convertOneHot(NodeContext &ctx) {
  if (failed(ctx.requireInputs(3)))
    return failure();
  FailureOr<llvm::SmallVector<double>> depthValues =
      ctx.constantFloats(1, "depth");
  if (failed(depthValues))
    return failure();
  if (depthValues->size() != 1 || (*depthValues)[0] < 1)
    return ctx.error() << "depth must be one positive number";
  int64_t depth = static_cast<int64_t>((*depthValues)[0]);
  RankedTensorType valuesType = ctx.inputType(2);
  if (valuesType.getRank() != 1 || valuesType.getDimSize(0) != 2)
    return ctx.error() << "values must be [off_value, on_value], got "
                       << valuesType;
  RankedTensorType indicesType = ctx.inputType(0);
  int64_t rank = indicesType.getRank() + 1;
  FailureOr<int64_t> axis = normalizeAxis(ctx, ctx.getInt("axis", -1), rank);
  if (failed(axis))
    return failure();

  Composer k{ctx};
  Value indices = ctx.input(0);
  indices = k.select(k.cmp(CompareDirection::lt, indices, k.c(indices, 0)),
                     k.bin<AddOp>(indices, k.c(indices, depth)), indices);
  Value unsqueezed =
      k.reshape(indices, withUnitDimAt(indicesType.getShape(), *axis));
  Value hot =
      k.cmp(CompareDirection::eq, unsqueezed,
            rangeAlong(ctx, indicesType.getElementType(), depth, *axis, rank));
  auto element = [&](int64_t i) {
    Value one = k.op<SliceOp>({ctx.input(2)}, {ctx.namedInts("starts", {i}),
                                               ctx.namedInts("ends", {i + 1}),
                                               ctx.namedInts("steps", {1})});
    return k.reshape(one, {});
  };
  return k.finish(k.select(hot, element(1), element(0)));
}

//===----------------------------------------------------------------------===//
// NonZero
//===----------------------------------------------------------------------===//

/// The coordinates of the non-zero elements, [rank, count] in row-major
/// order. The count depends on the data, so only a constant input (one that
/// folded at import) has a static result; Kiln has no dynamic-shape ops.
LogicalResult convertNonZero(NodeContext &ctx) {
  if (failed(ctx.requireInputs(1)))
    return failure();
  Attribute attr;
  if (!matchPattern(ctx.input(0), m_Constant(&attr)))
    return ctx.error() << "NonZero of a computed tensor has a data-dependent "
                          "shape; Kiln handles NonZero only of a constant "
                          "(or of a tensor that folds to one at import)";
  std::optional<ConstantTensor> data = readConstant(attr);
  if (!data)
    return ctx.error() << "the constant input has more than "
                       << kMaxFoldElements << " elements to fold";
  llvm::ArrayRef<int64_t> shape = data->type.getShape();
  // ONNX runtimes give a scalar one coordinate (always 0), as NumPy does.
  int64_t coordinates = std::max<int64_t>(shape.size(), 1);
  llvm::SmallVector<int64_t> strides = rowMajorStrides(shape);
  llvm::SmallVector<llvm::SmallVector<int64_t>> rows(coordinates);
  for (int64_t i = 0, e = data->type.getNumElements(); i < e; ++i) {
    bool nonZero = data->isFloat ? data->floatAt(i) != 0 : data->intAt(i) != 0;
    if (!nonZero)
      continue;
    if (shape.empty())
      rows[0].push_back(0);
    for (size_t d = 0; d < shape.size(); ++d)
      rows[d].push_back(i / strides[d] % shape[d]);
  }
  int64_t count = rows[0].size();
  llvm::SmallVector<int64_t> flat;
  for (const llvm::SmallVector<int64_t> &row : rows)
    flat.append(row);
  auto type =
      RankedTensorType::get({coordinates, count}, ctx.builder.getI64Type());
  ctx.setResult(
      0, ctx.constant(DenseElementsAttr::get(type, llvm::ArrayRef(flat))));
  return success();
}

//===----------------------------------------------------------------------===//
// LRN
//===----------------------------------------------------------------------===//

/// y = x / (bias + alpha / size * square_sum)^beta, where square_sum sums
/// x^2 over a window of `size` channels around each channel. The window sum
/// is an average pool (counting the zero padding, times size) over x^2
/// viewed as [N, 1, C, prod(D)], so that the channels sit in a spatial dim;
/// alpha / size * (size * average) is alpha * average.
LogicalResult convertLrn(NodeContext &ctx) {
  if (failed(ctx.requireInputs(1)))
    return failure();
  RankedTensorType type = ctx.inputType(0);
  if (type.getRank() < 2)
    return ctx.error() << "expects an input [N, C, D...], got " << type;
  if (!ctx.hasAttr("size") || ctx.getInt("size", 0) < 1)
    return ctx.error() << "needs a positive size attribute";
  int64_t size = ctx.getInt("size", 0);
  double alpha = ctx.getFloat("alpha", 1e-4f);
  double beta = ctx.getFloat("beta", 0.75f);
  double bias = ctx.getFloat("bias", 1.0f);
  // ONNX sums channels [c - floor((size-1)/2), c + ceil((size-1)/2)].
  int64_t before = (size - 1) / 2, after = size - 1 - before;

  Composer k{ctx};
  Value x = ctx.input(0);
  Value view = k.reshape(k.bin<MulOp>(x, x),
                         {type.getDimSize(0), 1, type.getDimSize(1),
                          productOrDynamic(type.getShape().drop_front(2))});
  Value average = k.op<AvgPoolOp>(
      {view}, {ctx.namedInts("kernel_shape", {size, 1}),
               ctx.namedInts("pads", {before, 0, after, 0}),
               ctx.named("count_include_pad", ctx.builder.getBoolAttr(true))});
  Value base = k.bin<AddOp>(
      k.c(x, bias),
      k.bin<MulOp>(k.c(x, alpha), k.reshape(average, type.getShape())));
  return k.finish(k.bin<DivOp>(x, k.bin<PowOp>(base, k.c(x, beta))));
}

//===----------------------------------------------------------------------===//
// Hardmax
//===----------------------------------------------------------------------===//

/// 1 at the first maximum along `axis`, 0 elsewhere: the arg max compared
/// with the positions along the axis.
Value hardmaxAlong(Composer &k, Value x, int64_t axis) {
  NodeContext &ctx = k.ctx;
  auto type = llvm::cast<RankedTensorType>(x.getType());
  int64_t size = type.getDimSize(axis);
  if (ShapedType::isDynamic(size)) {
    ctx.error() << "needs a static size of dim " << axis << ", got " << type;
    k.failedAny = true;
    return nullptr;
  }
  Value argMax = k.op<ArgReduceOp>(
      {x}, {ctx.named("kind", ArgReduceKindAttr::get(ctx.getContext(),
                                                     ArgReduceKind::max)),
            ctx.namedInt("axis", axis),
            ctx.named("keepdims", ctx.builder.getBoolAttr(true))});
  Value positions =
      rangeAlong(ctx, ctx.builder.getI64Type(), size, axis, type.getRank());
  return k.cast(k.cmp(CompareDirection::eq, argMax, positions),
                type.getElementType());
}

/// From opset 13 Hardmax works along one axis (default -1); before, along
/// the input flattened to 2-D at `axis` (default 1), like Softmax.
LogicalResult convertHardmax(NodeContext &ctx) {
  if (failed(ctx.requireInputs(1)))
    return failure();
  Value x = ctx.input(0);
  RankedTensorType type = ctx.inputType(0);
  int64_t rank = type.getRank();
  FailureOr<int64_t> axis =
      normalizeAxis(ctx, ctx.getInt("axis", ctx.opset < 13 ? 1 : -1), rank);
  if (failed(axis))
    return failure();
  Composer k{ctx};
  if (ctx.opset >= 13 || *axis == rank - 1)
    return k.finish(hardmaxAlong(k, x, *axis));
  if (!type.hasStaticShape())
    return ctx.error() << "opset " << ctx.opset
                       << " hardmax over the flattened dims from axis " << *axis
                       << " needs a static input shape, got " << type;
  int64_t outer = productOrDynamic(type.getShape().take_front(*axis));
  int64_t inner = productOrDynamic(type.getShape().drop_front(*axis));
  Value flat = k.reshape(x, {outer, inner});
  Value y = flat ? hardmaxAlong(k, flat, 1) : nullptr;
  return k.finish(k.reshape(y, type.getShape()));
}

//===----------------------------------------------------------------------===//
// Einsum
//===----------------------------------------------------------------------===//

/// Dims of an ellipsis get labels from here on (letters are below 128).
constexpr int kEllipsisLabel = 256;

struct EinsumSpec {
  /// One label per dim of each operand, and of the output.
  llvm::SmallVector<llvm::SmallVector<int>, 2> operands;
  llvm::SmallVector<int> output;
};

/// Parses an Einsum equation against the ranks of its operands. Ellipsis
/// dims are right-aligned across operands (NumPy broadcasting), so the k-th
/// dim from the back of every ellipsis shares a label. Without "->" the
/// output is the ellipsis dims, then the letters used once, in ASCII order.
FailureOr<EinsumSpec> parseEinsum(NodeContext &ctx, llvm::StringRef equation,
                                  llvm::ArrayRef<int64_t> ranks) {
  std::string compact;
  for (char ch : equation)
    if (ch != ' ')
      compact.push_back(ch);
  llvm::StringRef text = compact;
  auto [inputs, output] = text.split("->");
  bool explicitOutput = text.contains("->");
  llvm::SmallVector<llvm::StringRef> terms;
  inputs.split(terms, ',');
  auto fail = [&]() {
    return ctx.error() << "equation '" << equation.str() << "': ";
  };
  if (terms.size() != ranks.size())
    return fail() << "has " << terms.size() << " operand(s), the node "
                  << ranks.size() << " input(s)";

  // Letters of a term, with -1 where the ellipsis is.
  auto letters = [&](llvm::StringRef term,
                     llvm::SmallVector<int> &result) -> LogicalResult {
    bool ellipsis = false;
    for (size_t i = 0; i < term.size(); ++i) {
      if (term.substr(i).starts_with("...")) {
        if (ellipsis)
          return fail() << "'" << term << "' has more than one ellipsis";
        ellipsis = true;
        result.push_back(-1);
        i += 2;
      } else if (llvm::isAlpha(term[i])) {
        result.push_back(term[i]);
      } else {
        return fail() << "unexpected character '" << term.substr(i, 1) << "'";
      }
    }
    return success();
  };

  EinsumSpec spec;
  int64_t ellipsisRank = 0;
  llvm::SmallVector<llvm::SmallVector<int>> parsed(terms.size());
  for (auto [i, term] : llvm::enumerate(terms)) {
    if (failed(letters(term, parsed[i])))
      return failure();
    int64_t named = llvm::count_if(parsed[i], [](int l) { return l >= 0; });
    bool hasEllipsis = named != int64_t(parsed[i].size());
    int64_t extra = ranks[i] - named;
    if (extra < 0 || (!hasEllipsis && extra != 0))
      return fail() << "'" << term << "' does not match the rank " << ranks[i]
                    << " of input #" << i;
    ellipsisRank = std::max(ellipsisRank, extra);
  }
  auto expand = [&](llvm::ArrayRef<int> term, int64_t extra) {
    llvm::SmallVector<int> labels;
    for (int l : term) {
      if (l >= 0) {
        labels.push_back(l);
        continue;
      }
      for (int64_t j = ellipsisRank - extra; j < ellipsisRank; ++j)
        labels.push_back(kEllipsisLabel + j);
    }
    return labels;
  };
  for (auto [i, term] : llvm::enumerate(parsed)) {
    int64_t named = llvm::count_if(term, [](int l) { return l >= 0; });
    spec.operands.push_back(expand(term, ranks[i] - named));
  }

  std::map<int, int> uses;
  for (const llvm::SmallVector<int> &labels : spec.operands) {
    for (int l : labels) {
      if (llvm::count(labels, l) > 1)
        return fail() << "repeated index '" << char(l)
                      << "' within one operand (a diagonal) is not supported";
      ++uses[l];
    }
  }
  if (explicitOutput) {
    llvm::SmallVector<int> term;
    if (failed(letters(output, term)))
      return failure();
    spec.output = expand(term, ellipsisRank);
    for (int l : spec.output) {
      if (llvm::count(spec.output, l) > 1)
        return fail() << "index '" << char(l)
                      << "' appears more than once in the output";
      if (!uses.count(l))
        return fail() << "output index '" << char(l)
                      << "' is not in any operand";
    }
  } else {
    for (int64_t j = 0; j < ellipsisRank; ++j)
      spec.output.push_back(kEllipsisLabel + j);
    for (auto [label, count] : uses)
      if (label < kEllipsisLabel && count == 1)
        spec.output.push_back(label);
  }
  return spec;
}

/// A tensor together with the Einsum label of each of its dims.
struct Labeled {
  Value value;
  llvm::SmallVector<int> labels;
};

/// Einsum of one or two operands, without diagonals: indices only in one
/// operand and not in the output are summed first; then two operands meet
/// in a batched matmul [batch..., M, K] x [batch..., K, N] (M, K, N each the
/// product of their indices), or in a broadcast multiply when no index is
/// contracted; a final transpose gives the output order.
LogicalResult convertEinsum(NodeContext &ctx) {
  if (ctx.numInputs() < 1)
    return ctx.error() << "expects at least one input";
  std::string equation = ctx.getString("equation", "");
  if (ctx.numInputs() > 2)
    return ctx.error() << "equation '" << equation << "' has "
                       << ctx.numInputs()
                       << " operands; Kiln handles Einsum of one or two";
  if (failed(ctx.requireInputs(ctx.numInputs())))
    return failure();
  llvm::SmallVector<int64_t> ranks;
  for (unsigned i = 0; i < ctx.numInputs(); ++i)
    ranks.push_back(ctx.inputType(i).getRank());
  FailureOr<EinsumSpec> spec = parseEinsum(ctx, equation, ranks);
  if (failed(spec))
    return failure();

  // The size of every label; operands must agree (no broadcasting of 1s).
  std::map<int, int64_t> sizes;
  for (auto [i, labels] : llvm::enumerate(spec->operands)) {
    for (auto [d, l] : llvm::enumerate(labels)) {
      int64_t size = ctx.inputType(i).getDimSize(d);
      auto [it, inserted] = sizes.insert({l, size});
      if (!inserted && ShapedType::isDynamic(it->second))
        it->second = size;
      else if (!inserted && !ShapedType::isDynamic(size) && it->second != size)
        return ctx.error() << "equation '" << equation
                           << "': an index has sizes " << it->second << " and "
                           << size
                           << "; broadcasting within Einsum is not supported";
    }
  }
  auto dimsOf = [&](llvm::ArrayRef<int> labels) {
    return llvm::map_to_vector(labels, [&](int l) { return sizes[l]; });
  };
  auto inOutput = [&](int l) { return llvm::is_contained(spec->output, l); };
  Composer k{ctx};
  // Transposes `t` so that its labels come in `order`.
  auto arrange = [&](const Labeled &t, llvm::ArrayRef<int> order) {
    llvm::SmallVector<int64_t> perm;
    for (int l : order)
      perm.push_back(llvm::find(t.labels, l) - t.labels.begin());
    return k.transpose(t.value, perm);
  };

  llvm::SmallVector<Labeled, 2> operands;
  for (auto [i, labels] : llvm::enumerate(spec->operands)) {
    Labeled t{ctx.input(i), labels};
    // Sum away the indices no other operand nor the output has.
    llvm::SmallVector<int64_t> axes;
    llvm::SmallVector<int> kept;
    for (auto [d, l] : llvm::enumerate(labels)) {
      bool elsewhere = inOutput(l);
      for (auto [j, other] : llvm::enumerate(spec->operands))
        elsewhere |= j != i && llvm::is_contained(other, l);
      if (elsewhere)
        kept.push_back(l);
      else
        axes.push_back(d);
    }
    if (!axes.empty()) {
      t.value = k.reduce(ReduceKind::sum, t.value, axes, false);
      t.labels = kept;
    }
    operands.push_back(t);
  }

  Labeled result = operands[0];
  if (operands.size() == 2) {
    const Labeled &a = operands[0], &b = operands[1];
    // Batch, M and N indices follow the output order; K follows a's order.
    llvm::SmallVector<int> batch, m, n, contracted;
    for (int l : spec->output) {
      bool inA = llvm::is_contained(a.labels, l);
      bool inB = llvm::is_contained(b.labels, l);
      (inA && inB ? batch : inA ? m : n).push_back(l);
    }
    for (int l : a.labels)
      if (!inOutput(l))
        contracted.push_back(l);
    llvm::SmallVector<int64_t> batchDims = dimsOf(batch);
    auto concat = [](std::initializer_list<llvm::ArrayRef<int>> parts) {
      llvm::SmallVector<int> all;
      for (llvm::ArrayRef<int> part : parts)
        all.append(part.begin(), part.end());
      return all;
    };
    auto shape = [&](std::initializer_list<llvm::ArrayRef<int64_t>> parts) {
      llvm::SmallVector<int64_t> all(batchDims);
      for (llvm::ArrayRef<int64_t> part : parts)
        all.append(part.begin(), part.end());
      return all;
    };
    result.labels = concat({batch, m, n});
    llvm::SmallVector<int64_t> mDims = dimsOf(m), nDims = dimsOf(n);
    if (contracted.empty()) {
      // An outer product per batch element: [batch, M, 1...] * [batch, 1...,
      // N].
      llvm::SmallVector<int64_t> ones(std::max(m.size(), n.size()), 1);
      Value lhs =
          k.reshape(arrange(a, concat({batch, m})),
                    shape({mDims, llvm::ArrayRef(ones).take_front(n.size())}));
      Value rhs =
          k.reshape(arrange(b, concat({batch, n})),
                    shape({llvm::ArrayRef(ones).take_front(m.size()), nDims}));
      result.value = k.bin<MulOp>(lhs, rhs);
    } else {
      int64_t mSize = productOrDynamic(mDims), nSize = productOrDynamic(nDims);
      int64_t kSize = productOrDynamic(dimsOf(contracted));
      Value lhs = k.reshape(arrange(a, concat({batch, m, contracted})),
                            shape({{mSize, kSize}}));
      Value rhs = k.reshape(arrange(b, concat({batch, contracted, n})),
                            shape({{kSize, nSize}}));
      result.value =
          k.reshape(k.bin<MatmulOp>(lhs, rhs), shape({mDims, nDims}));
    }
  }
  return k.finish(result.value ? arrange(result, spec->output) : nullptr);
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

/// ONNX Attention (opset 23) without a KV cache:
/// softmax(Q K^T * scale + mask) V over heads [batch, heads, seq, head
/// size]. 3-D inputs [batch, seq, heads * head size] are split into heads
/// first and merged back after. With fewer K/V heads than Q heads (grouped
/// query attention) each K/V head serves consecutive Q heads.
LogicalResult convertAttention(NodeContext &ctx) {
  if (failed(ctx.requireInputs(3)) || failed(ctx.requireUnusedOutputsFrom(1)))
    return failure();
  if (ctx.hasInput(4) || ctx.hasInput(5))
    return ctx.error() << "past_key and past_value (a KV cache) are not "
                          "supported";
  if (ctx.numInputs() > 6)
    return ctx.error() << "expects at most 6 inputs, got " << ctx.numInputs();
  if (ctx.getFloat("softcap", 0.0f) != 0.0f)
    return ctx.error() << "softcap != 0 is not supported";
  if (ctx.getInt("qk_matmul_output_mode", 0) != 0)
    return ctx.error() << "qk_matmul_output_mode != 0 is not supported";
  RankedTensorType qType = ctx.inputType(0), kType = ctx.inputType(1),
                   vType = ctx.inputType(2);
  int64_t rank = qType.getRank();
  if ((rank != 3 && rank != 4) || kType.getRank() != rank ||
      vType.getRank() != rank)
    return ctx.error() << "expects Q, K and V all 3-D or all 4-D, got " << qType
                       << ", " << kType << ", " << vType;

  Composer k{ctx};
  Value q = ctx.input(0), key = ctx.input(1), v = ctx.input(2);
  int64_t qHeads, kvHeads;
  if (rank == 3) {
    if (!ctx.hasAttr("q_num_heads") || !ctx.hasAttr("kv_num_heads"))
      return ctx.error() << "3-D inputs need the q_num_heads and "
                            "kv_num_heads attributes";
    qHeads = ctx.getInt("q_num_heads", 0);
    kvHeads = ctx.getInt("kv_num_heads", 0);
    if (qHeads <= 0 || kvHeads <= 0)
      return ctx.error() << "q_num_heads and kv_num_heads must be positive";
    // [B, S, H * D] -> [B, H, S, D].
    auto splitHeads = [&](Value t, RankedTensorType type, int64_t heads) {
      int64_t hidden = type.getDimSize(2);
      int64_t headSize =
          ShapedType::isDynamic(hidden) ? hidden : hidden / heads;
      return k.transpose(k.reshape(t, {type.getDimSize(0), type.getDimSize(1),
                                       heads, headSize}),
                         {0, 2, 1, 3});
    };
    for (auto [type, heads] :
         {std::pair(qType, qHeads), std::pair(kType, kvHeads),
          std::pair(vType, kvHeads)}) {
      int64_t hidden = type.getDimSize(2);
      if (!ShapedType::isDynamic(hidden) && hidden % heads != 0)
        return ctx.error() << "hidden size " << hidden
                           << " is not a multiple of the head count " << heads;
    }
    q = splitHeads(q, qType, qHeads);
    key = splitHeads(key, kType, kvHeads);
    v = splitHeads(v, vType, kvHeads);
  } else {
    qHeads = qType.getDimSize(1);
    kvHeads = kType.getDimSize(1);
  }
  if (!q || !key || !v)
    return failure();
  RankedTensorType headsType = llvm::cast<RankedTensorType>(q.getType());
  int64_t headSize = headsType.getDimSize(3);

  // Grouped query attention: [B, Hkv, S, D] -> [B, Hkv, G, S, D] -> [B, Hq, S,
  // D].
  if (qHeads != kvHeads) {
    if (ShapedType::isDynamic(qHeads) || ShapedType::isDynamic(kvHeads) ||
        qHeads % kvHeads != 0)
      return ctx.error() << "the Q head count " << qHeads
                         << " must be a static multiple of the K/V head count "
                         << kvHeads;
    auto repeat = [&](Value t) {
      auto type = llvm::cast<RankedTensorType>(t.getType());
      llvm::SmallVector<int64_t> shape(type.getShape());
      shape.insert(shape.begin() + 2, 1);
      Value grouped = k.reshape(t, shape);
      shape[2] = qHeads / kvHeads;
      llvm::SmallVector<int64_t> target = llvm::map_to_vector(
          shape, [](int64_t d) { return ShapedType::isDynamic(d) ? -1 : d; });
      Value repeated =
          k.op<BroadcastOp>({grouped}, {ctx.namedInts("shape", target)});
      return k.reshape(repeated, {type.getDimSize(0), qHeads,
                                  type.getDimSize(2), type.getDimSize(3)});
    };
    key = repeat(key);
    v = repeat(v);
  }

  double scale;
  if (ctx.hasAttr("scale")) {
    scale = ctx.getFloat("scale", 1.0f);
  } else if (ShapedType::isDynamic(headSize)) {
    return ctx.error() << "the default scale needs a static head size";
  } else {
    scale = 1.0 / std::sqrt(double(headSize));
  }
  Value scores = k.bin<MulOp>(
      k.bin<MatmulOp>(q, k.transpose(key, {0, 1, 3, 2})), k.c(q, scale));
  if (!scores)
    return failure();
  Value minusInf = k.c(scores, -std::numeric_limits<double>::infinity());
  if (ctx.getInt("is_causal", 0)) {
    auto scoresType = llvm::cast<RankedTensorType>(scores.getType());
    int64_t qLen = scoresType.getDimSize(2), kvLen = scoresType.getDimSize(3);
    if (ShapedType::isDynamic(qLen) || ShapedType::isDynamic(kvLen))
      return ctx.error() << "is_causal needs static sequence lengths, got "
                         << scoresType;
    // Query i sees keys 0..i (the upper-left triangle, no KV cache offset).
    llvm::SmallVector<bool> allowed;
    for (int64_t i = 0; i < qLen; ++i)
      for (int64_t j = 0; j < kvLen; ++j)
        allowed.push_back(j <= i);
    auto maskType =
        RankedTensorType::get({qLen, kvLen}, ctx.builder.getI1Type());
    Value causal =
        ctx.constant(DenseElementsAttr::get(maskType, llvm::ArrayRef(allowed)));
    scores = k.select(causal, scores, minusInf);
  }
  if (ctx.hasInput(3)) {
    Value mask = ctx.input(3);
    // A boolean mask says which keys a query may attend to; a float mask is
    // added to the scores.
    if (ctx.inputType(3).getElementType().isInteger(1))
      scores = k.select(mask, scores, minusInf);
    else
      scores = k.bin<AddOp>(scores, mask);
  }
  Value probs = k.op<SoftmaxOp>({scores}, {ctx.namedInt("axis", -1)});
  Value y = k.bin<MatmulOp>(probs, v);
  if (rank == 3 && y) {
    // [B, Hq, S, Dv] -> [B, S, Hq * Dv].
    auto type = llvm::cast<RankedTensorType>(y.getType());
    int64_t valueSize = type.getDimSize(3);
    y = k.reshape(
        k.transpose(y, {0, 2, 1, 3}),
        {type.getDimSize(0), type.getDimSize(2),
         ShapedType::isDynamic(valueSize) ? valueSize : qHeads * valueSize});
  }
  return k.finish(y);
}

//===----------------------------------------------------------------------===//
// Trilu
//===----------------------------------------------------------------------===//

/// Keeps the elements on and above (upper = 1) or on and below (upper = 0)
/// diagonal k of the last two dims [N, M] and zeroes the rest: a constant
/// i1 mask [N, M] (col - row >= k, or <= k) selects between the input and
/// zero. This is how torch.triu / torch.tril export. k must be constant and
/// N, M static.
LogicalResult convertTrilu(NodeContext &ctx) {
  if (failed(ctx.requireInputs(1)))
    return failure();
  RankedTensorType type = ctx.inputType(0);
  int64_t rank = type.getRank();
  if (rank < 2)
    return ctx.error() << "expects an input of rank >= 2, got " << type;
  int64_t rows = type.getDimSize(rank - 2), cols = type.getDimSize(rank - 1);
  if (ShapedType::isDynamic(rows) || ShapedType::isDynamic(cols))
    return ctx.error() << "needs static last two dims to build its mask, got "
                       << type;
  int64_t diagonal = 0;
  if (ctx.hasInput(1)) {
    FailureOr<llvm::SmallVector<int64_t>> kValues = ctx.constantInts(1, "k");
    if (failed(kValues))
      return failure();
    if (kValues->size() != 1)
      return ctx.error() << "k must hold one value, got " << kValues->size();
    diagonal = kValues->front();
  }
  bool upper = ctx.getInt("upper", 1) != 0;
  llvm::SmallVector<int64_t> mask;
  mask.reserve(rows * cols);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      mask.push_back(upper ? j - i >= diagonal : j - i <= diagonal);
  Value maskValue = ctx.constant(writeInts(
      RankedTensorType::get({rows, cols}, ctx.builder.getI1Type()), mask));
  Value x = ctx.input(0);
  return ctx.setResult(
      0, ctx.create<SelectOp>({maskValue, x, ctx.scalarLike(x, 0)}));
}

const ConverterInfo kConverters[] = {
    {"OneHot", convertOneHot, 9},  {"NonZero", convertNonZero, 9},
    {"LRN", convertLrn},           {"Hardmax", convertHardmax},
    {"Einsum", convertEinsum, 12}, {"Attention", convertAttention, 23},
    {"Trilu", convertTrilu, 14},
};

} // namespace

llvm::ArrayRef<ConverterInfo> getCompositeConverters() { return kConverters; }

} // namespace mlir::kiln::onnx_import
