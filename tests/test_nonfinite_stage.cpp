// Issue 13: a NaN or infinity in the state stops a run naming the step, the body and the stage
// that produced it. The CPU backend checks after every stage when asked (Backend::check_stages);
// the GPU backend runs every stage in one submission and says it cannot.
#include <gtest/gtest.h>

#include <cmath>

#include "host/sim/backend.h"
#include "tests/rigid_scene_helpers.h"
#include "vkphys/scene.h"

namespace vkphys {
namespace {

using test::overforced;

TEST(NonFiniteStage, CpuBackendNamesTheStageAndTheBody) {
  auto cpu = make_cpu_backend();
  cpu->load(overforced());
  EXPECT_TRUE(cpu->check_stages(true));
  try {
    cpu->step();
    ADD_FAILURE() << "no NonFiniteState";
  } catch (const NonFiniteState& e) {
    EXPECT_EQ(e.stage, Stage::predict);
    EXPECT_EQ(e.body, 1u);
    EXPECT_STREQ(e.what(), "the predict stage made body 1 NaN or infinite");
  }
}

TEST(NonFiniteStage, UncheckedStepsDoNotThrow) {
  auto cpu = make_cpu_backend();
  cpu->load(overforced());
  EXPECT_NO_THROW(cpu->step());  // the run loop finds the NaN in the state afterwards
  WorldState s;
  cpu->read(s);
  EXPECT_FALSE(std::isfinite(s.vel[1].y));
}

}  // namespace
}  // namespace vkphys
