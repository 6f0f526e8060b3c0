//===- ShapeInference.h - Pure shape functions for the Kiln dialect -------===//
//
// This file declares the shape arithmetic behind result-type inference of the
// Kiln dialect's operations (broadcasting, matmul, convolution, pooling,
// reductions, data movement, ...).
//
// The functions operate on plain `int64_t` dimension lists and deliberately do
// not depend on MLIR IR: the op verifiers and `inferReturnTypes` hooks wrap
// them, and the unit tests exercise them directly without building a context.
// A dimension whose size is unknown at compile time is `kDynamic`, which has
// the same value as `mlir::ShapedType::kDynamic`, so shapes can be passed to
// and from `ShapedType::getShape()` / `RankedTensorType::get()` unchanged.
//
// Every function that can fail returns a `ShapeOrError`, whose message is a
// lower-case sentence fragment suitable for `emitOpError() << message`.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECTS_KILN_SHAPEINFERENCE_H
#define KILN_DIALECTS_KILN_SHAPEINFERENCE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

namespace mlir::kiln::shape {

/// A dimension whose size is unknown at compile time; equal to
/// mlir::ShapedType::kDynamic. Never do arithmetic on it.
inline constexpr int64_t kDynamic = std::numeric_limits<int64_t>::min();

/// A tensor shape; six inline dims cover every layout the dialect uses
/// (N-D convolution with up to four spatial dims) without heap allocation.
using Shape = llvm::SmallVector<int64_t, 6>;

/// A shape, or the reason none exists. `error` is a complete lower-case
/// sentence fragment naming the offending operand/dimension/value, e.g.
/// "operand shapes [2, 3] and [4] are not broadcast-compatible: dimension 1
/// (3) vs dimension 0 (4)".
struct ShapeOrError {
  Shape shape;
  std::string error;

  bool ok() const { return error.empty(); }
  static ShapeOrError success(Shape s);
  static ShapeOrError failure(std::string message);
};

/// Formats a shape as "[2, ?, 3]" for messages (kDynamic prints as "?").
std::string formatShape(llvm::ArrayRef<int64_t> shape);

/// Returns axis in [0, rank) for axis in [-rank, rank), or std::nullopt.
std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank);

/// NumPy (multidirectional) broadcasting of any number of shapes: shapes are
/// right-aligned, a dim of 1 stretches, kDynamic against a static d > 1 gives
/// d, and kDynamic against 1 or kDynamic gives kDynamic. Broadcasting no shapes
/// at all gives the scalar shape [].
ShapeOrError broadcast(llvm::ArrayRef<llvm::ArrayRef<int64_t>> shapes);
ShapeOrError broadcast(llvm::ArrayRef<int64_t> lhs,
                       llvm::ArrayRef<int64_t> rhs);

/// Unidirectional broadcast of `input` to exactly `target`: input rank must be
/// <= target rank and every right-aligned input dim must be 1 or equal to the
/// target dim (kDynamic on either side is compatible with anything). The
/// result is `target`.
ShapeOrError broadcastTo(llvm::ArrayRef<int64_t> input,
                         llvm::ArrayRef<int64_t> target);

/// numpy.matmul: rank-1 operands are promoted (lhs [k] -> [1, k], rhs [k] ->
/// [k, 1]) and the promoted dim is removed from the result; batch dims
/// broadcast; contraction sizes must match (kDynamic matches anything).
/// Rank-0 operands are an error.
ShapeOrError matmul(llvm::ArrayRef<int64_t> lhs, llvm::ArrayRef<int64_t> rhs);

/// Output size of one spatial dim of a sliding window (conv, pooling):
///   effective = dilation * (window - 1) + 1
///   floor mode: (in + padBegin + padEnd - effective) / stride + 1
///   ceil mode:  ceil((in + padBegin + padEnd - effective) / stride) + 1, and
///               then, as in ONNX and PyTorch, if the last window would start
///               at or past in + padBegin, it is dropped (out -= 1).
/// Divisions round towards the stated direction also for negative numerators.
/// Returns kDynamic when `in` is kDynamic. Returns a value < 1 when the window
/// does not fit; callers report that. Invalid parameters (window, stride or
/// dilation < 1) and int64 overflow also yield 0 rather than UB.
int64_t windowOutputSize(int64_t in, int64_t window, int64_t stride,
                         int64_t dilation, int64_t padBegin, int64_t padEnd,
                         bool ceilMode);

/// N-D convolution in ONNX layout: input [N, C, D1..Dn], filter
/// [M, C/groups, K1..Kn], strides/dilations of size n, pads of size 2n ordered
/// [b1..bn, e1..en]. Result [N, M, O1..On]. An output dim is kDynamic when the
/// input dim or the filter dim it depends on is kDynamic.
ShapeOrError conv(llvm::ArrayRef<int64_t> input, llvm::ArrayRef<int64_t> filter,
                  llvm::ArrayRef<int64_t> strides,
                  llvm::ArrayRef<int64_t> dilations,
                  llvm::ArrayRef<int64_t> pads, int64_t groups);

/// N-D pooling: input [N, C, D1..Dn], kernel of size n, strides/dilations of
/// size n, pads of size 2n. Result [N, C, O1..On]. Same checks as conv.
ShapeOrError pool(llvm::ArrayRef<int64_t> input, llvm::ArrayRef<int64_t> kernel,
                  llvm::ArrayRef<int64_t> strides,
                  llvm::ArrayRef<int64_t> dilations,
                  llvm::ArrayRef<int64_t> pads, bool ceilMode);

/// Reduction over `axes` (may be negative; empty means all axes). With
/// keepDims the reduced dims stay as 1, otherwise they are removed.
ShapeOrError reduce(llvm::ArrayRef<int64_t> input, llvm::ArrayRef<int64_t> axes,
                    bool keepDims);

/// result[i] = input[perm[i]]; perm must be a permutation of [0, rank).
ShapeOrError transpose(llvm::ArrayRef<int64_t> input,
                       llvm::ArrayRef<int64_t> perm);

/// Concatenation along `axis` (may be negative). Non-axis dims must agree
/// where both are static (a static size refines a kDynamic one); the axis dim
/// is the sum, or kDynamic if any operand's axis dim is kDynamic.
ShapeOrError concat(llvm::ArrayRef<llvm::ArrayRef<int64_t>> inputs,
                    int64_t axis);

/// Normalized strided slice, one entry per dim (sizes must equal the rank);
/// step != 0.
///   step > 0: 0 <= start <= end <= dim,      size = ceil((end - start) / step)
///   step < 0: -1 <= end <= start <= dim - 1, size = ceil((start - end) /
///   -step)
/// Bounds are checked only where the dim is static; a kDynamic input dim gives
/// a kDynamic result dim.
ShapeOrError slice(llvm::ArrayRef<int64_t> input,
                   llvm::ArrayRef<int64_t> starts, llvm::ArrayRef<int64_t> ends,
                   llvm::ArrayRef<int64_t> steps);

/// ONNX Gather: data[:axis] + indices + data[axis+1:].
ShapeOrError gather(llvm::ArrayRef<int64_t> data,
                    llvm::ArrayRef<int64_t> indices, int64_t axis);

/// Padding with pads of size 2 * rank ordered [b1..bn, e1..en]; entries may be
/// negative (cropping). Result dim d + b + e; kDynamic stays kDynamic.
ShapeOrError pad(llvm::ArrayRef<int64_t> input, llvm::ArrayRef<int64_t> pads);

/// Reshape to `newShape`, where -1 (or kDynamic) entries are dims of unknown
/// size (kDynamic in the result; they are not solved for); other entries must
/// be >= 0. When `input` is fully static its element count must equal that of
/// a fully static `newShape`, or be a multiple of the product of the static
/// entries of a partially dynamic one.
ShapeOrError reshape(llvm::ArrayRef<int64_t> input,
                     llvm::ArrayRef<int64_t> newShape);

/// Checks that `actual` (the shape of the operand named `what`) matches
/// `expected` dim by dim, where kDynamic on either side matches anything;
/// the result is `expected` refined by the static dims of `actual`.
ShapeOrError matchShape(llvm::StringRef what, llvm::ArrayRef<int64_t> actual,
                        llvm::ArrayRef<int64_t> expected);

/// A recurrent layer (LSTM: numGates 4, GRU: 3, RNN: 1) in ONNX layout 0:
/// x [seq, batch, input], w [numDirections, numGates * hidden, input],
/// r [numDirections, numGates * hidden, hidden]. Result: the all-steps
/// output [seq, numDirections, batch, hidden].
ShapeOrError recurrent(llvm::ArrayRef<int64_t> x, llvm::ArrayRef<int64_t> w,
                       llvm::ArrayRef<int64_t> r, int64_t numDirections,
                       int64_t hiddenSize, int64_t numGates);

/// ONNX TopK: `input` with dim `axis` (may be negative) replaced by k;
/// k >= 0 and, where the dim is static, k <= dim.
ShapeOrError topK(llvm::ArrayRef<int64_t> input, int64_t k, int64_t axis);

/// ONNX GatherElements: indices has the rank of data and no dim larger than
/// data's, except along `axis` (may be negative). Result: indices' shape.
ShapeOrError gatherElements(llvm::ArrayRef<int64_t> data,
                            llvm::ArrayRef<int64_t> indices, int64_t axis);

/// ONNX GatherND: indices [b..., i..., q] with q static, 1 <= q <=
/// rank(data) - batchDims, the batchDims leading dims shared with data.
/// Result: indices[:-1] + data[batchDims + q:].
ShapeOrError gatherNd(llvm::ArrayRef<int64_t> data,
                      llvm::ArrayRef<int64_t> indices, int64_t batchDims);

/// ONNX ScatterND: indices [..., q] with q static and <= rank(data); updates
/// must be indices[:-1] + data[q:]. Result: data.
ShapeOrError scatterNd(llvm::ArrayRef<int64_t> data,
                       llvm::ArrayRef<int64_t> indices,
                       llvm::ArrayRef<int64_t> updates);

/// ONNX ScatterElements: indices and updates have one shape, of the rank of
/// data; `axis` may be negative. Result: data.
ShapeOrError scatterElements(llvm::ArrayRef<int64_t> data,
                             llvm::ArrayRef<int64_t> indices,
                             llvm::ArrayRef<int64_t> updates, int64_t axis);

/// N-D transposed convolution in ONNX layout: input [N, C, D1..Dn], filter
/// [C, M/groups, K1..Kn]; strides, dilations, outputPadding of size n, pads
/// of size 2n. Result [N, M, O1..On] with O = stride * (D - 1) +
/// outputPadding + dilation * (K - 1) + 1 - padBegin - padEnd, which must be
/// >= 1; outputPadding must be smaller than the stride or the dilation.
ShapeOrError convTranspose(llvm::ArrayRef<int64_t> input,
                           llvm::ArrayRef<int64_t> filter,
                           llvm::ArrayRef<int64_t> strides,
                           llvm::ArrayRef<int64_t> dilations,
                           llvm::ArrayRef<int64_t> pads,
                           llvm::ArrayRef<int64_t> outputPadding,
                           int64_t groups);

/// Resize of `input` to `sizes` (one entry per dim; -1 is dynamic). Result:
/// sizes with -1 as kDynamic.
ShapeOrError resize(llvm::ArrayRef<int64_t> input,
                    llvm::ArrayRef<int64_t> sizes);

/// Number of elements, or kDynamic if any dim is kDynamic or the count does
/// not fit in int64.
int64_t numElements(llvm::ArrayRef<int64_t> shape);

} // namespace mlir::kiln::shape

#endif // KILN_DIALECTS_KILN_SHAPEINFERENCE_H
