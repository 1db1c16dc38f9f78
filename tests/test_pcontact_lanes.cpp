// The CPU backend sweeps four particle contacts at a time in SIMD lanes (host/cpu/
// manifold_lanes.inl, pcontact_lanes); the GPU sweeps one contact an invocation with the same
// rows (kernels/pcontact_rows.inl). Lavapipe rounds as the CPU does for particles, so the scalar
// sweep is the oracle: after 60 steps both backends hold the same state, bit for bit, on every
// path the lanes take: a colour's contacts in place, the overflow colour's and the Jacobi
// scheme's on mass-split copies, Coulomb's disc and the scaled box. 499 particles, so that colours
// do not split into whole groups of four. Particles alone: with a rigid body in the scene the
// backends differ by rounding (ARCHITECTURE.md), so a scene with one is no oracle.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "host/sim/backend.h"
#include "host/sim/scene_builders.h"
#include "tests/gpu_env.h"
#include "tests/same_state.h"

namespace vkphys::test {
namespace {

struct LaneCase {
  std::string name;
  Scene scene;
};

std::vector<LaneCase> lane_cases() {
  std::vector<LaneCase> out;
  for (SolverScheme scheme : {SolverScheme::colored, SolverScheme::jacobi}) {
    for (FrictionModel friction : {FrictionModel::cone, FrictionModel::scaled_box}) {
      Scene s = particle_box_scene(499, 7);
      s.settings.solver.scheme = scheme;
      s.settings.solver.friction_model = friction;
      out.push_back({std::string(scheme_name(scheme)) +
                         (friction == FrictionModel::cone ? "_cone" : "_scaled_box"),
                     s});
    }
  }
  Scene overflow = particle_box_scene(499, 7);
  overflow.settings.solver.scheme = SolverScheme::colored;
  overflow.settings.solver.max_colors = 3;
  out.push_back({"colored_overflow", overflow});
  return out;
}

class PcontactLanes : public WithGpu<> {};

TEST_F(PcontactLanes, SameBitsAsTheGpusOneContactAnInvocation) {
  if (!on_lavapipe()) {
    GTEST_SKIP() << "the oracle is lavapipe's rounding: another device may fuse or round "
                    "differently (the parity tests cover it within tolerances)";
  }
  for (const LaneCase& c : lane_cases()) {
    SCOPED_TRACE(c.name);
    std::unique_ptr<Backend> cpu = make_cpu_backend();
    std::unique_ptr<Backend> gpu = make_gpu_backend(*ctx_);
    cpu->load(c.scene);
    gpu->load(c.scene);
    std::uint32_t most_contacts = 0, most_overflow = 0;
    for (int s = 0; s < 60; ++s) {
      cpu->step();
      gpu->step();
      most_contacts = std::max(most_contacts, cpu->stats().particle_contacts);
      most_overflow = std::max(most_overflow, cpu->stats().overflow_units);
    }
    WorldState a, b;
    cpu->read(a);
    gpu->read(b);
    std::printf("%s: up to %u particle contacts, %u overflow units\n", c.name.c_str(),
                most_contacts, most_overflow);
    EXPECT_GT(most_contacts, 400u);  // the lanes had contacts to sweep
    if (c.name == "colored_overflow") {
      EXPECT_GT(most_overflow, 100u);
    }
    EXPECT_TRUE(same_state(a, b));
  }
}

}  // namespace
}  // namespace vkphys::test
