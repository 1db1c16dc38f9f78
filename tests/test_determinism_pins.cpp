// Determinism pins (issue 13, Box2D's practice): a hash of the final state of a few scenes per
// backend and scheme. Any change to results, intended or not, changes a hash the moment it
// happens; changing a pin needs a commit that says why the results moved.
//
// CPU pins hold on every x86-64 build of this project: the CPU backend is single-threaded and
// compiled with -ffp-contract=off, so its floats do not depend on the optimiser (the ci and asan
// presets give the same hashes). GPU pins are device-specific: another driver or GPU may round,
// fuse or order differently (only parity with the CPU, tests/test_*_parity.cpp, is portable).
// They are pinned for lavapipe (llvmpipe), whose results repeat exactly from run to run (the
// scans, sorts and colouring use no float atomics; GpuPinsRepeat checks it), and the GPU cases
// skip the comparison on any other device.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "host/sim/mixed_scenes.h"
#include "host/sim/rigid_scenes.h"
#include "host/sim/scene_builders.h"
#include "tests/backends.h"

namespace vkphys {
namespace {

using test::on_lavapipe;
using test::WorldTest;

// FNV-1a over the bytes of every float of the state, in a fixed order.
std::uint64_t state_hash(const WorldState& s) {
  std::uint64_t h = 14695981039346656037ull;
  auto add = [&h](const std::vector<glm::vec4>& v) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(v.data());
    for (std::size_t i = 0; i < v.size() * sizeof(glm::vec4); ++i) {
      h = (h ^ bytes[i]) * 1099511628211ull;
    }
  };
  add(s.pos);
  add(s.rot);
  add(s.vel);
  add(s.omega);
  add(s.particles.pos_radius);
  add(s.particles.vel_invmass);
  return h;
}

struct PinnedScene {
  const char* name;
  std::function<Scene()> build;
  std::uint32_t steps;
};

// A scene at the peers' budget of 5 substeps x 2 iterations: the substeps' own path (in the
// sequential and coloured schemes the warm start carried, kernels/world_units.inl).
Scene stack_at_substeps() {
  Scene s = stack_scene(5);
  s.settings.solver.substeps = 5;
  s.settings.solver.iterations = 2;
  return s;
}

// Small, quick scenes that together reach every unit kind: box contacts and friction (a stack,
// with and without substeps), joints with limits (the rag-doll), particles in a pile, particles on
// a rigid ramp.
const std::vector<PinnedScene>& pinned_scenes() {
  static const std::vector<PinnedScene> scenes{
      {"stack", [] { return stack_scene(5); }, 120},
      {"stack_substeps", [] { return stack_at_substeps(); }, 120},
      {"ragdoll", [] { return ragdoll_scene(); }, 60},
      {"particles", [] { return particle_box_scene(500, 3); }, 60},
      {"ramp", [] { return ramp_scene(200); }, 60},
  };
  return scenes;
}

// Pins by "backend_scheme/scene". GPU entries: lavapipe only (see the header comment).
const std::map<std::string, std::uint64_t>& pins() {
  static const std::map<std::string, std::uint64_t> p{
      {"cpu_sequential/stack", 0xb1c47a478feefb63ull},
      {"cpu_sequential/stack_substeps", 0x9f87ef97d69d14c7ull},
      {"cpu_sequential/ragdoll", 0x7084fd8384d7c586ull},
      {"cpu_sequential/particles", 0xa089c21520e88cfeull},
      {"cpu_sequential/ramp", 0xc54cfb79b0fd78b8ull},
      {"cpu_colored/stack", 0x7fa807f663899f96ull},
      {"cpu_colored/stack_substeps", 0xa47d1312191235e5ull},
      {"cpu_colored/ragdoll", 0xa9176c07ee29d0a0ull},
      {"cpu_colored/particles", 0x6a838295e8c932dfull},
      {"cpu_colored/ramp", 0xcbbae3333029e3c4ull},
      {"cpu_jacobi/stack", 0x7d0a7fa0fe5059dfull},
      {"cpu_jacobi/stack_substeps", 0xffa61736855b9f8eull},
      {"cpu_jacobi/ragdoll", 0xabee1ce958535b82ull},
      {"cpu_jacobi/particles", 0xd9784b9f93c87993ull},
      {"cpu_jacobi/ramp", 0x625dc8671fa5dfd0ull},
      {"gpu_colored/stack", 0xb1659c194e5b7ffdull},
      {"gpu_colored/stack_substeps", 0x96384840ec8c2d1full},
      {"gpu_colored/ragdoll", 0x774294f5d3e668a7ull},
      {"gpu_colored/particles", 0x6a838295e8c932dfull},
      {"gpu_colored/ramp", 0xcbbae3333029e3c4ull},
      {"gpu_jacobi/stack", 0xc9882d4bf7982b2cull},
      {"gpu_jacobi/stack_substeps", 0x5d7dbe68b2606471ull},
      {"gpu_jacobi/ragdoll", 0x4c7385088c4c0cf7ull},
      {"gpu_jacobi/particles", 0xd9784b9f93c87993ull},
      {"gpu_jacobi/ramp", 0xa775a7f76c574089ull},
  };
  return p;
}

class DeterminismPins : public WorldTest {};

TEST_P(DeterminismPins, FinalStateHashesArePinned) {
  const std::string backend = GetParam().backend;
  if (backend == "gpu" && !on_lavapipe()) {
    GTEST_SKIP() << "GPU pins are lavapipe's: results on another device may differ in rounding";
  }
  for (const PinnedScene& p : pinned_scenes()) {
    const std::string key = test::case_name({GetParam(), 0}) + "/" + p.name;
    load(p.build());
    const std::uint64_t h = state_hash(run(p.steps));
    const auto it = pins().find(key);
    if (it == pins().end()) {
      ADD_FAILURE() << "no pin for " << key << ": add {\"" << key << "\", 0x" << std::hex << h
                    << "ull}";
      continue;
    }
    EXPECT_EQ(h, it->second) << key << " moved: 0x" << std::hex << h
                             << "ull; if intended, change the pin in a commit saying why";
  }
}

VKPHYS_ON_ALL_CASES(DeterminismPins);

// The GPU pins hold only because lavapipe repeats itself: two runs of each scene, one backend
// each, end in the same state (bit for bit).
TEST(GpuPinsRepeat, TwoRunsEndInTheSameState) {
  std::string why;
  vk::Context* ctx = test::gpu_context_or_null(&why);
  if (!ctx) {
    if (test::gpu_required()) FAIL() << why;
    GTEST_SKIP() << why;
  }
  test::ValidationGuard guard(*ctx);
  for (const PinnedScene& p : pinned_scenes()) {
    std::uint64_t hashes[2] = {};
    for (std::uint64_t& h : hashes) {
      auto b = make_gpu_backend(*ctx);
      b->load(p.build());
      for (std::uint32_t k = 0; k < p.steps; ++k) b->step();
      WorldState s;
      b->read(s);
      h = state_hash(s);
    }
    EXPECT_EQ(hashes[0], hashes[1]) << p.name;
  }
}

}  // namespace
}  // namespace vkphys
