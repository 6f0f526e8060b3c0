//===- ShapeInferenceTest.cpp - Unit tests for Kiln shape functions -------===//
//
// Unit tests for the pure shape functions in ShapeInference.h. Expected values
// are literal and were worked out by hand from the documented formulas (and,
// for the convolution/pooling cases, checked against well-known network
// shapes such as the ResNet stem) rather than recomputed with the code under
// test.
//
//===----------------------------------------------------------------------===//

#include "dialects/kiln/ShapeInference.h"

#include "gtest/gtest.h"

#include <string>
#include <vector>

using namespace mlir::kiln::shape;

namespace {

// Short alias so dynamic dims read naturally inside shape literals.
constexpr int64_t D = kDynamic;

// Reports the actual shape or error on mismatch, which plain EXPECT_EQ on
// SmallVector would not print.
::testing::AssertionResult hasShape(const ShapeOrError &result,
                                    std::vector<int64_t> expected) {
  if (!result.ok())
    return ::testing::AssertionFailure() << "expected " << formatShape(expected)
                                         << ", got error: " << result.error;
  if (std::vector<int64_t>(result.shape.begin(), result.shape.end()) !=
      expected)
    return ::testing::AssertionFailure()
           << "expected " << formatShape(expected) << ", got "
           << formatShape(result.shape);
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult failsWith(const ShapeOrError &result,
                                     const std::string &substring) {
  if (result.ok())
    return ::testing::AssertionFailure()
           << "expected an error containing \"" << substring << "\", got "
           << formatShape(result.shape);
  if (result.error.find(substring) == std::string::npos)
    return ::testing::AssertionFailure()
           << "error \"" << result.error << "\" does not contain \""
           << substring << "\"";
  return ::testing::AssertionSuccess();
}

//===----------------------------------------------------------------------===//
// Basic utilities
//===----------------------------------------------------------------------===//

TEST(ShapeInferenceTest, FormatShape) {
  EXPECT_EQ(formatShape({2, D, 3}), "[2, ?, 3]");
  EXPECT_EQ(formatShape({}), "[]");
  EXPECT_EQ(formatShape({7}), "[7]");
}

TEST(ShapeInferenceTest, ShapeOrErrorConstructors) {
  ShapeOrError good = ShapeOrError::success({1, 2});
  EXPECT_TRUE(good.ok());
  EXPECT_TRUE(hasShape(good, {1, 2}));
  ShapeOrError bad = ShapeOrError::failure("input is bad");
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.error, "input is bad");
  // An empty message must still read as a failure.
  EXPECT_FALSE(ShapeOrError::failure("").ok());
}

TEST(ShapeInferenceTest, NormalizeAxis) {
  EXPECT_EQ(normalizeAxis(0, 3), std::optional<int64_t>(0));
  EXPECT_EQ(normalizeAxis(2, 3), std::optional<int64_t>(2));
  EXPECT_EQ(normalizeAxis(-1, 3), std::optional<int64_t>(2));
  EXPECT_EQ(normalizeAxis(-3, 3), std::optional<int64_t>(0));
  EXPECT_EQ(normalizeAxis(3, 3), std::nullopt);
  EXPECT_EQ(normalizeAxis(-4, 3), std::nullopt);
  EXPECT_EQ(normalizeAxis(0, 0), std::nullopt);
  EXPECT_EQ(normalizeAxis(std::numeric_limits<int64_t>::min(), 3),
            std::nullopt);
}

TEST(ShapeInferenceTest, NumElements) {
  EXPECT_EQ(numElements({}), 1);
  EXPECT_EQ(numElements({2, 3, 4}), 24);
  EXPECT_EQ(numElements({0, 5}), 0);
  EXPECT_EQ(numElements({2, D}), kDynamic);
  // 2^40 * 2^40 overflows int64: reported as unknown instead of wrapping.
  EXPECT_EQ(numElements({int64_t(1) << 40, int64_t(1) << 40}), kDynamic);
  // A zero dim makes the count exact even when the rest would overflow.
  EXPECT_EQ(numElements({int64_t(1) << 40, int64_t(1) << 40, 0}), 0);
}

//===----------------------------------------------------------------------===//
// Broadcasting
//===----------------------------------------------------------------------===//

TEST(ShapeInferenceTest, BroadcastScalarsAndRanks) {
  EXPECT_TRUE(hasShape(broadcast({}, {}), {}));
  EXPECT_TRUE(hasShape(broadcast({}, {2, 3}), {2, 3}));
  EXPECT_TRUE(hasShape(broadcast({2, 3}, {}), {2, 3}));
  EXPECT_TRUE(hasShape(broadcast({2, 1, 4}, {3, 1}), {2, 3, 4}));
  EXPECT_TRUE(hasShape(broadcast({4}, {3, 1}), {3, 4}));
}

TEST(ShapeInferenceTest, BroadcastStretchOnes) {
  EXPECT_TRUE(hasShape(broadcast({5, 1}, {1, 6}), {5, 6}));
  EXPECT_TRUE(hasShape(broadcast({1, 1}, {1}), {1, 1}));
  // A zero-sized dim broadcasts against 1 like any other size.
  EXPECT_TRUE(hasShape(broadcast({0}, {1}), {0}));
}

TEST(ShapeInferenceTest, BroadcastDynamic) {
  EXPECT_TRUE(hasShape(broadcast({D, 3}, {4, 1}), {4, 3}));
  EXPECT_TRUE(hasShape(broadcast({D}, {5}), {5}));
  EXPECT_TRUE(hasShape(broadcast({D}, {1}), {D}));
  EXPECT_TRUE(hasShape(broadcast({D}, {D}), {D}));
  EXPECT_TRUE(hasShape(broadcast({D, 1}, {1, D}), {D, D}));
  EXPECT_TRUE(hasShape(broadcast({3}, {D, D}), {D, 3}));
}

TEST(ShapeInferenceTest, BroadcastManyOperands) {
  EXPECT_TRUE(hasShape(broadcast({{2, 1}, {1, 3}, {4, 1, 1}}), {4, 2, 3}));
  EXPECT_TRUE(hasShape(broadcast({{D}, {1}, {7}}), {7}));
  EXPECT_TRUE(
      hasShape(broadcast(llvm::ArrayRef<llvm::ArrayRef<int64_t>>()), {}));
}

TEST(ShapeInferenceTest, BroadcastErrors) {
  ShapeOrError result = broadcast({2, 3}, {4});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error, "operand shapes [2, 3] and [4] are not "
                          "broadcast-compatible: dimension 1 (3) vs "
                          "dimension 0 (4)");
  EXPECT_TRUE(
      failsWith(broadcast({0}, {3}), "dimension 0 (0) vs dimension 0 (3)"));
  EXPECT_TRUE(failsWith(broadcast({{3}, {1}, {4}}),
                        "[3] and [4] are not broadcast-compatible"));
  EXPECT_TRUE(failsWith(broadcast({{3}, {1}, {4}}), "(operands 0 and 2)"));
  // A dynamic dim in between does not hide a static conflict.
  EXPECT_TRUE(
      failsWith(broadcast({{2}, {D}, {5}}), "not broadcast-compatible"));
}

TEST(ShapeInferenceTest, BroadcastTo) {
  EXPECT_TRUE(hasShape(broadcastTo({3, 1}, {2, 3, 4}), {2, 3, 4}));
  EXPECT_TRUE(hasShape(broadcastTo({}, {2, 3}), {2, 3}));
  EXPECT_TRUE(hasShape(broadcastTo({D, 4}, {5, 4}), {5, 4}));
  EXPECT_TRUE(hasShape(broadcastTo({3}, {D}), {D}));
  EXPECT_TRUE(hasShape(broadcastTo({2, 3}, {2, 3}), {2, 3}));
  EXPECT_TRUE(failsWith(broadcastTo({2, 3}, {3}),
                        "cannot be broadcast to lower-rank target [3]"));
  EXPECT_TRUE(failsWith(broadcastTo({2}, {3, 3}),
                        "input dimension 0 (2) vs target dimension 1 (3)"));
  // Unidirectional: the target never stretches to match the input.
  EXPECT_TRUE(
      failsWith(broadcastTo({3}, {1}), "input [3] cannot be broadcast to [1]"));
}

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

TEST(ShapeInferenceTest, Matmul2D) {
  EXPECT_TRUE(hasShape(matmul({2, 3}, {3, 4}), {2, 4}));
  EXPECT_TRUE(hasShape(matmul({D, 3}, {D, 5}), {D, 5}));
  EXPECT_TRUE(hasShape(matmul({2, D}, {7, 4}), {2, 4}));
}

TEST(ShapeInferenceTest, MatmulBatched) {
  EXPECT_TRUE(hasShape(matmul({5, 1, 2, 3}, {4, 3, 7}), {5, 4, 2, 7}));
  EXPECT_TRUE(hasShape(matmul({8, 2, 3}, {3, 4}), {8, 2, 4}));
  EXPECT_TRUE(hasShape(matmul({D, 2, 3}, {6, 3, 4}), {6, 2, 4}));
}

TEST(ShapeInferenceTest, MatmulVectorPromotion) {
  EXPECT_TRUE(hasShape(matmul({3}, {3, 4}), {4}));
  EXPECT_TRUE(hasShape(matmul({2, 3}, {3}), {2}));
  EXPECT_TRUE(hasShape(matmul({3}, {3}), {}));
  EXPECT_TRUE(hasShape(matmul({6, 2, 3}, {3}), {6, 2}));
  EXPECT_TRUE(hasShape(matmul({3}, {6, 3, 4}), {6, 4}));
}

TEST(ShapeInferenceTest, MatmulErrors) {
  EXPECT_TRUE(
      failsWith(matmul({2, 3}, {4, 5}), "dimension 1 (3) vs dimension 0 (4)"));
  EXPECT_TRUE(failsWith(matmul({3}, {4}),
                        "do not match: dimension 0 (3) vs dimension 0 (4)"));
  EXPECT_TRUE(failsWith(matmul({2, 2, 3}, {3, 3, 4}),
                        "batch dimensions of lhs [2, 2, 3] and rhs [3, 3, 4]"));
  EXPECT_TRUE(failsWith(matmul({}, {3}), "lhs must have rank >= 1"));
  EXPECT_TRUE(failsWith(matmul({3}, {}), "rhs must have rank >= 1"));
}

//===----------------------------------------------------------------------===//
// Sliding windows
//===----------------------------------------------------------------------===//

TEST(ShapeInferenceTest, WindowOutputSizeFloor) {
  // (224 + 3 + 3 - 7) / 2 + 1 = 223 / 2 + 1 = 112.
  EXPECT_EQ(windowOutputSize(224, 7, 2, 1, 3, 3, false), 112);
  EXPECT_EQ(windowOutputSize(5, 2, 2, 1, 0, 0, false), 2);
  EXPECT_EQ(windowOutputSize(112, 3, 2, 1, 0, 0, false), 55);
  // Dilation 2 turns a 3-wide window into an effective 5: 10 - 5 + 1 = 6.
  EXPECT_EQ(windowOutputSize(10, 3, 1, 2, 0, 0, false), 6);
  EXPECT_EQ(windowOutputSize(7, 7, 1, 1, 0, 0, false), 1);
}

TEST(ShapeInferenceTest, WindowOutputSizeCeil) {
  // ceil(3 / 2) + 1 = 3; the last window starts at 4 < 5, so it stays.
  EXPECT_EQ(windowOutputSize(5, 2, 2, 1, 0, 0, true), 3);
  // ceil((6 + 1 - 3) / 2) + 1 = 3; last start 4 < 6.
  EXPECT_EQ(windowOutputSize(6, 3, 2, 1, 0, 1, true), 3);
  // PyTorch docs example: ceil((4 + 2 - 2) / 2) + 1 = 3; last start 4 < 5.
  EXPECT_EQ(windowOutputSize(4, 2, 2, 1, 1, 1, true), 3);
  // GoogLeNet-style pooling: ceil(109 / 2) + 1 = 56 (floor gives 55).
  EXPECT_EQ(windowOutputSize(112, 3, 2, 1, 0, 0, true), 56);
}

TEST(ShapeInferenceTest, WindowOutputSizeCeilDropsLastWindow) {
  // ceil((5 + 2 - 2) / 2) + 1 = 4, but the 4th window would start at 6 =
  // in + padBegin, i.e. entirely in the end padding, so it is dropped.
  EXPECT_EQ(windowOutputSize(5, 2, 2, 1, 1, 1, true), 3);
  // ceil((3 + 2 - 2) / 2) + 1 = 3; last start 4 >= 3 + 1, dropped -> 2.
  EXPECT_EQ(windowOutputSize(3, 2, 2, 1, 1, 1, true), 2);
}

TEST(ShapeInferenceTest, WindowOutputSizeDoesNotFit) {
  // Negative numerators must round towards -inf in floor mode: 3 - 4 = -1
  // gives floor(-1 / 1) + 1 = 0, and 2 - 5 = -3 gives -2.
  EXPECT_EQ(windowOutputSize(3, 4, 1, 1, 0, 0, false), 0);
  EXPECT_EQ(windowOutputSize(2, 5, 1, 1, 0, 0, false), -2);
  EXPECT_EQ(windowOutputSize(2, 3, 2, 1, 0, 0, false), 0);
  // In ceil mode a window that starts inside the input but overhangs it is
  // kept (ceil(-1 / 2) + 1 = 1), as in ONNX and PyTorch...
  EXPECT_EQ(windowOutputSize(2, 3, 2, 1, 0, 0, true), 1);
  // ...but not one that overhangs by a full stride or more.
  EXPECT_LT(windowOutputSize(2, 5, 2, 1, 0, 0, true), 1);
}

TEST(ShapeInferenceTest, WindowOutputSizeDynamicAndInvalid) {
  EXPECT_EQ(windowOutputSize(D, 3, 1, 1, 1, 1, false), kDynamic);
  EXPECT_EQ(windowOutputSize(D, 3, 2, 1, 0, 0, true), kDynamic);
  EXPECT_EQ(windowOutputSize(10, 3, 0, 1, 0, 0, false), 0);
  EXPECT_EQ(windowOutputSize(10, 0, 1, 1, 0, 0, false), 0);
  EXPECT_EQ(windowOutputSize(std::numeric_limits<int64_t>::max(), 1, 1, 1, 1, 1,
                             false),
            0);
}

TEST(ShapeInferenceTest, ConvResNetStem) {
  EXPECT_TRUE(hasShape(
      conv({1, 3, 224, 224}, {64, 3, 7, 7}, {2, 2}, {1, 1}, {3, 3, 3, 3}, 1),
      {1, 64, 112, 112}));
  EXPECT_TRUE(hasShape(
      conv({8, 64, 56, 56}, {64, 64, 3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, 1),
      {8, 64, 56, 56}));
}

TEST(ShapeInferenceTest, ConvGroupedAndDepthwise) {
  // 32 input channels = 8 per group * 4 groups; 64 outputs split evenly.
  EXPECT_TRUE(hasShape(
      conv({2, 32, 28, 28}, {64, 8, 3, 3}, {1, 1}, {1, 1}, {0, 0, 0, 0}, 4),
      {2, 64, 26, 26}));
  // MobileNet depthwise: (112 + 2 - 3) / 2 + 1 = 56.
  EXPECT_TRUE(hasShape(
      conv({1, 32, 112, 112}, {32, 1, 3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, 32),
      {1, 32, 56, 56}));
}

TEST(ShapeInferenceTest, Conv1DAnd3D) {
  EXPECT_TRUE(hasShape(conv({4, 16, 100}, {32, 16, 5}, {1}, {1}, {2, 2}, 1),
                       {4, 32, 100}));
  // (100 - 5) / 3 + 1 = 32.
  EXPECT_TRUE(hasShape(conv({4, 16, 100}, {32, 16, 5}, {3}, {1}, {0, 0}, 1),
                       {4, 32, 32}));
  // Depth: (16 + 2 - 3) / 1 + 1 = 16; H/W: (112 + 6 - 7) / 2 + 1 = 56.
  EXPECT_TRUE(hasShape(conv({1, 3, 16, 112, 112}, {64, 3, 3, 7, 7}, {1, 2, 2},
                            {1, 1, 1}, {1, 3, 3, 1, 3, 3}, 1),
                       {1, 64, 16, 56, 56}));
}

TEST(ShapeInferenceTest, ConvDilationAndAsymmetricPads) {
  // Effective window 5: 32 - 5 + 1 = 28.
  EXPECT_TRUE(hasShape(
      conv({1, 1, 32, 32}, {1, 1, 3, 3}, {1, 1}, {2, 2}, {0, 0, 0, 0}, 1),
      {1, 1, 28, 28}));
  // pads are [b_H, b_W, e_H, e_W]: H gets 2 + 0, W gets 0 + 0.
  EXPECT_TRUE(hasShape(
      conv({1, 1, 5, 5}, {1, 1, 3, 3}, {1, 1}, {1, 1}, {2, 0, 0, 0}, 1),
      {1, 1, 5, 3}));
}

TEST(ShapeInferenceTest, ConvDynamic) {
  EXPECT_TRUE(hasShape(
      conv({D, 3, D, 224}, {64, 3, 7, 7}, {2, 2}, {1, 1}, {3, 3, 3, 3}, 1),
      {D, 64, D, 112}));
  EXPECT_TRUE(hasShape(
      conv({1, D, 8, 8}, {4, 3, 3, 3}, {1, 1}, {1, 1}, {0, 0, 0, 0}, 1),
      {1, 4, 6, 6}));
  EXPECT_TRUE(hasShape(
      conv({1, 3, 8, 8}, {D, 3, D, 3}, {1, 1}, {1, 1}, {0, 0, 0, 0}, 1),
      {1, D, D, 6}));
}

TEST(ShapeInferenceTest, ConvErrors) {
  llvm::SmallVector<int64_t> in = {1, 3, 8, 8};
  llvm::SmallVector<int64_t> f = {4, 3, 3, 3};
  llvm::SmallVector<int64_t> one = {1, 1}, zeroPads = {0, 0, 0, 0};
  EXPECT_TRUE(failsWith(conv({1, 3}, {4, 3}, {}, {}, {}, 1),
                        "input [1, 3] must have rank >= 3"));
  EXPECT_TRUE(failsWith(conv(in, {4, 3, 3}, {1}, {1}, {0, 0}, 1),
                        "filter [4, 3, 3] must have the same rank as input"));
  EXPECT_TRUE(failsWith(conv(in, f, one, one, zeroPads, 0),
                        "groups (0) must be at least 1"));
  EXPECT_TRUE(failsWith(conv(in, {4, 2, 3, 3}, one, one, zeroPads, 1),
                        "input channel count 3"));
  EXPECT_TRUE(failsWith(conv({1, 4, 8, 8}, {6, 1, 3, 3}, one, one, zeroPads, 4),
                        "filter output channel count 6"));
  EXPECT_TRUE(failsWith(conv(in, f, {1}, one, zeroPads, 1),
                        "strides must have 2 entries"));
  EXPECT_TRUE(failsWith(conv(in, f, one, {1, 1, 1}, zeroPads, 1),
                        "dilations must have 2 entries"));
  EXPECT_TRUE(
      failsWith(conv(in, f, one, one, {0, 0}, 1), "pads must have 4 entries"));
  EXPECT_TRUE(failsWith(conv(in, f, {1, 0}, one, zeroPads, 1),
                        "strides entry 1 (0) must be at least 1"));
  EXPECT_TRUE(failsWith(conv(in, f, one, {0, 1}, zeroPads, 1),
                        "dilations entry 0 (0) must be at least 1"));
  EXPECT_TRUE(failsWith(conv(in, f, one, one, {0, 0, -1, 0}, 1),
                        "pads entry 2 (-1) must be non-negative"));
  EXPECT_TRUE(
      failsWith(conv(in, {4, 3, 0, 3}, one, one, zeroPads, 1),
                "filter [4, 3, 0, 3] dimension 2 (0) must be at least 1"));
  EXPECT_TRUE(failsWith(conv({1, 3, 2, 2}, f, one, one, zeroPads, 1),
                        "window does not fit in dimension 2"));
}

TEST(ShapeInferenceTest, Pool) {
  // ResNet max pool: (112 + 2 - 3) / 2 + 1 = 56.
  EXPECT_TRUE(hasShape(
      pool({1, 64, 112, 112}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, false),
      {1, 64, 56, 56}));
  // Global average pool.
  EXPECT_TRUE(hasShape(
      pool({1, 2048, 7, 7}, {7, 7}, {1, 1}, {1, 1}, {0, 0, 0, 0}, false),
      {1, 2048, 1, 1}));
  EXPECT_TRUE(
      hasShape(pool({D, 8, D}, {2}, {2}, {1}, {0, 0}, false), {D, 8, D}));
}

TEST(ShapeInferenceTest, PoolCeilMode) {
  EXPECT_TRUE(hasShape(
      pool({1, 64, 112, 112}, {3, 3}, {2, 2}, {1, 1}, {0, 0, 0, 0}, true),
      {1, 64, 56, 56}));
  EXPECT_TRUE(hasShape(
      pool({1, 64, 112, 112}, {3, 3}, {2, 2}, {1, 1}, {0, 0, 0, 0}, false),
      {1, 64, 55, 55}));
  // The window that would start in the end padding is dropped: 4 -> 3.
  EXPECT_TRUE(
      hasShape(pool({1, 1, 5, 5}, {2, 2}, {2, 2}, {1, 1}, {1, 1, 1, 1}, true),
               {1, 1, 3, 3}));
}

TEST(ShapeInferenceTest, PoolErrors) {
  EXPECT_TRUE(
      failsWith(pool({1, 1, 8, 8}, {3}, {1, 1}, {1, 1}, {0, 0, 0, 0}, false),
                "kernel must have 2 entries"));
  EXPECT_TRUE(
      failsWith(pool({1, 1, 8, 8}, {0, 3}, {1, 1}, {1, 1}, {0, 0, 0, 0}, false),
                "kernel [0, 3] entry 0 (0) must be at least 1"));
  EXPECT_TRUE(
      failsWith(pool({1, 1, 2, 8}, {3, 3}, {1, 1}, {1, 1}, {0, 0, 0, 0}, false),
                "window does not fit in dimension 2 of input [1, 1, 2, 8]"));
  EXPECT_TRUE(
      failsWith(pool({1, 8}, {}, {}, {}, {}, false), "must have rank >= 3"));
  EXPECT_TRUE(
      failsWith(pool({1, 1, 8, 8}, {2, 2}, {2, 2}, {1, 1}, {0, 0}, false),
                "pads must have 4 entries"));
}

//===----------------------------------------------------------------------===//
// Reductions and data movement
//===----------------------------------------------------------------------===//

TEST(ShapeInferenceTest, Reduce) {
  EXPECT_TRUE(hasShape(reduce({2, 3, 4}, {1}, true), {2, 1, 4}));
  EXPECT_TRUE(hasShape(reduce({2, 3, 4}, {1}, false), {2, 4}));
  EXPECT_TRUE(hasShape(reduce({2, 3, 4}, {-1}, false), {2, 3}));
  EXPECT_TRUE(hasShape(reduce({2, 3, 4}, {0, -1}, true), {1, 3, 1}));
  EXPECT_TRUE(hasShape(reduce({2, 3, 4}, {2, 0}, false), {3}));
  EXPECT_TRUE(hasShape(reduce({2, 3, 4}, {}, true), {1, 1, 1}));
  EXPECT_TRUE(hasShape(reduce({2, 3, 4}, {}, false), {}));
  EXPECT_TRUE(hasShape(reduce({D, 3}, {1}, false), {D}));
  EXPECT_TRUE(hasShape(reduce({}, {}, false), {}));
}

TEST(ShapeInferenceTest, ReduceErrors) {
  EXPECT_TRUE(
      failsWith(reduce({2, 3, 4}, {3}, false),
                "axes entry 0 (3) is out of range for input [2, 3, 4]"));
  EXPECT_TRUE(failsWith(reduce({2, 3, 4}, {1, -2}, true),
                        "axes entry 1 (-2) repeats dimension 1"));
  EXPECT_TRUE(failsWith(reduce({}, {0}, true), "out of range"));
}

TEST(ShapeInferenceTest, Transpose) {
  EXPECT_TRUE(hasShape(transpose({2, 3, 4}, {2, 0, 1}), {4, 2, 3}));
  EXPECT_TRUE(hasShape(transpose({D, 5}, {1, 0}), {5, D}));
  EXPECT_TRUE(hasShape(transpose({}, {}), {}));
  EXPECT_TRUE(failsWith(transpose({2, 3, 4}, {0, 0, 1}),
                        "entry 1 repeats dimension 0"));
  EXPECT_TRUE(failsWith(transpose({2, 3, 4}, {0, 1}),
                        "perm [0, 1] must have one entry per dimension"));
  EXPECT_TRUE(failsWith(transpose({2, 3, 4}, {0, 1, 3}),
                        "entry 2 (3) is out of range"));
  EXPECT_TRUE(failsWith(transpose({2, 3, 4}, {-1, 0, 1}),
                        "is not a permutation of [0, 3)"));
}

TEST(ShapeInferenceTest, Concat) {
  EXPECT_TRUE(hasShape(concat({{2, 3}, {4, 3}}, 0), {6, 3}));
  EXPECT_TRUE(hasShape(concat({{2, 3}, {2, 5}, {2, 1}}, -1), {2, 9}));
  EXPECT_TRUE(hasShape(concat({{2, D}, {2, 3}}, 1), {2, D}));
  // A static size in one operand refines a dynamic one in another.
  EXPECT_TRUE(hasShape(concat({{D, 3}, {2, 4}}, 1), {2, 7}));
  EXPECT_TRUE(hasShape(concat({{5, 6}}, 0), {5, 6}));
}

TEST(ShapeInferenceTest, ConcatErrors) {
  EXPECT_TRUE(failsWith(concat({}, 0), "at least one operand"));
  EXPECT_TRUE(failsWith(concat({{2, 3}, {2, 3, 1}}, 0),
                        "operand 1 [2, 3, 1] has rank 3 but operand 0 [2, 3] "
                        "has rank 2"));
  EXPECT_TRUE(failsWith(concat({{2, 3}, {D, 3}, {4, 3}}, 1),
                        "operand 2 [4, 3] dimension 0 (4) does not match "
                        "operand 0 [2, 3] dimension 0 (2)"));
  EXPECT_TRUE(failsWith(concat({{2, 3}, {2, 3}}, 2),
                        "axis 2 is out of range for operands of rank 2"));
  EXPECT_TRUE(failsWith(concat({{}, {}}, 0), "out of range"));
}

TEST(ShapeInferenceTest, SlicePositiveSteps) {
  // ceil((20 - 5) / 2) = 8.
  EXPECT_TRUE(hasShape(slice({10, 20}, {0, 5}, {10, 20}, {1, 2}), {10, 8}));
  EXPECT_TRUE(hasShape(slice({10}, {3}, {3}, {1}), {0}));
  EXPECT_TRUE(hasShape(slice({10}, {9}, {10}, {100}), {1}));
  EXPECT_TRUE(hasShape(slice({D, 10}, {0, 0}, {5, 10}, {1, 1}), {D, 10}));
}

TEST(ShapeInferenceTest, SliceNegativeSteps) {
  // Full reversal: start 9, end -1 (one before the first element).
  EXPECT_TRUE(hasShape(slice({10}, {9}, {-1}, {-1}), {10}));
  // Indices 9, 6, 3, 0.
  EXPECT_TRUE(hasShape(slice({10}, {9}, {-1}, {-3}), {4}));
  // Indices 7, 5, 3.
  EXPECT_TRUE(hasShape(slice({10}, {7}, {2}, {-2}), {3}));
  // The most negative step has no int64 negation; it still selects one item.
  EXPECT_TRUE(hasShape(
      slice({10}, {9}, {-1}, {std::numeric_limits<int64_t>::min()}), {1}));
}

TEST(ShapeInferenceTest, SliceErrors) {
  EXPECT_TRUE(failsWith(slice({10}, {0}, {10}, {0}), "steps entry 0 is 0"));
  EXPECT_TRUE(failsWith(slice({10}, {0}, {11}, {1}),
                        "slice of dimension 0 (10) of input [10] with start 0, "
                        "end 11 and step 1 is out of bounds"));
  EXPECT_TRUE(failsWith(slice({10}, {5}, {2}, {1}),
                        "a positive step requires 0 <= start <= end <= 10"));
  EXPECT_TRUE(failsWith(slice({10}, {9}, {-2}, {-1}),
                        "a negative step requires -1 <= end <= start <= 9"));
  EXPECT_TRUE(failsWith(slice({10, 4}, {0}, {10}, {1}),
                        "starts must have one entry per dimension"));
}

TEST(ShapeInferenceTest, Gather) {
  EXPECT_TRUE(hasShape(gather({5, 4, 3}, {2, 6}, 1), {5, 2, 6, 3}));
  // Scalar indices remove the gathered axis.
  EXPECT_TRUE(hasShape(gather({5, 4, 3}, {}, 0), {4, 3}));
  EXPECT_TRUE(hasShape(gather({5, 4, 3}, {7}, -1), {5, 4, 7}));
  EXPECT_TRUE(hasShape(gather({D, 4}, {D}, 0), {D, 4}));
  EXPECT_TRUE(failsWith(gather({}, {2}, 0), "data must have rank >= 1"));
  EXPECT_TRUE(failsWith(gather({5, 4, 3}, {2}, 3),
                        "axis 3 is out of range for data [5, 4, 3]"));
}

TEST(ShapeInferenceTest, Pad) {
  EXPECT_TRUE(hasShape(pad({3, 4}, {1, 2, 3, 4}), {7, 10}));
  // Negative pads crop.
  EXPECT_TRUE(hasShape(pad({3, 4}, {-1, 0, -1, 0}), {1, 4}));
  EXPECT_TRUE(hasShape(pad({D, 4}, {1, 1, 1, 1}), {D, 6}));
  EXPECT_TRUE(hasShape(pad({}, {}), {}));
  EXPECT_TRUE(failsWith(pad({3, 4}, {1, 1}), "pads must have 4 entries"));
  EXPECT_TRUE(failsWith(pad({3}, {-2, -2}),
                        "padding dimension 0 (3) of input [3] by -2 and -2 "
                        "gives negative size -1"));
}

TEST(ShapeInferenceTest, Reshape) {
  EXPECT_TRUE(hasShape(reshape({2, 3, 4}, {6, 4}), {6, 4}));
  EXPECT_TRUE(hasShape(reshape({2, 3, 4}, {24}), {24}));
  EXPECT_TRUE(hasShape(reshape({2, 3, 4}, {-1, 4}), {D, 4}));
  EXPECT_TRUE(hasShape(reshape({2, 3, 4}, {D, 4}), {D, 4}));
  EXPECT_TRUE(hasShape(reshape({}, {1, 1}), {1, 1}));
  EXPECT_TRUE(hasShape(reshape({0, 3}, {0, -1}), {0, D}));
  // Nothing can be checked against a dynamic input.
  EXPECT_TRUE(hasShape(reshape({D, 4}, {8, 3}), {8, 3}));
}

TEST(ShapeInferenceTest, ReshapeErrors) {
  EXPECT_TRUE(
      failsWith(reshape({2, 3, 4}, {5, 5}),
                "cannot reshape input [2, 3, 4] (24 elements) to [5, 5] "
                "(25 elements)"));
  EXPECT_TRUE(failsWith(reshape({2, 3, 4}, {-1, 5}),
                        "the static dimensions hold 5 elements"));
  EXPECT_TRUE(failsWith(reshape({2, 3, 4}, {0, -1}),
                        "the static dimensions hold 0 elements"));
  EXPECT_TRUE(failsWith(reshape({2, 3}, {-2, 3}),
                        "newShape [-2, 3] entry 0 (-2) must be non-negative"));
  EXPECT_TRUE(failsWith(reshape({int64_t(1) << 32, int64_t(1) << 32}, {-1}),
                        "has more elements than fit in int64"));
  EXPECT_TRUE(failsWith(reshape({D}, {int64_t(1) << 32, int64_t(1) << 32}),
                        "has more elements than fit in int64"));
}

} // namespace

//===----------------------------------------------------------------------===//
// Recurrent, indexing and resampling ops
//===----------------------------------------------------------------------===//

namespace {

TEST(ShapeInferenceTest, MatchShape) {
  EXPECT_TRUE(hasShape(matchShape("b", {2, D}, {D, 3}), {2, 3}));
  EXPECT_TRUE(failsWith(matchShape("b", {2, 4}, {2, 3}),
                        "b shape [2, 4] does not match the expected [2, 3]"));
  EXPECT_TRUE(failsWith(matchShape("b", {2}, {2, 3}), "b shape [2]"));
}

TEST(ShapeInferenceTest, Recurrent) {
  // LSTM, bidirectional, hidden 8: W [2, 32, 4], R [2, 32, 8].
  EXPECT_TRUE(hasShape(recurrent({5, 3, 4}, {2, 32, 4}, {2, 32, 8}, 2, 8, 4),
                       {5, 2, 3, 8}));
  // GRU with dynamic sequence and batch.
  EXPECT_TRUE(hasShape(recurrent({D, D, 4}, {1, 24, 4}, {1, 24, 8}, 1, 8, 3),
                       {D, 1, D, 8}));
  // A dynamic input size is taken as compatible with the weights.
  EXPECT_TRUE(hasShape(recurrent({5, 3, D}, {1, 8, 4}, {1, 8, 8}, 1, 8, 1),
                       {5, 1, 3, 8}));
}

TEST(ShapeInferenceTest, RecurrentErrors) {
  EXPECT_TRUE(failsWith(recurrent({5, 3}, {1, 8, 4}, {1, 8, 8}, 1, 8, 1),
                        "x [5, 3] must have rank 3"));
  EXPECT_TRUE(failsWith(recurrent({5, 3, 4}, {1, 8, 5}, {1, 8, 8}, 1, 8, 1),
                        "w shape [1, 8, 5] does not match the expected [1, 8, 4]"));
  EXPECT_TRUE(failsWith(recurrent({5, 3, 4}, {1, 24, 4}, {1, 24, 4}, 1, 8, 3),
                        "r shape [1, 24, 4] does not match the expected [1, 24, 8]"));
  EXPECT_TRUE(failsWith(recurrent({5, 3, 4}, {1, 8, 4}, {1, 8, 8}, 1, 0, 1),
                        "hidden_size (0) must be at least 1"));
  EXPECT_TRUE(failsWith(
      recurrent({5, 3, 4}, {1, 8, 4}, {1, 8, 8}, 1, int64_t(1) << 61, 4),
      "is too large"));
}

TEST(ShapeInferenceTest, TopK) {
  EXPECT_TRUE(hasShape(topK({2, 10}, 3, -1), {2, 3}));
  EXPECT_TRUE(hasShape(topK({D, 10}, 2, 0), {2, 10}));
  EXPECT_TRUE(failsWith(topK({2, 10}, 11, 1), "k (11) exceeds dimension 1 (10)"));
  EXPECT_TRUE(failsWith(topK({2, 10}, -1, 1), "k (-1) must be non-negative"));
  EXPECT_TRUE(failsWith(topK({2, 10}, 1, 2), "axis 2 is out of range"));
}

TEST(ShapeInferenceTest, GatherElements) {
  EXPECT_TRUE(hasShape(gatherElements({3, 4}, {3, 7}, 1), {3, 7}));
  EXPECT_TRUE(hasShape(gatherElements({3, 4}, {2, 2}, -1), {2, 2}));
  EXPECT_TRUE(failsWith(gatherElements({3, 4}, {4, 2}, 1),
                        "indices [4, 2] dimension 0 (4) exceeds data [3, 4]"));
  EXPECT_TRUE(failsWith(gatherElements({3, 4}, {3}, 0),
                        "must have the rank of data"));
}

TEST(ShapeInferenceTest, GatherNd) {
  // ONNX examples: data [2, 2], indices [2, 2] -> [2]; [2, 1] -> [2, 2].
  EXPECT_TRUE(hasShape(gatherNd({2, 2}, {2, 2}, 0), {2}));
  EXPECT_TRUE(hasShape(gatherNd({2, 2}, {2, 1}, 0), {2, 2}));
  // batch_dims = 1: data [2, 2, 2], indices [2, 1] -> [2, 2].
  EXPECT_TRUE(hasShape(gatherNd({2, 2, 2}, {2, 1}, 1), {2, 2}));
  EXPECT_TRUE(failsWith(gatherNd({2, 2}, {2, 3}, 0),
                        "index tuple length 3"));
  EXPECT_TRUE(failsWith(gatherNd({2, 2}, {2, D}, 0), "must be static"));
  EXPECT_TRUE(failsWith(gatherNd({2, 2}, {3, 1}, 1),
                        "batch dimension 0 differs"));
  EXPECT_TRUE(failsWith(gatherNd({2, 2}, {2, 1}, 2),
                        "batch_dims (2) must be non-negative"));
}

TEST(ShapeInferenceTest, Scatters) {
  EXPECT_TRUE(hasShape(scatterNd({4, 5}, {2, 1}, {2, 5}), {4, 5}));
  EXPECT_TRUE(hasShape(scatterNd({4, 5}, {3, 2}, {3}), {4, 5}));
  EXPECT_TRUE(failsWith(scatterNd({4, 5}, {2, 1}, {2, 4}),
                        "updates shape [2, 4] does not match the expected [2, 5]"));
  EXPECT_TRUE(hasShape(scatterElements({4, 5}, {4, 2}, {4, 2}, 1), {4, 5}));
  EXPECT_TRUE(failsWith(scatterElements({4, 5}, {4, 2}, {4, 3}, 1),
                        "updates shape [4, 3]"));
}

TEST(ShapeInferenceTest, ConvTranspose) {
  // DCGAN-style upsampling: 4x4 -> 8x8 with k 4, stride 2, pads 1.
  EXPECT_TRUE(hasShape(convTranspose({1, 16, 4, 4}, {16, 8, 4, 4}, {2, 2},
                                     {1, 1}, {1, 1, 1, 1}, {0, 0}, 1),
                       {1, 8, 8, 8}));
  // (8 - 1) * 2 + 1 + 2 + 1 - 2 = 16, groups multiply output channels.
  EXPECT_TRUE(hasShape(convTranspose({1, 16, 8, 8}, {16, 4, 3, 3}, {2, 2},
                                     {1, 1}, {1, 1, 1, 1}, {1, 1}, 2),
                       {1, 8, 16, 16}));
  EXPECT_TRUE(hasShape(convTranspose({D, 4, D, 5}, {4, 2, 3, 3}, {1, 1},
                                     {1, 1}, {0, 0, 0, 0}, {0, 0}, 1),
                       {D, 2, D, 7}));
  EXPECT_TRUE(failsWith(convTranspose({1, 8, 4, 4}, {16, 4, 3, 3}, {1, 1},
                                      {1, 1}, {0, 0, 0, 0}, {0, 0}, 1),
                        "input channel count 8"));
  EXPECT_TRUE(failsWith(convTranspose({1, 16, 4, 4}, {16, 4, 3, 3}, {1, 1},
                                      {1, 1}, {0, 0, 0, 0}, {1, 0}, 1),
                        "output_padding entry 0 (1)"));
  EXPECT_TRUE(failsWith(convTranspose({1, 16, 4, 4}, {16, 4, 3, 3}, {1},
                                      {1, 1}, {0, 0, 0, 0}, {0, 0}, 1),
                        "strides must have 2 entries"));
}

TEST(ShapeInferenceTest, Resize) {
  EXPECT_TRUE(hasShape(resize({1, 3, 8, 8}, {1, 3, 16, 12}), {1, 3, 16, 12}));
  EXPECT_TRUE(hasShape(resize({D, 3}, {-1, 6}), {D, 6}));
  EXPECT_TRUE(failsWith(resize({1, 3}, {1}), "one entry per dimension"));
  EXPECT_TRUE(failsWith(resize({0, 3}, {2, 3}), "cannot resize empty dimension 0"));
  EXPECT_TRUE(failsWith(resize({2, 3}, {2, -2}), "sizes entry 1 (-2) is invalid"));
}

} // namespace
