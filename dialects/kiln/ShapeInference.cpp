//===- ShapeInference.cpp - Pure shape functions for the Kiln dialect -----===//
//
// Implements the shape arithmetic declared in ShapeInference.h. Everything
// here works on plain dimension lists; kDynamic is treated as an opaque marker
// and is never fed into arithmetic, and all arithmetic on static sizes is
// overflow-checked so that absurd attribute values produce an error message
// instead of undefined behaviour.
//
//===----------------------------------------------------------------------===//

#include "dialects/kiln/ShapeInference.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cstddef>

using llvm::ArrayRef;

namespace mlir::kiln::shape {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

namespace {

bool isDynamic(int64_t dim) { return dim == kDynamic; }

bool isStaticShape(ArrayRef<int64_t> shape) {
  return llvm::none_of(shape, isDynamic);
}

// Division rounding towards -inf / +inf for a positive divisor. The C++
// operator truncates towards zero, which would make a negative numerator
// (a window larger than the padded input) look like a window that fits.
int64_t floorDiv(int64_t num, int64_t den) {
  int64_t q = num / den;
  return (num % den != 0 && num < 0) ? q - 1 : q;
}

int64_t ceilDiv(int64_t num, int64_t den) {
  int64_t q = num / den;
  return (num % den != 0 && num > 0) ? q + 1 : q;
}

// Formats raw integers (attribute arrays such as perm or pads), where
// kDynamic has no special meaning and printing "?" would hide a bad value.
std::string formatList(ArrayRef<int64_t> values) {
  std::string out = "[";
  for (size_t i = 0, e = values.size(); i < e; ++i) {
    if (i)
      out += ", ";
    out += std::to_string(values[i]);
  }
  out += "]";
  return out;
}

std::string formatDim(int64_t dim) {
  return isDynamic(dim) ? std::string("?") : std::to_string(dim);
}

std::string str(int64_t value) { return std::to_string(value); }

// Product of the static dims of `shape` (kDynamic dims are skipped), or
// std::nullopt if it does not fit in int64. A zero dim makes the product zero
// even when the other dims alone would overflow.
std::optional<int64_t> staticProduct(ArrayRef<int64_t> shape) {
  if (llvm::is_contained(shape, 0))
    return 0;
  int64_t product = 1;
  for (int64_t dim : shape) {
    if (isDynamic(dim))
      continue;
    if (llvm::MulOverflow(product, dim, product))
      return std::nullopt;
  }
  return product;
}

// Where multidirectional broadcasting failed: the first operand that fixed a
// static size > 1 for a result position, and the operand that disagreed.
struct BroadcastConflict {
  size_t firstOperand;
  int64_t firstDim;
  int64_t firstSize;
  size_t secondOperand;
  int64_t secondDim;
  int64_t secondSize;
};

// Broadcasts `shapes` into `result`. Reporting the conflict structurally lets
// each caller (plain broadcast, matmul batch dims) phrase its own message.
// Positions are scanned from the right, so the innermost conflict is reported.
std::optional<BroadcastConflict>
broadcastInto(ArrayRef<ArrayRef<int64_t>> shapes, Shape &result) {
  size_t rank = 0;
  for (ArrayRef<int64_t> s : shapes)
    rank = std::max(rank, s.size());
  result.assign(rank, 1);

  for (size_t fromRight = 0; fromRight < rank; ++fromRight) {
    std::optional<size_t> owner;
    int64_t ownerDim = 0;
    int64_t chosen = 1;
    bool sawDynamic = false;
    for (size_t i = 0, e = shapes.size(); i < e; ++i) {
      ArrayRef<int64_t> s = shapes[i];
      if (s.size() <= fromRight)
        continue;
      int64_t dimIndex = static_cast<int64_t>(s.size() - 1 - fromRight);
      int64_t dim = s[dimIndex];
      if (dim == 1)
        continue;
      if (isDynamic(dim)) {
        sawDynamic = true;
        continue;
      }
      if (!owner) {
        owner = i;
        ownerDim = dimIndex;
        chosen = dim;
        continue;
      }
      if (dim != chosen)
        return BroadcastConflict{*owner, ownerDim, chosen, i, dimIndex, dim};
    }
    // A static size > 1 wins over kDynamic: at runtime the dynamic dim must be
    // either 1 (stretched) or that same size, otherwise the op is invalid.
    result[rank - 1 - fromRight] = owner ? chosen : (sawDynamic ? kDynamic : 1);
  }
  return std::nullopt;
}

std::string describeConflict(const BroadcastConflict &c) {
  return "dimension " + str(c.firstDim) + " (" + str(c.firstSize) +
         ") vs dimension " + str(c.secondDim) + " (" + str(c.secondSize) + ")";
}

// Validates the attribute arrays shared by conv and pool and computes the
// spatial output dims. `window` holds the n window sizes; `windowName`,
// `entryLabel` and `windowIndexOffset` say how to name them in messages
// (e.g. "filter [64, 3, 7, 7] dimension" with filter dims starting at index 2,
// "kernel [3, 3] entry" starting at 0). Returns an empty string on success.
std::string
inferSpatialDims(ArrayRef<int64_t> input, ArrayRef<int64_t> window,
                 const std::string &windowName, const std::string &entryLabel,
                 int64_t windowIndexOffset, ArrayRef<int64_t> strides,
                 ArrayRef<int64_t> dilations, ArrayRef<int64_t> pads,
                 bool ceilMode, Shape &result) {
  size_t n = input.size() - 2;
  std::string inputStr = formatShape(input);
  auto checkLength = [&](const char *name, ArrayRef<int64_t> values,
                         size_t expected, const char *what) -> std::string {
    if (values.size() == expected)
      return "";
    return std::string(name) + " must have " + str(expected) + " entries (" +
           what + " of input " + inputStr + "), got " + str(values.size());
  };
  for (std::string err :
       {checkLength("strides", strides, n, "one per spatial dimension"),
        checkLength("dilations", dilations, n, "one per spatial dimension"),
        checkLength("pads", pads, 2 * n,
                    "begin and end for each spatial dimension")})
    if (!err.empty())
      return err;

  for (size_t i = 0; i < n; ++i) {
    if (strides[i] < 1)
      return "strides entry " + str(i) + " (" + str(strides[i]) +
             ") must be at least 1";
    if (dilations[i] < 1)
      return "dilations entry " + str(i) + " (" + str(dilations[i]) +
             ") must be at least 1";
  }
  for (size_t i = 0; i < 2 * n; ++i)
    if (pads[i] < 0)
      return "pads entry " + str(i) + " (" + str(pads[i]) +
             ") must be non-negative";
  for (size_t i = 0; i < n; ++i) {
    // A dynamic filter dim cannot be validated here; a static one must be a
    // real window.
    if (!isDynamic(window[i]) && window[i] < 1)
      return entryLabel + " " +
             str(windowIndexOffset + static_cast<int64_t>(i)) + " (" +
             str(window[i]) + ") must be at least 1";
  }

  for (size_t i = 0; i < n; ++i) {
    int64_t in = input[2 + i];
    if (isDynamic(in) || isDynamic(window[i])) {
      result.push_back(kDynamic);
      continue;
    }
    int64_t out = windowOutputSize(in, window[i], strides[i], dilations[i],
                                   pads[i], pads[n + i], ceilMode);
    if (out < 1)
      return "window does not fit in dimension " + str(2 + i) + " of input " +
             inputStr + ": size " + str(in) + " with pads " + str(pads[i]) +
             " and " + str(pads[n + i]) + ", " + windowName + " size " +
             str(window[i]) + ", dilation " + str(dilations[i]) + ", stride " +
             str(strides[i]) + " gives output size " + str(out);
    result.push_back(out);
  }
  return "";
}

} // namespace

//===----------------------------------------------------------------------===//
// ShapeOrError
//===----------------------------------------------------------------------===//

ShapeOrError ShapeOrError::success(Shape s) {
  ShapeOrError result;
  result.shape = std::move(s);
  return result;
}

ShapeOrError ShapeOrError::failure(std::string message) {
  // An empty message would read as success; keep failures distinguishable.
  ShapeOrError result;
  result.error = message.empty() ? std::string("shape inference failed")
                                 : std::move(message);
  return result;
}

//===----------------------------------------------------------------------===//
// Basic utilities
//===----------------------------------------------------------------------===//

std::string formatShape(ArrayRef<int64_t> shape) {
  std::string out = "[";
  for (size_t i = 0, e = shape.size(); i < e; ++i) {
    if (i)
      out += ", ";
    out += formatDim(shape[i]);
  }
  out += "]";
  return out;
}

std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank) {
  // Written as two comparisons (no "axis + rank" up front) so that extreme
  // axis values cannot overflow.
  if (rank <= 0 || axis >= rank || axis < -rank)
    return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

int64_t numElements(ArrayRef<int64_t> shape) {
  if (!isStaticShape(shape))
    return kDynamic;
  return staticProduct(shape).value_or(kDynamic);
}

//===----------------------------------------------------------------------===//
// Broadcasting
//===----------------------------------------------------------------------===//

ShapeOrError broadcast(ArrayRef<ArrayRef<int64_t>> shapes) {
  Shape result;
  std::optional<BroadcastConflict> conflict = broadcastInto(shapes, result);
  if (!conflict)
    return ShapeOrError::success(std::move(result));
  std::string message =
      "operand shapes " + formatShape(shapes[conflict->firstOperand]) +
      " and " + formatShape(shapes[conflict->secondOperand]) +
      " are not broadcast-compatible: " + describeConflict(*conflict);
  // With more than two operands the shapes alone may not identify them.
  if (shapes.size() > 2)
    message += " (operands " + str(conflict->firstOperand) + " and " +
               str(conflict->secondOperand) + ")";
  return ShapeOrError::failure(std::move(message));
}

ShapeOrError broadcast(ArrayRef<int64_t> lhs, ArrayRef<int64_t> rhs) {
  ArrayRef<int64_t> shapes[] = {lhs, rhs};
  return broadcast(ArrayRef<ArrayRef<int64_t>>(shapes));
}

ShapeOrError broadcastTo(ArrayRef<int64_t> input, ArrayRef<int64_t> target) {
  if (input.size() > target.size())
    return ShapeOrError::failure(
        "input " + formatShape(input) + " of rank " + str(input.size()) +
        " cannot be broadcast to lower-rank target " + formatShape(target) +
        " of rank " + str(target.size()));
  size_t offset = target.size() - input.size();
  for (size_t i = 0, e = input.size(); i < e; ++i) {
    int64_t dim = input[i];
    int64_t want = target[offset + i];
    if (dim == 1 || isDynamic(dim) || isDynamic(want) || dim == want)
      continue;
    return ShapeOrError::failure(
        "input " + formatShape(input) + " cannot be broadcast to " +
        formatShape(target) + ": input dimension " + str(i) + " (" + str(dim) +
        ") vs target dimension " + str(offset + i) + " (" + str(want) + ")");
  }
  return ShapeOrError::success(Shape(target.begin(), target.end()));
}

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

ShapeOrError matmul(ArrayRef<int64_t> lhs, ArrayRef<int64_t> rhs) {
  if (lhs.empty())
    return ShapeOrError::failure("lhs must have rank >= 1 for matmul, got " +
                                 formatShape(lhs));
  if (rhs.empty())
    return ShapeOrError::failure("rhs must have rank >= 1 for matmul, got " +
                                 formatShape(rhs));

  bool lhsVector = lhs.size() == 1;
  bool rhsVector = rhs.size() == 1;
  Shape promotedLhs(lhs.begin(), lhs.end());
  Shape promotedRhs(rhs.begin(), rhs.end());
  if (lhsVector)
    promotedLhs.insert(promotedLhs.begin(), 1);
  if (rhsVector)
    promotedRhs.push_back(1);

  // Contraction: last dim of lhs against second-to-last of rhs, indexed in
  // the caller's (unpromoted) operands for the message.
  int64_t lhsK = promotedLhs.back();
  int64_t rhsK = promotedRhs[promotedRhs.size() - 2];
  if (!isDynamic(lhsK) && !isDynamic(rhsK) && lhsK != rhsK) {
    size_t lhsKIndex = lhs.size() - 1;
    size_t rhsKIndex = rhsVector ? 0 : rhs.size() - 2;
    return ShapeOrError::failure(
        "contraction dimensions of lhs " + formatShape(lhs) + " and rhs " +
        formatShape(rhs) + " do not match: dimension " + str(lhsKIndex) + " (" +
        str(lhsK) + ") vs dimension " + str(rhsKIndex) + " (" + str(rhsK) +
        ")");
  }

  // Batch dims are the leading dims, so their indices equal the operand's.
  ArrayRef<int64_t> batches[] = {ArrayRef<int64_t>(promotedLhs).drop_back(2),
                                 ArrayRef<int64_t>(promotedRhs).drop_back(2)};
  Shape result;
  if (std::optional<BroadcastConflict> conflict =
          broadcastInto(batches, result))
    return ShapeOrError::failure(
        "batch dimensions of lhs " + formatShape(lhs) + " and rhs " +
        formatShape(rhs) +
        " are not broadcast-compatible: " + describeConflict(*conflict));

  if (!lhsVector)
    result.push_back(promotedLhs[promotedLhs.size() - 2]);
  if (!rhsVector)
    result.push_back(promotedRhs.back());
  return ShapeOrError::success(std::move(result));
}

//===----------------------------------------------------------------------===//
// Sliding windows: conv and pool
//===----------------------------------------------------------------------===//

int64_t windowOutputSize(int64_t in, int64_t window, int64_t stride,
                         int64_t dilation, int64_t padBegin, int64_t padEnd,
                         bool ceilMode) {
  if (isDynamic(in))
    return kDynamic;
  if (window < 1 || stride < 1 || dilation < 1)
    return 0;

  int64_t effective, beginEdge, padded, span;
  if (llvm::MulOverflow(dilation, window - 1, effective) ||
      llvm::AddOverflow(effective, int64_t(1), effective) ||
      llvm::AddOverflow(in, padBegin, beginEdge) ||
      llvm::AddOverflow(beginEdge, padEnd, padded) ||
      llvm::SubOverflow(padded, effective, span))
    return 0;

  int64_t steps = ceilMode ? ceilDiv(span, stride) : floorDiv(span, stride);
  int64_t out;
  if (llvm::AddOverflow(steps, int64_t(1), out))
    return 0;

  // Ceil mode may add a window that lies entirely in the end padding; ONNX
  // and PyTorch drop it so that every window overlaps the input (or begin
  // padding). Overflow of the start position means it is certainly past.
  if (ceilMode && out >= 1) {
    int64_t lastStart;
    if (llvm::MulOverflow(out - 1, stride, lastStart) || lastStart >= beginEdge)
      --out;
  }
  return out;
}

/// The checks conv and conv_transpose share: ranks and groups.
static std::optional<std::string> checkConvOperandRanks(ArrayRef<int64_t> input,
                                                 ArrayRef<int64_t> filter,
                                                 int64_t groups) {
  if (input.size() < 3)
    return "input " + formatShape(input) +
           " must have rank >= 3 (batch, channels and at least one spatial "
           "dimension), got rank " +
           str(input.size());
  if (filter.size() != input.size())
    return "filter " + formatShape(filter) +
           " must have the same rank as input " + formatShape(input) + ": " +
           str(filter.size()) + " vs " + str(input.size());
  if (groups < 1)
    return "groups (" + str(groups) + ") must be at least 1";
  return std::nullopt;
}

ShapeOrError conv(ArrayRef<int64_t> input, ArrayRef<int64_t> filter,
                  ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
                  ArrayRef<int64_t> pads, int64_t groups) {
  if (std::optional<std::string> error =
          checkConvOperandRanks(input, filter, groups))
    return ShapeOrError::failure(*error);

  int64_t channels = input[1];
  int64_t filterChannels = filter[1];
  if (!isDynamic(channels) && !isDynamic(filterChannels)) {
    int64_t expected;
    // An overflowing product cannot equal a representable channel count.
    if (llvm::MulOverflow(filterChannels, groups, expected) ||
        expected != channels)
      return ShapeOrError::failure(
          "input channel count " + str(channels) + " (dimension 1 of input " +
          formatShape(input) + ") does not equal filter dimension 1 (" +
          str(filterChannels) + ") of filter " + formatShape(filter) +
          " times groups (" + str(groups) + ")");
  }
  int64_t outChannels = filter[0];
  if (!isDynamic(outChannels) && outChannels % groups != 0)
    return ShapeOrError::failure(
        "filter output channel count " + str(outChannels) +
        " (dimension 0 of filter " + formatShape(filter) +
        ") is not divisible by groups (" + str(groups) + ")");

  Shape result = {input[0], outChannels};
  std::string err =
      inferSpatialDims(input, filter.drop_front(2), "filter",
                       "filter " + formatShape(filter) + " dimension",
                       /*windowIndexOffset=*/2, strides, dilations, pads,
                       /*ceilMode=*/false, result);
  if (!err.empty())
    return ShapeOrError::failure(std::move(err));
  return ShapeOrError::success(std::move(result));
}

ShapeOrError pool(ArrayRef<int64_t> input, ArrayRef<int64_t> kernel,
                  ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
                  ArrayRef<int64_t> pads, bool ceilMode) {
  if (input.size() < 3)
    return ShapeOrError::failure(
        "input " + formatShape(input) +
        " must have rank >= 3 (batch, channels and at least one spatial "
        "dimension), got rank " +
        str(input.size()));
  if (kernel.size() != input.size() - 2)
    return ShapeOrError::failure(
        "kernel must have " + str(input.size() - 2) +
        " entries (one per spatial dimension of input " + formatShape(input) +
        "), got " + str(kernel.size()));
  // The kernel is an attribute, so a kDynamic entry is just an invalid value;
  // reject it explicitly rather than letting it flow through as "unknown".
  for (size_t i = 0, e = kernel.size(); i < e; ++i)
    if (kernel[i] < 1)
      return ShapeOrError::failure("kernel " + formatList(kernel) + " entry " +
                                   str(i) + " (" + str(kernel[i]) +
                                   ") must be at least 1");

  Shape result = {input[0], input[1]};
  std::string err = inferSpatialDims(
      input, kernel, "kernel", "kernel " + formatList(kernel) + " entry",
      /*windowIndexOffset=*/0, strides, dilations, pads, ceilMode, result);
  if (!err.empty())
    return ShapeOrError::failure(std::move(err));
  return ShapeOrError::success(std::move(result));
}

//===----------------------------------------------------------------------===//
// Reductions and data movement
//===----------------------------------------------------------------------===//

ShapeOrError reduce(ArrayRef<int64_t> input, ArrayRef<int64_t> axes,
                    bool keepDims) {
  int64_t rank = static_cast<int64_t>(input.size());
  llvm::SmallVector<bool, 6> reduced(input.size(), axes.empty());
  for (size_t i = 0, e = axes.size(); i < e; ++i) {
    std::optional<int64_t> axis = normalizeAxis(axes[i], rank);
    if (!axis)
      return ShapeOrError::failure(
          "axes entry " + str(i) + " (" + str(axes[i]) +
          ") is out of range for input " + formatShape(input) + " of rank " +
          str(rank));
    if (reduced[*axis])
      return ShapeOrError::failure("axes entry " + str(i) + " (" +
                                   str(axes[i]) + ") repeats dimension " +
                                   str(*axis) + " of input " +
                                   formatShape(input) + "; axes " +
                                   formatList(axes) + " must be distinct");
    reduced[*axis] = true;
  }

  Shape result;
  for (int64_t d = 0; d < rank; ++d) {
    if (!reduced[d])
      result.push_back(input[d]);
    else if (keepDims)
      result.push_back(1);
  }
  return ShapeOrError::success(std::move(result));
}

ShapeOrError transpose(ArrayRef<int64_t> input, ArrayRef<int64_t> perm) {
  int64_t rank = static_cast<int64_t>(input.size());
  if (perm.size() != input.size())
    return ShapeOrError::failure("perm " + formatList(perm) +
                                 " must have one entry per dimension of " +
                                 "input " + formatShape(input) + " (" +
                                 str(rank) + "), got " + str(perm.size()));
  llvm::SmallVector<bool, 6> seen(input.size(), false);
  Shape result;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t p = perm[i];
    if (p < 0 || p >= rank)
      return ShapeOrError::failure(
          "perm " + formatList(perm) + " is not a permutation of [0, " +
          str(rank) + "): entry " + str(i) + " (" + str(p) +
          ") is out of range for input " + formatShape(input));
    if (seen[p])
      return ShapeOrError::failure(
          "perm " + formatList(perm) + " is not a permutation of [0, " +
          str(rank) + "): entry " + str(i) + " repeats dimension " + str(p));
    seen[p] = true;
    result.push_back(input[p]);
  }
  return ShapeOrError::success(std::move(result));
}

ShapeOrError concat(ArrayRef<ArrayRef<int64_t>> inputs, int64_t axis) {
  if (inputs.empty())
    return ShapeOrError::failure("concat requires at least one operand");
  size_t rank = inputs[0].size();
  for (size_t i = 1, e = inputs.size(); i < e; ++i)
    if (inputs[i].size() != rank)
      return ShapeOrError::failure(
          "operand " + str(i) + " " + formatShape(inputs[i]) + " has rank " +
          str(inputs[i].size()) + " but operand 0 " + formatShape(inputs[0]) +
          " has rank " + str(rank));
  std::optional<int64_t> normalized =
      normalizeAxis(axis, static_cast<int64_t>(rank));
  if (!normalized)
    return ShapeOrError::failure("axis " + str(axis) +
                                 " is out of range for operands of rank " +
                                 str(rank));

  Shape result(inputs[0].begin(), inputs[0].end());
  for (size_t d = 0; d < rank; ++d) {
    if (static_cast<int64_t>(d) == *normalized)
      continue;
    // Remember which operand supplied the static size so a mismatch can name
    // both sides.
    std::optional<size_t> owner;
    for (size_t i = 0, e = inputs.size(); i < e; ++i) {
      int64_t dim = inputs[i][d];
      if (isDynamic(dim))
        continue;
      if (!owner) {
        owner = i;
        result[d] = dim;
        continue;
      }
      if (dim != result[d])
        return ShapeOrError::failure(
            "operand " + str(i) + " " + formatShape(inputs[i]) + " dimension " +
            str(d) + " (" + str(dim) + ") does not match " + "operand " +
            str(*owner) + " " + formatShape(inputs[*owner]) + " dimension " +
            str(d) + " (" + str(result[d]) +
            ") outside the concatenation axis " + str(*normalized));
    }
  }

  int64_t total = 0;
  for (ArrayRef<int64_t> in : inputs) {
    int64_t dim = in[*normalized];
    if (isDynamic(dim)) {
      total = kDynamic;
      break;
    }
    if (llvm::AddOverflow(total, dim, total))
      return ShapeOrError::failure("concatenated size along axis " +
                                   str(*normalized) + " does not fit in int64");
  }
  result[*normalized] = total;
  return ShapeOrError::success(std::move(result));
}

ShapeOrError slice(ArrayRef<int64_t> input, ArrayRef<int64_t> starts,
                   ArrayRef<int64_t> ends, ArrayRef<int64_t> steps) {
  size_t rank = input.size();
  auto checkLength = [&](const char *name,
                         ArrayRef<int64_t> values) -> std::string {
    if (values.size() == rank)
      return "";
    return std::string(name) + " must have one entry per dimension of input " +
           formatShape(input) + " (" + str(rank) + "), got " +
           str(values.size());
  };
  for (std::string err :
       {checkLength("starts", starts), checkLength("ends", ends),
        checkLength("steps", steps)})
    if (!err.empty())
      return ShapeOrError::failure(std::move(err));

  Shape result;
  for (size_t d = 0; d < rank; ++d) {
    int64_t start = starts[d], end = ends[d], step = steps[d];
    if (step == 0)
      return ShapeOrError::failure("steps entry " + str(d) +
                                   " is 0; a slice step must be non-zero");
    int64_t dim = input[d];
    if (isDynamic(dim)) {
      result.push_back(kDynamic);
      continue;
    }
    bool inBounds = step > 0 ? (0 <= start && start <= end && end <= dim)
                             : (-1 <= end && end <= start && start <= dim - 1);
    if (!inBounds)
      return ShapeOrError::failure(
          "slice of dimension " + str(d) + " (" + str(dim) + ") of input " +
          formatShape(input) + " with start " + str(start) + ", end " +
          str(end) + " and step " + str(step) + " is out of bounds: " +
          (step > 0
               ? "a positive step requires 0 <= start <= end <= " + str(dim)
               : "a negative step requires -1 <= end <= start <= " +
                     str(dim - 1)));
    // Unsigned arithmetic: the distance is at most dim + 1 and the step
    // magnitude may be 2^63 (step == INT64_MIN), which has no int64 negation.
    uint64_t distance = step > 0 ? static_cast<uint64_t>(end - start)
                                 : static_cast<uint64_t>(start - end);
    uint64_t magnitude = step > 0 ? static_cast<uint64_t>(step)
                                  : 0 - static_cast<uint64_t>(step);
    uint64_t size = distance == 0 ? 0 : 1 + (distance - 1) / magnitude;
    result.push_back(static_cast<int64_t>(size));
  }
  return ShapeOrError::success(std::move(result));
}

ShapeOrError gather(ArrayRef<int64_t> data, ArrayRef<int64_t> indices,
                    int64_t axis) {
  if (data.empty())
    return ShapeOrError::failure("data must have rank >= 1 for gather, got " +
                                 formatShape(data));
  std::optional<int64_t> normalized =
      normalizeAxis(axis, static_cast<int64_t>(data.size()));
  if (!normalized)
    return ShapeOrError::failure(
        "axis " + str(axis) + " is out of range for data " + formatShape(data) +
        " of rank " + str(data.size()));
  Shape result(data.begin(), data.begin() + *normalized);
  result.append(indices.begin(), indices.end());
  result.append(data.begin() + *normalized + 1, data.end());
  return ShapeOrError::success(std::move(result));
}

ShapeOrError pad(ArrayRef<int64_t> input, ArrayRef<int64_t> pads) {
  size_t rank = input.size();
  if (pads.size() != 2 * rank)
    return ShapeOrError::failure(
        "pads must have " + str(2 * rank) +
        " entries (begin and end for each dimension of input " +
        formatShape(input) + "), got " + str(pads.size()));
  Shape result;
  for (size_t d = 0; d < rank; ++d) {
    int64_t dim = input[d];
    if (isDynamic(dim)) {
      result.push_back(kDynamic);
      continue;
    }
    int64_t begin = pads[d], end = pads[rank + d];
    int64_t size;
    if (llvm::AddOverflow(dim, begin, size) ||
        llvm::AddOverflow(size, end, size))
      return ShapeOrError::failure("padding dimension " + str(d) + " (" +
                                   str(dim) + ") of input " +
                                   formatShape(input) + " by " + str(begin) +
                                   " and " + str(end) + " overflows int64");
    if (size < 0)
      return ShapeOrError::failure(
          "padding dimension " + str(d) + " (" + str(dim) + ") of input " +
          formatShape(input) + " by " + str(begin) + " and " + str(end) +
          " gives negative size " + str(size));
    result.push_back(size);
  }
  return ShapeOrError::success(std::move(result));
}

ShapeOrError reshape(ArrayRef<int64_t> input, ArrayRef<int64_t> newShape) {
  Shape result;
  bool resultStatic = true;
  for (size_t i = 0, e = newShape.size(); i < e; ++i) {
    int64_t dim = newShape[i];
    // kDynamic is accepted alongside -1 so that a result type's shape can be
    // passed straight through.
    if (dim == -1 || isDynamic(dim)) {
      result.push_back(kDynamic);
      resultStatic = false;
      continue;
    }
    if (dim < 0)
      return ShapeOrError::failure(
          "newShape " + formatList(newShape) + " entry " + str(i) + " (" +
          str(dim) + ") must be non-negative, or -1 for a dynamic dimension");
    result.push_back(dim);
  }

  std::optional<int64_t> knownCount = staticProduct(result);
  if (!knownCount)
    return ShapeOrError::failure("newShape " + formatShape(result) +
                                 " has more elements than fit in int64");
  if (!isStaticShape(input))
    return ShapeOrError::success(std::move(result));

  std::optional<int64_t> inputCount = staticProduct(input);
  if (!inputCount)
    return ShapeOrError::failure("input " + formatShape(input) +
                                 " has more elements than fit in int64");
  if (resultStatic) {
    if (*inputCount != *knownCount)
      return ShapeOrError::failure(
          "cannot reshape input " + formatShape(input) + " (" +
          str(*inputCount) + " elements) to " + formatShape(result) + " (" +
          str(*knownCount) + " elements)");
  } else {
    // The dynamic dims multiply the static ones, so the static product must
    // divide the input's element count (and a zero product forces zero).
    bool compatible =
        *knownCount == 0 ? *inputCount == 0 : *inputCount % *knownCount == 0;
    if (!compatible)
      return ShapeOrError::failure(
          "cannot reshape input " + formatShape(input) + " (" +
          str(*inputCount) + " elements) to " + formatShape(result) +
          ": the static dimensions hold " + str(*knownCount) +
          " elements, which does not divide the input's element count");
  }
  return ShapeOrError::success(std::move(result));
}


//===----------------------------------------------------------------------===//
// Recurrent, indexing and resampling ops
//===----------------------------------------------------------------------===//

ShapeOrError matchShape(llvm::StringRef what, ArrayRef<int64_t> actual,
                        ArrayRef<int64_t> expected) {
  auto mismatch = [&] {
    return ShapeOrError::failure(what.str() + " shape " + formatShape(actual) +
                                 " does not match the expected " +
                                 formatShape(expected));
  };
  if (actual.size() != expected.size())
    return mismatch();
  Shape result;
  for (size_t d = 0; d < actual.size(); ++d) {
    if (!isDynamic(actual[d]) && !isDynamic(expected[d]) &&
        actual[d] != expected[d])
      return mismatch();
    result.push_back(isDynamic(expected[d]) ? actual[d] : expected[d]);
  }
  return ShapeOrError::success(std::move(result));
}

ShapeOrError recurrent(ArrayRef<int64_t> x, ArrayRef<int64_t> w,
                       ArrayRef<int64_t> r, int64_t numDirections,
                       int64_t hiddenSize, int64_t numGates) {
  if (hiddenSize < 1)
    return ShapeOrError::failure("hidden_size (" + str(hiddenSize) +
                                 ") must be at least 1");
  // The bias holds twice the gate rows; keep both representable.
  int64_t gateRows, biasRows;
  if (llvm::MulOverflow(hiddenSize, numGates, gateRows) ||
      llvm::MulOverflow(gateRows, int64_t(2), biasRows))
    return ShapeOrError::failure("hidden_size (" + str(hiddenSize) +
                                 ") is too large");
  if (x.size() != 3)
    return ShapeOrError::failure("x " + formatShape(x) +
                                 " must have rank 3 [seq, batch, input]");
  // The weights' leading dim must be numDirections; their rows hold the
  // gate blocks.
  ShapeOrError wMatch =
      matchShape("w", w, {numDirections, gateRows, x[2]});
  if (!wMatch.ok())
    return ShapeOrError::failure(
        wMatch.error + " [num_directions, " + str(numGates) +
        " * hidden_size, input size]");
  ShapeOrError rMatch =
      matchShape("r", r, {numDirections, gateRows, hiddenSize});
  if (!rMatch.ok())
    return ShapeOrError::failure(
        rMatch.error + " [num_directions, " + str(numGates) +
        " * hidden_size, hidden_size]");
  return ShapeOrError::success({x[0], numDirections, x[1], hiddenSize});
}

ShapeOrError topK(ArrayRef<int64_t> input, int64_t k, int64_t axis) {
  std::optional<int64_t> normalized =
      normalizeAxis(axis, static_cast<int64_t>(input.size()));
  if (!normalized)
    return ShapeOrError::failure("axis " + str(axis) +
                                 " is out of range for input " +
                                 formatShape(input) + " of rank " +
                                 str(input.size()));
  if (k < 0)
    return ShapeOrError::failure("k (" + str(k) + ") must be non-negative");
  if (!isDynamic(input[*normalized]) && k > input[*normalized])
    return ShapeOrError::failure("k (" + str(k) + ") exceeds dimension " +
                                 str(*normalized) + " (" +
                                 str(input[*normalized]) + ") of input " +
                                 formatShape(input));
  Shape result(input.begin(), input.end());
  result[*normalized] = k;
  return ShapeOrError::success(std::move(result));
}

ShapeOrError gatherElements(ArrayRef<int64_t> data, ArrayRef<int64_t> indices,
                            int64_t axis) {
  std::optional<int64_t> normalized =
      normalizeAxis(axis, static_cast<int64_t>(data.size()));
  if (!normalized)
    return ShapeOrError::failure("axis " + str(axis) +
                                 " is out of range for data " +
                                 formatShape(data) + " of rank " +
                                 str(data.size()));
  if (indices.size() != data.size())
    return ShapeOrError::failure("indices " + formatShape(indices) +
                                 " must have the rank of data " +
                                 formatShape(data));
  for (size_t d = 0; d < data.size(); ++d)
    if (static_cast<int64_t>(d) != *normalized && !isDynamic(data[d]) &&
        !isDynamic(indices[d]) && indices[d] > data[d])
      return ShapeOrError::failure(
          "indices " + formatShape(indices) + " dimension " + str(d) + " (" +
          str(indices[d]) + ") exceeds data " + formatShape(data) +
          " dimension " + str(d) + " (" + str(data[d]) + ")");
  return ShapeOrError::success(Shape(indices.begin(), indices.end()));
}

namespace {

// The shared checks of GatherND and ScatterND: indices' last dim (the
// index tuple length q) is static, >= 1, and fits after the batch dims.
std::string checkIndexTuples(ArrayRef<int64_t> data, ArrayRef<int64_t> indices,
                             int64_t batchDims) {
  int64_t dataRank = static_cast<int64_t>(data.size());
  int64_t indexRank = static_cast<int64_t>(indices.size());
  if (batchDims < 0 || batchDims >= std::min(dataRank, indexRank))
    return "batch_dims (" + str(batchDims) +
           ") must be non-negative and smaller than the ranks of data " +
           formatShape(data) + " and indices " + formatShape(indices);
  int64_t q = indices.back();
  if (isDynamic(q))
    return "the last dimension of indices " + formatShape(indices) +
           " (the index tuple length) must be static";
  if (q < 1 || q > dataRank - batchDims)
    return "the index tuple length " + str(q) + " (last dimension of indices " +
           formatShape(indices) + ") must be in [1, " +
           str(dataRank - batchDims) + "] for data " + formatShape(data) +
           " with batch_dims " + str(batchDims);
  for (int64_t d = 0; d < batchDims; ++d)
    if (!isDynamic(data[d]) && !isDynamic(indices[d]) && data[d] != indices[d])
      return "batch dimension " + str(d) + " differs between data " +
             formatShape(data) + " and indices " + formatShape(indices);
  return "";
}

} // namespace

ShapeOrError gatherNd(ArrayRef<int64_t> data, ArrayRef<int64_t> indices,
                      int64_t batchDims) {
  std::string err = checkIndexTuples(data, indices, batchDims);
  if (!err.empty())
    return ShapeOrError::failure(std::move(err));
  Shape result(indices.begin(), indices.end() - 1);
  result.append(data.begin() + batchDims + indices.back(), data.end());
  return ShapeOrError::success(std::move(result));
}

ShapeOrError scatterNd(ArrayRef<int64_t> data, ArrayRef<int64_t> indices,
                       ArrayRef<int64_t> updates) {
  std::string err = checkIndexTuples(data, indices, /*batchDims=*/0);
  if (!err.empty())
    return ShapeOrError::failure(std::move(err));
  Shape expected(indices.begin(), indices.end() - 1);
  expected.append(data.begin() + indices.back(), data.end());
  ShapeOrError match = matchShape("updates", updates, expected);
  if (!match.ok())
    return ShapeOrError::failure(match.error + " (indices " +
                                 formatShape(indices) + "[:-1] + data " +
                                 formatShape(data) + "[" +
                                 str(indices.back()) + ":])");
  return ShapeOrError::success(Shape(data.begin(), data.end()));
}

ShapeOrError scatterElements(ArrayRef<int64_t> data, ArrayRef<int64_t> indices,
                             ArrayRef<int64_t> updates, int64_t axis) {
  ShapeOrError gathered = gatherElements(data, indices, axis);
  if (!gathered.ok())
    return gathered;
  ShapeOrError match = matchShape("updates", updates, indices);
  if (!match.ok())
    return ShapeOrError::failure(match.error + " (the shape of indices)");
  return ShapeOrError::success(Shape(data.begin(), data.end()));
}

ShapeOrError convTranspose(ArrayRef<int64_t> input, ArrayRef<int64_t> filter,
                           ArrayRef<int64_t> strides,
                           ArrayRef<int64_t> dilations, ArrayRef<int64_t> pads,
                           ArrayRef<int64_t> outputPadding, int64_t groups) {
  if (std::optional<std::string> error =
          checkConvOperandRanks(input, filter, groups))
    return ShapeOrError::failure(*error);
  size_t n = input.size() - 2;
  auto lengthError = [&](const char *name, ArrayRef<int64_t> values,
                         size_t expected) {
    return ShapeOrError::failure(
        std::string(name) + " must have " + str(expected) +
        " entries for input " + formatShape(input) + ", got " +
        str(values.size()));
  };
  if (strides.size() != n)
    return lengthError("strides", strides, n);
  if (dilations.size() != n)
    return lengthError("dilations", dilations, n);
  if (outputPadding.size() != n)
    return lengthError("output_padding", outputPadding, n);
  if (pads.size() != 2 * n)
    return lengthError("pads", pads, 2 * n);
  if (!isDynamic(input[1]) && !isDynamic(filter[0]) && input[1] != filter[0])
    return ShapeOrError::failure(
        "input channel count " + str(input[1]) + " (dimension 1 of input " +
        formatShape(input) + ") does not equal dimension 0 (" +
        str(filter[0]) + ") of filter " + formatShape(filter));
  if (!isDynamic(filter[0]) && filter[0] % groups != 0)
    return ShapeOrError::failure("filter dimension 0 (" + str(filter[0]) +
                                 ") is not divisible by groups (" +
                                 str(groups) + ")");
  int64_t outChannels = kDynamic;
  if (!isDynamic(filter[1]) &&
      llvm::MulOverflow(filter[1], groups, outChannels))
    return ShapeOrError::failure("output channel count overflows");
  Shape result = {input[0], outChannels};
  for (size_t i = 0; i < n; ++i) {
    if (strides[i] < 1 || dilations[i] < 1)
      return ShapeOrError::failure(
          "strides and dilations must be at least 1, got strides " +
          formatList(strides) + " and dilations " + formatList(dilations));
    if (pads[i] < 0 || pads[n + i] < 0)
      return ShapeOrError::failure("pads " + formatList(pads) +
                                   " must be non-negative");
    if (outputPadding[i] < 0 ||
        (outputPadding[i] >= strides[i] && outputPadding[i] >= dilations[i]))
      return ShapeOrError::failure(
          "output_padding entry " + str(i) + " (" + str(outputPadding[i]) +
          ") must be non-negative and smaller than the stride (" +
          str(strides[i]) + ") or the dilation (" + str(dilations[i]) + ")");
    int64_t in = input[2 + i], k = filter[2 + i];
    if (!isDynamic(k) && k < 1)
      return ShapeOrError::failure("filter " + formatShape(filter) +
                                   " dimension " + str(2 + i) +
                                   " must be at least 1");
    if (isDynamic(in) || isDynamic(k)) {
      result.push_back(kDynamic);
      continue;
    }
    // stride * (in - 1) + outputPadding + dilation * (k - 1) + 1 - pads,
    // overflow-checked.
    int64_t a, b, out;
    if (in < 1 || llvm::MulOverflow(strides[i], in - 1, a) ||
        llvm::MulOverflow(dilations[i], k - 1, b) ||
        llvm::AddOverflow(a, b, out) ||
        llvm::AddOverflow(out, outputPadding[i] + 1, out) ||
        llvm::SubOverflow(out, pads[i], out) ||
        llvm::SubOverflow(out, pads[n + i], out) || out < 1)
      return ShapeOrError::failure(
          "spatial dimension " + str(2 + i) + " of input " +
          formatShape(input) + " gives no output with filter size " + str(k) +
          ", stride " + str(strides[i]) + ", dilation " + str(dilations[i]) +
          ", pads " + str(pads[i]) + " and " + str(pads[n + i]) +
          ", output_padding " + str(outputPadding[i]));
    result.push_back(out);
  }
  return ShapeOrError::success(std::move(result));
}

ShapeOrError resize(ArrayRef<int64_t> input, ArrayRef<int64_t> sizes) {
  if (sizes.size() != input.size())
    return ShapeOrError::failure("sizes " + formatList(sizes) +
                                 " must have one entry per dimension of input " +
                                 formatShape(input));
  Shape result;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] < -1)
      return ShapeOrError::failure(
          "sizes entry " + str(d) + " (" + str(sizes[d]) +
          ") is invalid (sizes are >= 0, or -1 for dynamic)");
    // Resampling an empty dimension to a non-empty one has no input to read.
    if (input[d] == 0 && sizes[d] > 0)
      return ShapeOrError::failure("cannot resize empty dimension " + str(d) +
                                   " of input " + formatShape(input) +
                                   " to size " + str(sizes[d]));
    result.push_back(sizes[d] == -1 ? kDynamic : sizes[d]);
  }
  return ShapeOrError::success(std::move(result));
}

} // namespace mlir::kiln::shape
