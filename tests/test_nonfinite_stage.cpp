// Issue 13: a NaN or infinity in the state stops a run naming the step, the body and the stage
// that produced it. The CPU backend checks after every stage when asked (Backend::check_stages);
// the GPU backend runs every stage in one submission and says it cannot. Every step of either
// checks itself where a stage leaves the bodies' state (kernels/world_bodies.inl,
// flag_nonfinite) and names the same stage and body as the per-stage check.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>

#include "host/sim/backend.h"
#include "tests/gpu_env.h"
#include "tests/integrator_scenes.h"
#include "tests/rigid_scene_helpers.h"
#include "vkphys/scene.h"

namespace vkphys {
namespace {

using test::empty_rigid_scene;
using test::make_sphere;
using test::overforced;

// What one step of `b` throws, or nothing (a failure of the test) when it does not.
std::optional<NonFiniteState> step_error(Backend& b) {
  try {
    b.step();
  } catch (const NonFiniteState& e) {
    return e;
  }
  ADD_FAILURE() << "no NonFiniteState";
  return std::nullopt;
}

TEST(NonFiniteStage, CpuBackendNamesTheStageAndTheBody) {
  auto cpu = make_cpu_backend();
  cpu->load(overforced());
  EXPECT_TRUE(cpu->check_stages(true));
  if (const std::optional<NonFiniteState> e = step_error(*cpu)) {
    EXPECT_EQ(e->stage, Stage::predict);
    EXPECT_EQ(e->body, 1u);
    EXPECT_STREQ(e->what(), "the predict stage made body 1 NaN or infinite");
  }
}

// Without the per-stage check the step still checks itself (kernels/world_bodies.inl,
// flag_nonfinite) and names the same stage and body; the CPU backend, which keeps no copy of the
// step's start, leaves the state as the step made it.
TEST(NonFiniteStage, UncheckedStepsNameTheStageAndTheBody) {
  auto cpu = make_cpu_backend();
  cpu->load(overforced());
  if (const std::optional<NonFiniteState> e = step_error(*cpu)) {
    EXPECT_EQ(e->stage, Stage::predict);
    EXPECT_EQ(e->body, 1u);
    EXPECT_FALSE(e->start_kept);
    EXPECT_STREQ(e->what(), "the predict stage made body 1 NaN or infinite");
  }
  EXPECT_EQ(cpu->steps_taken(), 0u);
  WorldState s;
  cpu->read(s);
  EXPECT_FALSE(std::isfinite(s.vel[1].y));
}

// The GPU step finds it in the same place without reading the state back, commits nothing and
// restores the step's start: the state before the step, which it has not counted.
TEST(NonFiniteStage, GpuStepNamesTheStageAndTheBodyAndKeepsItsStart) {
  VKPHYS_GPU_TEST_CONTEXT(ctx);
  auto gpu = make_gpu_backend(ctx);
  const Scene scene = overforced();
  gpu->load(scene);
  EXPECT_FALSE(gpu->check_stages(true));
  for (int attempt = 0; attempt < 2; ++attempt) {  // and again: the step is still the first
    if (const std::optional<NonFiniteState> e = step_error(*gpu)) {
      EXPECT_EQ(e->stage, Stage::predict);
      EXPECT_EQ(e->body, 1u);
      EXPECT_TRUE(e->start_kept);
    }
    EXPECT_EQ(gpu->steps_taken(), 0u);
    WorldState s;
    gpu->read(s);
    for (std::size_t i = 0; i < scene.bodies.size(); ++i) {
      EXPECT_EQ(glm::vec3(s.pos[i]), scene.bodies[i].position) << "body " << i;
      EXPECT_EQ(glm::vec3(s.vel[i]), glm::vec3(0.0f)) << "body " << i;
    }
  }
}

// Where each of the step's own checks sits, one scene that trips it first:
//  - rigid: a force past the largest float, in the first substep's prediction (BODY_PREDICT);
//  - second substep: the sphere at 3.362e38 m/s under 3e38 m/s^2 gains 2.5e36 m/s a substep of
//    1/120 s, so it stays finite through the first substep (3.387e38) and passes FLT_MAX
//    (3.4028e38) in the second's prediction, which the per-stage check counts in the solve stage
//    and the step's check finds at integration;
//  - explicit Euler: a 1e8 N/m force spring at h = 1/60 grows about (h omega)^2 = 2.8e4-fold a
//    step until the ODE's v* overflows (ODE_END);
//  - Newton impact: a 1 g sphere touching the ground at 3e38 m/s with e = 1, whose impact pass
//    turns it round past the largest float (BODY_CHECK_PREDICTED);
//  - backward Euler: a spring of 3e38 N/m whose force on a 10 m stretch is past the largest
//    float, so the linear solve's v1 is not finite (IMPLICIT_END).
struct Tripwire {
  const char* name;
  Scene scene;
  Stage stage;
  std::uint32_t body;
};

std::vector<Tripwire> tripwires() {
  Scene second = overforced();
  second.settings.solver.substeps = 2;
  second.bodies[1].force.y = 3.0e38f * second.bodies[1].mass;
  second.bodies[1].velocity.y = 3.362e38f;
  Scene impact = empty_rigid_scene(0.0f);
  impact.settings.solver.restitution = RestitutionModel::newton;
  impact.materials[0].restitution = 1.0f;
  impact.planes.push_back(Plane{});
  impact.bodies.push_back(make_sphere({0.0f, 0.5f, 0.0f}, 0.5f, 1.0e-3f));
  impact.bodies[0].velocity.y = -3.0e38f;
  const float h = 1.0f / 60.0f;
  return {{"rigid", overforced(), Stage::predict, 1u},
          {"second substep", second, Stage::solve, 1u},
          {"Newton impact", impact, Stage::predict, 0u},
          {"explicit Euler", test::oscillator_scene(Integrator::euler, h, 1.0e8f, 1.0f, 0.01f),
           Stage::predict, 1u},
          {"backward Euler", test::oscillator_scene(Integrator::implicit, h, 3.0e38f, 1.0f, 10.0f),
           Stage::predict, 1u}};
}

// The step, stage and body a run of `b` stops at (its step's count is steps_taken() + 1).
struct Stop {
  std::uint64_t step = 0;
  Stage stage = Stage::setup;
  std::uint32_t body = 0;
};

Stop run_until_nonfinite(Backend& b, std::uint32_t most) {
  for (std::uint32_t k = 0; k < most; ++k) {
    try {
      b.step();
    } catch (const NonFiniteState& e) {
      return {b.steps_taken() + 1, e.stage, e.body};
    }
  }
  ADD_FAILURE() << "finite for " << most << " steps";
  return {};
}

TEST(NonFiniteStage, TheStepsOwnCheckNamesWhatThePerStageCheckNames) {
  for (const Tripwire& t : tripwires()) {
    auto staged = make_cpu_backend();
    staged->load(t.scene);
    ASSERT_TRUE(staged->check_stages(true));
    const Stop want = run_until_nonfinite(*staged, 100);
    EXPECT_EQ(want.stage, t.stage) << t.name;
    EXPECT_EQ(want.body, t.body) << t.name;
    auto cpu = make_cpu_backend();
    cpu->load(t.scene);
    const Stop got = run_until_nonfinite(*cpu, 100);
    EXPECT_EQ(got.step, want.step) << t.name;
    EXPECT_EQ(got.stage, want.stage) << t.name;
    EXPECT_EQ(got.body, want.body) << t.name;
    std::printf("%s: step %llu, the %s stage, body %u\n", t.name,
                static_cast<unsigned long long>(want.step), stage_name(want.stage), want.body);
  }
}

TEST(NonFiniteStage, GpuStepsNameWhatThePerStageCheckNames) {
  VKPHYS_GPU_TEST_CONTEXT(ctx);
  for (const Tripwire& t : tripwires()) {
    auto staged = make_cpu_backend();
    staged->load(t.scene);
    staged->check_stages(true);
    const Stop want = run_until_nonfinite(*staged, 100);
    auto gpu = make_gpu_backend(ctx);
    gpu->load(t.scene);
    const Stop got = run_until_nonfinite(*gpu, 100);
    EXPECT_EQ(got.step, want.step) << t.name;
    EXPECT_EQ(got.stage, want.stage) << t.name;
    EXPECT_EQ(got.body, want.body) << t.name;
  }
}

}  // namespace
}  // namespace vkphys
