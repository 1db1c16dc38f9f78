// Force springs and the explicit integrators on the GPU against the CPU reference: both run the
// same kernels (kernels/spring_force.h, kernels/world_ode.inl), so with contacts between
// particles and planes only the runs are bit-identical on lavapipe (tolerance 0), as the
// particle pipeline is. Another device may contract or reorder float operations: there the runs
// are held to the particle parity tests' 1 mm and 1 cm/s, and the adaptive step's decisions
// (which follow its error's bits) are not compared.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <utility>
#include <vector>

#include "host/io/scene_file.h"
#include "tests/backends.h"
#include "tests/integrator_scenes.h"
#include "vkphys/build.h"
#include "vkphys/cloth.h"

namespace vkphys::test {
namespace {

class ForceSpringParity : public WithGpu<::testing::TestWithParam<Integrator>> {
 protected:
  CompareResult against_cpu(const Scene& s, std::uint32_t steps) {
    const bool exact = on_lavapipe();
    return gpu_against_cpu(*ctx_, s, steps, exact ? 0.0 : 1e-3, exact ? 0.0 : 1e-2);
  }
};

// Seed 003's circular field, 200 steps of the shipped scene with each method (lavapipe takes
// about 30 ms a step here; tests/test_explicit_integrators.cpp runs the 1000 on the CPU).
TEST_P(ForceSpringParity, CircularFieldBitForBit) {
  Scene s = io::load_scene(std::filesystem::path(VKPHYS_SOURCE_DIR) / "scenes/circular_field.json");
  s.settings.solver.integrator = GetParam();
  const CompareResult r = against_cpu(s, 200);
  EXPECT_TRUE(r.passed()) << r.verdict;
}

// A 10 x 10 force-spring cloth (10 g vertices) at `height` above a plane, under `method` at 60 Hz
// with 4 substeps and drag (h omega about 0.13 for the stiffest vertex, within every method's
// stable step with the damping), pinned at `pins`.
Scene force_cloth_over_a_plane(Integrator method, float height,
                               std::vector<std::pair<std::uint32_t, std::uint32_t>> pins) {
  Scene s;
  s.settings.time_step = 1.0f / 60.0f;
  s.settings.drag = 0.01f;
  s.settings.solver.substeps = 4;
  s.settings.solver.integrator = method;
  s.planes.push_back(Plane{{0.0f, 1.0f, 0.0f}, 0.0f, 0});
  ClothSpec c;
  c.origin = {-0.5f, height, -0.5f};
  c.nu = c.nv = 10;
  c.model = SpringModel::force;
  c.density = 1.0f;
  c.k_structural = 5.0f;
  c.k_shear = 1.0f;
  c.k_bend = 0.2f;
  c.c = 0.05f;
  c.pins = std::move(pins);
  add_cloth(s, c);
  return s;
}

// The cloth pinned at two corners falls onto the plane: springs, pins, gravity, drag and
// particle-plane contacts over 80 steps.
TEST_P(ForceSpringParity, ClothOnAPlaneBitForBit) {
  const Scene s = force_cloth_over_a_plane(GetParam(), 0.6f, {{0, 0}, {9, 0}});
  const CompareResult r = against_cpu(s, 80);
  EXPECT_TRUE(r.passed()) << r.verdict;
  std::unique_ptr<Backend> cpu = make_cpu_backend();
  cpu->load(s);
  std::uint32_t contacts = 0;
  for (int k = 0; k < 80; ++k) {
    cpu->step();
    contacts = std::max(contacts, cpu->stats().particle_contacts);
  }
  EXPECT_GT(contacts, 0u) << "the cloth never reached the plane";
}

// The adaptive step redoes steps and changes its ODE step count (the GPU re-records): both
// backends take the same decisions from the same error bits.
TEST_P(ForceSpringParity, AdaptiveKeplerOrbitBitForBit) {
  if (GetParam() == Integrator::symplectic) GTEST_SKIP() << "adaptive needs an explicit method";
  if (!on_lavapipe()) GTEST_SKIP() << "the decisions follow the error's bits: lavapipe only";
  // 36 of the orbit's 64 steps: out of the apoapsis, through the periapsis at step 32, and out.
  Scene s = kepler_scene(GetParam(), 0.9, 64);
  s.settings.solver.adaptive.tolerance = 1e-3f;
  std::unique_ptr<Backend> gpu = make_gpu_backend(*ctx_);
  std::unique_ptr<Backend> cpu = make_cpu_backend();
  gpu->load(s);
  cpu->load(s);
  std::uint32_t changes = 0, redos = 0, last = 1;
  for (std::uint32_t k = 0; k < 36; ++k) {
    gpu->step();
    cpu->step();
    ASSERT_EQ(gpu->stats().ode_steps, cpu->stats().ode_steps) << "step " << k;
    ASSERT_EQ(gpu->stats().ode_redos, cpu->stats().ode_redos) << "step " << k;
    changes += cpu->stats().ode_steps != last ? 1u : 0u;
    last = cpu->stats().ode_steps;
    redos += cpu->stats().ode_redos;
    WorldState a, b;
    gpu->read(a);
    cpu->read(b);
    ASSERT_EQ(a.particles.pos_radius[0], b.particles.pos_radius[0]) << "step " << k;
    ASSERT_EQ(a.particles.vel_invmass[0], b.particles.vel_invmass[0]) << "step " << k;
  }
  std::printf("%s: %u changes of the ODE step count, %u redone steps\n",
              integrator_name(GetParam()), changes, redos);
  EXPECT_GT(changes, 1u);  // the run exercised the controller both ways
  EXPECT_GT(redos, 0u);
}

// Redone steps with contacts: the force-spring cloth, unpinned and under the adaptive step, lands
// beside a column of three particles resting on the plane. A step whose error
// passes the tolerance is taken again from its start, so nothing of the rejected attempt may reach
// the redo: not the contact impulses, which the next step's warm start reads.
TEST_P(ForceSpringParity, AdaptiveRedosWithContactsBitForBit) {
  if (GetParam() == Integrator::symplectic) GTEST_SKIP() << "adaptive needs an explicit method";
  if (!on_lavapipe()) GTEST_SKIP() << "the decisions follow the error's bits: lavapipe only";
  Scene s = force_cloth_over_a_plane(GetParam(), 0.3f, {});
  // Near the error's float floor (about 1e-7 here), so the steps double up to 64 ODE steps a
  // substep and are redone at steps 0 and 6. While the GPU still committed a rejected attempt's
  // contacts, it parted from the CPU at step 6 or 7 with every method.
  s.settings.solver.adaptive.tolerance = 1e-7f;
  s.settings.solver.adaptive.max_steps = 64;
  for (float y : {0.05f, 0.15f, 0.25f}) add_particle(s, {1.0f, y, 0.0f}, 0.05f, 0.1f);
  std::unique_ptr<Backend> gpu = make_gpu_backend(*ctx_);
  std::unique_ptr<Backend> cpu = make_cpu_backend();
  gpu->load(s);
  cpu->load(s);
  std::uint32_t redos = 0;
  std::uint32_t redos_with_contacts = 0;
  for (std::uint32_t k = 0; k < 8; ++k) {
    gpu->step();
    cpu->step();
    ASSERT_EQ(gpu->stats().ode_redos, cpu->stats().ode_redos) << "step " << k;
    redos += cpu->stats().ode_redos;
    if (cpu->stats().particle_contacts > 0) redos_with_contacts += cpu->stats().ode_redos;
    WorldState a, b;
    gpu->read(a);
    cpu->read(b);
    ASSERT_EQ(a.particles.pos_radius, b.particles.pos_radius) << "step " << k;
    ASSERT_EQ(a.particles.vel_invmass, b.particles.vel_invmass) << "step " << k;
  }
  std::printf("%s: %u redone steps, %u with contacts\n", integrator_name(GetParam()), redos,
              redos_with_contacts);
  EXPECT_GT(redos_with_contacts, 0u);
}

INSTANTIATE_TEST_SUITE_P(Methods, ForceSpringParity,
                         ::testing::Values(Integrator::symplectic, Integrator::euler,
                                           Integrator::midpoint, Integrator::rk4),
                         method_name);

}  // namespace
}  // namespace vkphys::test
