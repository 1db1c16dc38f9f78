// Particle scenes on the one world against the particle pipeline it replaces (CPU backends).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "host/sim/backend.h"
#include "host/sim/rigid_backend.h"
#include "host/sim/scene_builders.h"

namespace vkphys {
namespace {

struct Diff {
  double max_pos = 0, max_vel = 0;
};

Diff run_both(Scene s, int steps) {
  s.settings.solver.scheme = SolverScheme::jacobi;
  s.settings.solver.contact_hertz = 0.0f;
  auto old_b = make_cpu_backend();
  auto new_b = make_cpu_rigid_backend();
  old_b->load(s);
  new_b->load(s);
  Diff d;
  for (int k = 0; k < steps; ++k) {
    old_b->step();
    new_b->step();
    Particles a;
    RigidState b;
    old_b->read(a);
    new_b->read(b);
    for (std::size_t i = 0; i < a.size(); ++i) {
      d.max_pos = std::max(d.max_pos, static_cast<double>(glm::length(
                                          glm::vec3(a.pos_radius[i]) -
                                          glm::vec3(b.particles.pos_radius[i]))));
      d.max_vel = std::max(d.max_vel, static_cast<double>(glm::length(
                                          glm::vec3(a.vel_invmass[i]) -
                                          glm::vec3(b.particles.vel_invmass[i]))));
    }
  }
  return d;
}

TEST(WorldVsParticleFamily, Pile) {
  Diff d = run_both(particle_box_scene(2000, 5), 120);
  std::printf("pile 2000: max |dx| %.3g m, max |dv| %.3g m/s\n", d.max_pos, d.max_vel);
  EXPECT_LT(d.max_pos, 1e-2);
}

}  // namespace
}  // namespace vkphys
