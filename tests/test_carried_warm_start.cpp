// The warm start carried from substep to substep (kernels/world_units.inl): a later substep adds
// each body's velocity change over the last substep's solve instead of sweeping every unit's
// impulses again through its rows. The two are the same sum in another order, so from one
// state a step on either path must agree to rounding; a carry that lost or doubled the warm start
// would be off by about a substep's gravity, g h / n = 0.033 m/s at 60 Hz and 5 substeps, 300
// times the bound held here. Where the identity fails (Jacobi's spring start, joints) the sweep
// stays, and the two paths give the same bits.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "host/sim/backend.h"
#include "host/sim/mixed_scenes.h"
#include "host/sim/rigid_scenes.h"
#include "host/sim/scene_builders.h"
#include "tests/gpu_env.h"
#include "tests/same_state.h"

namespace vkphys::test {
namespace {

// The largest difference between two states' velocities (linear and angular, bodies and
// particles): m/s and rad/s.
float carried_velocity_gap(const WorldState& a, const WorldState& b) {
  float gap = 0.0f;
  auto over = [&gap](const std::vector<glm::vec4>& x, const std::vector<glm::vec4>& y) {
    for (std::size_t i = 0; i < x.size(); ++i) {
      gap = std::max(gap, glm::length(glm::vec3(x[i]) - glm::vec3(y[i])));
    }
  };
  over(a.vel, b.vel);
  over(a.omega, b.omega);
  over(a.particles.vel_invmass, b.particles.vel_invmass);
  return gap;
}

struct CarriedScene {
  std::string name;
  std::function<Scene()> build;
  std::uint32_t before;  // steps taken (swept) before the compared step: contacts loaded
};

Scene at_budget(Scene s, SolverScheme scheme, std::uint32_t substeps, std::uint32_t iterations,
                std::uint32_t relax = 0) {
  s.settings.solver.scheme = scheme;
  s.settings.solver.substeps = substeps;
  s.settings.solver.iterations = iterations;
  s.settings.solver.relax_iterations = relax;
  return s;
}

// Both paths from the same state: `swept`'s after `before` steps of its own, restored into
// `carried`; then `steps` steps each. Returns their velocities' largest difference.
float gap_after_steps(Backend& swept, Backend& carried, const Scene& s, std::uint32_t before,
                      std::uint32_t steps) {
  swept.load(s);
  for (std::uint32_t k = 0; k < before; ++k) swept.step();
  carried.restore(s, swept.save());
  for (std::uint32_t k = 0; k < steps; ++k) {
    swept.step();
    carried.step();
  }
  WorldState a, b;
  swept.read(a);
  carried.read(b);
  EXPECT_FALSE(same_state(a, b)) << "the carried path did not run";
  return carried_velocity_gap(a, b);
}

// The unit kinds whose warm start is carried: box manifolds (sequential and coloured; with
// relax sweeps; with Newton's impacts before the first substep's warm start), particle
// contacts, particles on a rigid ramp.
std::vector<CarriedScene> carried_scenes() {
  using S = SolverScheme;
  return {
      {"pyramid_sequential_5x2", [] { return at_budget(pyramid_scene(20), S::sequential, 5, 2); },
       30},
      {"pyramid_colored_5x2", [] { return at_budget(pyramid_scene(20), S::colored, 5, 2); }, 30},
      {"stack_colored_4x2_relax", [] { return at_budget(stack_scene(5), S::colored, 4, 2, 1); },
       40},
      {"box_rain_sequential_3x2_newton",
       [] {
         Scene s = at_budget(box_rain_scene(60), S::sequential, 3, 2);
         s.settings.solver.restitution = RestitutionModel::newton;
         s.settings.solver.impact_passes = 2;
         return s;
       },
       50},
      {"particles_colored_4x2",
       [] { return at_budget(particle_box_scene(1500, 3), S::colored, 4, 2); }, 60},
      {"ramp_colored_4x2", [] { return at_budget(ramp_scene(300), S::colored, 4, 2); }, 40},
  };
}

// One step from the same state on each path (the swept backend's state after `before` steps,
// restored into both): velocities within 2e-5 m/s (measured: at most 4.7e-6, the ramp's).
TEST(CarriedWarmStart, OneStepMatchesTheSweptWarmStartToRounding) {
  for (const CarriedScene& c : carried_scenes()) {
    SCOPED_TRACE(c.name);
    const Scene s = c.build();
    std::unique_ptr<Backend> swept = make_cpu_backend(WarmStart::swept);
    std::unique_ptr<Backend> carried = make_cpu_backend(WarmStart::carried);
    const float gap = gap_after_steps(*swept, *carried, s, c.before, 1);
    std::printf("%s: carried against swept after one step: %.3g\n", c.name.c_str(), double(gap));
    EXPECT_LT(gap, 2.0e-5f);
  }
}

// Where the identity fails the sweep stays: Jacobi (its spring start rewrites the normal
// impulses between substeps) and a world with joints (their rows are taken again each phase)
// give the same bits either way, as does a step without substeps.
TEST(CarriedWarmStart, JacobiJointsAndOneSubstepKeepTheSweep) {
  const Scene jacobi = at_budget(pyramid_scene(10), SolverScheme::jacobi, 5, 2);
  const Scene chain = at_budget(chain_scene(20), SolverScheme::sequential, 5, 2);
  const Scene single = at_budget(pyramid_scene(10), SolverScheme::colored, 1, 10);
  for (const Scene& s : {jacobi, chain, single}) {
    std::unique_ptr<Backend> swept = make_cpu_backend(WarmStart::swept);
    std::unique_ptr<Backend> carried = make_cpu_backend(WarmStart::carried);
    swept->load(s);
    carried->load(s);
    for (int k = 0; k < 20; ++k) {
      swept->step();
      carried->step();
    }
    WorldState a, b;
    swept->read(a);
    carried->read(b);
    EXPECT_TRUE(same_state(a, b)) << scheme_name(s.settings.solver.scheme);
  }
}

// The GPU backend (lavapipe here) carries it too, in the predict dispatch of each later substep:
// the same agreement, and each later substep records no warm-start sweep (a dispatch for each
// colour recorded, and the overflow colour's when recorded) for one more dispatch a step (the
// first substep's start kept).
TEST(CarriedWarmStart, GpuCarriesItWithFewerDispatches) {
  VKPHYS_GPU_TEST_CONTEXT(ctx);
  const Scene s = at_budget(pyramid_scene(12), SolverScheme::colored, 5, 2);
  std::unique_ptr<Backend> swept = make_gpu_backend(ctx, std::nullopt, FusedPolicy::never,
                                                    CgRecording::to_need, WarmStart::swept);
  std::unique_ptr<Backend> carried = make_gpu_backend(ctx, std::nullopt, FusedPolicy::never,
                                                      CgRecording::to_need, WarmStart::carried);
  // Two steps each: the first records every colour, the second what the first used.
  const float gap = gap_after_steps(*swept, *carried, s, 20, 2);
  const StepStats& sw = swept->stats();
  const StepStats& ca = carried->stats();
  std::printf("GPU pyramid 12 at 5 x 2: gap %.3g; dispatches %u swept, %u carried (%u colours)\n",
              double(gap), sw.dispatches, ca.dispatches, ca.colors);
  EXPECT_LT(gap, 2.0e-5f);
  EXPECT_EQ(sw.colors, ca.colors);
  EXPECT_LE(ca.dispatches + 4u * ca.colors, sw.dispatches + 1u);
}

}  // namespace
}  // namespace vkphys::test
