#include <gtest/gtest.h>

#include "tests/backends.h"

namespace vkphys::test {
namespace {

class RigidSmoke : public WorldTest {};

TEST_P(RigidSmoke, BoxSettlesOnPlane) {
  Scene s;
  s.settings.gravity = {0, -10, 0};
  s.materials[0].friction = 0.5f;
  s.planes.push_back(Plane{});
  Body b;
  b.shape = Shape::box;
  b.half_extents = glm::vec3(0.5f);
  b.position = {0, 0.6f, 0};
  b.mass = 1.0f;
  s.bodies.push_back(b);
  s.settings.solver.iterations = 10;
  load(s);
  WorldState st = run(120);
  EXPECT_NEAR(st.pos[0].y, 0.5f, 2e-3f);
  EXPECT_NEAR(glm::length(glm::vec3(st.vel[0])), 0.0f, 1e-2f);
  EXPECT_EQ(backend_->stats().points, 4u);
}

VKPHYS_ON_ALL_CASES(RigidSmoke);

}  // namespace
}  // namespace vkphys::test
