// Rigid-body scenes built in code: the seed documents' scenes, benchmark scenes and test rigs.
// scenes/*.json holds the same scenes as files (written by `vkphys export-scene`).
//
// All use y up and g = (0, -10, 0) unless a seed document says otherwise, the SPOOK defaults of
// the Material type unless noted, and are deterministic (no randomness, or a fixed splitmix64
// stream).
#pragma once

#include <cstdint>

#include "vkphys/build.h"
#include "vkphys/scene.h"

namespace vkphys {

// Seed 000 section 10.1: `count` cubes of edge 2.4 m and mass 1.2 kg, centres 3 m apart, the
// lowest 2 m above the floor plane (0.8 m gap); g = 10, 60 Hz, 25 iterations.
// With `intersecting` (section 10.2): centres 2 m apart, the lowest centre on the floor plane.
Scene stack_scene(std::uint32_t count = 5, bool intersecting = false);

// Seed 000 section 10.3: 20 balls dropped into a pyramid-shaped funnel of 4 inclined planes
// (plus the floor), 4 layers of 5.
Scene funnel_scene();

// Seed 000 section 10.3: `count` balls, each hanging from its own fixed world point by a
// distance joint; lengths chosen so the periods form a pendulum wave (ball k makes N + k
// swings in T = 60 s), all released from the same angle.
Scene pendulum_wave_scene(std::uint32_t count = 50);

// Seed 000 section 10.3: an n x n grid of balls, each hung from its own world point by a rigid
// bar (distance joint), not linked to each other, with a few boxes dropped on top. With `push`,
// the "strong push" that makes them fall through: at t = 2 s (the slabs at rest on the grid) a
// scheduled impulse of 6 N s along +x on each ball of the middle row.
Scene pendulum_grid_scene(std::uint32_t n = 5, bool push = false);

// Seed 004 section 11 / Table 1: an 18-body rag-doll (capsules/boxes/spheres with Table 1's
// masses converted to kg, ball joints at the pins with Table 1's per-axis angle limits) dropped
// onto the ground plane from 1 m.
Scene ragdoll_scene();

// A pyramid of boxes (edge 1 m, 1 kg) with `base` boxes in its bottom row, in the x-y plane,
// resting on the floor; `copies` pyramids side by side along z, 2 m apart.
Scene pyramid_scene(std::uint32_t base = 20, std::uint32_t copies = 1);

// A wall of `rows` x `columns` boxes (1 x 0.5 x 0.5 m, running bond) on the floor.
Scene wall_scene(std::uint32_t rows = 10, std::uint32_t columns = 10);

// A chain of `links` capsules joined end to end by ball joints, hanging from a world point and
// released horizontally.
Scene chain_scene(std::uint32_t links = 20);

// `count` boxes (edge 0.5 m) on a loose lattice falling into an open container of 4 walls and
// a floor (planes), for benchmarks.
Scene box_rain_scene(std::uint32_t count);

}  // namespace vkphys
