// Issue 13: a NaN or infinity in the state stops a run naming the step, the body and the stage
// that produced it. The CPU backend checks after every stage when asked (Backend::check_stages);
// the GPU backend runs every stage in one submission and says it cannot.
#include <gtest/gtest.h>

#include <cmath>

#include "host/sim/backend.h"
#include "vkphys/scene.h"

namespace vkphys {
namespace {

// A light sphere under a force its acceleration cannot hold in a float (3e38 N on 1 g).
Scene overforced() {
  Scene s;
  s.materials = {Material{}};
  Body b;
  b.shape = Shape::sphere;
  b.radius = 0.1f;
  b.mass = 1.0e-3f;
  b.force = {0.0f, 3.0e38f, 0.0f};
  s.bodies.push_back(b);
  s.bodies.push_back(b);
  s.bodies[0].force = glm::vec3(0.0f);  // body 1 is the one that overflows
  s.bodies[0].position = {5.0f, 0.0f, 0.0f};
  return s;
}

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
