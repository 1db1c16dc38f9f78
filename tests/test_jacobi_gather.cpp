// The GPU's Jacobi sweep as one gather per body (shaders/world_jacobi_gather.glsl), used when
// particle contacts are a world's only units: the same bits as the two-pass mass-split sweep the
// fused kernel still runs (positions, velocities, the contacts' impulses and the solver residual)
// through every kind of sweep and both parities of a phase's sweep count, with static particles
// that make some contacts' second end the impulses' owner; and a particle step records at most
// iterations + 30 dispatches (issue 11), where the two passes took two a sweep.
// The same bits on lavapipe only. On an H200 the two kernels' states and impulses differed (the
// first card run of this test, 2026-11-30) by rounding's amounts: after 10 steps positions
// 8.9e-8 and 1.2e-7 m, velocities 2.3e-6 and 1.2e-6 m/s, impulses 9.5e-6 and 2.6e-6 of the
// largest (6 and 5 iterations). The likely cause is the driver's compiler fusing multiplies and
// adds differently in the gather, which keeps a contact's change in registers, than in the fused
// kernel's two passes, which store it between them. So on any other device the two runs are held
// to 1e-5 m, 1e-4 m/s and 1e-4 of the largest impulse, and the differences are printed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <optional>

#include "host/sim/backend.h"
#include "host/sim/compare.h"
#include "host/sim/scene_builders.h"
#include "host/sim/world_setup.h"
#include "tests/backends.h"
#include "tests/gpu_env.h"
#include "tests/same_state.h"

namespace vkphys::test {
namespace {

// A pile of 613 particles (not a multiple of the group size) with every 9th particle static,
// so particle-particle contacts whose first end cannot move exist beside plane contacts; taken
// mid-fall after 45 CPU steps, so the GPU runs see contacts from their first step.
Scene pile_with_static_particles(const SolverSettings& solver) {
  Scene s = particle_box_scene(613, 4);
  for (std::size_t i = 0; i < s.particles.size(); i += 9) s.particles.vel_invmass[i].w = 0.0f;
  s.settings.solver = solver;
  s.settings.solver.scheme = SolverScheme::jacobi;
  return particles_after_cpu_steps(s, 45);
}

struct GatherRun {
  WorldState state;
  StepTrace last;
  StepStats stats;
};

GatherRun run_steps(Backend& b, const Scene& s, int steps) {
  b.load(s);
  GatherRun r;
  for (int k = 0; k + 1 < steps; ++k) b.step();
  b.step(&r.last);
  b.read(r.state);
  r.stats = b.stats();
  return r;
}

// How far apart two runs' particles and contact impulses are: the largest position and
// velocity difference, and the largest impulse difference over the largest impulse.
struct GatherGap {
  double pos = 0.0, vel = 0.0, lambda = 0.0;
};

GatherGap gather_gap(const GatherRun& a, const GatherRun& b) {
  GatherGap g;
  const StepError particles = state_error_by_kind(a.state, b.state).particles;
  g.pos = particles.max_pos;
  g.vel = particles.max_vel;
  if (a.last.pcontact_lambda.size() != b.last.pcontact_lambda.size()) {
    g.lambda = std::numeric_limits<double>::infinity();
    return g;
  }
  double largest = 0.0;
  for (std::size_t c = 0; c < a.last.pcontact_lambda.size(); ++c) {
    const glm::vec3 la(a.last.pcontact_lambda[c]);
    g.lambda = std::max(g.lambda, double(glm::length(la - glm::vec3(b.last.pcontact_lambda[c]))));
    largest = std::max(largest, double(glm::length(la)));
  }
  g.lambda = largest > 0.0 ? g.lambda / largest : g.lambda;
  return g;
}

class JacobiGather : public WithGpu<::testing::Test> {};

TEST_F(JacobiGather, SameBitsAsTheTwoPassSweep) {
  // Odd and even sweep counts in every phase: warm start + iterations, relax sweeps, Newton
  // impact passes, over two substeps.
  SolverSettings odd;
  odd.iterations = 6;
  odd.substeps = 2;
  odd.relax_iterations = 1;
  odd.restitution = RestitutionModel::newton;
  odd.impact_passes = 3;
  SolverSettings even = odd;
  even.iterations = 5;
  even.relax_iterations = 2;
  even.impact_passes = 2;
  std::unique_ptr<Backend> gathers = make_gpu_backend(*ctx_, std::nullopt, FusedPolicy::never);
  std::unique_ptr<Backend> two_pass = make_gpu_backend(*ctx_, std::nullopt, FusedPolicy::always);
  for (const SolverSettings& solver : {odd, even}) {
    SCOPED_TRACE(solver.iterations);
    const Scene s = pile_with_static_particles(solver);
    ASSERT_TRUE(jacobi_gathers(s.settings.solver, build_world(s)));
    const GatherRun gather = run_steps(*gathers, s, 10);
    const GatherRun passes = run_steps(*two_pass, s, 10);
    ASSERT_GT(gather.last.pcontact_bodies.size(), 600u);
    if (on_lavapipe()) {
      EXPECT_TRUE(same_state(gather.state, passes.state));
      EXPECT_TRUE(same_bits(gather.last.pcontact_lambda, passes.last.pcontact_lambda));
    } else {
      const GatherGap gap = gather_gap(gather, passes);
      std::printf(
          "iterations %u, gather against two passes: positions %.3g m, velocities %.3g "
          "m/s, impulses %.3g of the largest\n",
          solver.iterations, gap.pos, gap.vel, gap.lambda);
      EXPECT_LT(gap.pos, 1e-5);
      EXPECT_LT(gap.vel, 1e-4);
      EXPECT_LT(gap.lambda, 1e-4);
    }
    EXPECT_GT(gather.stats.solver_residual, 0.0f);
    EXPECT_EQ(gather.stats.solver_residual, passes.stats.solver_residual);  // on the H200 too
    std::printf("iterations %u: %zu contacts, residual %.3g m/s, %u dispatches gathered\n",
                solver.iterations, gather.last.pcontact_bodies.size(),
                double(gather.stats.solver_residual), gather.stats.dispatches);
  }
}

// Issue 11's budget for the particle step: iterations + 30 dispatches. The two-pass sweep
// recorded 2 a sweep and 2 for the residual (94 at 32 iterations on this pile); the gather
// records one a sweep and, after the warm start (in place) and 32 more, no copy back (49 in all
// here). The rest of the step grows with the grid sort's and the scans' passes: 62 in all at
// 10,000 particles, 67 at 1M (docs/benchmarks.md).
TEST_F(JacobiGather, ParticleStepRecordsAtMostIterationsPlusThirtyDispatches) {
  SolverSettings solver;
  solver.iterations = 32;
  const Scene s = pile_with_static_particles(solver);
  std::unique_ptr<Backend> gpu = make_gpu_backend(*ctx_, std::nullopt, FusedPolicy::never);
  const GatherRun gather = run_steps(*gpu, s, 3);
  EXPECT_LE(gather.stats.dispatches, solver.iterations + 30);
  EXPECT_GE(gather.stats.dispatches, solver.iterations + 1);  // every sweep
  std::printf("32 iterations: %u dispatches, %u barriers\n", gather.stats.dispatches,
              gather.stats.barriers);
}

}  // namespace
}  // namespace vkphys::test
