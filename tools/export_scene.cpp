// `vkphys export-scene`: the scenes built in code (host/sim/rigid_scenes.h, mixed_scenes.h) as
// scene files, written and checked through the public scene-file functions (vkphys/scene_file.h);
// the builders and the loader's limits (tools/internal.h) are the library's private parts.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <stdexcept>

#include "host/sim/mixed_scenes.h"
#include "host/sim/rigid_scenes.h"
#include "host/sim/scene_builders.h"
#include "tools/commands.h"
#include "tools/internal.h"
#include "vkphys/scene_file.h"

namespace vkphys::tools {

namespace {

// The largest `size` of the scene called `name`: its bodies, joints and particles stay within
// the scene loader's limits.
std::uint64_t max_size(const std::string& name) {
  if (name == "pendulum-grid" || name == "pendulum-grid-push") {
    std::uint64_t n = 1;  // n x n balls and 3 boxes
    while ((n + 1) * (n + 1) + 3 <= io::kMaxBodies) ++n;
    return n;
  }
  if (name == "wall") {
    std::uint64_t n = 1;  // n rows of n bricks
    while ((n + 1) * (n + 1) <= io::kMaxBodies) ++n;
    return n;
  }
  if (name == "pyramid") return kMaxPyramidBase;
  if (name == "ramp" || name == "paddle" || name == "particle-box") return io::kMaxParticles;
  if (name == "particle-bed") return io::kMaxParticles / (kParticleBedSide * kParticleBedSide);
  if (name == "pendulum-wave") return std::min(io::kMaxBodies, io::kMaxJoints);
  return io::kMaxBodies - 1u;  // stacks, the chain and its world body, the box rain
}

// The scene called `name`; `size` (if not 0) is its count or base parameter.
Scene build(const std::string& name, std::uint32_t size) {
  check_size("--size", size, name, max_size(name));
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
  if (name == "particle-box") return particle_box_scene(or_default(2400));
  if (size != 0) throw std::runtime_error(fmt::format("--size does not apply to {}", name));
  if (name == "funnel") return funnel_scene();
  if (name == "ragdoll") return ragdoll_scene();
  if (name == "rope-box") return rope_box_scene();
  throw std::runtime_error(fmt::format("unknown scene {}", name));
}

}  // namespace

std::vector<std::string> export_scene_names() {
  return {"stack",         "stack-intersecting",
          "funnel",        "pendulum-wave",
          "pendulum-grid", "pendulum-grid-push",
          "ragdoll",       "pyramid",
          "wall",          "chain",
          "box-rain",      "ramp",
          "particle-bed",  "paddle",
          "particle-box",  "rope-box"};
}

int cmd_export_scene(const Options& opt) {
  const Scene scene = build(opt.scene, opt.size);
  const std::string text = scene_to_json(scene);
  // Written files must load: check before writing anything.
  const Scene back = scene_from_json(text, opt.export_out.empty() ? "<export>" : opt.export_out);
  if (opt.export_out.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return 0;
  }
  std::ofstream out(opt.export_out, std::ios::binary);
  out << text;
  out.close();
  if (!out)
    throw std::runtime_error(fmt::format("{}: cannot write the scene file", opt.export_out));
  std::printf("%s\nwritten to %s\n", scene_summary(back).c_str(), opt.export_out.c_str());
  return 0;
}

}  // namespace vkphys::tools
