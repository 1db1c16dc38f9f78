// Scenes built in code, for benchmarks and tests: a block of particles in a closed box.
#pragma once

#include <cstdint>

#include "vkphys/scene.h"

namespace vkphys {

// `count` particles of radius r on a jittered cubic lattice (spacing 2.05 r) `layers` deep, on
// the floor of a closed box just wide enough for it, with friction 0.3 and SPOOK k = 1e6 N/m,
// d = 4, uncapped (solver.contact_hertz = 0), 32 iterations. Deterministic for a given seed. The
// pile is kept shallow by default because Jacobi needs iterations in proportion to the pile's depth
// to carry its weight (ARCHITECTURE.md).
Scene particle_box_scene(std::uint32_t count, std::uint64_t seed = 1, float radius = 0.05f,
                         std::uint32_t layers = 4);

// The six inward-facing planes of the axis-aligned box [lo, hi].
void add_box_planes(Scene& scene, glm::vec3 lo, glm::vec3 hi, std::uint32_t material,
                    bool open_top);

}  // namespace vkphys
