// World::pick and World::pull (the public mouse spring, include/vkphys/world.h) on both backends,
// against analytic results: a ray enters a sphere at its near surface and an unrotated box at its
// face, the nearest dynamic object on the ray wins, static bodies and rays that pass by or point
// away pick nothing; a pull brings the grabbed point to the target (critically damped: within
// 1 cm after 2 s, 16 time constants) and a released grab leaves the velocity alone (zero
// gravity, nothing touched: the velocity at release is kept exactly).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "tests/api_helpers.h"
#include "tests/gpu_env.h"
#include "vkphys/build.h"
#include "vkphys/world.h"

namespace vkphys {
namespace {

using test::error_of;

// Zero gravity: a 0.5 m sphere (2 kg) at the origin, a 1 m box (1 kg) at x = 3, a 0.25 m
// particle (1 kg) at y = 3, a static sphere at x = -3, and a plane far below.
Scene grab_scene() {
  Scene s;
  s.name = "grab";
  s.settings.gravity = glm::vec3(0.0f);
  add_sphere(s, {0.0f, 0.0f, 0.0f}, 0.5f, 2.0f);
  add_box(s, {3.0f, 0.0f, 0.0f}, glm::vec3(0.5f), 1.0f);
  add_sphere(s, {-3.0f, 0.0f, 0.0f}, 0.5f, 0.0f);
  add_particle(s, {0.0f, 3.0f, 0.0f}, 0.25f, 1.0f);
  add_plane(s, {0.0f, 1.0f, 0.0f}, -10.0f);
  return s;
}

class ApiGrab : public ::testing::TestWithParam<const char*> {
 protected:
  // The World on the parameter's backend (the GPU one with the validation layer), or null when
  // the test is skipped for want of a GPU.
  bool open(World& w) {
    if (std::string(GetParam()) == "gpu") {
      std::string why;
      if (!test::gpu_context_or_null(&why)) {
        if (test::gpu_required()) ADD_FAILURE() << why;
        return false;
      }
      w = World(grab_scene(), {.backend = "gpu", .validation = true});
    } else {
      w = World(grab_scene(), {.backend = "cpu"});
    }
    return true;
  }
};

// Success when the ray picks `particle` (or body) `index` at `depth` along it, entered at `local`.
::testing::AssertionResult hits(const World& w, glm::dvec3 origin, glm::dvec3 direction,
                                bool particle, std::uint32_t index, double depth, glm::dvec3 local,
                                double tol = 1e-6) {
  const std::optional<Grab> g = w.pick(origin, direction);
  if (!g) return ::testing::AssertionFailure() << "nothing picked";
  if (g->particle != particle || g->index != index || std::abs(g->depth - depth) > tol ||
      glm::length(g->local - local) > tol) {
    return ::testing::AssertionFailure()
           << (g->particle ? "particle " : "body ") << g->index << " at depth " << g->depth
           << ", local (" << g->local.x << ", " << g->local.y << ", " << g->local.z << ")";
  }
  return ::testing::AssertionSuccess();
}

TEST_P(ApiGrab, PickHitsWhatTheRayEntersFirst) {
  World w;
  if (!open(w)) GTEST_SKIP() << "no Vulkan device";
  const glm::dvec3 down(0.0, 0.0, -2.0);  // not unit: pick normalises it
  EXPECT_TRUE(hits(w, {0.0, 0.0, 10.0}, down, false, 0, 9.5, {0.0, 0.0, 0.5}));
  // 0.49 m off the centre: the chord's near end, 10 - sqrt(0.5^2 - 0.49^2).
  const double chord = std::sqrt(0.25 - 0.49 * 0.49);
  EXPECT_TRUE(hits(w, {0.49, 0.0, 10.0}, down, false, 0, 10.0 - chord, {0.49, 0.0, chord}, 1e-5));
  // The box's face z = 0.5, at (0, 0.4) on it.
  EXPECT_TRUE(hits(w, {3.0, 0.4, 10.0}, down, false, 1, 9.5, {0.0, 0.4, 0.5}));
  // The particle; and along y from below, the sphere is entered before the particle behind it.
  EXPECT_TRUE(hits(w, {0.0, 3.0, 10.0}, down, true, 0, 9.75, {0.0, 0.0, 0.25}));
  EXPECT_TRUE(hits(w, {0.0, -5.0, 0.0}, {0.0, 1.0, 0.0}, false, 0, 4.5, {0.0, -0.5, 0.0}));
  // Misses: 0.51 m off the sphere, the static sphere, the plane, a ray pointing away.
  EXPECT_FALSE(w.pick({0.51, 0.0, 10.0}, down).has_value());
  EXPECT_FALSE(w.pick({-3.0, 0.0, 10.0}, down).has_value());
  EXPECT_FALSE(w.pick({6.0, 0.0, 0.0}, {0.0, -1.0, 0.0}).has_value());
  EXPECT_FALSE(w.pick({0.0, 0.0, 10.0}, -down).has_value());
  EXPECT_NE(error_of([&] {
              (void)w.pick({0.0, 0.0, 10.0}, glm::dvec3(0.0));
            }).find("length > 0"),
            std::string::npos);
  EXPECT_EQ(w.validation_errors(), 0u);
}

TEST_P(ApiGrab, PullBringsTheGrabbedPointToTheTargetAndReleaseLeavesItBe) {
  World w;
  if (!open(w)) GTEST_SKIP() << "no Vulkan device";
  const double h = static_cast<double>(w.scene().settings.time_step);
  // The sphere grabbed at its top (0, 0, 0.5), pulled along its radius to (0, 0, 2): no torque,
  // so the centre goes to (0, 0, 1.5). The particle pulled 1 m along x from its centre.
  const std::optional<Grab> sphere = w.pick({0.0, 0.0, 10.0}, {0.0, 0.0, -1.0});
  const std::optional<Grab> particle = w.pick({0.0, 3.0, 10.0}, {0.0, 0.0, -1.0});
  ASSERT_TRUE(sphere && particle);
  const Grab centre{true, particle->index, glm::dvec3(0.0), 0.0};
  const glm::dvec3 to(0.0, 0.0, 2.0), particle_to(1.0, 3.0, 0.0);
  // The first pull's force: k (target - p) at rest, k = m w0^2 = 2 * 64.
  const glm::dvec3 f = w.pull(*sphere, to);
  EXPECT_NEAR(f.z, 2.0 * 64.0 * 1.5, 1e-6);
  EXPECT_NEAR(w.state(Field::body_velocity)[0].z, f.z * h / 2.0, 1e-5);
  w.pull(centre, particle_to);
  w.step();
  auto pull_for = [&](int steps) {
    for (int k = 0; k < steps; ++k) {
      w.pull(*sphere, to);
      w.pull(centre, particle_to);
      w.step();
    }
  };
  // Released a third of a second in, on its way: nothing pulls, so the velocity it has stays as
  // it was, step after step.
  pull_for(19);
  const glm::vec4 v = w.state(Field::body_velocity)[0];
  EXPECT_GT(v.z, 0.5f);
  w.step(30);
  EXPECT_EQ(w.state(Field::body_velocity)[0], v);
  // Grabbed again: at the target 2 s (16 time constants) later.
  pull_for(120);
  const glm::vec4 x = w.state(Field::body_position)[0];
  EXPECT_NEAR(x.z, 1.5, 1e-2);
  EXPECT_NEAR(x.x, 0.0, 1e-6);
  EXPECT_NEAR(x.y, 0.0, 1e-6);
  EXPECT_NEAR(glm::length(glm::vec3(w.state(Field::body_angular_velocity)[0])), 0.0f, 1e-6f);
  const glm::vec4 p = w.state(Field::particle_position)[0];
  EXPECT_NEAR(p.x, 1.0, 1e-2);
  EXPECT_NEAR(p.y, 3.0, 1e-6);
  // The box was never grabbed: it has not moved.
  EXPECT_EQ(w.state(Field::body_position)[1], glm::vec4(3.0f, 0.0f, 0.0f, 1.0f));
  EXPECT_EQ(w.validation_errors(), 0u);
}

TEST_P(ApiGrab, PullRefusesStaticAndMissingObjects) {
  World w;
  if (!open(w)) GTEST_SKIP() << "no Vulkan device";
  EXPECT_NE(error_of([&] {
              w.pull(Grab{false, 2, glm::dvec3(0.0), 0.0}, glm::dvec3(0.0));
            }).find("static"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              w.pull(Grab{false, 3, glm::dvec3(0.0), 0.0}, glm::dvec3(0.0));
            }).find("out of range"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              w.pull(Grab{true, 1, glm::dvec3(0.0), 0.0}, glm::dvec3(0.0));
            }).find("out of range"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              w.pull(Grab{false, 0, glm::dvec3(0.0), 0.0}, glm::dvec3(NAN, 0.0, 0.0));
            }).find("finite"),
            std::string::npos);
  EXPECT_EQ(w.state(Field::body_velocity)[0], glm::vec4(0.0f));
}

INSTANTIATE_TEST_SUITE_P(Backends, ApiGrab, ::testing::Values("cpu", "gpu"),
                         [](const auto& param) { return std::string(param.param); });

}  // namespace
}  // namespace vkphys
