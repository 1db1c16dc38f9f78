// Tethers (long-range attachments, vkphys/cloth.h add_tethers; kernels/joints.inl): a hanging
// cloth's stretch is bounded where the springs alone let it run away at the peers' budget; a
// tether pulls only past its rest length and never pushes; it follows a moving pin; the GPU
// matches the CPU; each tether goes to the nearest pin, in straight line or along the springs;
// bad input is refused by name.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "host/io/scene_file.h"
#include "host/sim/mixed_scenes.h"
#include "tests/backends.h"
#include "tests/cloth_measures.h"
#include "tests/scene_errors.h"
#include "vkphys/cloth.h"

namespace vkphys::test {
namespace {

// Bullet's cloth bench (cloth_hang_scene: 10 m, 1 kg, k = 1e6 N/m, pinned at two corners, 60 Hz,
// 4 substeps x 2 iterations) at 48 x 48, its springs' largest length / rest over its first
// 2 s, sampled every 10 steps. The Gauss-Seidel sweeps cannot carry the load down the cloth's
// columns, so without tethers its worst spring, the one below a pin, runs far past rest;
// tethers hand each vertex's weight to its pin, and the worst spring is then on the free bottom
// edge as it whips through the fall. Measured (CPU): without 1.468 sequential, 1.491 coloured;
// euclidean 1.190, 1.139; geodesic 1.215, 1.161.
constexpr std::uint32_t kSide = 48;
constexpr double kLooseBound = 1.4;
constexpr double kTetheredBound = 1.25;

class Tethers : public WorldTest {};

class TetheredCloth : public WorldTest {
 protected:
  double worst_stretch(ClothTethers mode) {
    Scene s = cloth_hang_scene(kSide);
    if (mode != ClothTethers::none) {
      add_tethers(s, 0, static_cast<std::uint32_t>(s.particles.size()), mode, 1.0e6f, 4.0f);
    }
    load(s);
    double worst = 0.0;
    std::uint32_t where = 0;  // the worst spring's first vertex
    for (int k = 0; k < 12; ++k) {
      const WorldState st = run(10);
      for (const Spring& sp : s.springs) {
        if (sp.tether()) continue;
        const double ratio = double(glm::length(glm::vec3(st.particles.pos_radius[sp.b]) -
                                                glm::vec3(st.particles.pos_radius[sp.a]))) /
                             double(sp.rest);
        if (ratio > worst) {
          worst = ratio;
          where = sp.a;
        }
      }
    }
    std::printf("  worst spring %.4f at vertex (%u, %u)\n", worst, where % kSide, where / kSide);
    return worst;
  }
};

TEST_P(TetheredCloth, BoundsTheHangingClothsStretch) {
  const double without = worst_stretch(ClothTethers::none);
  const double euclidean = worst_stretch(ClothTethers::euclidean);
  const double geodesic = worst_stretch(ClothTethers::geodesic);
  std::printf(
      "%s, %u x %u over 2 s: worst length / rest %.4f without tethers, %.4f euclidean, "
      "%.4f geodesic\n",
      scheme_name(GetParam().scheme), kSide, kSide, without, euclidean, geodesic);
  EXPECT_GT(without, kLooseBound);
  EXPECT_LT(euclidean, kTetheredBound);
  EXPECT_LT(geodesic, kTetheredBound);
}

// One free particle tied to a pinned one by a tether of rest 1 m, no gravity: it starts 0.5 m
// from the pin moving at `speed` along the line away from it. While within 1 m it moves freely
// (no impulse at all: its velocity is exactly its start); a two-sided spring would push it out.
Scene tethered_pair(float speed, SpringPull pull) {
  Scene s;
  s.settings.gravity = glm::vec3(0.0f);
  s.particles.add({0.0f, 0.0f, 0.0f}, glm::vec3(0.0f), 0.05f, 0.0f, 0);  // the pin
  s.particles.add({0.5f, 0.0f, 0.0f}, {speed, 0.0f, 0.0f}, 0.05f, 0.2f, 0);
  Spring sp{1, 0, 1.0f, 1.0e4f, 4.0f};
  sp.pull = pull;
  s.springs.push_back(sp);
  return s;
}

TEST_P(Tethers, PullOnlyPastTheRestLengthAndFollowThePin) {
  // Toward the pin at 1 m/s for 0.25 s (to 0.25 m from it): no impulse.
  load(tethered_pair(-1.0f, SpringPull::tether));
  WorldState st = run(15);
  EXPECT_EQ(st.particles.vel_invmass[1].x, -1.0f) << "a tether pushed its particle";
  EXPECT_EQ(st.particles.vel_invmass[1].y, 0.0f);
  // The same start with a two-sided spring: compressed, it pushes the particle back.
  load(tethered_pair(-1.0f, SpringPull::both));
  st = run(15);
  EXPECT_GT(st.particles.vel_invmass[1].x, -0.9f) << "the two-sided spring should push";
  // Away from the pin at 1 m/s: free for 0.5 s, then held at its rest length 1 m.
  load(tethered_pair(1.0f, SpringPull::tether));
  st = run(20);  // at 0.83 m
  EXPECT_EQ(st.particles.vel_invmass[1].x, 1.0f);
  // Held: it never gets more than a few mm past 1 m (SPOOK's spring-damper at the tether's k and
  // d), and is stopped there.
  float farthest = 0.0f;
  for (int k = 0; k < 100; ++k) {
    st = run(1);
    farthest = std::max(farthest, st.particles.pos_radius[1].x);
  }
  const float x = st.particles.pos_radius[1].x;
  std::printf("%s/%s: farthest %.6f m from its pin; after 2 s %.6f m, at %.2e m/s\n",
              GetParam().backend.c_str(), scheme_name(GetParam().scheme), double(farthest),
              double(x), double(st.particles.vel_invmass[1].x));
  EXPECT_LT(farthest, 1.005f);
  EXPECT_GT(x, 0.98f);
  EXPECT_LT(std::abs(st.particles.vel_invmass[1].x), 1.0e-2f);

  // The pin moves away at 1 m/s (a kinematic path): the tether drags its particle along,
  // reading the pin's position as it is now.
  Scene s = tethered_pair(0.0f, SpringPull::tether);
  KinematicPath path;
  path.target = {true, 0};
  path.velocity = {-1.0f, 0.0f, 0.0f};
  s.kinematic.push_back(path);
  load(s);
  // Slack for the first 0.5 s; then the tether drags the particle along, never letting it fall
  // more than a few mm behind its rest length (after the jerk it may drift inside it, slack).
  float widest = 0.0f;
  for (int k = 0; k < 120; ++k) {
    st = run(1);
    widest = std::max(widest, st.particles.pos_radius[1].x - st.particles.pos_radius[0].x);
  }
  const float pin = st.particles.pos_radius[0].x;
  const float dragged = st.particles.pos_radius[1].x;
  std::printf("%s/%s: pin at %.4f m, particle at %.4f m (%.4f m/s); widest gap %.6f m\n",
              GetParam().backend.c_str(), scheme_name(GetParam().scheme), double(pin),
              double(dragged), double(st.particles.vel_invmass[1].x), double(widest));
  EXPECT_NEAR(pin, -2.0f, 1.0e-4f);
  EXPECT_LT(widest, 1.005f);
  EXPECT_LT(dragged, -1.0f) << "the particle was not dragged";
  EXPECT_NEAR(st.particles.vel_invmass[1].x, -1.0f, 0.05f);
}

// The physics, not the backend: CPU, sequential and coloured (Jacobi does not hold these springs
// at this budget: tests/test_cloth.cpp).
INSTANTIATE_TEST_SUITE_P(World, TetheredCloth,
                         ::testing::Values(Case{"cpu", SolverScheme::sequential},
                                           Case{"cpu", SolverScheme::colored}),
                         case_name);

VKPHYS_ON_ALL_CASES(Tethers);

// GPU against CPU: the 12 x 12 hanging cloth, tethered (geodesic), over 40 steps (its tethers
// taut from the first), held as the untethered cloth is (tests/test_cloth.cpp): positions
// within 1 mm and velocities within 1 cm/s at every step.
TEST(TethersGpuVsCpu, HangingClothOver40Steps) {
  VKPHYS_GPU_TEST_CONTEXT(ctx);
  Scene s;
  s.settings.gravity = {0.0f, -10.0f, 0.0f};
  at_cloth_budget(s);
  s.settings.solver.scheme = SolverScheme::colored;
  ClothSpec c = hanging_cloth();
  c.tethers = ClothTethers::geodesic;
  add_cloth(s, c);
  const CompareResult r = gpu_against_cpu(ctx, s, 40, 1e-3, 1e-2);
  EXPECT_FALSE(r.divergence.has_value()) << r.verdict;
  std::printf("tethered cloth 12x12, step 40: max |dx| %.3g m, max |dv| %.3g m/s\n",
              r.steps.back().max_pos, r.steps.back().max_vel);
}

// A 5 x 5 cloth of spacing 1 m with both diagonals, pinned at (0, 0) and (4, 0): every other
// vertex gets one tether, to the nearer pin (the middle column's tie to the first); vertex
// (1, 2) is sqrt(5) m from (0, 0) in a straight line and 1 + sqrt(2) m along the springs.
TEST(TetherPlacement, NearestPinInStraightLineOrAlongTheSprings) {
  for (ClothTethers mode : {ClothTethers::euclidean, ClothTethers::geodesic}) {
    Scene s;
    ClothSpec c;
    c.u = {4.0f, 0.0f, 0.0f};
    c.v = {0.0f, 0.0f, 4.0f};
    c.nu = c.nv = 5;
    c.k_bend = 0.0f;
    c.pins = {{0, 0}, {4, 0}};
    c.tethers = mode;
    add_cloth(s, c);
    std::vector<Spring> tethers;
    for (const Spring& sp : s.springs) {
      if (sp.tether()) tethers.push_back(sp);
    }
    ASSERT_EQ(tethers.size(), 23u);
    EXPECT_EQ(cloth_spring_count(c), s.springs.size());
    auto tether_of = [&](std::uint32_t i, std::uint32_t j) {
      for (const Spring& sp : tethers) {
        if (sp.a == j * 5 + i) return sp;
      }
      ADD_FAILURE() << "no tether at (" << i << ", " << j << ")";
      return Spring{};
    };
    EXPECT_EQ(tether_of(1, 3).b, 0u);
    EXPECT_EQ(tether_of(3, 3).b, 4u);
    EXPECT_EQ(tether_of(2, 4).b, 0u) << "a tie goes to the pin listed first";
    const float expected =
        mode == ClothTethers::euclidean ? std::sqrt(5.0f) : 1.0f + std::sqrt(2.0f);
    EXPECT_NEAR(tether_of(1, 2).rest, expected, 1e-5f);
    EXPECT_EQ(tether_of(1, 2).k, c.k_structural);
    EXPECT_EQ(tether_of(1, 2).model, SpringModel::compliant);
  }
}

// A mesh cloth's tethers: a unit square of two triangles pinned at vertex 0; geodesic runs along
// its edges (the diagonal 0-2 is one), so both kinds give the corners their straight distances.
TEST(TetherPlacement, MeshClothsTetherToo) {
  for (ClothTethers mode : {ClothTethers::euclidean, ClothTethers::geodesic}) {
    Scene s;
    MeshClothSpec c;
    c.mesh.vertices = {{0, 0, 0}, {1, 0, 0}, {1, 0, 1}, {0, 0, 1}};
    c.mesh.triangles = {{0, 2, 1}, {0, 3, 2}};
    c.pins = {0};
    c.tethers = mode;
    add_mesh_cloth(s, c);
    std::vector<float> rest;
    for (const Spring& sp : s.springs) {
      if (!sp.tether()) continue;
      EXPECT_EQ(sp.b, 0u);
      rest.push_back(sp.rest);
    }
    ASSERT_EQ(rest.size(), 3u);
    EXPECT_FLOAT_EQ(rest[0], 1.0f);
    EXPECT_FLOAT_EQ(rest[1], std::sqrt(2.0f));
    EXPECT_FLOAT_EQ(rest[2], 1.0f);
  }
  MeshClothSpec unpinned;
  unpinned.mesh.vertices = {{0, 0, 0}, {1, 0, 0}, {1, 0, 1}};
  unpinned.mesh.triangles = {{0, 2, 1}};
  unpinned.tethers = ClothTethers::geodesic;
  Scene s;
  EXPECT_THROW(add_mesh_cloth(s, unpinned), std::invalid_argument);
}

// A written scene lists its tethers as springs with "tether": true and reads back bit for bit.
TEST(TetherPlacement, ScenesWriteAndReadTheirTethers) {
  const nlohmann::json j = nlohmann::json::parse(R"({
    "format": "vkphys-scene", "version": 2, "name": "tethered",
    "cloths": [{"origin": [0, 2, 0], "u": [1, 0, 0], "v": [0, 0, 1], "resolution": [4, 3],
                "density": 0.2, "springs": {"structural": 2000, "shear": 200},
                "pins": [[0, 0]], "tethers": "geodesic"}]
  })");
  const Scene s = io::parse_scene(j.dump(), "<test>");
  std::size_t tethers = 0;
  for (const Spring& sp : s.springs) tethers += sp.tether() ? 1u : 0u;
  EXPECT_EQ(tethers, 11u);
  const Scene back = io::parse_scene(io::write_scene_json(s), "<written>");
  ASSERT_EQ(back.springs.size(), s.springs.size());
  EXPECT_EQ(0,
            std::memcmp(back.springs.data(), s.springs.data(), s.springs.size() * sizeof(Spring)));
}

TEST(TetherErrors, NameTheFieldAndTheValue) {
  nlohmann::json j = nlohmann::json::parse(R"({
    "format": "vkphys-scene", "version": 2, "name": "tethered",
    "cloths": [{"origin": [0, 2, 0], "u": [1, 0, 0], "v": [0, 0, 1], "resolution": [4, 3],
                "density": 0.2, "springs": {"structural": 2000, "shear": 200},
                "tethers": "straight"}]
  })");
  expect_error(error_of(j), {"cloths[0].tethers = \"straight\"", "none", "euclidean", "geodesic"});
  j["cloths"][0]["tethers"] = "euclidean";
  expect_error(error_of(j), {"cloths[0]", "tethers euclidean need at least one pin"});
  // A tether is a compliant row between two particles.
  Scene s = tethered_pair(0.0f, SpringPull::tether);
  s.springs[0].model = SpringModel::force;
  s.springs[0].d = 0.0f;
  EXPECT_EQ(load_error(s),
            "spring 0: a tether is a compliant row between two particles (model compliant, "
            "end_b particle)");
  s.springs[0].model = SpringModel::compliant;
  s.springs[0].pull = static_cast<SpringPull>(7);
  EXPECT_EQ(load_error(s), "spring 0: unknown pull 7");
  Scene t = tethered_pair(0.0f, SpringPull::both);
  EXPECT_THROW(add_tethers(t, 1, 2, ClothTethers::euclidean, 1.0f, 4.0f), std::invalid_argument);
  try {
    add_tethers(t, 1, 1, ClothTethers::euclidean, 1.0f, 4.0f);
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "tethers: none of the 1 particles is pinned (1/m = 0); a tether needs a pin to "
                 "hang from");
  }
  try {
    add_tethers(t, 0, 2, ClothTethers::euclidean, -1.0f, 4.0f);
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "tethers: k -1.000000 and d 4.000000 must be finite, k > 0 and d >= 0");
  }
}

}  // namespace
}  // namespace vkphys::test
