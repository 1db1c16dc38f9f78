// Two-way coupling of particles and rigid bodies in the one world, on every backend and scheme:
// a heavy box carried by a particle bed, particles sliding or sticking on a ramp by the
// friction angle, momentum of a particle swarm hitting a free box, particles resting on static
// and dynamic capsules, particles carried by a kinematic platform.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>

#include "host/sim/metrics.h"
#include "host/sim/mixed_scenes.h"
#include "tests/backends.h"
#include "tests/rigid_scene_helpers.h"

namespace vkphys::test {
namespace {

class Coupling : public WorldTest {};

// A 10 kg box dropped on a bed of 1 kg particles (4 layers, top at 0.43 m) comes to rest on
// them: the particles (not the floor) carry it, and the normal impulses on it sum to m g h
// within 2%. Jacobi at these 10 iterations does not carry the 10:1 mass ratio: the box sinks
// two layers into the bed (bottom at 0.23 m) and still jitters at 0.2 m/s after 20 s (at 40
// iterations it rests on top); for it only the floor-free support is checked.
TEST_P(Coupling, HeavyBoxRestsOnAParticleBed) {
  const Scene s = particle_bed_scene(4, 10.0f);
  load(s);
  run(300);  // 5 s
  StepTrace trace;
  backend_->step(&trace);
  WorldState st;
  backend_->read(st);
  const float bottom = st.pos[0].y - 0.2f;
  if (GetParam().scheme == SolverScheme::jacobi) {
    EXPECT_GT(bottom, 0.15f) << "the particles keep the box off the floor";
    return;
  }
  EXPECT_GT(bottom, 0.3f) << "the box must stand on the particles, above the floor";
  EXPECT_LT(glm::length(glm::vec3(st.vel[0])), 0.02f) << "at rest";
  double up = 0.0;  // the normal impulses' upward part on the box
  std::uint32_t particles_under = 0;
  for (std::size_t p = 0; p < trace.pairs.size(); ++p) {
    const glm::uvec4 info = trace.pairs[p];
    if (info.x != 0 && info.y != 0) continue;
    const double sign = info.y == 0 ? 1.0 : -1.0;                // the normal points from a to b
    const bool particle = (info.x == 0 ? info.y : info.x) >= 7;  // bodies 1..6 are the planes
    for (std::uint32_t k = 0; k < info.z; ++k) {
      up += sign * double(trace.lambdas[4 * p + k].x) * double(trace.normals[p].y);
      if (particle && trace.lambdas[4 * p + k].x > 0.0f) ++particles_under;
    }
  }
  const double weight = 10.0 * 9.81 / 60.0;
  EXPECT_NEAR(up, weight, 0.02 * weight) << "supporting particles: " << particles_under;
  EXPECT_GE(particles_under, 4u);
}

// A ramp at 30 degrees: particles released on it stick when mu > tan 30 (0.577) and slide when
// mu < tan 30 with a = g (sin - mu cos) (particles do not roll, so Coulomb's law is exact).
TEST_P(Coupling, ParticlesOnARampSlideOrStickByTheFrictionAngle) {
  for (float mu : {0.8f, 0.3f}) {
    Scene s = ramp_scene(0, 30.0f, mu);
    s.settings.solver.contact_hertz = 0.0f;
    const float angle = std::numbers::pi_v<float> / 6.0f;
    const glm::vec3 normal(std::sin(angle), std::cos(angle), 0.0f);
    const glm::vec3 down(std::cos(angle), -std::sin(angle), 0.0f);
    for (int k = 0; k < 5; ++k) {  // 20 cm apart across the ramp, on its surface, at rest
      const glm::vec3 on = glm::vec3(0.0f, 1.5f, 0.0f) - 0.6f * down;
      s.particles.add(on + (0.05f - 0.0005f) * normal + glm::vec3(0.0f, 0.0f, 0.2f * float(k - 2)),
                      glm::vec3(0.0f), 0.05f, 1.0f, 0);
    }
    load(s);
    // Between 0.5 and 0.8 s (a sliding particle covers 0.75 m of the 3 m ramp by then).
    const WorldState early = run(30);
    const WorldState late = run(18);
    for (std::size_t i = 0; i < 5; ++i) {
      const float v1 = glm::dot(glm::vec3(early.particles.vel_invmass[i]), down);
      const float v2 = glm::dot(glm::vec3(late.particles.vel_invmass[i]), down);
      if (mu > 0.6f) {
        EXPECT_LT(std::abs(v2), 1e-3f) << "mu " << mu << " particle " << i << " must stick";
      } else {
        const double a = 9.81 * double(std::sin(angle) - mu * std::cos(angle));  // 2.356 m/s^2
        EXPECT_NEAR(double(v2 - v1) / 0.3, a, 0.02 * a) << "particle " << i;
      }
      EXPECT_LT(std::abs(glm::dot(glm::vec3(late.particles.vel_invmass[i]), normal)), 1e-3f)
          << "on the surface";
    }
  }
}

// No gravity, no friction: a swarm of particles hits a free box and the total momentum of box
// and particles is conserved.
TEST_P(Coupling, SwarmHittingAFreeBoxConservesMomentum) {
  Scene s = empty_rigid_scene(0.0f);
  s.settings.solver.friction = false;
  s.materials[0].restitution = 0.5f;
  Body box = make_box({0.0f, 0.0f, 0.0f}, {0.3f, 0.3f, 0.3f}, 5.0f);
  box.angular_velocity = {0.0f, 0.3f, 0.0f};
  s.bodies.push_back(box);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> spread(-0.35f, 0.35f), speed(1.0f, 3.0f);
  for (int i = 0; i < 300; ++i) {
    const glm::vec3 x(-1.0f - 0.12f * float(i % 10), spread(rng), spread(rng));
    s.particles.add(x, {speed(rng), 0.0f, 0.0f}, 0.04f, 0.2f + 0.01f * float(i % 7), 0);
  }
  load(s);
  WorldState start;
  backend_->read(start);
  const Metrics before = measure(s, start);
  std::uint32_t hits = 0;
  for (int k = 0; k < 90; ++k) {
    backend_->step();
    hits += backend_->stats().points;
  }
  WorldState end;
  backend_->read(end);
  const Metrics after = measure(s, end);
  EXPECT_GT(hits, 50u) << "the swarm must hit the box";
  EXPECT_GT(end.vel[0].x, 0.1f) << "and push it";
  EXPECT_LT(glm::length(after.momentum - before.momentum), 1e-5 * glm::length(before.momentum));
}

// A capsule lying along x (radius 0.2 m, core 1 m): a static one at y = 1 and a dynamic one
// (1 kg) on the ground, a 0.1 kg particle of radius 0.05 m dropped onto each from 0.25 m above
// its top line. Each particle comes to rest on its capsule's top line, r_c + r_p above the axis,
// within 1 mm (the contact cap's sag at 35 Hz is g / (2 pi 35)^2 = 0.2 mm); the dynamic capsule
// carries its particle's weight into the ground and stays where it lay, within 1 mm.
TEST_P(Coupling, ParticlesRestOnStaticAndDynamicCapsules) {
  Scene s = empty_rigid_scene(-10.0f);
  s.planes.push_back(Plane{});
  const glm::vec4 along_x =
      kern::quat_axis_angle({0.0f, 0.0f, 1.0f}, 0.5f * std::numbers::pi_v<float>);
  for (float y : {1.0f, 0.2f}) {
    Body c;
    c.shape = Shape::capsule;
    c.radius = 0.2f;
    c.half_height = 0.5f;
    c.position = {y == 1.0f ? -1.0f : 1.0f, y, 0.0f};
    c.orientation = along_x;
    c.mass = y == 1.0f ? 0.0f : 1.0f;
    s.bodies.push_back(c);
    s.particles.add({c.position.x + 0.3f, y + 0.5f, 0.0f}, glm::vec3(0.0f), 0.05f, 0.1f, 0);
  }
  load(s);
  const WorldState st = run(180);  // 3 s
  for (std::size_t i = 0; i < 2; ++i) {
    const float axis_y = st.pos[i].y;
    const glm::vec4 p = st.particles.pos_radius[i];
    std::printf("%s capsule: axis at y %.5f, particle %.5f above it (0.25), |v| %.2e m/s\n",
                i == 0 ? "static" : "dynamic", double(axis_y), double(p.y - axis_y),
                double(glm::length(glm::vec3(st.particles.vel_invmass[i]))));
    EXPECT_NEAR(p.y - axis_y, 0.25f, 1e-3f) << "capsule " << i;
    EXPECT_NEAR(p.x, s.particles.pos_radius[i].x, 1e-3f) << "capsule " << i;
    EXPECT_LT(glm::length(glm::vec3(st.particles.vel_invmass[i])), 1e-3f) << "capsule " << i;
  }
  EXPECT_NEAR(st.pos[1].y, 0.2f, 1e-3f) << "the dynamic capsule rests on the ground";
  EXPECT_NEAR(st.pos[1].x, 1.0f, 1e-3f);
}

// A kinematic platform (a 2 m x 0.2 m x 2 m box on a path, vkphys/scene.h KinematicPath) rises
// at 0.5 m/s with nine 0.1 kg particles resting on it: after 2 s the platform has risen 1 m and
// every particle rides on its top face, r above it within 1 mm, moving up at the platform's
// 0.5 m/s within 1%. Nothing pushes the platform back: it is where its path puts it.
TEST_P(Coupling, ParticlesRideAKinematicPlatform) {
  Scene s = empty_rigid_scene(-10.0f);
  s.bodies.push_back(make_box({0.0f, 0.5f, 0.0f}, {1.0f, 0.1f, 1.0f}, 1.0f));
  KinematicPath path;
  path.target = {false, 0};
  path.velocity = {0.0f, 0.5f, 0.0f};
  s.kinematic.push_back(path);
  for (int i = 0; i < 9; ++i) {
    const glm::vec3 x(0.3f * float(i % 3 - 1), 0.65f, 0.3f * float(i / 3 - 1));
    s.particles.add(x, glm::vec3(0.0f), 0.05f, 0.1f, 0);
  }
  load(s);
  const WorldState st = run(120);  // 2 s
  const float top = st.pos[0].y + 0.1f;
  EXPECT_NEAR(st.pos[0].y, 1.5f, 1e-4f) << "the platform follows its path";
  for (std::size_t i = 0; i < st.particles.size(); ++i) {
    const glm::vec4 p = st.particles.pos_radius[i];
    const glm::vec3 v(st.particles.vel_invmass[i]);
    EXPECT_NEAR(p.y - top, 0.05f, 1e-3f) << "particle " << i;
    EXPECT_NEAR(v.y, 0.5f, 5e-3f) << "particle " << i;
    EXPECT_LT(std::hypot(v.x, v.z), 1e-3f) << "particle " << i;
  }
  std::printf("platform top %.5f m; particle 4: %.5f m above it, v_y %.5f m/s\n", double(top),
              double(st.particles.pos_radius[4].y - top), double(st.particles.vel_invmass[4].y));
}

VKPHYS_ON_ALL_CASES(Coupling);

}  // namespace
}  // namespace vkphys::test
