// `vkphys view`'s picking and mouse spring (host/sim/mouse_spring.h) as pure functions, against
// analytic results: a ray through a sphere's centre picks it at its near surface, the nearest of
// several objects on the ray wins, boxes and capsules are entered where their geometry says, a
// camera's pixel ray passes through the point that projects to that pixel, the force is
// k (target - p) - c v, its impulse changes v by F h / m and w by I^-1 (r x F) h, and the
// critically damped spring brings a free particle to the cursor without overshooting.
#include <gtest/gtest.h>

#include <cmath>

#include "host/gpu/scene_pass.h"
#include "host/sim/mouse_spring.h"
#include "tests/rigid_scene_helpers.h"

namespace vkphys::test {
namespace {

constexpr glm::dvec3 kDown{0.0, 0.0, -1.0};  // rays from z = 10 towards -z

TEST(MousePick, RayThroughSphereCentrePicksItAtItsNearSurface) {
  Scene s = empty_rigid_scene(0.0f);
  s.bodies.push_back(make_sphere({1.0f, 2.0f, 3.0f}, 0.5f, 2.0f));
  const WorldState st = loaded_state(s);
  const std::optional<Grab> g = pick(s, st, {1.0, 2.0, 10.0}, kDown);
  ASSERT_TRUE(g.has_value());
  EXPECT_FALSE(g->particle);
  EXPECT_EQ(g->index, 0u);
  EXPECT_NEAR(g->depth, 10.0 - 3.0 - 0.5, 1e-6);
  EXPECT_NEAR(glm::length(g->local - glm::dvec3(0.0, 0.0, 0.5)), 0.0, 1e-6);
  // A ray passing 0.51 m from the centre misses the 0.5 m sphere; one at 0.49 m does not.
  EXPECT_FALSE(pick(s, st, {1.51, 2.0, 10.0}, kDown).has_value());
  const std::optional<Grab> edge = pick(s, st, {1.49, 2.0, 10.0}, kDown);
  ASSERT_TRUE(edge.has_value());
  EXPECT_NEAR(edge->depth, 7.0 - std::sqrt(0.25 - 0.49 * 0.49), 1e-5);
}

TEST(MousePick, NearestOnTheRayWinsAndStaticBodiesAreNotPicked) {
  Scene s = empty_rigid_scene(0.0f);
  s.bodies.push_back(make_sphere({0.0f, 0.0f, 0.0f}, 0.5f, 1.0f));
  s.bodies.push_back(make_sphere({0.0f, 0.0f, 4.0f}, 0.5f, 0.0f));  // static: in front, skipped
  s.particles.add({0.0f, 0.0f, 2.0f}, glm::vec3(0.0f), 0.25f, 1.0f, 0);
  WorldState st = loaded_state(s);
  std::optional<Grab> g = pick(s, st, {0.0, 0.0, 10.0}, kDown);
  ASSERT_TRUE(g.has_value());
  EXPECT_TRUE(g->particle);
  EXPECT_EQ(g->index, 0u);
  EXPECT_NEAR(g->depth, 10.0 - 2.25, 1e-6);
  // From below, the dynamic sphere is nearer.
  g = pick(s, st, {0.0, 0.0, -10.0}, -kDown);
  ASSERT_TRUE(g.has_value());
  EXPECT_FALSE(g->particle);
  EXPECT_EQ(g->index, 0u);
  EXPECT_NEAR(g->depth, 9.5, 1e-6);
}

TEST(MousePick, BoxAndCapsuleAreEnteredWhereTheirGeometrySays) {
  Scene s = empty_rigid_scene(0.0f);
  Body box = make_box({0.0f, 0.0f, 0.0f}, glm::vec3(0.5f), 1.0f);
  box.orientation = axis_angle({0.0f, 1.0f, 0.0f}, 0.25f * 3.14159265f);  // an edge faces +z
  s.bodies.push_back(box);
  Body cap;
  cap.shape = Shape::capsule;
  cap.radius = 0.25f;
  cap.half_height = 1.0f;  // core along y from -1 to 1
  cap.position = {5.0f, 0.0f, 0.0f};
  cap.mass = 1.0f;
  s.bodies.push_back(cap);
  const WorldState st = loaded_state(s);
  std::optional<Grab> g = pick(s, st, {0.0, 0.0, 10.0}, kDown);
  ASSERT_TRUE(g.has_value());
  EXPECT_EQ(g->index, 0u);
  EXPECT_NEAR(g->depth, 10.0 - 0.5 * std::sqrt(2.0), 1e-5);
  // The capsule's side at y = 0.8 (inside the core's span), then its cap at y = 1.1.
  g = pick(s, st, {5.0, 0.8, 10.0}, kDown);
  ASSERT_TRUE(g.has_value());
  EXPECT_EQ(g->index, 1u);
  EXPECT_NEAR(g->depth, 9.75, 1e-6);
  g = pick(s, st, {5.0, 1.1, 10.0}, kDown);
  ASSERT_TRUE(g.has_value());
  EXPECT_NEAR(g->depth, 10.0 - std::sqrt(0.25 * 0.25 - 0.1 * 0.1), 1e-5);
  EXPECT_FALSE(pick(s, st, {5.0, 1.3, 10.0}, kDown).has_value());
}

TEST(MousePick, PixelRayThroughAProjectedCentrePicksThatSphere) {
  Scene s = empty_rigid_scene(0.0f);
  s.bodies.push_back(make_sphere({-1.0f, 0.5f, 0.0f}, 0.4f, 1.0f));
  s.bodies.push_back(make_sphere({1.5f, 0.0f, -0.5f}, 0.4f, 1.0f));
  const WorldState st = loaded_state(s);
  gpu::Camera cam;
  cam.eye = {2.0f, 3.0f, 6.0f};
  cam.target = {0.0f, 0.0f, 0.0f};
  for (std::uint32_t i = 0; i < 2; ++i) {
    const glm::vec3 c = s.bodies[i].position;
    const glm::vec2 px = gpu::project(cam, 320, 240, c);
    const gpu::CameraRay ray = gpu::pixel_ray(cam, 320, 240, glm::dvec2(px));
    // The centre lies on the ray (within float rounding of the projection).
    const glm::dvec3 to_c = glm::dvec3(c) - ray.origin;
    EXPECT_LT(glm::length(to_c - glm::dot(to_c, ray.dir) * ray.dir), 1e-4);
    const std::optional<Grab> g = pick(s, st, ray.origin, ray.dir);
    ASSERT_TRUE(g.has_value());
    EXPECT_EQ(g->index, i);
    EXPECT_NEAR(g->depth, glm::length(to_c) - 0.4, 1e-4);
  }
}

TEST(MouseSpring, ForceIsStiffnessTimesStretchMinusDampingTimesVelocity) {
  const glm::dvec3 f = spring_force(50.0, 4.0, {1.0, 2.0, 3.0}, {0.5, 2.0, 4.0}, {1.0, -1.0, 0.0});
  // 50 (0.5, 0, -1) - 4 (1, -1, 0)
  EXPECT_DOUBLE_EQ(f.x, 25.0 - 4.0);
  EXPECT_DOUBLE_EQ(f.y, 4.0);
  EXPECT_DOUBLE_EQ(f.z, -50.0);
  EXPECT_EQ(spring_force(50.0, 4.0, {1.0, 1.0, 1.0}, {1.0, 1.0, 1.0}, glm::dvec3(0.0)),
            glm::dvec3(0.0));
}

TEST(MouseSpring, ImpulseChangesVelocityByForceOverMassAndSpinByTorque) {
  Scene s = empty_rigid_scene(0.0f);
  s.bodies.push_back(make_sphere({0.0f, 0.0f, 0.0f}, 0.5f, 2.0f));
  s.particles.add({3.0f, 0.0f, 0.0f}, {0.0f, 1.0f, 0.0f}, 0.1f, 0.5f, 0);
  WorldState st = loaded_state(s);
  const double h = 1.0 / 60.0, w0 = kMouseOmega;
  // The particle (0.5 kg, moving at 1 m/s along y) pulled 1 m along +x.
  Grab particle{true, 0, glm::dvec3(0.0), 1.0};
  glm::dvec3 f = apply_mouse_spring(s, st, particle, {4.0, 0.0, 0.0}, h);
  EXPECT_NEAR(f.x, 0.5 * w0 * w0, 1e-9);
  EXPECT_NEAR(f.y, -2.0 * 0.5 * w0 * 1.0, 1e-9);
  EXPECT_NEAR(st.particles.vel_invmass[0].x, f.x * h / 0.5, 1e-6);
  EXPECT_NEAR(st.particles.vel_invmass[0].y, 1.0 + f.y * h / 0.5, 1e-6);
  // The sphere (2 kg, I = 2/5 m r^2 = 0.2) grabbed at its top (0, 0.5, 0), pulled along +x: the
  // force m w0^2 along x at r = (0, 0.5, 0) gives the torque r x F = (0, 0, -0.5 F).
  Grab body{false, 0, {0.0, 0.5, 0.0}, 1.0};
  f = apply_mouse_spring(s, st, body, {1.0, 0.5, 0.0}, h);
  EXPECT_NEAR(f.x, 2.0 * w0 * w0, 1e-9);
  EXPECT_NEAR(st.vel[0].x, f.x * h / 2.0, 1e-6);
  EXPECT_NEAR(st.omega[0].z, -0.5 * f.x * h / 0.2, 1e-5);
  EXPECT_NEAR(st.omega[0].x, 0.0, 1e-9);
}

// A free particle in zero gravity grabbed 1 m from the cursor, the spring applied before every
// step of the CPU backend: critically damped, it closes in monotonically (no overshoot beyond
// what the explicit step adds, 1%) and is within 1 mm after 3 s (24 time constants 1/w0 less
// the polynomial factor: e^-24 (1 + 24) ~ 1e-9 in the continuous limit).
TEST(MouseSpring, CriticallyDampedPullReachesTheCursorWithoutOvershoot) {
  Scene s = empty_rigid_scene(0.0f);
  s.particles.add({0.0f, 0.0f, 0.0f}, glm::vec3(0.0f), 0.1f, 3.0f, 0);
  auto cpu = make_cpu_backend();
  cpu->load(s);
  WorldState st;
  cpu->read(st);
  const glm::dvec3 target(1.0, 0.0, 0.0);
  const Grab g{true, 0, glm::dvec3(0.0), 0.0};
  double furthest = 0.0;
  for (int k = 0; k < 180; ++k) {
    apply_mouse_spring(s, st, g, target, double(s.settings.time_step));
    cpu->write(st);
    cpu->step();
    cpu->read(st);
    furthest = std::max(furthest, double(st.particles.pos_radius[0].x));
  }
  EXPECT_LT(furthest, 1.01) << "overshoot";
  EXPECT_NEAR(st.particles.pos_radius[0].x, 1.0, 1e-3);
  EXPECT_NEAR(st.particles.vel_invmass[0].x, 0.0, 1e-3);
}

}  // namespace
}  // namespace vkphys::test
