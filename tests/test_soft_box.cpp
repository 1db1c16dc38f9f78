// The soft box generator (vkphys/soft_body.h, scene file "soft_bodies"): a jelly cube's lattice
// and springs, its file form, its errors, and the jelly dropped on the ground and on a box
// pyramid.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>

#include "host/io/scene_file.h"
#include "host/sim/backend.h"
#include "host/sim/mixed_scenes.h"
#include "tests/scene_errors.h"
#include "vkphys/soft_body.h"

namespace vkphys::test {
namespace {

using nlohmann::json;

// 3 x 3 x 3: 54 edges (3 x 18), 72 face diagonals (2 x 36 faces), 32 body diagonals (4 x 8
// cells), at lengths s, s sqrt 2 and s sqrt 3 for the spacing s; each particle a 27th of the mass.
TEST(SoftBox, LatticeHasEdgeFaceAndBodyDiagonalSprings) {
  Scene s;
  SoftBoxSpec b;
  b.size = {0.6f, 0.6f, 0.6f};
  b.nx = b.ny = b.nz = 3;
  b.density = 100.0f;
  b.k_edge = 30.0f;
  b.k_face = 20.0f;
  b.k_body = 10.0f;
  EXPECT_EQ(add_soft_box(s, b), 0u);
  ASSERT_EQ(s.particles.size(), 27u);
  const SoftBoxSprings n = soft_box_springs(3, 3, 3);
  EXPECT_EQ(n.edge, 54u);
  EXPECT_EQ(n.face, 72u);
  EXPECT_EQ(n.body, 32u);
  ASSERT_EQ(s.springs.size(), 54u + 72u + 32u);
  std::uint32_t count[3] = {0, 0, 0};
  for (const Spring& spring : s.springs) {
    const int kind = spring.k == 30.0f ? 0 : spring.k == 20.0f ? 1 : 2;
    ++count[kind];
    EXPECT_NEAR(spring.rest, 0.3f * std::sqrt(float(kind + 1)), 1e-6f) << kind;
    EXPECT_EQ(spring.model, SpringModel::compliant);
  }
  EXPECT_EQ(count[0], 54u);
  EXPECT_EQ(count[1], 72u);
  EXPECT_EQ(count[2], 32u);
  const float mass = 100.0f * 0.6f * 0.6f * 0.6f / 27.0f;
  for (const glm::vec4& v : s.particles.vel_invmass) EXPECT_FLOAT_EQ(v.w, 1.0f / mass);
  // No spring twice.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> ends;
  for (const Spring& spring : s.springs) {
    ends.emplace_back(std::min(spring.a, spring.b), std::max(spring.a, spring.b));
  }
  std::sort(ends.begin(), ends.end());
  EXPECT_EQ(std::adjacent_find(ends.begin(), ends.end()), ends.end());
}

json jelly_json() {
  return json::parse(R"({
    "format": "vkphys-scene", "version": 2, "name": "jelly",
    "planes": [{"normal": [0, 1, 0]}],
    "soft_bodies": [{"origin": [0, 0.2, 0], "size": [0.3, 0.3, 0.3], "resolution": [3, 4, 3],
                     "density": 300, "springs": {"edge": 500, "face": 100, "model": "force",
                     "c": 0.2}}]
  })");
}

TEST(SoftBox, FileSoftBodyIsTheGenerators) {
  const Scene s = io::parse_scene(jelly_json().dump(), "<test>");
  Scene built;
  SoftBoxSpec b;
  b.origin = {0.0f, 0.2f, 0.0f};
  b.size = glm::vec3(0.3f);
  b.nx = 3;
  b.ny = 4;
  b.nz = 3;
  b.density = 300.0f;
  b.k_edge = 500.0f;
  b.k_face = 100.0f;
  b.k_body = 0.0f;
  b.model = SpringModel::force;
  b.c = 0.2f;
  add_soft_box(built, b);
  ASSERT_EQ(s.particles.size(), built.particles.size());
  ASSERT_EQ(s.springs.size(), built.springs.size());
  const SoftBoxSprings n = soft_box_springs(3, 4, 3);
  EXPECT_EQ(s.springs.size(), n.edge + n.face);  // no body diagonals given
  for (std::size_t i = 0; i < s.springs.size(); ++i) {
    EXPECT_EQ(s.springs[i].a, built.springs[i].a);
    EXPECT_EQ(s.springs[i].b, built.springs[i].b);
    EXPECT_EQ(s.springs[i].rest, built.springs[i].rest);
    EXPECT_EQ(s.springs[i].model, SpringModel::force);
    EXPECT_EQ(s.springs[i].c, 0.2f);
  }
  for (std::size_t i = 0; i < s.particles.size(); ++i) {
    EXPECT_EQ(s.particles.pos_radius[i], built.particles.pos_radius[i]);
    EXPECT_EQ(s.particles.vel_invmass[i], built.particles.vel_invmass[i]);
    EXPECT_EQ(s.particles.group[i], 1u);
  }
}

TEST(SoftBox, BadValuesNameTheirPath) {
  auto with = [](auto edit) {
    json j = jelly_json();
    edit(j);
    return error_of(j);
  };
  expect_error(with([](json& j) {
                 j["soft_bodies"][0]["resolution"] = {3, 1, 3};
               }),
               {"soft_bodies[0].resolution[1] = 1"});
  expect_error(with([](json& j) {
                 j["soft_bodies"][0]["size"] = {0.3, 0, 0.3};
               }),
               {"soft_bodies[0].size = [0.3,0,0.3]", "every edge length must be > 0"});
  expect_error(with([](json& j) { j["soft_bodies"][0]["springs"]["d"] = 3; }),
               {"soft_bodies[0].springs.d = 3", "takes c"});
  expect_error(with([](json& j) { j["soft_bodies"][0]["springs"].erase("edge"); }),
               {"soft_bodies[0].springs.edge", "required"});
  expect_error(with([](json& j) {
                 j["soft_bodies"][0]["origin"] = {0, -0.1, 0};
               }),
               {"soft_bodies[0]", "penetrates", "a soft body must start on the free side"});
  expect_error(with([](json& j) { j["soft_bodies"][0]["radius"] = 0.1; }),
               {"soft_bodies[0]", "radius", "below half the particle spacing"});
}

// The shipped jelly cube lands and comes to rest holding its shape: no particle in the ground
// by more than 3 mm (the contact-stiffness cap, 30 Hz on a 0.256 kg particle, is soft for a
// bottom particle that carries its column's 12.6 N: 1.4 mm at rest, 2.4 mm measured at the
// landing), its height within 10% of 0.4 m (measured 0.381), its kinetic energy gone (CPU).
TEST(SoftBox, JellyCubeLandsAndRestsHoldingItsShape) {
  const Scene s =
      io::load_scene(std::filesystem::path(VKPHYS_SOURCE_DIR) / "scenes/jelly_cube.json");
  std::unique_ptr<Backend> cpu = make_cpu_backend();
  cpu->load(s);
  float deepest = 0.0f;
  WorldState st;
  for (int k = 0; k < 240; ++k) {
    cpu->step();
    cpu->read(st);
    for (const glm::vec4& p : st.particles.pos_radius) deepest = std::max(deepest, p.w - p.y);
  }
  float lowest = 1e9f, highest = -1e9f;
  double kinetic = 0.0;
  for (std::size_t i = 0; i < st.particles.size(); ++i) {
    lowest = std::min(lowest, st.particles.pos_radius[i].y);
    highest = std::max(highest, st.particles.pos_radius[i].y);
    const glm::dvec3 v(st.particles.vel_invmass[i]);
    kinetic += 0.5 / double(st.particles.vel_invmass[i].w) * glm::dot(v, v);
  }
  std::printf("jelly after 4 s: height %.4f m (0.4 built), deepest %.4f m, kinetic %.3g J\n",
              double(highest - lowest), double(deepest), kinetic);
  EXPECT_LT(deepest, 3e-3f);
  EXPECT_NEAR(highest - lowest, 0.4f, 0.04f);
  EXPECT_LT(kinetic, 1e-4);
}

// scenes/jelly_pyramid.json: the jelly (2.16 kg, twice the top box) lands on a pyramid of 10
// one-metre boxes and rests on its top box; the pyramid stands (every box within 1 cm of where
// it was built and at rest), no jelly particle sinks into the top box by more than 5 mm over the
// run (measured: 2.9 mm, at the landing), and the jelly keeps its 0.6 m height within 10% and
// its centre over the top box.
TEST(SoftBox, JellyCubeRestsOnABoxPyramid) {
  const Scene s =
      io::load_scene(std::filesystem::path(VKPHYS_SOURCE_DIR) / "scenes/jelly_pyramid.json");
  ASSERT_EQ(s.bodies.size(), 10u);
  std::unique_ptr<Backend> cpu = make_cpu_backend();
  cpu->load(s);
  WorldState st;
  float deepest = 0.0f;
  for (int k = 0; k < 300; ++k) {
    cpu->step();
    cpu->read(st);
    const float top = st.pos[9].y + 0.5f;  // the top box's upper face
    for (const glm::vec4& p : st.particles.pos_radius)
      deepest = std::max(deepest, top - (p.y - p.w));
  }
  float moved = 0.0f, box_speed = 0.0f;
  for (std::size_t b = 0; b < s.bodies.size(); ++b) {
    moved = std::max(moved, glm::length(glm::vec3(st.pos[b]) - s.bodies[b].position));
    box_speed = std::max(box_speed, glm::length(glm::vec3(st.vel[b])));
  }
  float lowest = 1e9f, highest = -1e9f;
  glm::dvec3 centre(0.0);
  double kinetic = 0.0;
  for (std::size_t i = 0; i < st.particles.size(); ++i) {
    lowest = std::min(lowest, st.particles.pos_radius[i].y);
    highest = std::max(highest, st.particles.pos_radius[i].y);
    centre += glm::dvec3(st.particles.pos_radius[i]) / double(st.particles.size());
    const glm::dvec3 v(st.particles.vel_invmass[i]);
    kinetic += 0.5 / double(st.particles.vel_invmass[i].w) * glm::dot(v, v);
  }
  std::printf(
      "jelly on the pyramid after 5 s: boxes moved at most %.2e m (speed %.2e m/s); jelly height "
      "%.4f m (0.6 built), deepest into the top box %.4f m, centre (%.4f, %.4f, %.4f), kinetic "
      "%.3g J\n",
      double(moved), double(box_speed), double(highest - lowest), double(deepest), centre.x,
      centre.y, centre.z, kinetic);
  EXPECT_LT(moved, 0.01f);
  EXPECT_LT(box_speed, 1e-2f);
  EXPECT_LT(deepest, 5e-3f);
  EXPECT_NEAR(highest - lowest, 0.6f, 0.06f);
  EXPECT_LT(std::hypot(centre.x - double(st.pos[9].x), centre.z), 0.2);
  EXPECT_GT(lowest, st.pos[9].y + 0.5f - 3e-3f);
  EXPECT_LT(kinetic, 1e-3);
}

}  // namespace
}  // namespace vkphys::test
