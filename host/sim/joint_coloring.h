// The joints' colours, made once when the world is built (issue 9: cloth edges coloured once at
// load; issue 11: a greedy colouring with per-body masks). Joints (every compliant spring and
// tether among them) are fixed for the run, so their colouring is too: the step's colouring
// (kernels/world_coloring.inl) starts from these colours and fits only the contacts around
// them, instead of colouring every spring again every step (a 64 x 64 hanging cloth with
// tethers, 16,127 units: 2.8 of its 5.3 ms a step on the CPU).
#pragma once

#include <cstdint>
#include <vector>

#include "host/sim/world_setup.h"

namespace vkphys {

// Greedy, in joint order: each joint takes the lowest colour that none of its dynamic bodies'
// joints holds yet. Returns N + J entries, as body_color holds them from 2N on (kernels/
// world_layout.h): [0, N) each body's mask of its joints' colours (bit c: colour c;
// max_colors <= 30), [N, N + J) each joint's colour, or VKPHYS_UNCOLORED where all
// `max_colors` colours are taken on one of its bodies (the step then colours it with the
// contacts).
std::vector<std::uint32_t> color_joints(const WorldArrays& world, std::uint32_t max_colors);

}  // namespace vkphys
