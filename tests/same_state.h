// Bit-for-bit equality of world states, for the tests that promise identical results (two runs,
// two capacities, the fused and the per-colour GPU solve).
#pragma once

#include "host/sim/backend.h"
#include "tests/same_bits.h"

namespace vkphys::test {

inline bool same_state(const WorldState& a, const WorldState& b) {
  return same_bits(a.pos, b.pos) && same_bits(a.rot, b.rot) && same_bits(a.vel, b.vel) &&
         same_bits(a.omega, b.omega) && same_bits(a.particles.pos_radius, b.particles.pos_radius) &&
         same_bits(a.particles.vel_invmass, b.particles.vel_invmass);
}

}  // namespace vkphys::test
