//===- ContractionOps.cpp - Kiln matmul, conv and pooling ops -------------===//
//
// Type inference for the ops that slide or contract over dimensions:
// matmul, conv, max_pool and avg_pool. The shape rules themselves live in
// ShapeInference.cpp, where they are unit tested. matmul and conv on i8
// operands are integer contractions with an i32 result: an i8 result could
// not hold the sums.
//
//===----------------------------------------------------------------------===//

#include "dialects/kiln/KilnDialect.h"
#include "dialects/kiln/OpHelpers.h"

using namespace mlir;
using namespace mlir::kiln;

namespace {

// The result element type of a contraction of `operand` elements.
Type contractionResultElement(Type operand) {
  if (operand.isInteger(8))
    return IntegerType::get(operand.getContext(), 32);
  return operand;
}

// A conv's optional bias: rank 1, `channels` values (the filter's output
// channels) of the result's element type.
LogicalResult checkConvBias(std::optional<Location> loc, StringRef name,
                            Value bias, Type resultElement, int64_t channels) {
  if (!bias)
    return success();
  auto biasType = llvm::cast<RankedTensorType>(bias.getType());
  if (biasType.getElementType() != resultElement) {
    std::string message;
    llvm::raw_string_ostream os(message);
    os << "bias element type " << biasType.getElementType()
       << " is not the result element type " << resultElement;
    return inferenceError(loc, name, os.str());
  }
  if (biasType.getRank() != 1 ||
      (!ShapedType::isDynamic(biasType.getDimSize(0)) &&
       !ShapedType::isDynamic(channels) && biasType.getDimSize(0) != channels))
    return inferenceError(
        loc, name,
        "bias shape " + shape::formatShape(biasType.getShape()) + " is not " +
            shape::formatShape(ArrayRef<int64_t>(channels)) +
            " (the filter's output channels)");
  return success();
}

} // namespace

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::inferReturnTypes(MLIRContext *context,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  if (failed(prepareForInference<MatmulOp>(context, loc, adaptor)))
    return failure();
  if (failed(checkSameElementType(loc, getOperationName(), "lhs",
                                  adaptor.getLhs().getType(), "rhs",
                                  adaptor.getRhs().getType())))
    return failure();
  auto lhs = llvm::cast<RankedTensorType>(adaptor.getLhs().getType());
  auto rhs = llvm::cast<RankedTensorType>(adaptor.getRhs().getType());
  return pushInferredType(loc, getOperationName(),
                          shape::matmul(lhs.getShape(), rhs.getShape()),
                          contractionResultElement(lhs.getElementType()), types);
}

//===----------------------------------------------------------------------===//
// AttentionOp
//===----------------------------------------------------------------------===//

// Static shapes only: the op is formed after shapes are known, for a
// kernel whose tiles follow them.
LogicalResult AttentionOp::verify() {
  auto q = getQuery().getType(), kt = getKeyT().getType(),
       v = getValue().getType(), out = getOutput().getType();
  for (auto [name, type] : {std::pair<StringRef, RankedTensorType>("query", q),
                            {"key_t", kt}, {"value", v}, {"output", out}}) {
    if (!type.hasStaticShape())
      return emitOpError() << name << " must have a static shape, got " << type;
    if (type.getRank() < 2)
      return emitOpError() << name << " must have rank >= 2, got " << type;
  }
  int64_t rank = q.getRank();
  if (kt.getRank() != rank || v.getRank() != rank || out.getRank() != rank)
    return emitOpError() << "query, key_t, value and output must have one "
                            "rank, got "
                         << q << ", " << kt << ", " << v << " and " << out;
  for (int64_t d = 0; d < rank - 2; ++d)
    if (kt.getDimSize(d) != q.getDimSize(d) ||
        v.getDimSize(d) != q.getDimSize(d))
      return emitOpError() << "batch dim " << d
                           << " differs between query, key_t and value: "
                           << q << ", " << kt << ", " << v;
  int64_t depth = q.getDimSize(rank - 1);
  int64_t sk = kt.getDimSize(rank - 1);
  if (kt.getDimSize(rank - 2) != depth)
    return emitOpError() << "key_t " << kt << " is not [..., " << depth
                         << ", Sk] (query's head size " << depth << ")";
  if (v.getDimSize(rank - 2) != sk)
    return emitOpError() << "value " << v << " is not [..., " << sk
                         << ", Dv] (key_t's " << sk << " keys)";
  SmallVector<int64_t> expected(q.getShape());
  expected.back() = v.getDimSize(rank - 1);
  if (out.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError() << "output " << out << " is not "
                         << shape::formatShape(expected);
  if (Value mask = getMask()) {
    auto m = cast<RankedTensorType>(mask.getType());
    SmallVector<int64_t> scores(q.getShape());
    scores.back() = sk;
    if (!m.hasStaticShape() || m.getRank() != rank ||
        llvm::any_of(llvm::seq<int64_t>(0, rank), [&](int64_t d) {
          return m.getDimSize(d) != 1 && m.getDimSize(d) != scores[d];
        }))
      return emitOpError() << "mask " << m << " must have rank " << rank
                           << " and each dim 1 or that of the scores "
                           << shape::formatShape(scores);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// ConvOp
//===----------------------------------------------------------------------===//

int64_t ConvOp::getNumSpatialDims() {
  return std::max<int64_t>(0, getInput().getType().getRank() - 2);
}

SmallVector<int64_t> ConvOp::getStridesOrDefault() {
  return valuesOrFill(getStrides(), getNumSpatialDims(), 1);
}

SmallVector<int64_t> ConvOp::getDilationsOrDefault() {
  return valuesOrFill(getDilations(), getNumSpatialDims(), 1);
}

SmallVector<int64_t> ConvOp::getPadsOrDefault() {
  return valuesOrFill(getPads(), 2 * getNumSpatialDims(), 0);
}

LogicalResult ConvOp::inferReturnTypes(MLIRContext *context,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  if (failed(prepareForInference<ConvOp>(context, loc, adaptor)))
    return failure();
  StringRef name = getOperationName();
  if (failed(checkSameElementType(loc, name, "input", adaptor.getInput().getType(),
                                  "filter", adaptor.getFilter().getType())))
    return failure();
  auto input = llvm::cast<RankedTensorType>(adaptor.getInput().getType());
  auto filter = llvm::cast<RankedTensorType>(adaptor.getFilter().getType());
  int64_t spatial = std::max<int64_t>(0, input.getRank() - 2);
  shape::ShapeOrError result = shape::conv(
      input.getShape(), filter.getShape(),
      valuesOrFill(adaptor.getStrides(), spatial, 1),
      valuesOrFill(adaptor.getDilations(), spatial, 1),
      valuesOrFill(adaptor.getPads(), 2 * spatial, 0), adaptor.getGroups());
  if (!result.ok())
    return inferenceError(loc, name, result.error);
  Type resultElement = contractionResultElement(input.getElementType());
  if (failed(checkConvBias(loc, name, adaptor.getBias(), resultElement,
                           filter.getDimSize(0))))
    return failure();
  types.push_back(RankedTensorType::get(result.shape, resultElement));
  return success();
}

//===----------------------------------------------------------------------===//
// ConvNhwcOp
//===----------------------------------------------------------------------===//

SmallVector<int64_t> ConvNhwcOp::getStridesOrDefault() {
  return valuesOrFill(getStrides(), 2, 1);
}

SmallVector<int64_t> ConvNhwcOp::getDilationsOrDefault() {
  return valuesOrFill(getDilations(), 2, 1);
}

SmallVector<int64_t> ConvNhwcOp::getPadsOrDefault() {
  return valuesOrFill(getPads(), 4, 0);
}

LogicalResult ConvNhwcOp::inferReturnTypes(MLIRContext *context,
                                           std::optional<Location> loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &types) {
  if (failed(prepareForInference<ConvNhwcOp>(context, loc, adaptor)))
    return failure();
  StringRef name = getOperationName();
  if (failed(checkSameElementType(loc, name, "input", adaptor.getInput().getType(),
                                  "filter", adaptor.getFilter().getType())))
    return failure();
  auto input = llvm::cast<RankedTensorType>(adaptor.getInput().getType());
  auto filter = llvm::cast<RankedTensorType>(adaptor.getFilter().getType());
  if (input.getRank() != 4 || filter.getRank() != 4)
    return inferenceError(loc, name,
                          "needs a rank-4 NHWC input and a rank-4 HWIO "
                          "filter, got input " +
                              shape::formatShape(input.getShape()) +
                              " and filter " +
                              shape::formatShape(filter.getShape()));
  ArrayRef<int64_t> x = input.getShape(), w = filter.getShape();
  if (!ShapedType::isDynamic(x[3]) && !ShapedType::isDynamic(w[2]) &&
      x[3] != w[2])
    return inferenceError(
        loc, name,
        "input channel count " + std::to_string(x[3]) +
            " (dimension 3 of NHWC input " + shape::formatShape(x) +
            ") does not equal dimension 2 (" + std::to_string(w[2]) +
            ") of HWIO filter " + shape::formatShape(w));
  // The shape rule is kiln.conv's on the channels-first views.
  SmallVector<int64_t> nchw = {x[0], x[3], x[1], x[2]};
  SmallVector<int64_t> oihw = {w[3], w[2], w[0], w[1]};
  shape::ShapeOrError result = shape::conv(
      nchw, oihw, valuesOrFill(adaptor.getStrides(), 2, 1),
      valuesOrFill(adaptor.getDilations(), 2, 1),
      valuesOrFill(adaptor.getPads(), 4, 0), /*groups=*/1);
  if (!result.ok())
    return inferenceError(loc, name, result.error);
  Type element = input.getElementType();
  if (failed(checkConvBias(loc, name, adaptor.getBias(), element, w[3])))
    return failure();
  ArrayRef<int64_t> o = result.shape;
  types.push_back(
      RankedTensorType::get({o[0], o[2], o[3], o[1]}, element));
  return success();
}

//===----------------------------------------------------------------------===//
// Pooling ops
//===----------------------------------------------------------------------===//

namespace {

template <typename PoolOp>
LogicalResult inferPool(std::optional<Location> loc,
                        typename PoolOp::Adaptor adaptor,
                        SmallVectorImpl<Type> &types) {
  auto input = llvm::cast<RankedTensorType>(adaptor.getInput().getType());
  int64_t spatial = static_cast<int64_t>(adaptor.getKernelShape().size());
  shape::ShapeOrError result = shape::pool(
      input.getShape(), adaptor.getKernelShape(),
      valuesOrFill(adaptor.getStrides(), spatial, 1),
      valuesOrFill(adaptor.getDilations(), spatial, 1),
      valuesOrFill(adaptor.getPads(), 2 * spatial, 0), adaptor.getCeilMode());
  return pushInferredType(loc, PoolOp::getOperationName(), result,
                          input.getElementType(), types);
}

} // namespace

LogicalResult MaxPoolOp::inferReturnTypes(MLIRContext *context,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  if (failed(prepareForInference<MaxPoolOp>(context, loc, adaptor)))
    return failure();
  return inferPool<MaxPoolOp>(loc, adaptor, types);
}

LogicalResult AvgPoolOp::inferReturnTypes(MLIRContext *context,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  if (failed(prepareForInference<AvgPoolOp>(context, loc, adaptor)))
    return failure();
  return inferPool<AvgPoolOp>(loc, adaptor, types);
}

#define KILN_POOL_DEFAULTS(OpClass)                                            \
  SmallVector<int64_t> OpClass::getStridesOrDefault() {                        \
    return valuesOrFill(getStrides(), getKernelShape().size(), 1);             \
  }                                                                            \
  SmallVector<int64_t> OpClass::getDilationsOrDefault() {                      \
    return valuesOrFill(getDilations(), getKernelShape().size(), 1);           \
  }                                                                            \
  SmallVector<int64_t> OpClass::getPadsOrDefault() {                           \
    return valuesOrFill(getPads(), 2 * getKernelShape().size(), 0);            \
  }

KILN_POOL_DEFAULTS(MaxPoolOp)
KILN_POOL_DEFAULTS(AvgPoolOp)

#undef KILN_POOL_DEFAULTS

//===----------------------------------------------------------------------===//
// GemmCallOp
//===----------------------------------------------------------------------===//

LogicalResult GemmCallOp::verify() {
  auto d = cast<RankedTensorType>(getD().getType());
  Type element = d.getElementType();
  int64_t batch = getBatch(), m = getM(), n = getN(), k = getK();
  if (batch < 1 || m < 1 || n < 1 || k < 1)
    return emitOpError("batch, m, n and k must be at least 1");
  auto check = [&](Value value, StringRef name, int64_t rows, int64_t cols,
                   int64_t ld, int64_t batchStride) -> LogicalResult {
    auto type = cast<RankedTensorType>(value.getType());
    if (!type.hasStaticShape())
      return emitOpError("operand '") << name << "' has a dynamic shape";
    if (type.getElementType() != element)
      return emitOpError("operand '")
             << name << "' has element type " << type.getElementType()
             << ", the result " << element;
    if (ld < cols)
      return emitOpError("ld") << name << " = " << ld << " is less than the "
                               << cols << " columns of the stored matrix";
    if (batchStride < 0)
      return emitOpError("batch_stride_") << name << " is negative";
    // The last element read: (batch-1) * stride + (rows-1) * ld + cols.
    int64_t extent = (batch - 1) * batchStride + (rows - 1) * ld + cols;
    if (extent > type.getNumElements())
      return emitOpError("operand '")
             << name << "' holds " << type.getNumElements()
             << " elements; the call reads " << extent;
    return success();
  };
  if (failed(check(getA(), "a", getTransposeA() ? k : m,
                   getTransposeA() ? m : k, getLda(), getBatchStrideA())) ||
      failed(check(getB(), "b", getTransposeB() ? n : k,
                   getTransposeB() ? k : n, getLdb(), getBatchStrideB())))
    return failure();
  size_t expected = 2 + (hasC() ? 1 : 0) + (hasBias() ? 1 : 0);
  if (getOperands().size() != expected)
    return emitOpError("takes a, b")
           << (hasC() ? ", c (beta is not 0)" : "")
           << (hasBias() ? ", bias (the epilogue adds one)" : "") << ": "
           << expected << " operands, not " << getOperands().size();
  if (getC() && failed(check(getC(), "c", m, n, getLdc(), getBatchStrideC())))
    return failure();
  if (getBias()) {
    auto bias = cast<RankedTensorType>(getBias().getType());
    if (bias.getElementType() != element || !bias.hasStaticShape() ||
        bias.getNumElements() != n)
      return emitOpError("bias must hold n = ")
             << n << " elements of " << element;
  }
  int64_t ldd = getLdd(), batchStrideD = getBatchStrideD();
  if (!d.hasStaticShape() || d.getNumElements() != batch * m * n ||
      ldd != n || (batch > 1 && batchStrideD != m * n))
    return emitOpError("result must be a dense batch x m x n = ")
           << batch << "x" << m << "x" << n
           << " tensor (ldd = n, batch_stride_d = m * n)";
  return success();
}
