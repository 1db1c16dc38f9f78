// color_joints (host/sim/joint_coloring.h). Why greedy: it is sequential, but it runs once, and
// it uses few colours (a joint takes the lowest free one), where the step's Luby passes over
// contacts must stay parallel on the GPU. Static bodies (1/m = 0: planes, pins, kinematic
// bodies) are shared freely, as in the step's colouring: the solver never writes them.
#include "host/sim/joint_coloring.h"

#include <algorithm>
#include <bit>

#include "kernels/world_layout.h"

namespace vkphys {

std::vector<std::uint32_t> color_joints(const WorldArrays& world, std::uint32_t max_colors) {
  const std::uint32_t joints = world.joints();
  std::vector<std::uint32_t> out(world.bodies() + joints, 0u);
  std::uint32_t* masks = out.data();
  std::uint32_t* colors = out.data() + world.bodies();
  auto dynamic = [&](std::uint32_t b) { return world.vel[b].w > 0.0f; };
  // A mask holds 32 colours; the scene's limit (at most 30) is checked with the step settings.
  const std::uint32_t limit = std::min(max_colors, 32u);
  for (std::uint32_t j = 0; j < joints; ++j) {
    const std::uint32_t a = world.joint_info[j].x, b = world.joint_info[j].y;
    const std::uint32_t used = (dynamic(a) ? masks[a] : 0u) | (dynamic(b) ? masks[b] : 0u);
    const auto c = static_cast<std::uint32_t>(std::countr_one(used));
    if (c >= limit) {
      colors[j] = VKPHYS_UNCOLORED;
      continue;
    }
    colors[j] = c;
    if (dynamic(a)) masks[a] |= 1u << c;
    if (dynamic(b)) masks[b] |= 1u << c;
  }
  return out;
}

}  // namespace vkphys
