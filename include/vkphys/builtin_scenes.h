/// \file
/// The scenes the library builds in code (`vkphys export-scene` writes them as scene files):
/// stacks, a funnel, pendulums, a ragdoll, pyramids, a wall, a chain, box rain, particle scenes,
/// a rope with a box, and the cloths of `vkphys bench`. Each is a plain Scene, to change or give to
/// World.
///
///   vkphys::Scene s = vkphys::builtin_scene("pyramid", 10);  // a base-10 pyramid: 55 boxes
///   vkphys::World world(s);
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "vkphys/export.h"
#include "vkphys/scene.h"

namespace vkphys {

/// The names builtin_scene takes, in a fixed order: stack, stack-intersecting, funnel,
/// pendulum-wave, pendulum-grid, pendulum-grid-push, ragdoll, pyramid, wall, chain, box-rain,
/// ramp, particle-bed, paddle, particle-box, rope-box, pyramids, cloth-drape, cloth-drape-self,
/// cloth-hang, flag.
VKPHYS_API std::vector<std::string> builtin_scene_names();

/// The largest `size` builtin_scene takes for the scene called `name`: its bodies, joints and
/// particles stay within the scene loader's limits (vkphys/limits.h). 0 for a scene without a
/// size parameter (funnel, ragdoll, rope-box). Throws Error for a name builtin_scene_names()
/// does not list.
VKPHYS_API std::uint32_t builtin_scene_max_size(std::string_view name);

/// The scene called `name`. `size` is its count or base parameter (bodies of a stack, the
/// base of the pyramid, copies of the base-10 pyramid side by side for pyramids, rows of the
/// wall, links of the chain, particles of the ramp, vertices along a cloth's side, ...); 0 takes
/// the scene's default. `seed` picks particle-box's random stream of particle jitter (0: its
/// default, 1); the other scenes are not random. Throws Error for an unknown name, for a size
/// above builtin_scene_max_size(name), for a size given to a scene without one and for a seed
/// given to a scene other than particle-box.
VKPHYS_API Scene builtin_scene(std::string_view name, std::uint32_t size = 0,
                               std::uint64_t seed = 0);

}  // namespace vkphys
