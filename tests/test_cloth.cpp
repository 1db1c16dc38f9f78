// Springs between particles and a cloth built from them (vkphys/cloth.h), in the one world:
// SPOOK distance rows solved with everything else, on every scheme and both backends.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "host/sim/compare.h"
#include "tests/backends.h"
#include "tests/cloth_measures.h"
#include "tests/rigid_scene_helpers.h"
#include "vkphys/cloth.h"

namespace vkphys::test {
namespace {

class Springs : public WorldTest {};

// A particle of mass m hangs from a pinned particle on a spring of rest length 1 m: at rest the
// spring stretches m g / k exactly (SPOOK's Hooke's law: the violation settles at -F / k), held
// here to 1 um: a float position near 1 m resolves 0.06 um (measured, every backend and scheme:
// 0.069 um short at k 500, 0.132 um at k 5000; the bound was 1% until the "exactly" was
// measured).
TEST_P(Springs, HangingMassStretchesItsSpringByLoadOverK) {
  for (float k : {500.0f, 5000.0f}) {
    Scene s;
    s.settings.gravity = {0.0f, -10.0f, 0.0f};
    s.particles.add({0.0f, 2.0f, 0.0f}, glm::vec3(0.0f), 0.05f, 0.0f, 0);  // pinned
    s.particles.add({0.0f, 1.0f, 0.0f}, glm::vec3(0.0f), 0.05f, 0.5f, 0);
    s.springs.push_back(Spring{0, 1, 1.0f, k, 4.0f});
    load(s);
    const WorldState st = run(600);
    const double stretch = 1.0 - double(st.particles.pos_radius[1].y);
    const double expected = 0.5 * 10.0 / double(k);  // 1 cm and 1 mm
    std::printf("%s, k %g: stretch %.9f m, m g / k %.9f m\n", scheme_name(GetParam().scheme),
                double(k), stretch, expected);
    EXPECT_NEAR(stretch, expected, 1e-6) << "k = " << k;
    EXPECT_LT(std::abs(st.particles.vel_invmass[1].y), 1e-4f);
  }
}

// The cloth tests run at the peers' budget (at_cloth_budget, tests/cloth_measures.h). Jacobi is
// skipped in them: its mass splitting (up to 12 springs a vertex) does not hold these stiff
// springs at this budget (measured: stretch 1.34 and no rest after 10 s), a finding for the
// issue, not a tolerance.

// hanging_cloth (tests/cloth_measures.h) falls and hangs: it comes to rest and its structural
// springs stretch by at most the stated bound (measured: kinetic energy 1.1e-3 of its peak
// after 10 s, stretch 1.005).
TEST_P(Springs, HangingClothComesToRest) {
  if (GetParam().scheme == SolverScheme::jacobi) GTEST_SKIP() << "see at_cloth_budget";
  Scene s;
  s.settings.gravity = {0.0f, -10.0f, 0.0f};
  at_cloth_budget(s);
  add_cloth(s, hanging_cloth());
  load(s);
  double peak = 0.0;
  WorldState st;
  for (int k = 0; k < 10; ++k) {
    st = run(30);
    peak = std::max(peak, kinetic_energy(st));
  }
  const WorldState end = run(300);  // 10 s
  const double stretch = max_stretch(s, end, hanging_cloth().k_structural);
  std::printf("%s: kinetic energy peak %.4f J, at 10 s %.2e J; max stretch %.4f\n",
              scheme_name(GetParam().scheme), peak, kinetic_energy(end), stretch);
  EXPECT_LT(kinetic_energy(end), 2e-3 * peak);
  EXPECT_LT(stretch, 1.01);
}

VKPHYS_ON_ALL_CASES(Springs);

// The cloth falls onto a static sphere: no vertex ends up inside it by more than 5 mm (measured
// 1 mm sequential, 2 mm coloured). With the contact stiffness cap on (30 Hz on the vertex's own
// 1.5 g) the vertices that carry the hanging cloth sink 9 mm: the cap assumes a contact carries
// its body's weight, and a cloth vertex carries the cloth's tension. The test runs without it.
TEST_P(Springs, ClothDrapesOverASphere) {
  if (GetParam().scheme == SolverScheme::jacobi) GTEST_SKIP() << "see at_cloth_budget";
  Scene s = empty_rigid_scene(-10.0f);
  at_cloth_budget(s);
  s.settings.solver.contact_hertz = 0.0f;
  Body ball = make_sphere({0.0f, 0.0f, 0.0f}, 0.5f, 0.0f);
  s.bodies.push_back(ball);
  ClothSpec c = hanging_cloth();
  c.origin = {-0.75f, 0.7f, -0.75f};
  c.u = {1.5f, 0.0f, 0.0f};
  c.v = {0.0f, 0.0f, 1.5f};
  c.nu = c.nv = 15;
  c.pins.clear();
  const std::uint32_t first = add_cloth(s, c);
  load(s);
  double deepest = 0.0;
  for (int k = 0; k < 12; ++k) {
    const WorldState st = run(15);
    for (std::uint32_t i = first; i < st.particles.size(); ++i) {
      const glm::vec4 x = st.particles.pos_radius[i];
      deepest = std::max(deepest, double(0.5f + x.w - glm::length(glm::vec3(x))));
    }
  }
  std::printf("%s: deepest vertex %.4f m inside the sphere (radius included)\n",
              scheme_name(GetParam().scheme), deepest);
  EXPECT_LT(deepest, 0.005);
}

// Particles of one cloth never collide with each other, so a lone cloth skips the particle
// grid's neighbour scan; a second cloth (a group of its own) brings it back. Cloth b falls flat
// onto cloth a lying on the ground and must come to rest on it, not through it: with the scan
// wrongly skipped, b would sink to the ground. The vertices (spacing s = 1/7 m) have radius
// r = 0.07 m, just under s / 2: with r < s sqrt(2) / 4 a vertex of b passes through the hole
// between four of a's (measured at r = 0.04: b balanced on a for 50 steps, then fell through),
// because particles collide as spheres, not as the cloth's surface. b is offset by half a
// spacing, so its inner vertices nest in a's hollows, sqrt((2r)^2 - s^2 / 2) = 0.097 m above.
TEST_P(Springs, ASecondClothRestsOnTheFirst) {
  if (GetParam().scheme == SolverScheme::jacobi) GTEST_SKIP() << "see at_cloth_budget";
  Scene s = empty_rigid_scene(-10.0f);
  at_cloth_budget(s);
  s.planes.push_back({{0.0f, 1.0f, 0.0f}, 0.0f, 0});
  ClothSpec c = hanging_cloth();
  c.nu = c.nv = 8;
  c.pins.clear();
  c.radius = 0.07f;
  c.origin = {0.0f, 0.07f, 0.0f};
  const std::uint32_t a = add_cloth(s, c);
  const float half = 0.5f / 7.0f;
  c.origin = {half, 0.4f, half};
  const std::uint32_t b = add_cloth(s, c);
  load(s);
  const WorldState st = run(180);
  const auto [a_top, b_bottom] = top_and_bottom(st, a, b);
  std::printf("%s: cloth a's top %.4f m, cloth b's bottom %.4f m: %.4f m apart\n",
              scheme_name(GetParam().scheme), double(a_top), double(b_bottom),
              double(b_bottom - a_top));
  EXPECT_LT(a_top, 0.075f);
  EXPECT_NEAR(b_bottom - a_top, 0.097f, 0.01f);
}

// Pins on a kinematic path carry the cloth: the 12 x 12 hanging cloth's two pins rise at
// 0.5 m/s. The pins land exactly on their path (x0 + v t), and after 10 s the cloth's centre
// rises with them: 0.499991 m in the 11th second (sequential). Its vertices' velocities keep a
// flutter of up to 2.6 cm/s (3.7 cm/s coloured) about the pins' from 5 s to 40 s, which the
// drag (0.01 kg/s, a 0.14 s time constant on a vertex) does not damp: the compliant cloth's
// known failure to come fully to rest (issue 9), reported here, not asserted.
TEST_P(Springs, PinsOnAPathCarryTheCloth) {
  if (GetParam().scheme == SolverScheme::jacobi) GTEST_SKIP() << "see at_cloth_budget";
  Scene s;
  s.settings.gravity = {0.0f, -10.0f, 0.0f};
  at_cloth_budget(s);
  s.settings.drag = 0.01f;
  const ClothSpec c = hanging_cloth();
  const std::uint32_t first = add_cloth(s, c);
  for (const auto& [i, j] : c.pins) {
    KinematicPath path;
    path.target = {true, first + j * c.nu + i};
    path.velocity = {0.0f, 0.5f, 0.0f};
    s.kinematic.push_back(path);
  }
  load(s);
  auto centre = [&](const WorldState& st) {
    glm::dvec3 sum(0.0);
    for (std::uint32_t v = first; v < st.particles.size(); ++v) {
      sum += glm::dvec3(st.particles.pos_radius[v]);
    }
    return sum / double(c.nu * c.nv);
  };
  const WorldState st = run(600);
  const WorldState later = run(60);
  const glm::dvec3 carried = centre(later) - centre(st);  // over the 11th second
  const double t = 660.0 / 60.0;
  double worst = 0.0;
  for (std::uint32_t v = first; v < later.particles.size(); ++v) {
    const glm::vec3 vel(later.particles.vel_invmass[v]);
    worst = std::max(worst, double(glm::length(vel - glm::vec3(0.0f, 0.5f, 0.0f))));
  }
  const float pin_y = later.particles.pos_radius[first].y;
  std::printf(
      "%s: pin at y %.6f (path %.6f); centre moved (%.2e, %.6f, %.2e) m in the last second; "
      "worst vertex velocity %.2e m/s off the pins'\n",
      scheme_name(GetParam().scheme), double(pin_y), 2.0 + 0.5 * t, carried.x, carried.y, carried.z,
      worst);
  EXPECT_NEAR(pin_y, 2.0 + 0.5 * t, 1e-4);
  EXPECT_NEAR(carried.y, 0.5, 1e-3);
  EXPECT_LT(std::hypot(carried.x, carried.z), 1e-3);
}

// GPU against CPU: the hanging cloth over 100 steps, positions within 1 mm at every step.
class SpringsGpuVsCpu : public ::testing::TestWithParam<SolverScheme> {};

TEST_P(SpringsGpuVsCpu, HangingClothOver100Steps) {
  VKPHYS_GPU_TEST_CONTEXT(ctx);
  Scene s;
  s.settings.gravity = {0.0f, -10.0f, 0.0f};
  at_cloth_budget(s);
  add_cloth(s, hanging_cloth());
  s.settings.solver.scheme = GetParam();
  const CompareResult r = gpu_against_cpu(ctx, s, 100, 1e-3, 1e-2);
  EXPECT_FALSE(r.divergence.has_value()) << r.verdict;
  std::printf("cloth 12x12 (%s), step 100: max |dx| %.3g m, max |dv| %.3g m/s\n",
              scheme_name(GetParam()), r.steps.back().max_pos, r.steps.back().max_vel);
}

INSTANTIATE_TEST_SUITE_P(Schemes, SpringsGpuVsCpu, ::testing::Values(SolverScheme::colored),
                         [](const ::testing::TestParamInfo<SolverScheme>& p) {
                           return std::string(scheme_name(p.param));
                         });

// Bad springs and cloths are refused with the field and value named.
TEST(SpringErrors, NameTheSpringAndTheValue) {
  Scene s;
  s.particles.add({0.0f, 0.0f, 0.0f}, glm::vec3(0.0f), 0.05f, 1.0f, 0);
  s.particles.add({1.0f, 0.0f, 0.0f}, glm::vec3(0.0f), 0.05f, 1.0f, 0);
  auto error = [&](Spring sp) {
    Scene t = s;
    t.springs = {Spring{0, 1, 1.0f, 100.0f, 4.0f}, sp};
    try {
      make_cpu_backend()->load(t);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error(Spring{0, 2, 1.0f, 100.0f, 4.0f}),
            "spring 1: particle index out of range (2 particles)");
  EXPECT_EQ(error(Spring{1, 1, 1.0f, 100.0f, 4.0f}), "spring 1 joins a particle to itself");
  EXPECT_EQ(error(Spring{0, 1, 1.0f, -1.0f, 4.0f}),
            "spring 1: k -1.000000 and d 4.000000 must be finite, k > 0 and d >= 0");
  ClothSpec c;
  c.nu = 1;
  EXPECT_THROW(add_cloth(s, c), std::invalid_argument);
  c = ClothSpec{};
  c.pins = {{16, 0}};
  try {
    add_cloth(s, c);
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "cloth: pin (16, 0) is outside the 16 x 16 grid");
  }
}

}  // namespace
}  // namespace vkphys::test
