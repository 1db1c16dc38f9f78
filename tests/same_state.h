// Bit-for-bit equality of world states, for the tests that promise identical results (two runs,
// two capacities, the fused and the per-colour GPU solve).
#pragma once

#include <cstring>
#include <vector>

#include "host/sim/backend.h"

namespace vkphys::test {

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  // memcmp must not see the null data() of an empty vector (UBSan in the asan preset).
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

inline bool same_state(const WorldState& a, const WorldState& b) {
  return same_bits(a.pos, b.pos) && same_bits(a.rot, b.rot) && same_bits(a.vel, b.vel) &&
         same_bits(a.omega, b.omega) && same_bits(a.particles.pos_radius, b.particles.pos_radius) &&
         same_bits(a.particles.vel_invmass, b.particles.vel_invmass);
}

}  // namespace vkphys::test
