// CPU twins of the GPU primitives (host/gpu/primitives.h): the same algorithms as loops, used by
// the CPU reference backend so that both backends produce identical orderings.
#pragma once

#include <cstdint>
#include <span>

namespace vkphys::cpu {

// In-place exclusive scan; returns the total.
std::uint32_t exclusive_scan(std::span<std::uint32_t> data);

// Stable LSD radix sort of (keys, values) by the low key_bits bits of the keys.
void radix_sort(std::span<std::uint32_t> keys, std::span<std::uint32_t> values,
                std::uint32_t key_bits = 32);

}  // namespace vkphys::cpu
