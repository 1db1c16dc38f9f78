// Rigid-body physics against analytic results, on every backend and scheme
// (tests/backends.h).
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "kernels/quat.h"
#include "tests/backends.h"
#include "tests/rigid_scene_helpers.h"

namespace vkphys::test {
namespace {

constexpr float kPi = std::numbers::pi_v<float>;

class RigidPhysics : public WorldTest {};

// Seed 001 eq 26 (digest B4.1): a 2 kg sphere 1 mm into a plane, at rest, h = 1/60, d = 4,
// k = 1e5, g = 9.81: one Gauss-Seidel iteration gives lambda = B / (n^T K n + eps) exactly.
TEST_P(RigidPhysics, SingleContactImpulseMatchesSeed001ClosedForm) {
  Scene s = empty_rigid_scene(-9.81f);
  s.materials[0].spook_k = 1.0e5f;
  s.materials[0].spook_d = 4.0f;
  // The plane is rigid: contact stiffness is the sphere's alone (materials combine as springs
  // in series).
  Material ground;
  ground.spook_k = 1.0e20f;
  s.materials.push_back(ground);
  s.settings.solver.iterations = 1;
  s.settings.solver.friction = false;
  s.settings.solver.contact_hertz = 0.0f;  // the material's k exactly, no stiffness cap
  Plane floor;
  floor.material = 1;
  s.planes.push_back(floor);
  s.bodies.push_back(make_sphere({0.0f, 0.5f - 0.001f, 0.0f}, 0.5f, 2.0f));
  load(s);
  StepTrace trace;
  backend_->step(&trace);
  ASSERT_EQ(trace.pairs.size(), 1u);
  ASSERT_EQ(trace.pairs[0].z, 1u);
  EXPECT_NEAR(trace.points[0].w, -0.001f, 1e-6f);
  EXPECT_NEAR(trace.lambdas[0].x, 0.3493174f, 2e-6f);
  WorldState st;
  backend_->read(st);
  EXPECT_NEAR(st.vel[0].y, 0.011159f, 2e-5f);
}

// A resting box: the four normal impulses carry the weight, sum = m g h.
TEST_P(RigidPhysics, RestingBoxNormalImpulsesSumToWeight) {
  Scene s = empty_rigid_scene();
  s.materials[0].friction = 0.5f;
  s.planes.push_back(Plane{});
  s.bodies.push_back(make_box({0.0f, 0.5f, 0.0f}, glm::vec3(0.5f), 3.0f));
  load(s);
  StepTrace trace;
  for (int i = 0; i < 60; ++i) backend_->step();
  backend_->step(&trace);
  ASSERT_EQ(trace.pairs.size(), 1u);
  ASSERT_EQ(trace.pairs[0].z, 4u);
  float sum = 0.0f;
  for (int k = 0; k < 4; ++k) {
    EXPECT_GT(trace.lambdas[static_cast<std::size_t>(k)].x, 0.0f);
    sum += trace.lambdas[static_cast<std::size_t>(k)].x;
  }
  EXPECT_NEAR(sum, 3.0f * 10.0f / 60.0f, 1e-3f);
}

TEST_P(RigidPhysics, BoxOnInclineSticksBelowFrictionAngle) {
  const float mu = 0.5f;
  const float theta = 0.9f * std::atan(mu);  // tan = 0.45 < 0.5
  load(incline_scene(theta, mu));
  WorldState st0;
  backend_->read(st0);
  WorldState st = run(120);
  EXPECT_LT(glm::length(glm::vec3(st.pos[0]) - glm::vec3(st0.pos[0])), 5e-3f);
  EXPECT_LT(glm::length(glm::vec3(st.vel[0])), 1e-2f);
}

TEST_P(RigidPhysics, BoxOnInclineSlidesWithCoulombAcceleration) {
  const float mu = 0.3f;
  const float theta = 30.0f * kPi / 180.0f;  // tan = 0.577 > 0.3
  load(incline_scene(theta, mu));
  const glm::vec3 up_slope(std::cos(theta), std::sin(theta), 0.0f);
  WorldState st = run(30);
  const float v1 = -glm::dot(glm::vec3(st.vel[0]), up_slope);
  st = run(60);
  const float v2 = -glm::dot(glm::vec3(st.vel[0]), up_slope);
  const float expected = 10.0f * (std::sin(theta) - mu * std::cos(theta));  // 2.402 m/s^2
  EXPECT_NEAR(v2 - v1, expected * 1.0f, 0.01f * expected);
}

// Equal spheres head-on with e = 1 and no friction exchange velocities; momentum is conserved.
TEST_P(RigidPhysics, HeadOnElasticSpheresExchangeVelocities) {
  for (RestitutionModel model : {RestitutionModel::bias, RestitutionModel::newton}) {
    Scene s = empty_rigid_scene(0.0f);
    s.materials[0].restitution = 1.0f;
    s.settings.solver.friction = false;
    s.settings.solver.restitution = model;
    s.settings.solver.restitution_threshold = 0.1f;
    Body a = make_sphere({-1.0f, 0.0f, 0.0f}, 0.25f, 1.0f);
    Body b = make_sphere({1.0f, 0.0f, 0.0f}, 0.25f, 1.0f);
    a.velocity = {3.0f, 0.0f, 0.0f};
    b.velocity = {-3.0f, 0.0f, 0.0f};
    s.bodies = {a, b};
    load(s);
    WorldState st = run(40);
    SCOPED_TRACE(model == RestitutionModel::bias ? "bias" : "newton");
    EXPECT_NEAR(st.vel[0].x, -3.0f, 0.03f);
    EXPECT_NEAR(st.vel[1].x, 3.0f, 0.03f);
    EXPECT_NEAR(st.vel[0].x + st.vel[1].x, 0.0f, 1e-5f);
  }
}

// Seed 001 eqs 1-7 (digest B4 item 7): a solid sphere (m = 1, R = 0.5, I = 0.1) hits a static
// plane with v = (3, -4, 0), no spin, e = 0.5, through the Newton-Coulomb impact pass.
//   mu = 0.5: the sticking impulse is inside the cone: v' = (15/7, 2, 0), w' = (0, 0, -30/7);
//   mu = 0.05: it slides: |J_t| = mu J_n, v' = (2.7, 2, 0), w' = (0, 0, -1.5).
TEST_P(RigidPhysics, NewtonCoulombImpactMatchesSeed001) {
  struct Case {
    float mu;
    glm::vec3 v, w;
  };
  for (const Case& c : {Case{0.5f, {15.0f / 7.0f, 2.0f, 0.0f}, {0.0f, 0.0f, -30.0f / 7.0f}},
                        Case{0.05f, {2.7f, 2.0f, 0.0f}, {0.0f, 0.0f, -1.5f}}}) {
    SCOPED_TRACE(c.mu);
    Scene s = empty_rigid_scene(0.0f);
    s.materials[0].restitution = 0.5f;
    s.materials[0].friction = c.mu;
    s.settings.solver.restitution = RestitutionModel::newton;
    s.planes.push_back(Plane{});
    Body ball = make_sphere({0.0f, 0.5f, 0.0f}, 0.5f, 1.0f);
    ball.velocity = {3.0f, -4.0f, 0.0f};
    s.bodies.push_back(ball);
    load(s);
    WorldState st = run(1);
    EXPECT_NEAR(st.vel[0].x, c.v.x, 1e-4f);
    EXPECT_NEAR(st.vel[0].y, c.v.y, 1e-4f);
    EXPECT_NEAR(st.omega[0].z, c.w.z, 1e-4f);
  }
}

// Seed 001's scaled-box friction (digest B4 item 9) bounds each friction axis by mu m g h (here
// split over the box's four points), with no cos(theta): a block on a 28-degree incline with
// mu = 0.5 sticks under it (sin 28 = 0.47 < 0.5) but slides under Coulomb's cone
// (tan 28 = 0.53 > 0.5).
TEST_P(RigidPhysics, ScaledBoxFrictionSticksWhereTheConeSlides) {
  const float theta = 28.0f * kPi / 180.0f;
  for (FrictionModel model : {FrictionModel::cone, FrictionModel::scaled_box}) {
    SCOPED_TRACE(model == FrictionModel::cone ? "cone" : "scaled box");
    Scene s = incline_scene(theta, 0.5f);
    s.settings.solver.friction_model = model;
    load(s);
    WorldState st = run(90);
    const float speed = glm::length(glm::vec3(st.vel[0]));
    if (model == FrictionModel::cone) {
      // a = g (sin - mu cos) = 0.281 m/s^2: 0.42 m/s after 1.5 s
      EXPECT_NEAR(speed, 1.5f * 10.0f * (std::sin(theta) - 0.5f * std::cos(theta)), 0.03f);
    } else {
      EXPECT_LT(speed, 1e-2f);
    }
  }
}

// A door on a hinge about world y with limits of +-30 degrees: spun about the hinge axis it
// stops at the limit; spun about a perpendicular axis, the hinge rows stop it at once.
TEST_P(RigidPhysics, HingeTurnsOnlyAboutItsAxisAndStopsAtItsLimit) {
  Scene s = empty_rigid_scene(0.0f);
  Body world;
  world.shape = Shape::none;
  world.mass = 0.0f;
  Body door = make_box({0.5f, 0.0f, 0.0f}, {0.5f, 1.0f, 0.05f}, 10.0f);
  door.angular_velocity = {0.0f, 2.0f, 0.0f};  // about the hinge line x = z = 0:
  door.velocity = {0.0f, 0.0f, -1.0f};         // v = w x (x_com - hinge)
  s.bodies = {world, door};
  Joint j;
  j.type = JointType::hinge;
  j.body_a = 0;
  j.body_b = 1;
  j.anchor_a = {0.0f, 0.0f, 0.0f};
  j.anchor_b = {-0.5f, 0.0f, 0.0f};
  j.axis_a = j.axis_b = {0.0f, 1.0f, 0.0f};
  j.ref_a = j.ref_b = {1.0f, 0.0f, 0.0f};
  j.limited = true;
  j.limit_lo = glm::vec3(-30.0f * kPi / 180.0f);
  j.limit_hi = glm::vec3(30.0f * kPi / 180.0f);
  s.joints.push_back(j);
  load(s);
  float max_angle = 0.0f;
  WorldState st;
  for (int k = 0; k < 90; ++k) {  // the limit is reached after 0.26 s
    st = run(1);
    const glm::vec3 dir = kern::quat_rotate(st.rot[1], {1.0f, 0.0f, 0.0f});
    max_angle = std::max(max_angle, std::atan2(-dir.z, dir.x));
  }
  EXPECT_NEAR(max_angle, 30.0f * kPi / 180.0f, 0.02f);  // overshoot < ~1 degree
  EXPECT_LT(std::abs(st.omega[1].y), 0.05f);            // stopped at the limit (inelastic)
  // The hinge point stays put and the door stays upright.
  const glm::vec3 hinge = glm::vec3(st.pos[1]) + kern::quat_rotate(st.rot[1], {-0.5f, 0.0f, 0.0f});
  EXPECT_LT(glm::length(hinge), 1e-3f);
  EXPECT_NEAR(kern::quat_rotate(st.rot[1], {0.0f, 1.0f, 0.0f}).y, 1.0f, 1e-4f);

  // Spin about x (perpendicular to the hinge): the two angular rows remove it.
  s.bodies[1].angular_velocity = {3.0f, 0.0f, 0.0f};
  s.bodies[1].velocity = {0.0f, 0.0f, 0.0f};
  load(s);
  st = run(30);
  EXPECT_LT(glm::length(glm::vec3(st.omega[1])), 1e-3f);
  EXPECT_NEAR(kern::quat_rotate(st.rot[1], {0.0f, 1.0f, 0.0f}).y, 1.0f, 1e-3f);
}

// A simple pendulum (point-like ball on a rigid distance joint) at 120 Hz: small-amplitude period
// within 1% of 2 pi sqrt(L / g); the joint's length error stays below 1 mm over 60 s (10 s on
// the GPU, where reading the state back every step is slow on lavapipe).
TEST_P(RigidPhysics, PendulumPeriodAndConstraintError) {
  Scene s = empty_rigid_scene(-9.81f);
  const int hz = 120;
  s.settings.time_step = 1.0f / float(hz);
  const float length = 1.0f;
  const float amp = 5.0f * kPi / 180.0f;
  Body world;
  world.shape = Shape::none;
  world.mass = 0.0f;
  Body ball =
      make_sphere({length * std::sin(amp), 2.0f - length * std::cos(amp), 0.0f}, 0.01f, 1.0f);
  s.bodies = {world, ball};
  Joint j;
  j.type = JointType::distance;
  j.body_a = 0;
  j.body_b = 1;
  j.anchor_a = {0.0f, 2.0f, 0.0f};
  j.length = length;
  s.joints.push_back(j);
  load(s);
  float prev_x = ball.position.x;
  std::vector<float> crossings;  // upward zero crossings of x, interpolated
  float max_err = 0.0f;
  const int window = 10 * hz;
  const int steps = GetParam().backend == "gpu" ? window : 60 * hz;
  for (int i = 1; i <= steps; ++i) {
    backend_->step();
    if (i > window && i % 10 != 0) continue;
    WorldState st;
    backend_->read(st);
    const glm::vec3 x(st.pos[1]);
    max_err = std::max(max_err, std::abs(glm::length(x - glm::vec3(0, 2, 0)) - length));
    if (i <= window && prev_x < 0.0f && x.x >= 0.0f) {
      crossings.push_back((static_cast<float>(i) - x.x / (x.x - prev_x)) / float(hz));
    }
    prev_x = x.x;
  }
  ASSERT_GE(crossings.size(), 4u);
  const float period = (crossings.back() - crossings.front()) / float(crossings.size() - 1);
  const float analytic = 2.0f * kPi * std::sqrt(length / 9.81f);  // 2.0061 s
  EXPECT_NEAR(period, analytic, 0.01f * analytic);
  EXPECT_LT(max_err, 1e-3f);
}

VKPHYS_ON_ALL_CASES(RigidPhysics);

}  // namespace
}  // namespace vkphys::test
