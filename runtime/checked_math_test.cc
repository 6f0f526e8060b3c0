// The overflow-checked size arithmetic the loader and sessions use.
#include "runtime/src/checked_math.h"

#include <gtest/gtest.h>

#include <limits>

namespace kiln {
namespace {

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();

TEST(CheckedMath, AddAndMulReportOverflow) {
  uint64_t r = 7;
  EXPECT_TRUE(CheckedAdd(kMax - 1, 1, &r));
  EXPECT_EQ(r, kMax);
  EXPECT_FALSE(CheckedAdd(kMax, 1, &r));
  EXPECT_EQ(r, kMax);  // unchanged on failure
  EXPECT_TRUE(CheckedMul(1ull << 32, (1ull << 32) - 1, &r));
  EXPECT_FALSE(CheckedMul(1ull << 32, 1ull << 32, &r));
  EXPECT_TRUE(CheckedMul(0, kMax, &r));
  EXPECT_EQ(r, 0u);
}

TEST(CheckedMath, AlignUpNearTheTop) {
  uint64_t r = 0;
  EXPECT_TRUE(CheckedAlignUp(65, 64, &r));
  EXPECT_EQ(r, 128u);
  EXPECT_TRUE(CheckedAlignUp(kMax - 63, 64, &r));  // already a multiple of 64
  EXPECT_EQ(r, kMax - 63);
  // (kMax - 10 + 63) / 64 * 64 wraps to a tiny size in unchecked code.
  EXPECT_FALSE(CheckedAlignUp(kMax - 10, 64, &r));
  EXPECT_FALSE(CheckedAlignUp(1, 0, &r));
}

TEST(CheckedMath, RangesInsideAndOverlapping) {
  EXPECT_TRUE(RangeInside(0, 10, 10));
  EXPECT_FALSE(RangeInside(1, 10, 10));
  EXPECT_FALSE(RangeInside(kMax - 8, 1600, 3200));  // offset + length wraps
  EXPECT_FALSE(RangeInside(8, kMax, 3200));
  EXPECT_TRUE(RangesOverlap(0, 10, 9, 10));
  EXPECT_FALSE(RangesOverlap(0, 10, 10, 10));  // adjacent
  EXPECT_FALSE(RangesOverlap(5, 0, 0, 10));    // empty
  EXPECT_TRUE(RangesOverlap(0, 100, 40, 10));  // contained
}

}  // namespace
}  // namespace kiln
