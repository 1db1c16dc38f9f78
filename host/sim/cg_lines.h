// The lines of the implicit integrator's line preconditioner (solver.cg_preconditioner "lines",
// kernels/world_implicit.inl "Lines"): two families of vertex-disjoint particle paths along the
// force springs, found once at load from the particles' initial positions.
#pragma once

#include <cstdint>
#include <glm/glm.hpp>
#include <vector>

#include "host/sim/world_setup.h"

namespace vkphys {

struct CgLines {
  // 4 per particle: (predecessor, successor) in family 0, then in family 1 (particle indices,
  // VKPHYS_NO_LINK at a line's end); then the lines' first particles, family 0's, family 1's.
  std::vector<std::uint32_t> links;
  glm::uvec2 counts{0u};  // lines in family 0 (every particle is on one), in family 1
};

// The greedy rule. A spring's weight is k / rest length (rest 0: its length at load), its
// direction the particles' at load. Family f has an axis: family 0's the direction of the
// heaviest spring (the lowest index among equals), family 1's that of the heaviest spring at
// least 60 degrees off it (none: family 1 is empty). Particles in index order that are on no
// line of the family seed one: the seed's heaviest spring within 45 degrees of the axis (to a
// particle on no line of the family, and for family 1 not a link of family 0), ties to the
// straighter then the lower index; the line then grows from both ends, each time through the
// heaviest spring at the end that continues the line's last link within 25 degrees (ties as
// before), to a particle on no line yet. Where no spring qualifies the seed is a line of one in
// family 0 (block Jacobi's block) and on no line in family 1. A taut grid cloth gets its rows
// and its columns (its structural springs: heavier than the bend springs, which reach twice as
// far, and than the shear springs, 45 degrees off); a mesh cloth or a soft body lines along
// its two stiffest directions where its springs line up.
CgLines find_cg_lines(const WorldArrays& w);

}  // namespace vkphys
