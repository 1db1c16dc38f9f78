// Rigid-body metrics (host/sim/metrics.h): energies and momenta checked against sums done
// by hand, static and plane bodies left out, and the first non-finite body found.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "host/sim/backend.h"
#include "host/sim/metrics.h"
#include "kernels/quat.h"
#include "tests/rigid_scene_helpers.h"

namespace vkphys::test {
namespace {

// The state a backend would read right after loading `scene` (no plane bodies).
WorldState state_of(const Scene& scene) {
  WorldState st;
  for (const Body& b : scene.bodies) {
    st.pos.emplace_back(b.position, b.mass > 0.0f ? 1.0f / b.mass : 0.0f);
    st.rot.push_back(b.orientation);
    st.vel.emplace_back(b.velocity, 0.0f);
    st.omega.emplace_back(b.angular_velocity, 0.0f);
  }
  return st;
}

// A box of edges 1 x 2 x 3 m and 2 kg, turned about an oblique axis, spinning with
// body-frame angular velocity (0.3, -1.2, 2.0) rad/s.
TEST(Metrics, SpinningBoxRotationalEnergyIsHalfOmegaIOmega) {
  Scene s = empty_rigid_scene(0.0f);
  Body b = make_box({0.0f, 0.0f, 0.0f}, {0.5f, 1.0f, 1.5f}, 2.0f);
  b.orientation = axis_angle({1.0f, 2.0f, 3.0f}, 0.7f);
  const glm::dvec3 wb(0.3, -1.2, 2.0);
  b.angular_velocity = kern::quat_rotate(b.orientation, glm::vec3(wb));
  s.bodies.push_back(b);
  // By hand: I = m/12 (b^2 + c^2, a^2 + c^2, a^2 + b^2) with edges a, b, c = 1, 2, 3.
  const glm::dvec3 inertia(2.0 / 12.0 * 13.0, 2.0 / 12.0 * 10.0, 2.0 / 12.0 * 5.0);
  const double by_hand = 0.5 * (inertia.x * wb.x * wb.x + inertia.y * wb.y * wb.y +
                                inertia.z * wb.z * wb.z);  // = 0.0975 + 1.2 + 5/3 J
  EXPECT_NEAR(by_hand, 0.0975 + 1.2 + 5.0 / 3.0, 1e-12);
  const Metrics m = measure(s, state_of(s));
  EXPECT_FALSE(m.nonfinite_body.has_value());
  EXPECT_NEAR(m.kinetic_rotational, by_hand, 1e-5);
  EXPECT_EQ(m.kinetic_linear, 0.0);
  EXPECT_NEAR(m.kinetic(), by_hand, 1e-5);
  // At the origin and at rest, L is the spin alone: |L| = |I w_b| in any frame.
  EXPECT_NEAR(glm::length(m.angular_momentum), glm::length(inertia * wb), 1e-5);
  EXPECT_NEAR(glm::length(m.momentum), 0.0, 1e-12);
  // ... and L points along R (I w_b), the body-frame L turned into the world.
  const glm::vec3 l_world = kern::quat_rotate(b.orientation, glm::vec3(inertia * wb));
  EXPECT_NEAR(m.angular_momentum.x, l_world.x, 1e-5);
  EXPECT_NEAR(m.angular_momentum.y, l_world.y, 1e-5);
  EXPECT_NEAR(m.angular_momentum.z, l_world.z, 1e-5);
  EXPECT_NEAR(m.max_angular_speed, glm::length(wb), 1e-6);
}

// A sphere's inertia is isotropic: E = 1/2 (2/5 m r^2) |w|^2 for every orientation.
TEST(Metrics, SphereRotationalEnergyIgnoresOrientation) {
  Scene s = empty_rigid_scene(0.0f);
  Body b = make_sphere({0.0f, 0.0f, 0.0f}, 0.5f, 4.0f);
  b.angular_velocity = {1.0f, 2.0f, -2.0f};  // |w| = 3
  for (float angle : {0.0f, 0.4f, 2.5f}) {
    b.orientation = axis_angle({0.0f, 1.0f, 1.0f}, angle);
    s.bodies = {b};
    EXPECT_NEAR(measure(s, state_of(s)).kinetic_rotational, 0.5 * (0.4 * 4.0 * 0.25) * 9.0, 1e-5);
  }
}

// Unnormalised quaternions are normalised first.
TEST(Metrics, RotationalEnergyNormalisesTheQuaternion) {
  const glm::dvec3 inertia(1.0, 2.0, 3.0);
  const glm::dvec4 q(0.0, 0.0, std::sin(0.5), std::cos(0.5));  // 1 rad about z
  const glm::dvec3 w(1.0, 0.0, 0.0);
  EXPECT_NEAR(rotational_energy(inertia, q, w), rotational_energy(inertia, 3.0 * q, w), 1e-12);
  // w along world x is (cos 1, -sin 1, 0) in body axes.
  const double c = std::cos(1.0), sn = std::sin(1.0);
  EXPECT_NEAR(rotational_energy(inertia, q, w), 0.5 * (1.0 * c * c + 2.0 * sn * sn), 1e-12);
}

// Two moving bodies, no spin: linear momentum, angular momentum about the origin, kinetic and
// potential energy, all by hand.
TEST(Metrics, TwoBodiesMomentumAndEnergy) {
  Scene s = empty_rigid_scene(-10.0f);
  Body a = make_box({1.0f, 2.0f, 0.0f}, glm::vec3(0.5f), 1.0f);
  a.velocity = {0.0f, 0.0f, 3.0f};
  Body b = make_sphere({-2.0f, 0.5f, 1.0f}, 0.5f, 3.0f);
  b.velocity = {1.0f, -1.0f, 0.0f};
  s.bodies = {a, b};
  const Metrics m = measure(s, state_of(s));
  // p = 1 (0, 0, 3) + 3 (1, -1, 0)
  EXPECT_NEAR(m.momentum.x, 3.0, 1e-12);
  EXPECT_NEAR(m.momentum.y, -3.0, 1e-12);
  EXPECT_NEAR(m.momentum.z, 3.0, 1e-12);
  // L = 1 (1, 2, 0) x (0, 0, 3) + 3 (-2, 0.5, 1) x (1, -1, 0) = (6, -3, 0) + 3 (1, 1, 1.5)
  EXPECT_NEAR(m.angular_momentum.x, 9.0, 1e-12);
  EXPECT_NEAR(m.angular_momentum.y, 0.0, 1e-12);
  EXPECT_NEAR(m.angular_momentum.z, 4.5, 1e-12);
  // E_k = 1/2 1 9 + 1/2 3 2; E_p = -m g . x = 10 (1 2 + 3 0.5)
  EXPECT_NEAR(m.kinetic_linear, 7.5, 1e-12);
  EXPECT_EQ(m.kinetic_rotational, 0.0);
  EXPECT_NEAR(m.potential, 35.0, 1e-5);
  EXPECT_NEAR(m.energy(), 42.5, 1e-5);
  EXPECT_NEAR(m.max_speed, 3.0, 1e-12);
}

// Static bodies (mass 0) and the plane bodies after the scene's count for nothing, even with a
// (meaningless) velocity.
TEST(Metrics, StaticAndPlaneBodiesAreLeftOut) {
  Scene s = empty_rigid_scene(-10.0f);
  Body moving = make_box({0.0f, 1.0f, 0.0f}, glm::vec3(0.5f), 2.0f);
  moving.velocity = {1.0f, 0.0f, 0.0f};
  Body fixed = make_box({5.0f, 5.0f, 5.0f}, glm::vec3(0.5f), 0.0f);
  fixed.velocity = {7.0f, 7.0f, 7.0f};
  fixed.angular_velocity = {1.0f, 1.0f, 1.0f};
  s.bodies = {moving, fixed};
  WorldState st = state_of(s);
  st.pos.emplace_back(0.0f, 0.0f, 0.0f, 0.0f);  // a plane body
  st.rot.emplace_back(0.0f, 0.0f, 0.0f, 1.0f);
  st.vel.emplace_back(9.0f, 0.0f, 0.0f, 0.0f);
  st.omega.emplace_back(0.0f);
  const Metrics m = measure(s, st);
  EXPECT_NEAR(m.kinetic(), 1.0, 1e-12);
  EXPECT_NEAR(m.potential, 20.0, 1e-12);
  EXPECT_NEAR(m.momentum.x, 2.0, 1e-12);
  EXPECT_NEAR(glm::length(m.angular_momentum), 2.0, 1e-12);  // (0, 1, 0) x (2, 0, 0) = -2 z
}

TEST(Metrics, FindsTheFirstNonFiniteBody) {
  Scene s = empty_rigid_scene();
  for (int i = 0; i < 4; ++i)
    s.bodies.push_back(make_box({0.0f, float(i), 0.0f}, {0.5f, 0.5f, 0.5f}, 1.0f));
  WorldState st = state_of(s);
  EXPECT_FALSE(measure(s, st).nonfinite_body.has_value());
  st.omega[3].z = std::numeric_limits<float>::infinity();
  st.rot[2].w = std::numeric_limits<float>::quiet_NaN();
  const Metrics m = measure(s, st);
  ASSERT_TRUE(m.nonfinite_body.has_value());
  EXPECT_EQ(*m.nonfinite_body, 2u);
}

TEST(Metrics, RejectsAStateSmallerThanTheScene) {
  Scene s = empty_rigid_scene();
  s.bodies.push_back(make_box({0.0f, 0.0f, 0.0f}, {0.5f, 0.5f, 0.5f}, 1.0f));
  s.bodies.push_back(make_box({0.0f, 2.0f, 0.0f}, {0.5f, 0.5f, 0.5f}, 1.0f));
  WorldState st = state_of(s);
  st.pos.pop_back();
  EXPECT_THROW(measure(s, st), std::invalid_argument);
  st.rot.pop_back();
  st.vel.pop_back();
  st.omega.pop_back();
  EXPECT_THROW(measure(s, st), std::invalid_argument);
}

// What the CPU backend reads back after load is the scene's state, plus plane bodies at rest.
TEST(Metrics, MatchesTheCpuBackendsInitialState) {
  Scene s = empty_rigid_scene(-10.0f);
  s.planes.push_back(Plane{});
  Body b = make_box({0.0f, 3.0f, 0.0f}, {0.5f, 1.0f, 1.5f}, 2.0f);
  b.orientation = axis_angle({1.0f, 0.0f, 1.0f}, 0.3f);
  b.velocity = {1.0f, 0.0f, 0.0f};
  b.angular_velocity = {0.0f, 2.0f, 0.0f};
  s.bodies.push_back(b);
  auto backend = make_cpu_backend();
  backend->load(s);
  WorldState st;
  backend->read(st);
  ASSERT_EQ(st.pos.size(), 2u);  // the box and the floor's plane body
  const Metrics from_backend = measure(s, st);
  const Metrics from_scene = measure(s, state_of(s));
  EXPECT_NEAR(from_backend.kinetic(), from_scene.kinetic(), 1e-6);
  EXPECT_NEAR(from_backend.potential, 60.0, 1e-5);
  EXPECT_NEAR(glm::length(from_backend.angular_momentum - from_scene.angular_momentum), 0.0, 1e-6);
}

// Constraint errors: rigid penetration from the trace's manifold points (negative gaps only,
// counted points only), joint errors from the state with each anchor rotated into the world.
TEST(Metrics, ConstraintErrorsFromTracePointsAndJointAnchors) {
  Scene s = empty_rigid_scene();
  s.bodies.push_back(make_box({0.0f, 0.0f, 0.0f}, glm::vec3(0.5f), 1.0f));
  s.bodies.push_back(make_box({2.0f, 0.0f, 0.0f}, glm::vec3(0.5f), 1.0f));
  s.bodies[1].orientation = axis_angle({0.0f, 0.0f, 1.0f}, 1.5707963f);  // local x -> world y
  Joint ball;
  ball.type = JointType::ball;
  ball.body_a = 0;
  ball.body_b = 1;
  ball.anchor_a = {1.0f, 0.0f, 0.0f};   // world (1, 0, 0)
  ball.anchor_b = {-0.2f, 0.0f, 0.0f};  // world (2, -0.2, 0): 1.0198 m apart
  Joint dist = ball;
  dist.type = JointType::distance;
  dist.length = 0.5f;  // 0.5198 m too long
  s.joints = {ball, dist};
  StepTrace t;
  t.pairs = {{0, 1, 2, 0}, {1, 2, 1, 0}};
  t.points = {{0, 0, 0, -0.01f}, {0, 0, 0, 0.02f}, {0, 0, 0, -0.5f}, {0, 0, 0, -0.5f},
              {0, 0, 0, -0.03f}, {0, 0, 0, -0.5f}, {0, 0, 0, 0.0f},  {0, 0, 0, 0.0f}};
  const ConstraintErrors e = constraint_errors(s, t, state_of(s));
  EXPECT_NEAR(e.max_rigid_penetration, 0.03, 1e-7) << "slots past a pair's point count ignored";
  EXPECT_NEAR(e.mean_rigid_penetration, 0.02, 1e-7);
  const double apart = std::sqrt(1.0 + 0.04);
  EXPECT_NEAR(e.max_joint_error, apart, 1e-6);
  EXPECT_NEAR(e.mean_joint_error, (apart + (apart - 0.5)) / 2.0, 1e-6);

  const ConstraintErrors none = constraint_errors(empty_rigid_scene(), StepTrace{}, WorldState{});
  EXPECT_EQ(none.max_rigid_penetration, 0.0);
  EXPECT_EQ(none.mean_rigid_penetration, 0.0);
  EXPECT_EQ(none.max_joint_error, 0.0);
}

}  // namespace
}  // namespace vkphys::test
