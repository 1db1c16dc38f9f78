// Issue 13: a NaN or infinity in the state stops a run naming the step, the body and the stage
// that produced it. The CPU backend checks after every stage when asked (Backend::check_stages);
// the GPU backend runs every stage in one submission and says it cannot. Every step of either
// checks itself where the bodies' state is final, naming the body but no stage.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>

#include "host/sim/backend.h"
#include "tests/gpu_env.h"
#include "tests/rigid_scene_helpers.h"
#include "vkphys/scene.h"

namespace vkphys {
namespace {

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

// Without the per-stage check the step still checks itself where the bodies' state is final
// (kernels/world_bodies.inl, note_nonfinite): it names the step's body but no stage, and the CPU
// backend, which keeps no copy of the step's start, leaves the state as the step made it.
TEST(NonFiniteStage, UncheckedStepsStillNameTheBody) {
  auto cpu = make_cpu_backend();
  cpu->load(overforced());
  if (const std::optional<NonFiniteState> e = step_error(*cpu)) {
    EXPECT_FALSE(e->stage.has_value());
    EXPECT_EQ(e->body, 1u);
    EXPECT_FALSE(e->start_kept);
    EXPECT_STREQ(e->what(), "the step made body 1 NaN or infinite");
  }
  EXPECT_EQ(cpu->steps_taken(), 0u);
  WorldState s;
  cpu->read(s);
  EXPECT_FALSE(std::isfinite(s.vel[1].y));
}

// The GPU step finds it in the same place without reading the state back, commits nothing and
// restores the step's start: the state before the step, which it has not counted.
TEST(NonFiniteStage, GpuStepNamesTheBodyAndKeepsItsStart) {
  VKPHYS_GPU_TEST_CONTEXT(ctx);
  auto gpu = make_gpu_backend(ctx);
  const Scene scene = overforced();
  gpu->load(scene);
  EXPECT_FALSE(gpu->check_stages(true));
  for (int attempt = 0; attempt < 2; ++attempt) {  // and again: the step is still the first
    if (const std::optional<NonFiniteState> e = step_error(*gpu)) {
      EXPECT_FALSE(e->stage.has_value());
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

}  // namespace
}  // namespace vkphys
