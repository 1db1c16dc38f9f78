// Surfaces over particles (Scene::triangles): a cloth is two triangles per grid cell wound about
// u x v that tile its parallelogram; a soft box's outside is its six faces, every triangle facing
// out; a scene file's "triangles" read back bit for bit, and bad ones are one-line errors naming
// the field, the value and the limit, in a file and through the C++ API; the meshes that the
// renderer and the VTK frames draw put the triangles over the particles' points.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "host/io/scene_file.h"
#include "host/io/surface_mesh.h"
#include "tests/rigid_scene_helpers.h"
#include "tests/scene_compare.h"
#include "tests/scene_errors.h"
#include "vkphys/cloth.h"
#include "vkphys/soft_body.h"

namespace vkphys::test {
namespace {

using nlohmann::json;

glm::dvec3 pos(const Scene& s, std::uint32_t i) {
  return glm::dvec3(s.particles.pos_radius[i]);
}

// Twice the triangle's area times its unit normal.
glm::dvec3 cross_of(const Scene& s, const Triangle& t) {
  return glm::cross(pos(s, t.b) - pos(s, t.a), pos(s, t.c) - pos(s, t.a));
}

// A 7 x 5 cloth on a slanted parallelogram after one other particle: 2 x 6 x 4 = 48 triangles,
// every one wound counter-clockwise about u x v (its cross product along u x v), each of area
// |u x v| / (2 x 6 x 4), together tiling the parallelogram; the first is the corner cell's lower
// half, over the cloth's own vertices (after the other particle).
TEST(ClothSurface, TwoTrianglesPerCellWoundAboutUxV) {
  Scene s;
  s.particles.add({5.0f, 5.0f, 5.0f}, glm::vec3(0.0f), 0.1f, 1.0f, 0);
  ClothSpec c;
  c.u = {1.0f, 0.2f, 0.0f};
  c.v = {0.3f, 0.0f, 1.2f};
  c.nu = 7;
  c.nv = 5;
  const std::uint32_t first = add_cloth(s, c);
  ASSERT_EQ(s.triangles.size(), 48u);
  const glm::dvec3 uxv = glm::cross(glm::dvec3(c.u), glm::dvec3(c.v));
  const double cell = glm::length(uxv) / 24.0;
  double total = 0.0;
  for (const Triangle& t : s.triangles) {
    const glm::dvec3 n = cross_of(s, t);
    EXPECT_NEAR(glm::dot(glm::normalize(n), glm::normalize(uxv)), 1.0, 1e-6);
    EXPECT_NEAR(0.5 * glm::length(n), 0.5 * cell, 1e-6 * cell);
    total += 0.5 * glm::length(n);
    for (std::uint32_t i : {t.a, t.b, t.c}) EXPECT_GE(i, first);
  }
  EXPECT_NEAR(total, glm::length(uxv), 1e-5);
  EXPECT_EQ(s.triangles[0].a, first);
  EXPECT_EQ(s.triangles[0].b, first + 1);
  EXPECT_EQ(s.triangles[0].c, first + 8);  // vertex (1, 1) = first + 1 x 7 + 1
}

// With alternating diagonals every cell is split along its one shear spring: each triangle's
// three edges are springs of the cloth (so the surface drawn is the one the springs hold), and
// the triangles still tile the parallelogram wound about u x v.
TEST(ClothSurface, AlternatingDiagonalsSplitCellsAlongTheirShearSpring) {
  Scene s;
  ClothSpec c;
  c.nu = 5;
  c.nv = 4;
  c.k_bend = 0.0f;
  c.diagonals = ClothDiagonals::alternating;
  add_cloth(s, c);
  ASSERT_EQ(s.triangles.size(), 2u * 4u * 3u);
  std::set<std::pair<std::uint32_t, std::uint32_t>> springs;
  for (const Spring& sp : s.springs) springs.insert(std::minmax(sp.a, sp.b));
  const glm::dvec3 uxv = glm::cross(glm::dvec3(c.u), glm::dvec3(c.v));
  double total = 0.0;
  for (const Triangle& t : s.triangles) {
    for (auto [a, b] : {std::pair{t.a, t.b}, {t.b, t.c}, {t.c, t.a}}) {
      EXPECT_TRUE(springs.count(std::minmax(a, b))) << "edge " << a << "-" << b;
    }
    const glm::dvec3 n = cross_of(s, t);
    EXPECT_GT(glm::dot(n, uxv), 0.0);
    total += 0.5 * glm::length(n);
  }
  EXPECT_NEAR(total, glm::length(uxv), 1e-5);
}

// A 3 x 4 x 2 soft box (size 1 x 1.5 x 0.5): its outside is 4 ((2 x 3) + (3 x 1) + (1 x 2)) = 44
// triangles with the box's surface area 2 (1 x 1.5 + 1.5 x 0.5 + 0.5 x 1) = 5.5 m^2, every one
// facing away from the centre (its cross product along the outward face normal).
TEST(ClothSurface, SoftBoxOutsideFacesOut) {
  Scene s;
  SoftBoxSpec b;
  b.origin = {0.0f, 1.0f, 0.0f};
  b.size = {1.0f, 1.5f, 0.5f};
  b.nx = 3;
  b.ny = 4;
  b.nz = 2;
  add_soft_box(s, b);
  ASSERT_EQ(s.triangles.size(), 44u);
  const glm::dvec3 centre = glm::dvec3(b.origin) + 0.5 * glm::dvec3(b.size);
  double area = 0.0;
  for (const Triangle& t : s.triangles) {
    const glm::dvec3 n = cross_of(s, t);
    area += 0.5 * glm::length(n);
    const glm::dvec3 mid = (pos(s, t.a) + pos(s, t.b) + pos(s, t.c)) / 3.0;
    // The outward normal of the face the triangle lies on: the axis along which its centroid
    // is farthest out, relative to the box's half size.
    const glm::dvec3 rel = (mid - centre) / (0.5 * glm::dvec3(b.size));
    int axis = 0;
    for (int k = 1; k < 3; ++k) {
      if (std::abs(rel[k]) > std::abs(rel[axis])) axis = k;
    }
    glm::dvec3 out(0.0);
    out[axis] = rel[axis] > 0.0 ? 1.0 : -1.0;
    EXPECT_NEAR(glm::dot(glm::normalize(n), out), 1.0, 1e-6)
        << "triangle " << t.a << " " << t.b << " " << t.c;
  }
  EXPECT_NEAR(area, 5.5, 1e-5);
}

json triangle_scene() {
  return json::parse(R"({
    "format": "vkphys-scene", "version": 2, "name": "surfaces",
    "planes": [{"normal": [0, 1, 0]}],
    "particles": [{"type": "particle", "position": [3, 0.5, 0], "radius": 0.1, "mass": 1},
                  {"type": "particle", "position": [4, 0.5, 0], "radius": 0.1, "mass": 1},
                  {"type": "particle", "position": [3, 0.5, 1], "radius": 0.1, "mass": 1},
                  {"type": "particle", "position": [5, 0.5, 0], "radius": 0.1, "mass": 1}],
    "cloths": [{"origin": [-0.5, 1, -0.5], "u": [1, 0, 0], "v": [0, 0, 1.2],
                "resolution": [4, 3], "density": 0.2,
                "springs": {"structural": 2000, "shear": 200}}],
    "soft_bodies": [{"origin": [2, 2, 2], "size": [0.5, 0.5, 0.5],
                     "resolution": [2, 2, 2], "density": 100,
                     "springs": {"edge": 1000}}],
    "triangles": [[0, 2, 1]]
  })");
}

// The cloth's 12 triangles, the soft box's 12, then the file's one; the written scene lists
// them all under "triangles" and reads back bit for bit.
TEST(ClothSurface, FileTrianglesReadBackBitForBit) {
  const Scene s = io::parse_scene(triangle_scene().dump(), "<test>");
  ASSERT_EQ(s.triangles.size(), 12u + 12u + 1u);
  EXPECT_EQ(s.triangles.back().a, 0u);
  EXPECT_EQ(s.triangles.back().b, 2u);
  EXPECT_EQ(s.triangles.back().c, 1u);
  EXPECT_EQ(s.triangles[0].a, 4u) << "the cloth's vertices follow the file's 4 particles";
  const std::string text = io::write_scene_json(s);
  EXPECT_EQ(json::parse(text)["triangles"].size(), 25u);
  const Scene back = io::parse_scene(text, "<written>");
  expect_same_scene(s, back);
}

TEST(ClothSurface, BadTrianglesNameFieldValueAndLimit) {
  auto with = [](const char* triangles) {
    json j = triangle_scene();
    j["triangles"] = json::parse(triangles);
    return error_of(j);
  };
  EXPECT_EQ(with("[[0, 2, 1], [0, 1, 24]]"),
            "<test>: triangles[1][2] = 24: particle index out of range: the scene has 24 "
            "particles (indices 0 to 23)");
  EXPECT_EQ(with("[[0, 2, 2]]"),
            "<test>: triangles[0] = [0,2,2]: a triangle joins three different particles");
  EXPECT_EQ(with("[[0, 1, 3]]"),
            "<test>: triangles[0] = [0,1,3]: the particles' starting positions are on one line "
            "(area 0 m^2; it must be > 0)");
  EXPECT_EQ(with("[[0, 1]]"),
            "<test>: triangles[0] = [0,1]: must be [a, b, c], three particle indices");
  EXPECT_EQ(with("[[0, -1, 2]]"),
            "<test>: triangles[0][1] = -1: particle index out of range: the scene has 24 "
            "particles (indices 0 to 23)");
  json v1 = json::parse(R"({"format": "vkphys-scene", "version": 1, "particles": [
      {"type": "particle", "position": [0, 1, 0], "radius": 0.1, "mass": 1}], "triangles": []})");
  EXPECT_EQ(error_of(v1), "<test>: triangles = []: needs \"version\": 2 (this file is version 1)");
}

// The C++ API checks a scene built in code as the file reader does (positions aside: they are
// the caller's).
TEST(ClothSurface, LoadRejectsBadTriangles) {
  Scene s;
  ClothSpec c;
  c.nu = 3;
  c.nv = 3;
  add_cloth(s, c);
  EXPECT_EQ(load_error(s), "no error");
  Scene far = s;
  far.triangles.push_back({0, 1, 9});
  EXPECT_EQ(load_error(far), "triangle 8: particle index 9 out of range (9 particles)");
  Scene twice = s;
  twice.triangles.push_back({4, 5, 4});
  EXPECT_EQ(load_error(twice),
            "triangle 8 is degenerate: it names particle 4 twice (a triangle joins three "
            "different particles)");
}

// The meshes of the pictures and the VTK frames: with points (VTK), the triangles are polygons
// over the particles' own points, which keep their vertices and velocities; with spheres (the
// pictures), a cloth vertex is one point of kind cloth instead of a sphere.
TEST(ClothSurface, MeshesPutTheTrianglesOverTheParticles) {
  Scene s;
  ClothSpec c;
  c.nu = 4;
  c.nv = 3;
  add_cloth(s, c);
  s.particles.add({5.0f, 0.0f, 0.0f}, glm::vec3(0.0f), 0.1f, 1.0f, 0);
  WorldState st = loaded_state(s);
  st.particles.vel_invmass[5] = glm::vec4(1.0f, 2.0f, 3.0f, st.particles.vel_invmass[5].w);
  const io::SurfaceMesh points = io::surface_mesh(s, st, false);
  ASSERT_EQ(points.polys.size(), 12u);
  EXPECT_EQ(points.polys[0], (std::vector<std::uint32_t>{0, 1, 5}));
  EXPECT_EQ(points.polys[1], (std::vector<std::uint32_t>{0, 5, 4}));
  EXPECT_EQ(points.verts.size(), 13u);
  EXPECT_EQ(points.velocity[5], glm::vec3(1.0f, 2.0f, 3.0f));
  const io::SurfaceMesh spheres = io::surface_mesh(s, st, true);
  Scene lone;
  lone.particles.add({5.0f, 0.0f, 0.0f}, glm::vec3(0.0f), 0.1f, 1.0f, 0);
  const io::SurfaceMesh sphere = io::surface_mesh(lone, loaded_state(lone), true);
  EXPECT_EQ(spheres.points.size(), 12u + sphere.points.size());
  EXPECT_EQ(spheres.polys.size(), 12u + sphere.polys.size());
  for (std::size_t k = 0; k < 12; ++k) EXPECT_EQ(spheres.kind[k], io::PointKind::cloth) << k;
  EXPECT_EQ(spheres.kind[12], io::PointKind::particle);
  // The free particle's sphere comes first (particles in order), then the triangles.
  EXPECT_EQ(spheres.polys[sphere.polys.size()], (std::vector<std::uint32_t>{0, 1, 5}));
}

}  // namespace
}  // namespace vkphys::test
