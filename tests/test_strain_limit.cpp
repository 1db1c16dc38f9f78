// Strain limiting of the force springs (solver.strain_limit, kernels/strain_limit.inl): a spring
// that a substep's end would stretch past (1 + s) times its rest length ends it at that length,
// with the pair's momentum kept and a pinned end left where it is; compression is left alone; a
// soft hanging cloth stays near its limit where it would sag far past it; the GPU runs the same
// passes as the CPU (to the bit on lavapipe); the scene file reads, writes and checks the setting.
#include <gtest/gtest.h>

#include <cstdio>
#include <glm/glm.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "host/io/scene_file.h"
#include "tests/backends.h"
#include "tests/cloth_measures.h"
#include "tests/scene_compare.h"
#include "tests/scene_errors.h"
#include "vkphys/build.h"
#include "vkphys/cloth.h"

namespace vkphys::test {
namespace {

// Two particles (1 kg and 3 kg) joined by a weak force spring of rest length 1 m, flying apart
// along x at 4 m/s relative, without gravity: one 60 Hz step stretches it to about 1.067 m.
Scene pair_flying_apart(Integrator method, float mass_a, glm::vec3 va, glm::vec3 vb) {
  Scene s;
  s.settings.gravity = glm::vec3(0.0f);
  s.settings.time_step = 1.0f / 60.0f;
  s.settings.solver.integrator = method;
  add_particle(s, {0.0f, 0.0f, 0.0f}, 0.05f, mass_a, va);
  add_particle(s, {1.0f, 0.0f, 0.0f}, 0.05f, 3.0f, vb);
  Spring sp;
  sp.a = 0;
  sp.b = 1;
  sp.rest = 1.0f;
  sp.k = 1.0f;
  sp.model = SpringModel::force;
  s.springs.push_back(sp);
  return s;
}

WorldState one_step(const Scene& s) {
  std::unique_ptr<Backend> cpu = make_cpu_backend();
  cpu->load(s);
  cpu->step();
  WorldState st;
  cpu->read(st);
  return st;
}

float length_between(const WorldState& st) {
  return glm::distance(glm::vec3(st.particles.pos_radius[0]),
                       glm::vec3(st.particles.pos_radius[1]));
}

glm::vec3 momentum(const WorldState& st) {
  glm::vec3 p(0.0f);
  for (const glm::vec4& v : st.particles.vel_invmass) {
    if (v.w > 0.0f) p += glm::vec3(v) / v.w;
  }
  return p;
}

class StrainLimitPair : public ::testing::TestWithParam<Integrator> {};

// One spring over its limit: one pass closes the excess exactly, the pair's momentum is what it
// was, and the two velocity changes are in the inverse masses' ratio (3 : 1).
TEST_P(StrainLimitPair, ASpringPulledApartEndsTheSubstepAtItsLimit) {
  Scene s = pair_flying_apart(GetParam(), 1.0f, {-2.0f, 0.0f, 0.0f}, {2.0f, 0.0f, 0.0f});
  const WorldState free = one_step(s);
  EXPECT_GT(length_between(free), 1.06f);  // what the limit has to take back
  s.settings.solver.strain_limit.stretch = 0.05f;
  s.settings.solver.strain_limit.passes = 1;
  const WorldState held = one_step(s);
  EXPECT_NEAR(length_between(held), 1.05f, 2e-6f);
  const glm::vec3 before = momentum(free);
  const glm::vec3 after = momentum(held);
  EXPECT_NEAR(after.x, before.x, 1e-5f);
  EXPECT_NEAR(glm::length(after - before), 0.0f, 1e-5f);
  const float dva = held.particles.vel_invmass[0].x - free.particles.vel_invmass[0].x;
  const float dvb = held.particles.vel_invmass[1].x - free.particles.vel_invmass[1].x;
  EXPECT_GT(dva, 0.0f);  // a is pulled back toward b, b toward a
  EXPECT_LT(dvb, 0.0f);
  EXPECT_NEAR(dva / -dvb, 3.0f, 1e-4f);
}

// A pinned end (mass 0) does not move: the free end takes the whole correction.
TEST_P(StrainLimitPair, APinnedEndStays) {
  Scene s = pair_flying_apart(GetParam(), 0.0f, glm::vec3(0.0f), {4.0f, 0.0f, 0.0f});
  s.settings.solver.strain_limit.stretch = 0.05f;
  s.settings.solver.strain_limit.passes = 1;
  const WorldState st = one_step(s);
  EXPECT_EQ(glm::vec3(st.particles.pos_radius[0]), glm::vec3(0.0f));
  EXPECT_EQ(glm::vec3(st.particles.vel_invmass[0]), glm::vec3(0.0f));
  EXPECT_NEAR(length_between(st), 1.05f, 2e-6f);
}

// A spring shortening (or stretched less than the limit) is not touched: the same bits as
// without the limit.
TEST_P(StrainLimitPair, CompressionAndSmallStretchAreLeftAlone) {
  for (float speed : {-2.0f, 0.5f}) {  // closing at 4 m/s; opening at 1 m/s, 1.7% in the step
    Scene s = pair_flying_apart(GetParam(), 1.0f, {-speed, 0.0f, 0.0f}, {speed, 0.0f, 0.0f});
    const WorldState free = one_step(s);
    s.settings.solver.strain_limit.stretch = 0.05f;
    const WorldState limited = one_step(s);
    EXPECT_EQ(free.particles.pos_radius, limited.particles.pos_radius) << "speed " << speed;
    EXPECT_EQ(free.particles.vel_invmass, limited.particles.vel_invmass) << "speed " << speed;
  }
}

INSTANTIATE_TEST_SUITE_P(Methods, StrainLimitPair,
                         ::testing::Values(Integrator::symplectic, Integrator::rk4,
                                           Integrator::implicit),
                         method_name);

// The cloth tests' hanging cloth with springs 100 times softer, as force springs under the
// implicit method: it sags far past 10% (its weight on k = 20 N/m: 1.595 at worst in 3 s), and
// with a limit of 10% and 8 passes its springs stay near it (1.122 at worst). The Jacobi passes
// leave a little over where every spring of a column is over the limit under a steady load: a
// pass averages a vertex's corrections from the springs above and below it, so the pin's hold
// travels down the 12-vertex column over several passes, and gravity pulls again each substep.
Scene soft_hanging_cloth(float stretch) {
  Scene s;
  s.settings.gravity = {0.0f, -9.81f, 0.0f};
  at_cloth_budget(s);
  s.settings.solver.integrator = Integrator::implicit;
  s.settings.solver.strain_limit.stretch = stretch;
  s.settings.solver.strain_limit.passes = 8;
  ClothSpec c = hanging_cloth();
  c.model = SpringModel::force;
  c.k_structural = 20.0f;
  c.k_shear = 2.0f;
  c.k_bend = 0.2f;
  c.c = 0.02f;
  add_cloth(s, c);
  return s;
}

TEST(StrainLimit, ASoftHangingClothStaysNearItsLimit) {
  auto worst_stretch = [](const Scene& s) {
    std::unique_ptr<Backend> cpu = make_cpu_backend();
    cpu->load(s);
    double worst = 0.0;
    WorldState st;
    for (int k = 0; k < 180; ++k) {
      cpu->step();
      cpu->read(st);
      worst = std::max(worst, max_stretch(s, st, 20.0f));
    }
    return worst;
  };
  const double free = worst_stretch(soft_hanging_cloth(0.0f));
  const double limited = worst_stretch(soft_hanging_cloth(0.1f));
  std::printf("soft hanging cloth, 3 s: worst structural stretch %.4f free, %.4f limited to 1.1\n",
              free, limited);
  EXPECT_GT(free, 1.3);
  EXPECT_LT(limited, 1.13);
}

// The GPU runs the same passes: to the bit on lavapipe, within the particle parity tests' 1 mm
// and 1 cm/s on another device.
class StrainLimitParity : public WithGpu<::testing::Test> {};

TEST_F(StrainLimitParity, SoftHangingClothAgainstCpu) {
  const bool exact = on_lavapipe();
  const CompareResult r =
      gpu_against_cpu(*ctx_, soft_hanging_cloth(0.1f), 60, exact ? 0.0 : 1e-3, exact ? 0.0 : 1e-2);
  EXPECT_TRUE(r.passed()) << r.verdict;
}

// ---- the scene file

nlohmann::json limited_scene() {
  return nlohmann::json::parse(R"({
    "format": "vkphys-scene", "version": 2, "name": "limited",
    "gravity": [0, -9.81, 0],
    "solver": {"integrator": "implicit", "strain_limit": {"stretch": 0.1, "passes": 6}},
    "particles": [{"type": "particle", "position": [0, 2, 0], "radius": 0.05, "static": true},
                  {"type": "particle", "position": [0, 1, 0], "radius": 0.05, "mass": 1}],
    "springs": [{"particles": [0, 1], "k": 40, "model": "force", "c": 0.1}]
  })");
}

TEST(StrainLimitSettings, SceneFileReadsAndWritesThem) {
  const Scene s = io::parse_scene(limited_scene().dump(), "<test>");
  EXPECT_EQ(s.settings.solver.strain_limit.stretch, 0.1f);
  EXPECT_EQ(s.settings.solver.strain_limit.passes, 6u);
  const Scene back = io::parse_scene(io::write_scene_json(s), "<written>");
  expect_same_scene(s, back);
  // passes defaults to 16
  nlohmann::json j = limited_scene();
  j["solver"]["strain_limit"].erase("passes");
  EXPECT_EQ(io::parse_scene(j.dump(), "<test>").settings.solver.strain_limit.passes, 16u);
}

TEST(StrainLimitSettings, BadValuesNameTheirField) {
  auto with = [](auto edit) {
    nlohmann::json j = limited_scene();
    edit(j);
    return error_of(j);
  };
  expect_error(with([](nlohmann::json& j) { j["solver"]["strain_limit"]["stretch"] = 0; }),
               {"solver.strain_limit.stretch", "must be > 0"});
  expect_error(with([](nlohmann::json& j) { j["solver"]["strain_limit"]["stretch"] = 12; }),
               {"solver.strain_limit.stretch", "must be in (0, 10]"});
  expect_error(with([](nlohmann::json& j) { j["solver"]["strain_limit"]["passes"] = 0; }),
               {"solver.strain_limit.passes", "[1, 64]"});
  expect_error(with([](nlohmann::json& j) { j["solver"]["strain_limit"].erase("stretch"); }),
               {"solver.strain_limit", "stretch"});
  expect_error(with([](nlohmann::json& j) { j["solver"]["strain_limit"]["limit"] = 1; }),
               {"solver.strain_limit", "limit"});

  Scene s = io::parse_scene(limited_scene().dump(), "<test>");
  s.settings.solver.strain_limit.stretch = -1.0f;
  EXPECT_EQ(load_error(s), "solver.strain_limit.stretch = -1.000000: must be in [0, 10] (0: off)");
  s.settings.solver.strain_limit.stretch = 0.1f;
  s.settings.solver.strain_limit.passes = 65;
  EXPECT_EQ(load_error(s), "solver.strain_limit.passes = 65: must be in [1, 64]");
  s.settings.solver.strain_limit.passes = 16;
  s.springs[0].model = SpringModel::compliant;  // a row: nothing left to limit
  s.springs[0].c = 0.0f;
  EXPECT_EQ(load_error(s),
            "solver.strain_limit: the scene has no force springs to limit (compliant springs and "
            "tethers are rows, held by their own solve)");
}

}  // namespace
}  // namespace vkphys::test
