// CPU twins of the GPU scan and radix sort (host/gpu/primitives.cpp): the same digit helpers
// (kernels/radix.h) and LSD counting-sort passes. The twin always counts 8 bits a pass where
// the GPU may take up to 11 (radix_width); both are stable sorts by the same key bits, so the
// orderings are identical.
#include "host/cpu/primitives.h"

#include <algorithm>
#include <array>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kernels/radix.h"

namespace vkphys::cpu {

std::uint32_t exclusive_scan(std::span<std::uint32_t> data) {
  std::uint32_t sum = 0;
  for (std::uint32_t& v : data) {
    const std::uint32_t x = v;
    v = sum;
    sum = kern::saturating_add(sum, x);  // saturates at VKPHYS_SCAN_LIMIT, as on the GPU
  }
  return sum;
}

void radix_sort(std::span<std::uint32_t> keys, std::span<std::uint32_t> values,
                std::uint32_t key_bits) {
  if (keys.size() != values.size()) {
    throw std::invalid_argument("radix_sort: " + std::to_string(keys.size()) + " keys but " +
                                std::to_string(values.size()) + " values");
  }
  if (key_bits > 32) {  // 0 is fine: all keys compare equal and nothing moves
    throw std::invalid_argument("radix_sort: key_bits must be 0..32, got " +
                                std::to_string(key_bits));
  }
  const std::size_t n = keys.size();
  if (n <= 1) return;
  if (n > std::numeric_limits<std::uint32_t>::max()) {
    throw std::invalid_argument("radix_sort: more than 2^32 - 1 elements");
  }

  // Ping-pong between the caller's spans and a scratch pair, as the GPU version does.
  std::vector<std::uint32_t> keys_scratch(n), values_scratch(n);
  std::span<std::uint32_t> src_keys = keys, src_values = values;
  std::span<std::uint32_t> dst_keys = keys_scratch, dst_values = values_scratch;
  constexpr std::uint32_t width = VKPHYS_RADIX_BITS;
  const std::uint32_t passes = kern::radix_passes(key_bits, width);
  for (std::uint32_t pass = 0; pass < passes; ++pass) {
    std::array<std::uint32_t, VKPHYS_RADIX_DIGITS> offset{};
    for (std::uint32_t key : src_keys) ++offset[kern::radix_digit(key, pass, key_bits, width)];
    exclusive_scan(offset);
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t slot = offset[kern::radix_digit(src_keys[i], pass, key_bits, width)]++;
      dst_keys[slot] = src_keys[i];
      dst_values[slot] = src_values[i];
    }
    std::swap(src_keys, dst_keys);
    std::swap(src_values, dst_values);
  }
  if (passes % 2 == 1) {  // the result is in the scratch pair
    std::copy(keys_scratch.begin(), keys_scratch.end(), keys.begin());
    std::copy(values_scratch.begin(), values_scratch.end(), values.begin());
  }
}

}  // namespace vkphys::cpu
