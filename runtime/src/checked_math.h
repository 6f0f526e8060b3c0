// checked_math.h - size arithmetic that reports overflow instead of
// wrapping. Every size, offset and count the loader reads from an artifact
// is attacker- or corruption-controlled, so sums, products and roundings of
// them go through these helpers.
#ifndef KILN_RUNTIME_SRC_CHECKED_MATH_H_
#define KILN_RUNTIME_SRC_CHECKED_MATH_H_

#include <cstdint>

namespace kiln {

// *out = a + b; false (and *out unchanged) on overflow.
inline bool CheckedAdd(uint64_t a, uint64_t b, uint64_t* out) {
  uint64_t r;
  if (__builtin_add_overflow(a, b, &r)) return false;
  *out = r;
  return true;
}

// *out = a * b; false (and *out unchanged) on overflow.
inline bool CheckedMul(uint64_t a, uint64_t b, uint64_t* out) {
  uint64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return false;
  *out = r;
  return true;
}

// *out = value rounded up to a multiple of `alignment` (> 0); false on
// overflow.
inline bool CheckedAlignUp(uint64_t value, uint64_t alignment, uint64_t* out) {
  uint64_t sum;
  if (alignment == 0 || !CheckedAdd(value, alignment - 1, &sum)) return false;
  *out = sum / alignment * alignment;
  return true;
}

// [offset, offset + length) lies inside [0, limit), without overflow.
inline bool RangeInside(uint64_t offset, uint64_t length, uint64_t limit) {
  return offset <= limit && length <= limit - offset;
}

// [a, a + a_length) and [b, b + b_length) share a byte. Empty ranges
// overlap nothing. The ends are known not to wrap (ranges inside memory).
inline bool RangesOverlap(uint64_t a, uint64_t a_length, uint64_t b, uint64_t b_length) {
  return a_length > 0 && b_length > 0 && a < b + b_length && b < a + a_length;
}

}  // namespace kiln

#endif  // KILN_RUNTIME_SRC_CHECKED_MATH_H_
