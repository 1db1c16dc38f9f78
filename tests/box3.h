// An axis-aligned box in double precision, for the brute-force broadphase oracles
// (tests/test_rigid_parity.cpp, tests/test_sweep_chunks.cpp).
#pragma once

#include <glm/glm.hpp>

namespace vkphys::test {

struct Box3 {
  glm::dvec3 lo, hi;
};

}  // namespace vkphys::test
