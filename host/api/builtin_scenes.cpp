// The public built-in scenes (vkphys/builtin_scenes.h): the builders of host/sim/ by name, each
// size bounded by the scene loader's limits (vkphys/limits.h).
#include "vkphys/builtin_scenes.h"

#include <fmt/format.h>

#include <algorithm>

#include "host/api/guarded.h"
#include "host/sim/mixed_scenes.h"
#include "host/sim/rigid_scenes.h"
#include "host/sim/scene_builders.h"
#include "vkphys/error.h"
#include "vkphys/limits.h"

namespace vkphys {

namespace {

// The largest cloth side: a cloth's about 6 n^2 springs stay within kMaxJoints.
constexpr std::uint32_t kMaxClothSide = 800;

// The largest n with count(n) <= limit (count grows with n).
template <class Count>
std::uint64_t largest_within(std::uint64_t limit, Count count) {
  std::uint64_t n = 1;
  while (count(n + 1) <= limit) ++n;
  return n;
}

}  // namespace

std::vector<std::string> builtin_scene_names() {
  return {"stack",
          "stack-intersecting",
          "funnel",
          "pendulum-wave",
          "pendulum-grid",
          "pendulum-grid-push",
          "ragdoll",
          "pyramid",
          "wall",
          "chain",
          "box-rain",
          "ramp",
          "particle-bed",
          "paddle",
          "particle-box",
          "rope-box",
          "pyramids",
          "cloth-drape",
          "cloth-drape-self",
          "cloth-hang",
          "flag"};
}

std::uint32_t builtin_scene_max_size(std::string_view name) {
  const auto names = builtin_scene_names();
  if (std::find(names.begin(), names.end(), name) == names.end())
    throw Error(fmt::format("unknown built-in scene {}", name));
  std::uint64_t max = kMaxBodies - 1u;  // stacks, the chain and its world body, the box rain
  if (name == "pendulum-grid" || name == "pendulum-grid-push")  // n x n balls and 3 boxes
    max = largest_within(kMaxBodies, [](std::uint64_t n) { return n * n + 3; });
  else if (name == "wall")  // n rows of n bricks
    max = largest_within(kMaxBodies, [](std::uint64_t n) { return n * n; });
  else if (name == "pyramid")  // base rows: base (base + 1) / 2 boxes
    max = largest_within(kMaxBodies, [](std::uint64_t n) { return n * (n + 1) / 2; });
  else if (name == "ramp" || name == "paddle" || name == "particle-box")
    max = kMaxParticles;
  else if (name == "particle-bed")
    max = kMaxParticles / (kParticleBedSide * kParticleBedSide);
  else if (name == "pendulum-wave")
    max = std::min(kMaxBodies, kMaxJoints);
  else if (name == "pyramids")  // copies of the base-10 pyramid's 55 boxes
    max = kMaxBodies / 55u;
  else if (name.starts_with("cloth-") || name == "flag")
    max = kMaxClothSide;
  else if (name == "funnel" || name == "ragdoll" || name == "rope-box")
    max = 0;
  return static_cast<std::uint32_t>(max);
}

Scene builtin_scene(std::string_view name, std::uint32_t size, std::uint64_t seed) {
  const std::uint32_t max = builtin_scene_max_size(name);
  if (max == 0 && size != 0) throw Error(fmt::format("size does not apply to {}", name));
  if (size > max) throw Error(fmt::format("size {}: {} takes at most {}", size, name, max));
  if (seed != 0 && name != "particle-box") {
    throw Error(
        fmt::format("seed {}: {} is not random (only particle-box takes a seed)", seed, name));
  }
  // Behind the error boundary: a builder's own failure leaves as Error too.
  return guarded([&]() -> Scene {
    auto or_default = [size](std::uint32_t fallback) { return size ? size : fallback; };
    if (name == "stack") return stack_scene(or_default(5), false);
    if (name == "stack-intersecting") return stack_scene(or_default(5), true);
    if (name == "pendulum-wave") return pendulum_wave_scene(or_default(50));
    if (name == "pendulum-grid") return pendulum_grid_scene(or_default(5));
    if (name == "pendulum-grid-push") return pendulum_grid_scene(or_default(5), true);
    if (name == "ramp") return ramp_scene(or_default(2000));
    if (name == "particle-bed") return particle_bed_scene(or_default(4));
    if (name == "paddle") return paddle_scene(or_default(3000));
    if (name == "pyramid") return pyramid_scene(or_default(20));
    if (name == "wall") return wall_scene(or_default(10), or_default(10));
    if (name == "chain") return chain_scene(or_default(20));
    if (name == "box-rain") return box_rain_scene(or_default(1000));
    if (name == "particle-box") return particle_box_scene(or_default(2400), seed ? seed : 1);
    if (name == "pyramids") return pyramid_scene(10, or_default(10));
    if (name == "cloth-drape") return cloth_drape_scene(or_default(32));
    if (name == "cloth-drape-self") return cloth_drape_scene(or_default(32), true);
    if (name == "cloth-hang") return cloth_hang_scene(or_default(64));
    if (name == "flag") return flag_scene(or_default(25));
    if (name == "funnel") return funnel_scene();
    if (name == "ragdoll") return ragdoll_scene();
    return rope_box_scene();
  });
}

}  // namespace vkphys
