// Seed 002's Listing 8 (scenes/soft_body_listing8.json, digest A.2.3): a soft body of 1 kg
// particles with a force spring and damper between every pair (k = 10 N/m, c = 0.1 kg/s) at
// h = 0.02 s, stepped as the listing recommends (explicit Euler velocities, positions from the
// new velocities: the symplectic step). The spring forces are internal and central, so the
// centre of mass falls exactly as a free particle does, a spinning body keeps its angular
// momentum about its centre of mass, and on the ground the damping brings it to rest.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "host/io/scene_file.h"
#include "host/sim/backend.h"

namespace vkphys::test {
namespace {

Scene listing8() {
  return io::load_scene(std::filesystem::path(VKPHYS_SOURCE_DIR) /
                        "scenes/soft_body_listing8.json");
}

glm::dvec3 centre_of_mass(const WorldState& st) {
  glm::dvec3 c(0.0);
  for (const glm::vec4& p : st.particles.pos_radius) c += glm::dvec3(p);
  return c / double(st.particles.size());
}

TEST(SoftBodyListing8, SceneIsTheListings) {
  const Scene s = listing8();
  ASSERT_EQ(s.particles.size(), 8u);
  ASSERT_EQ(s.springs.size(), 28u);  // every pair of the 8 particles
  for (const Spring& spring : s.springs) {
    EXPECT_EQ(spring.model, SpringModel::force);
    EXPECT_EQ(spring.k, 10.0f);
    EXPECT_EQ(spring.c, 0.1f);
    const double length = glm::length(glm::dvec3(s.particles.pos_radius[spring.b]) -
                                      glm::dvec3(s.particles.pos_radius[spring.a]));
    EXPECT_NEAR(spring.rest, length, 1e-6);  // rest length: the initial distance
  }
  for (const glm::vec4& v : s.particles.vel_invmass) EXPECT_EQ(v.w, 1.0f);  // 1 kg each
  EXPECT_EQ(s.settings.time_step, 0.02f);
  EXPECT_EQ(s.settings.gravity, glm::vec3(0.0f, 0.0f, -9.81f));
  EXPECT_EQ(s.settings.solver.integrator, Integrator::symplectic);
}

// Until the first contact: z_com(n) = z0 - g h^2 n (n + 1) / 2 (the symplectic step's free fall,
// digest A4.1) and every spring keeps its rest length (equal masses in a uniform field).
TEST(SoftBodyListing8, FallsAsOneFreeParticleUntilItLands) {
  const Scene s = listing8();
  std::unique_ptr<Backend> cpu = make_cpu_backend();
  cpu->load(s);
  WorldState st;
  cpu->read(st);
  const double z0 = centre_of_mass(st).z, g = 9.81, h = 0.02;
  std::uint32_t n = 0;
  double worst_com = 0.0, worst_spring = 0.0;
  for (;;) {
    cpu->step();
    if (cpu->stats().particle_contacts > 0) break;  // contacts are found with a margin ahead
    ++n;
    cpu->read(st);
    const double expected = z0 - g * h * h * double(n) * double(n + 1) / 2.0;
    worst_com = std::max(worst_com, std::abs(centre_of_mass(st).z - expected));
    for (const Spring& spring : s.springs) {
      const double l = glm::length(glm::dvec3(st.particles.pos_radius[spring.b]) -
                                   glm::dvec3(st.particles.pos_radius[spring.a]));
      worst_spring = std::max(worst_spring, std::abs(l - double(spring.rest)));
    }
  }
  std::printf(
      "free fall for %u steps: centre of mass within %.3g m of z0 - g h^2 n(n+1)/2, "
      "springs within %.3g m of rest\n",
      n, worst_com, worst_spring);
  EXPECT_GE(n, 20u);  // 1 m of fall takes 22 steps of 0.02 s
  EXPECT_LT(worst_com, 1e-5);
  EXPECT_LT(worst_spring, 1e-5);
}

// In mid-air without gravity, spun about a skew axis: the springs stretch and ring, but their
// forces are central pair forces, which the symplectic step keeps from changing the angular
// momentum (L' = L + h sum x_i x f_i, and each pair's torques cancel). The dampers take energy
// out of the ringing; without them (c = 0) the energy only wanders by the step's bounded error.
struct SpinResult {
  glm::dvec3 l0, linear;
  double worst_l = 0.0, e0 = 0.0, e = 0.0;
};

SpinResult spin(float damping) {
  Scene s = listing8();
  for (Spring& spring : s.springs) spring.c = damping;
  s.settings.gravity = glm::vec3(0.0f);
  s.planes.clear();
  const glm::vec3 centre(0.5f, 0.5f, 1.5f), omega(0.5f, 1.0f, 2.0f);
  for (std::size_t i = 0; i < s.particles.size(); ++i) {
    const glm::vec3 r = glm::vec3(s.particles.pos_radius[i]) - centre;
    s.particles.vel_invmass[i] = glm::vec4(glm::cross(omega, r), 1.0f);
  }
  std::unique_ptr<Backend> cpu = make_cpu_backend();
  cpu->load(s);
  auto momentum = [&](glm::dvec3& linear, double& energy) {
    WorldState st;
    cpu->read(st);
    const glm::dvec3 c = centre_of_mass(st);
    glm::dvec3 l(0.0);
    linear = glm::dvec3(0.0);
    energy = 0.0;
    for (std::size_t i = 0; i < st.particles.size(); ++i) {
      const glm::dvec3 v(st.particles.vel_invmass[i]);
      l += glm::cross(glm::dvec3(st.particles.pos_radius[i]) - c, v);
      linear += v;
      energy += 0.5 * glm::dot(v, v);
    }
    for (const Spring& spring : s.springs) {
      const double stretch = glm::length(glm::dvec3(st.particles.pos_radius[spring.b]) -
                                         glm::dvec3(st.particles.pos_radius[spring.a])) -
                             double(spring.rest);
      energy += 0.5 * double(spring.k) * stretch * stretch;
    }
    return l;
  };
  SpinResult r;
  glm::dvec3 p0;
  r.l0 = momentum(p0, r.e0);
  for (int k = 0; k < 500; ++k) {
    cpu->step();
    r.worst_l = std::max(r.worst_l, glm::length(momentum(r.linear, r.e) - r.l0));
  }
  std::printf("spin, c %.2f: |L0| %.6f kg m^2/s, largest change %.3g; energy %.6f J -> %.6f J\n",
              double(damping), glm::length(r.l0), r.worst_l, r.e0, r.e);
  return r;
}

TEST(SoftBodyListing8, SpinningBodyKeepsItsAngularMomentumAndDampersTakeEnergy) {
  const SpinResult damped = spin(0.1f), undamped = spin(0.0f);
  for (const SpinResult& r : {damped, undamped}) {
    EXPECT_LT(r.worst_l, 1e-5 * glm::length(r.l0));
    EXPECT_LT(glm::length(r.linear), 1e-5);
  }
  EXPECT_LT(damped.e, damped.e0);
  EXPECT_GT(damped.e0 - damped.e, 10.0 * std::abs(undamped.e - undamped.e0));
}

// Landed, it slumps (k = 10 N/m does not hold 9.81 N particles up) and comes to rest on the
// ground: no kinetic energy left after 10 s and no particle in the ground.
TEST(SoftBodyListing8, ComesToRestOnTheGround) {
  std::unique_ptr<Backend> cpu = make_cpu_backend();
  cpu->load(listing8());
  for (int k = 0; k < 500; ++k) cpu->step();
  WorldState st;
  cpu->read(st);
  double kinetic = 0.0, lowest = 1e9, highest = -1e9;
  for (std::size_t i = 0; i < st.particles.size(); ++i) {
    const glm::dvec3 v(st.particles.vel_invmass[i]);
    kinetic += 0.5 * glm::dot(v, v);
    lowest = std::min(lowest, double(st.particles.pos_radius[i].z));
    highest = std::max(highest, double(st.particles.pos_radius[i].z));
  }
  std::printf("after 10 s: kinetic %.3g J, particle centres from %.4f to %.4f m (radius 0.05)\n",
              kinetic, lowest, highest);
  EXPECT_LT(kinetic, 1e-4);
  EXPECT_GT(lowest, 0.05 - 1e-3);
}

}  // namespace
}  // namespace vkphys::test
