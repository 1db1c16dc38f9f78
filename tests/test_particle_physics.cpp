// Analytic physics checks of particles in the world, on both backends and every scheme.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "host/sim/metrics.h"
#include "host/sim/scene_builders.h"
#include "kernels/spook.h"
#include "tests/backends.h"

namespace vkphys {
namespace {

using test::WorldTest;

// One particle above a floor plane whose material is effectively rigid, so the contact's
// combined spring constant (two springs in series) is the particle's own k. No stiffness cap
// (solver.contact_hertz = 0): these tests check the material's own k.
Scene one_particle(float height, float radius, float mass, Material particle_mat) {
  Scene s;
  s.settings.gravity = {0.0f, -10.0f, 0.0f};
  s.settings.time_step = 1.0f / 60.0f;
  s.settings.contact_margin = 0.0f;
  s.settings.solver.contact_hertz = 0.0f;
  s.materials = {particle_mat, Material{"floor", 0.0f, particle_mat.friction, 1.0e30f, 0.0f}};
  s.planes.push_back({{0.0f, 1.0f, 0.0f}, 0.0f, 1});
  s.particles.add({0.0f, height, 0.0f}, glm::vec3(0.0f), radius, mass, 0);
  return s;
}

class ParticlePhysics : public WorldTest {};

// Digest A4.1: leapfrog free fall, g = -10, h = 1/60, 60 steps: dy = g h^2 n (n + 1) / 2.
TEST_P(ParticlePhysics, FreeFallMatchesLeapfrogClosedForm) {
  Scene s = one_particle(100.0f, 0.1f, 1.0f, Material{});
  s.planes.clear();
  load(s);
  const Particles out = run(60).particles;
  const double expected = 100.0 - 10.0 / 3600.0 * 60.0 * 61.0 / 2.0;  // 94.916667
  EXPECT_NEAR(out.pos_radius[0].y, expected, 2e-5);
  EXPECT_NEAR(out.vel_invmass[0].y, -10.0, 2e-5);
  // Explicit Euler would give 95.083 and the exact parabola 95.0: both are far outside.
}

// Linear drag c: the velocity recursion v' = v + h (g - c/m v) converges to g m / c.
TEST_P(ParticlePhysics, LinearDragReachesTerminalVelocity) {
  Scene s = one_particle(1000.0f, 0.1f, 2.0f, Material{});
  s.planes.clear();
  s.settings.drag = 4.0f;  // c/m = 2 /s, terminal speed g m / c = 5 m/s
  load(s);
  const Particles out = run(600).particles;
  EXPECT_NEAR(out.vel_invmass[0].y, -5.0, 1e-4);
}

// Seed 001 B4.1: one sphere (m = 2) 1 mm into a plane, h = 1/60, d = 4, k = 1e5, at rest:
// one Gauss-Seidel/Jacobi iteration is exact, lambda = 0.3493174 N s.
TEST_P(ParticlePhysics, SingleContactImpulseMatchesSpookClosedForm) {
  Material m{"ball", 0.0f, 0.0f, 1.0e5f, 4.0f};
  Scene s = one_particle(0.5f - 0.001f, 0.5f, 2.0f, m);
  s.settings.gravity = {0.0f, -9.81f, 0.0f};
  s.settings.solver.iterations = 1;
  load(s);
  StepTrace trace;
  backend_->step(&trace);
  ASSERT_EQ(trace.pcontact_lambda.size(), 1u);
  EXPECT_NEAR(trace.pcontact_lambda[0].x, 0.3493174, 2e-6);
  WorldState st;
  backend_->read(st);
  EXPECT_NEAR(st.particles.vel_invmass[0].y, 0.011159, 2e-6);
  glm::vec3 abe = kern::spook_coefficients(1.0e5f, 4.0f, 1.0f / 60.0f);
  EXPECT_NEAR(abe.x, 14.11765, 1e-4);
  EXPECT_NEAR(abe.y, 0.9411765, 1e-6);
  EXPECT_NEAR(abe.z, 0.008470588, 1e-8);
}

// Digest B4.2: at rest under gravity with finite k the penetration settles at m g / k.
TEST_P(ParticlePhysics, RestingParticleSettlesAtHookePenetration) {
  for (float k : {1.0e4f, 1.0e5f}) {
    Material m{"ball", 0.0f, 0.0f, k, 4.0f};
    Scene s = one_particle(0.1f, 0.1f, 2.0f, m);
    load(s);
    const Particles out = run(600).particles;
    const double penetration = 0.1 - double(out.pos_radius[0].y);
    const double expected = 2.0 * 10.0 / double(k);  // 2 mm and 0.2 mm
    EXPECT_NEAR(penetration, expected, 0.01 * expected) << "k = " << k;
    EXPECT_NEAR(out.vel_invmass[0].y, 0.0, 1e-5);
  }
  // A stiff contact: penetration below a micrometre.
  Scene stiff = one_particle(0.1f, 0.1f, 2.0f, Material{"ball", 0.0f, 0.0f, 1.0e9f, 4.0f});
  load(stiff);
  const Particles out = run(600).particles;
  EXPECT_LT(std::abs(0.1 - double(out.pos_radius[0].y)), 1e-6);
}

// A ball dropped on a plane with restitution e rebounds to e^2 of its drop height.
TEST_P(ParticlePhysics, BounceHeightIsRestitutionSquared) {
  for (float e : {0.5f, 0.8f}) {
    Material m{"ball", e, 0.0f, 1.0e8f, 4.0f};
    Scene s = one_particle(1.0f + 0.05f, 0.05f, 1.0f, m);
    s.settings.time_step = 1.0f / 1000.0f;
    s.settings.contact_margin = 0.001f;
    load(s);
    bool bounced = false;
    double apex = 0.0;
    for (int step = 0; step < 4000; ++step) {
      const Particles out = run(1).particles;
      double y = double(out.pos_radius[0].y) - 0.05;
      double vy = double(out.vel_invmass[0].y);
      if (vy > 0.0) bounced = true;
      if (bounced) apex = std::max(apex, y);
      if (bounced && vy < 0.0) break;
    }
    ASSERT_TRUE(bounced);
    EXPECT_NEAR(apex, double(e * e), 0.01) << "e = " << e;  // 1 cm on a 1 m drop
  }
}

// Frictionless collisions between free particles (no gravity, no planes) conserve momentum.
TEST_P(ParticlePhysics, FrictionlessCollisionsConserveMomentum) {
  Scene s;
  s.settings.gravity = glm::vec3(0.0f);
  s.settings.solver.friction = false;
  s.materials = {Material{"m", 0.5f, 0.0f, 1.0e6f, 4.0f}};
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> pos(0.0f, 2.0f), vel(-2.0f, 2.0f), mass(0.5f, 3.0f);
  for (int i = 0; i < 1237; ++i) {
    s.particles.add({pos(rng), pos(rng), pos(rng)}, {vel(rng), vel(rng), vel(rng)}, 0.04f,
                    mass(rng), 0);
  }
  load(s);
  WorldState start;
  backend_->read(start);
  const Metrics before = measure(s, start);
  std::uint32_t contacts = 0;
  for (int k = 0; k < 60; ++k) {
    backend_->step();
    contacts += backend_->stats().particle_contacts;
  }
  WorldState end;
  backend_->read(end);
  const Metrics after = measure(s, end);
  const Particles& out = end.particles;
  EXPECT_GT(contacts, 100u) << "the scene must actually collide";
  double scale = 0.0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    scale +=
        double(glm::length(glm::vec3(s.particles.vel_invmass[i])) / s.particles.vel_invmass[i].w);
  }
  EXPECT_LT(glm::length(after.momentum - before.momentum), 1e-5 * scale)
      << "momentum drift relative to sum |p| = " << scale;
}

// A pile of 5,000 particles in a box settles: slow, and barely overlapping.
TEST_P(ParticlePhysics, PileOf5000Settles) {
  Scene s = particle_box_scene(5000, 3);
  load(s);
  const WorldState st = run(150);
  const Particles& out = st.particles;
  const Metrics m = measure(s, st);
  EXPECT_FALSE(m.nonfinite_particle.has_value());
  // Bounds: mean kinetic energy per particle < 1e-4 J (a 1 kg particle slower than 1.4 cm/s)
  // and no overlap deeper than 2% of the radius (1 mm).
  EXPECT_LT(m.kinetic() / 5000.0, 1e-4) << "total kinetic " << m.kinetic();
  EXPECT_LT(m.max_penetration, 0.001);
  for (const glm::vec4& p : out.pos_radius) {
    ASSERT_GT(p.y, 0.04f);  // nothing fell through the floor
  }
}

// A pile 15 layers deep (2,160 particles, 32 iterations as the other particle scenes) settles
// with Gauss-Seidel, coloured or sequential: after 5 s below 1e-6 J per particle and 0.5 mm of
// overlap (measured: 1.1e-9 J, 0.29 mm). Jacobi carries load down a pile one contact per
// iteration and does not: 0.19 J per particle and 1.3 cm of overlap at the same settings.
TEST_P(ParticlePhysics, PileFifteenLayersDeepSettlesWithGaussSeidel) {
  if (GetParam().scheme == SolverScheme::jacobi) GTEST_SKIP() << "Jacobi: see the comment";
  Scene s = particle_box_scene(2160, 3, 0.05f, 15);
  load(s);
  const WorldState st = run(300);
  const Metrics m = measure(s, st);
  EXPECT_LT(m.kinetic() / 2160.0, 1e-6) << "total kinetic " << m.kinetic();
  EXPECT_LT(m.max_penetration, 5e-4);
  // The lattice closes its 2.5% gaps (potential energy -1.7%) and stands: it does not slump
  // into a denser packing (-16%, what it does at 10 iterations before it comes to rest at 20 s).
  EXPECT_GT(m.potential, 0.97 * measure(s, WorldState{{}, {}, {}, {}, s.particles}).potential);
}

VKPHYS_ON_ALL_CASES(ParticlePhysics);

}  // namespace
}  // namespace vkphys
