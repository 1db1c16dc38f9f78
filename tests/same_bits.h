// Bit-for-bit equality of values and of vectors (so that -0 and 0 differ, where a plain == would
// let a lost sign through), for the scene comparisons (scene_compare.h), the world states
// (same_state.h) and the tests that compare arrays directly.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace vkphys::test {

template <class T>
::testing::AssertionResult same_bits(const T& a, const T& b) {
  if (std::memcmp(&a, &b, sizeof(T)) == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "the values differ bit for bit";
}
template <class T>
::testing::AssertionResult same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size()) {
    return ::testing::AssertionFailure() << "sizes " << a.size() << " and " << b.size();
  }
  // One memcmp for the whole array, which must not see the null data() of an empty vector (UBSan
  // in the asan preset); the element that differs only when one does.
  if (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0) {
    return ::testing::AssertionSuccess();
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::memcmp(&a[i], &b[i], sizeof(T)) != 0) {
      return ::testing::AssertionFailure() << "element " << i << " differs bit for bit";
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace vkphys::test
