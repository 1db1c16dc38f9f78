// The public API's step results beyond the state (include/vkphys/world.h, statistics.h,
// metrics.h): the manifold cache's kept count, the step statistics and the constraint errors,
// each held to what the scene makes them (an analytic value or the backend's own count), and
// refused misuse.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "host/sim/backend.h"
#include "tests/api_helpers.h"
#include "vkphys/vkphys.h"

namespace vkphys {
namespace {

using test::error_of;
using test::scene_path;

// Two unit boxes (1 kg) stacked on the plane y = 0, friction 0.5: a plane-box and a box-box
// pair (tests/test_manifold_cache.cpp's stack, built through the public API).
Scene two_box_stack(bool contact_cache) {
  Scene s;
  s.materials[0].friction = 0.5f;
  s.settings.solver.contact_cache = contact_cache;
  add_plane(s, glm::vec3(0.0f, 1.0f, 0.0f), 0.0f);
  add_box(s, glm::vec3(0.0f, 0.5f, 0.0f), glm::vec3(0.5f), 1.0f);
  add_box(s, glm::vec3(0.1f, 1.5f, 0.05f), glm::vec3(0.5f), 1.0f);
  return s;
}

// At rest both pairs keep their manifolds (the cache's tolerance is not reached), so every
// manifold of a step is a kept one; with the cache off, none is.
TEST(ApiResults, ARestingStackReportsItsKeptManifolds) {
  World on(two_box_stack(true)), off(two_box_stack(false));
  EXPECT_EQ(on.contacts().reused_manifolds, 0u);  // before the first step
  on.step(121);
  off.step(121);
  EXPECT_EQ(on.contacts().manifolds, 2u);
  EXPECT_EQ(on.contacts().reused_manifolds, 2u);
  EXPECT_EQ(off.contacts().manifolds, 2u);
  EXPECT_EQ(off.contacts().reused_manifolds, 0u);
}

// Every stage is listed once, by the backend's name for it; the CPU backend times them with
// the wall clock, so a step with contacts spends time in some; the lists hold the step's pairs.
TEST(ApiResults, StatisticsListEveryStageAndTheListCapacities) {
  World w = World::from_file(scene_path("stack_5.json"));
  w.step(30);  // the boxes have met (from step 25)
  const StepStatistics st = w.statistics();
  ASSERT_EQ(st.stages.size(), kStageCount);
  double total = 0.0;
  for (std::size_t k = 0; k < kStageCount; ++k) {
    EXPECT_STREQ(st.stages[k].name, stage_name(static_cast<Stage>(k)));
    EXPECT_GE(st.stages[k].ms, 0.0);
    total += st.stages[k].ms;
  }
  EXPECT_GT(total, 0.0);
  EXPECT_GE(st.pair_capacity, w.contacts().pairs);
  EXPECT_GT(w.contacts().pairs, 0u);
  EXPECT_EQ(st.device_bytes, 0u);   // the CPU backend holds no device memory
  EXPECT_EQ(st.cg_iterations, 0u);  // no implicit integrator
}

// The implicit integrator's solve is reported: a spring scene under `implicit` takes at least
// one conjugate-gradient iteration a step and stops within its tolerance.
TEST(ApiResults, StatisticsReportTheImplicitSolve) {
  Scene s;
  s.settings.solver.integrator = Integrator::implicit;
  const std::uint32_t top = add_particle(s, glm::vec3(0.0f, 3.0f, 0.0f), 0.05f, 0.0f);
  const std::uint32_t hung = add_particle(s, glm::vec3(0.0f, 2.0f, 0.0f), 0.05f, 0.1f);
  Spring sp;
  sp.a = top;
  sp.b = hung;
  sp.rest = 0.5f;
  sp.k = 100.0f;
  sp.model = SpringModel::force;
  s.springs.push_back(sp);
  World w(s);
  w.step();
  const StepStatistics st = w.statistics();
  EXPECT_GE(st.cg_iterations, 1u);
  EXPECT_LE(st.cg_residual, s.settings.solver.cg_tolerance);
}

// The solver residual (the last sweep's largest velocity change) is reported, and more sweeps
// leave less of it: a stack of four boxes set on a plane, first step, 3 against 24 iterations.
TEST(ApiResults, StatisticsReportTheSolverResidual) {
  auto stack = [](std::uint32_t iterations) {
    Scene s;
    add_plane(s, glm::vec3(0.0f, 1.0f, 0.0f), 0.0f);
    for (int k = 0; k < 4; ++k) {
      add_box(s, glm::vec3(0.0f, 0.5f + float(k), 0.0f), glm::vec3(0.5f), 1.0f);
    }
    s.settings.solver.iterations = iterations;
    return World(s);
  };
  World few = stack(3), many = stack(24);
  few.step();
  many.step();
  const float r3 = few.statistics().solver_residual, r24 = many.statistics().solver_residual;
  std::printf("stack of 4, first step: residual %.3g m/s after 3 sweeps, %.3g after 24\n",
              double(r3), double(r24));
  EXPECT_GT(r3, 0.0f);
  EXPECT_LT(r24, 0.25f * r3);
}

// A 0.1 kg particle hanging at rest from a static one on a 100 N/m spring of rest length 0.5 m
// is stretched by m g / k: strain m g / (k L) = 0.01962 (one spring: the mean is the largest).
// A sphere hanging on a 1 m rod keeps the rod's length; a box resting on the plane overlaps it by
// the contacts' compliance, less than a millimetre.
TEST(ApiResults, ConstraintErrorsAreTheSceneAnalyticOnes) {
  Scene s;
  const float stretch = 0.1f * 9.81f / 100.0f;
  const std::uint32_t top = add_particle(s, glm::vec3(6.0f, 3.0f, 0.0f), 0.05f, 0.0f);
  const std::uint32_t hung = add_particle(s, glm::vec3(6.0f, 2.5f - stretch, 0.0f), 0.05f, 0.1f);
  s.springs.push_back(Spring{top, hung, 0.5f, 100.0f, 4.0f});
  add_plane(s, glm::vec3(0.0f, 1.0f, 0.0f), 0.0f);
  add_box(s, glm::vec3(-3.0f, 0.5f, 0.0f), glm::vec3(0.5f), 1.0f);
  const std::uint32_t world = add_world_body(s);
  const std::uint32_t bob = add_sphere(s, glm::vec3(0.0f, 3.0f, 5.0f), 0.1f, 1.0f);
  s.joints.push_back(test::rod(world, bob, glm::vec3(0.0f, 4.0f, 5.0f), 1.0f));

  World w(s, {.record_contacts = true});
  const ConstraintErrors zero = w.constraint_errors();  // no step yet: all zero
  EXPECT_EQ(zero.max_spring_strain, 0.0);
  EXPECT_EQ(zero.max_rigid_penetration, 0.0);
  w.step(120);
  const ConstraintErrors e = w.constraint_errors();
  const double strain = static_cast<double>(stretch) / 0.5;
  EXPECT_NEAR(e.max_spring_strain, strain, 2e-4);  // the length to 1e-4 m
  EXPECT_DOUBLE_EQ(e.mean_spring_strain, e.max_spring_strain);
  EXPECT_LT(e.max_joint_error, 1e-3);
  EXPECT_GT(e.max_rigid_penetration, 0.0);  // the box rests in the plane's compliance
  EXPECT_LT(e.max_rigid_penetration, 1e-3);
  EXPECT_LE(e.mean_rigid_penetration, e.max_rigid_penetration);

  World blind(s);  // rigid bodies, contacts not recorded
  blind.step();
  EXPECT_EQ(error_of([&] { (void)blind.constraint_errors(); }),
            "constraint_errors: the scene has rigid bodies, whose penetration is measured on the "
            "step's contact points: make the World with WorldOptions::record_contacts");
  World none;
  EXPECT_EQ(error_of([&] { (void)none.statistics(); }),
            "statistics: this World has no scene (make it from a scene file, scene JSON or a "
            "Scene)");
}

// Recording contacts reads the step's lists; it must not change the step.
TEST(ApiResults, RecordingContactsLeavesTheStepAlone) {
  World a = World::from_file(scene_path("stack_5.json"));
  World b = World::from_file(scene_path("stack_5.json"), {.record_contacts = true});
  a.step(30);
  for (int k = 0; k < 30; ++k) b.step();
  EXPECT_TRUE(test::same_bits(a, b));
}

}  // namespace
}  // namespace vkphys
