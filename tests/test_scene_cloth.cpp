// Scene files with cloths, springs and particle groups (version 2): a cloth in a file is exactly
// add_cloth's cloth, a written scene with springs and groups reads back bit for bit, and every
// bad value is one line naming its path.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "host/io/scene_file.h"
#include "tests/same_state.h"
#include "tests/scene_errors.h"
#include "vkphys/cloth.h"

namespace vkphys::test {
namespace {

using nlohmann::json;

json cloth_scene() {
  return json::parse(R"({
    "format": "vkphys-scene", "version": 2, "name": "cloth",
    "materials": [{"name": "default"}, {"name": "silk", "friction": 0.2}],
    "planes": [{"normal": [0, 1, 0]}],
    "particles": [{"type": "particle", "position": [3, 0.5, 0], "radius": 0.1, "mass": 1}],
    "cloths": [{"origin": [-0.5, 1, -0.5], "u": [1, 0, 0], "v": [0, 0, 1.2],
                "resolution": [7, 5], "density": 0.2, "material": "silk",
                "springs": {"structural": 2000, "shear": 200, "bend": 20, "d": 3},
                "pins": [[0, 0], [6, 0]]}],
    "springs": [{"particles": [0, 1], "k": 500}, {"particles": [2, 9], "k": 50, "d": 2, "rest": 0.3}]
  })");
}

bool same_particles(const Particles& a, const Particles& b) {
  return same_bits(a.pos_radius, b.pos_radius) && same_bits(a.vel_invmass, b.vel_invmass) &&
         a.material == b.material && a.group == b.group;
}

bool same_springs(const std::vector<Spring>& a, const std::vector<Spring>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(Spring)) == 0);
}

TEST(SceneCloth, FileClothIsTheBuildersCloth) {
  const Scene s = io::parse_scene(cloth_scene().dump(), "<test>");
  Scene built;
  built.particles.add({3.0f, 0.5f, 0.0f}, glm::vec3(0.0f), 0.1f, 1.0f, 0);
  ClothSpec c;
  c.origin = {-0.5f, 1.0f, -0.5f};
  c.u = {1.0f, 0.0f, 0.0f};
  c.v = {0.0f, 0.0f, 1.2f};
  c.nu = 7;
  c.nv = 5;
  c.density = 0.2f;
  c.material = 1;
  c.k_structural = 2000.0f;
  c.k_shear = 200.0f;
  c.k_bend = 20.0f;
  c.d = 3.0f;
  c.pins = {{0, 0}, {6, 0}};
  const std::uint32_t first = add_cloth(built, c);
  EXPECT_EQ(first, 1u);
  ASSERT_EQ(s.particles.size(), 36u);
  EXPECT_TRUE(same_particles(s.particles, built.particles));
  // The cloth's springs, then the file's two: the first at its current length, k 500, d 4.
  ASSERT_EQ(s.springs.size(), built.springs.size() + 2);
  const std::vector<Spring> cloth_springs(s.springs.begin(), s.springs.end() - 2);
  EXPECT_TRUE(same_springs(cloth_springs, built.springs));
  const Spring& a = s.springs[s.springs.size() - 2];
  const float d01 = static_cast<float>(
      glm::length(glm::dvec3(s.particles.pos_radius[1]) - glm::dvec3(s.particles.pos_radius[0])));
  EXPECT_EQ(a.rest, d01);
  EXPECT_EQ(a.k, 500.0f);
  EXPECT_EQ(a.d, 4.0f);
  const Spring& b = s.springs.back();
  EXPECT_EQ(b.a, 2u);
  EXPECT_EQ(b.b, 9u);
  EXPECT_EQ(b.rest, 0.3f);
  EXPECT_EQ(b.d, 2.0f);
  // Pinned vertices are static; the free particle and the cloth differ in group.
  EXPECT_EQ(s.particles.vel_invmass[1].w, 0.0f);
  EXPECT_EQ(s.particles.vel_invmass[7].w, 0.0f);
  EXPECT_GT(s.particles.vel_invmass[2].w, 0.0f);
  EXPECT_EQ(s.particles.group[0], 0u);
  EXPECT_EQ(s.particles.group[1], 1u);
}

// "diagonals": "alternating" gives each cell one shear spring, (i, j)-(i+1, j+1) where i + j is
// odd and (i+1, j)-(i, j+1) where it is even (Bullet's CreatePatch cloth), checked against a
// brute-force list of the cells' diagonals; cloth_spring_count counts what add_cloth makes.
TEST(SceneCloth, AlternatingDiagonalsGiveOneShearSpringPerCell) {
  json j = cloth_scene();
  j["cloths"][0]["springs"]["diagonals"] = "alternating";
  j.erase("springs");
  const Scene s = io::parse_scene(j.dump(), "<test>");
  const std::uint32_t nu = 7, nv = 5, first = 1;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> expected, shear;
  for (std::uint32_t cj = 0; cj + 1 < nv; ++cj) {
    for (std::uint32_t ci = 0; ci + 1 < nu; ++ci) {
      const std::uint32_t v00 = first + cj * nu + ci;
      if ((ci + cj) % 2 == 1) {
        expected.emplace_back(v00, v00 + nu + 1);
      } else {
        expected.emplace_back(v00 + 1, v00 + nu);
      }
    }
  }
  for (const Spring& sp : s.springs) {
    if (sp.k == 200.0f) shear.emplace_back(sp.a, sp.b);
  }
  EXPECT_EQ(shear, expected);
  ClothSpec c;
  c.nu = nu;
  c.nv = nv;
  c.k_bend = 20.0f;
  c.diagonals = ClothDiagonals::alternating;
  EXPECT_EQ(s.springs.size(), cloth_spring_count(c));
  EXPECT_EQ(s.springs.size(), 6u * 5u + 7u * 4u + 6u * 4u + 5u * 5u + 7u * 3u);
  c.diagonals = ClothDiagonals::both;
  EXPECT_EQ(cloth_spring_count(c), s.springs.size() + 24u);
  j["cloths"][0]["springs"]["diagonals"] = "one";
  expect_error(error_of(j), {"cloths[0].springs.diagonals = \"one\"", "both", "alternating"});
}

TEST(SceneCloth, WrittenSpringsAndGroupsReadBackBitForBit) {
  const Scene s = io::parse_scene(cloth_scene().dump(), "<test>");
  const Scene back = io::parse_scene(io::write_scene_json(s), "<written>");
  EXPECT_TRUE(same_particles(s.particles, back.particles));
  EXPECT_TRUE(same_springs(s.springs, back.springs));
  json j = json::parse(io::write_scene_json(s));
  EXPECT_EQ(j["particles"][1]["group"], 1);
  EXPECT_FALSE(j["particles"][0].contains("group"));
}

TEST(SceneCloth, GroupOnGeneratorsNeedsVersion2) {
  json j = cloth_scene();
  j["particles"][0]["group"] = 3;
  const Scene s = io::parse_scene(j.dump(), "<test>");
  EXPECT_EQ(s.particles.group[0], 3u);
  EXPECT_EQ(s.particles.group[1], 4u);  // a cloth takes a group of its own
  json v1 = json::parse(R"({"format": "vkphys-scene", "version": 1, "particles": [
      {"type": "particle", "position": [0, 1, 0], "radius": 0.1, "mass": 1, "group": 2}]})");
  EXPECT_EQ(error_of(v1),
            "<test>: particles[0].group = 2: needs \"version\": 2 (this file is version 1)");
  v1 = json::parse(R"({"format": "vkphys-scene", "version": 1, "particles": [
      {"type": "particle", "position": [0, 1, 0], "radius": 0.1, "mass": 1}], "cloths": []})");
  EXPECT_EQ(error_of(v1), "<test>: cloths = []: needs \"version\": 2 (this file is version 1)");
}

TEST(SceneCloth, BadValuesNameTheirPath) {
  auto with = [](auto edit) {
    json j = cloth_scene();
    edit(j);
    return error_of(j);
  };
  EXPECT_EQ(with([](json& j) {
              j["springs"][0]["particles"] = {0, 36};
            }),
            "<test>: springs[0].particles[1] = 36: particle index out of range: the scene has 36 "
            "particles (indices 0 to 35)");
  EXPECT_EQ(with([](json& j) {
              j["springs"][1]["particles"] = {4, 4};
            }),
            "<test>: springs[1].particles = [4,4]: a spring joins two different particles");
  EXPECT_EQ(with([](json& j) { j["springs"][0].erase("k"); }),
            "<test>: springs[0].k: required field is missing");
  EXPECT_EQ(with([](json& j) {
              j["cloths"][0]["resolution"] = {1, 5};
            }),
            "<test>: cloths[0].resolution[0] = 1: must be an integer in [2, 4096]");
  EXPECT_EQ(with([](json& j) {
              j["cloths"][0]["pins"] = {{7, 0}};
            }),
            "<test>: cloths[0].pins[0][0] = 7: must be an integer in [0, 6]");
  EXPECT_EQ(with([](json& j) { j["cloths"][0]["springs"]["shear"] = 0; }),
            "<test>: cloths[0].springs.shear = 0: must be > 0");
  expect_error(with([](json& j) { j["cloths"][0]["radius"] = 0.2; }),
               {"cloths[0]", "radius 0.2", "below half the vertex spacing"});
  expect_error(with([](json& j) {
                 j["cloths"][0]["v"] = {2, 0, 0};
               }),
               {"cloths[0]", "not parallel"});
  expect_error(with([](json& j) {
                 j["cloths"][0]["origin"] = {-0.5, -1, -0.5};
               }),
               {"cloths[0]", "vertex 0 at", "penetrates", "free side of every plane"});
  expect_error(with([](json& j) {
                 j["cloths"][0]["resolution"] = {1024, 1024};
               }),
               {"cloths[0].resolution", "springs bring the scene to", "kMaxJoints"});
  expect_error(with([](json& j) {
                 j["cloths"][0]["resolution"] = {4096, 4096};
               }),
               {"cloths[0].resolution", "kMaxParticles"});
}

// A pin is [i, j] or {"at": [i, j], "kinematic": PATH}: the vertex is moved on the path. The
// paths land in Scene::kinematic in vertex order (the pins may be listed in any order), after
// the file's particles, and a written scene reads them back bit for bit.
TEST(SceneCloth, PinsMoveOnTheirPaths) {
  json j = cloth_scene();
  j["cloths"][0]["pins"] = json::parse(R"([
      {"at": [6, 0], "kinematic": {"velocity": [0, 0.5, 0]}},
      [0, 0],
      {"at": [3, 0], "kinematic": {"amplitude": [0.1, 0, 0], "frequency": 1}}])");
  const Scene s = io::parse_scene(j.dump(), "<test>");
  ASSERT_EQ(s.kinematic.size(), 2u);
  EXPECT_TRUE(s.kinematic[0].target.particle);
  EXPECT_EQ(s.kinematic[0].target.index, 1u + 3u);  // after the file's one particle
  EXPECT_EQ(s.kinematic[0].amplitude, glm::vec3(0.1f, 0.0f, 0.0f));
  EXPECT_EQ(s.kinematic[0].frequency, 1.0f);
  EXPECT_EQ(s.kinematic[1].target.index, 1u + 6u);
  EXPECT_EQ(s.kinematic[1].velocity, glm::vec3(0.0f, 0.5f, 0.0f));
  for (std::uint32_t v : {1u, 4u, 7u}) EXPECT_EQ(s.particles.vel_invmass[v].w, 0.0f) << v;
  const Scene back = io::parse_scene(io::write_scene_json(s), "<written>");
  EXPECT_TRUE(same_particles(s.particles, back.particles));
  ASSERT_EQ(back.kinematic.size(), 2u);
  for (std::size_t k = 0; k < 2; ++k) {
    const KinematicPath &a = s.kinematic[k], &b = back.kinematic[k];
    EXPECT_TRUE(b.target.particle && a.target.index == b.target.index && a.velocity == b.velocity &&
                a.amplitude == b.amplitude && a.frequency == b.frequency && a.phase == b.phase)
        << k;
  }
}

TEST(SceneCloth, BadPinPathsNameTheirPath) {
  auto with_pins = [](const char* pins) {
    json j = cloth_scene();
    j["cloths"][0]["pins"] = json::parse(pins);
    return error_of(j);
  };
  EXPECT_EQ(with_pins(R"([{"kinematic": {}}])"),
            "<test>: cloths[0].pins[0].at: required field is missing");
  EXPECT_EQ(with_pins(R"([{"at": [0, 0], "kinematic": {}}, {"at": [0, 0], "kinematic": {}}])"),
            "<test>: cloths[0].pins[1] = {\"at\":[0,0],\"kinematic\":{}}: vertex [0, 0] already "
            "has a path: a vertex follows one");
  expect_error(with_pins(R"([{"at": [0, 0], "kinematic": {"angular_velocity": [0, 1, 0]}}])"),
               {"cloths[0].pins[0].kinematic.angular_velocity", "a particle does not turn"});
  expect_error(with_pins(R"([{"at": [0, 0], "path": {}}])"), {"cloths[0].pins[0]", "path"});
}

}  // namespace
}  // namespace vkphys::test
