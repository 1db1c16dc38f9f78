// Scene files: parsing into the expected Scene, the example scenes, every class of validation
// error (message names the field path and value), and the lattice generator.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "host/io/scene_file.h"
#include "tests/scene_compare.h"
#include "tests/scene_errors.h"
#include "tests/source_tree.h"

namespace {

using vkphys::test::error_of;
using vkphys::test::expect_error;
using vkphys::test::kSourceDir;
using vkphys::test::text_error;

using nlohmann::json;
using vkphys::Scene;
using vkphys::io::kMaxParticles;
using vkphys::io::load_scene;
using vkphys::io::parse_scene;
using vkphys::io::SceneError;

// A small valid scene that the error tests break one field at a time.
json base_scene() {
  return json::parse(R"({
    "format": "vkphys-scene",
    "version": 1,
    "name": "base",
    "materials": [{"name": "grain", "friction": 0.5}, {"name": "steel", "restitution": 0.5}],
    "box": {"min": [-1, 0, -1], "max": [1, 2, 1], "open_top": true},
    "particles": [
      {"type": "lattice", "origin": [-0.5, 0.5, -0.5], "count": [3, 2, 4], "spacing": 0.25,
       "radius": 0.1, "mass": 2.0, "jitter": 0.05, "seed": 42},
      {"type": "particle", "position": [0.5, 1.5, 0.5], "radius": 0.1, "mass": 1.0}
    ]
  })");
}

json lattice(std::vector<unsigned> count, double spacing, double radius, double jitter,
             std::uint64_t seed) {
  return json{{"type", "lattice"}, {"origin", {0.0, 1.0, 0.0}},
              {"count", count},    {"spacing", spacing},
              {"radius", radius},  {"mass", 1.0},
              {"jitter", jitter},  {"seed", seed}};
}

Scene lattice_scene(std::vector<unsigned> count, double spacing, double radius, double jitter,
                    std::uint64_t seed) {
  json scene{{"format", "vkphys-scene"}, {"version", 1}};
  scene["particles"] = json::array({lattice(count, spacing, radius, jitter, seed)});
  return parse_scene(scene.dump(), "<test>");
}

// ---- valid scenes -------------------------------------------------------------------------------

TEST(SceneFile, ParsesEveryField) {
  Scene s = parse_scene(R"({
    "format": "vkphys-scene", "version": 1, "name": "full",
    "description": "every field",
    "gravity": [0, -10, 1],
    "time_step": 0.01,
    "drag": 0.25,
    "contact_margin": 0.02,
    "cell_size": 0.5,
    "solver": {"iterations": 12, "relaxation": 0.75, "restitution_threshold": 0.3,
               "friction": false, "warm_start": 0.5, "spook_k": 5e6, "spook_d": 2},
    "materials": [
      {"name": "soft", "restitution": 0.25, "friction": 0.5},
      {"name": "hard", "restitution": 1, "friction": 0, "spook_k": 1e9, "spook_d": 0}
    ],
    "planes": [{"normal": [0, 2, 0], "offset": 1, "material": "hard"},
               {"normal": [3, 4, 0]}],
    "box": {"min": [-2, 0.5, -3], "max": [2, 4, 3], "material": "hard"},
    "particles": [
      {"type": "lattice", "origin": [0, 1, 0], "count": [2, 3, 1], "spacing": 0.3,
       "radius": 0.1, "density": 1000, "velocity": [1, 0, 0], "material": "hard"},
      {"type": "particle", "position": [1, 3, 1], "velocity": [0, -1, 0], "radius": 0.2,
       "mass": 4},
      {"type": "particle", "position": [-1, 3, -1], "radius": 0.2, "static": true}
    ]
  })",
                        "<test>");
  EXPECT_EQ(s.name, "full");
  EXPECT_EQ(s.settings.gravity, glm::vec3(0.0f, -10.0f, 1.0f));
  EXPECT_EQ(s.settings.time_step, 0.01f);
  EXPECT_EQ(s.settings.drag, 0.25f);
  EXPECT_EQ(s.settings.contact_margin, 0.02f);
  EXPECT_EQ(s.settings.cell_size, 0.5f);
  EXPECT_EQ(s.settings.solver.iterations, 12u);
  EXPECT_EQ(s.settings.solver.relaxation, 0.75f);
  EXPECT_EQ(s.settings.solver.restitution_threshold, 0.3f);
  EXPECT_FALSE(s.settings.solver.friction);
  EXPECT_EQ(s.settings.solver.warm_start, 0.5f);

  ASSERT_EQ(s.materials.size(), 2u);
  EXPECT_EQ(s.materials[0].name, "soft");
  EXPECT_EQ(s.materials[0].restitution, 0.25f);
  EXPECT_EQ(s.materials[0].friction, 0.5f);
  EXPECT_EQ(s.materials[0].spook_k, 5e6f);  // solver defaults
  EXPECT_EQ(s.materials[0].spook_d, 2.0f);
  EXPECT_EQ(s.materials[1].name, "hard");
  EXPECT_EQ(s.materials[1].restitution, 1.0f);
  EXPECT_EQ(s.materials[1].spook_k, 1e9f);
  EXPECT_EQ(s.materials[1].spook_d, 0.0f);

  // Two explicit planes (normalised, offset scaled), then the closed box's six.
  ASSERT_EQ(s.planes.size(), 8u);
  EXPECT_EQ(s.planes[0].normal, glm::vec3(0, 1, 0));
  EXPECT_EQ(s.planes[0].offset, 0.5f);
  EXPECT_EQ(s.planes[0].material, 1u);
  EXPECT_NEAR(s.planes[1].normal.x, 0.6f, 1e-7f);
  EXPECT_NEAR(s.planes[1].normal.y, 0.8f, 1e-7f);
  EXPECT_EQ(s.planes[1].offset, 0.0f);
  EXPECT_EQ(s.planes[1].material, 0u);
  const glm::vec3 normals[] = {{0, 1, 0}, {1, 0, 0}, {-1, 0, 0}, {0, 0, 1}, {0, 0, -1}, {0, -1, 0}};
  const float offsets[] = {0.5f, -2.0f, -2.0f, -3.0f, -3.0f, -4.0f};
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(s.planes[2 + i].normal, normals[i]) << i;
    EXPECT_EQ(s.planes[2 + i].offset, offsets[i]) << i;
    EXPECT_EQ(s.planes[2 + i].material, 1u) << i;
  }

  ASSERT_EQ(s.particles.size(), 8u);
  ASSERT_EQ(s.particles.vel_invmass.size(), 8u);
  ASSERT_EQ(s.particles.material.size(), 8u);
  // Lattice order: x fastest, then y, then z.
  // Positions are computed in double from the float-rounded spacing, mass from the density the
  // same way: rho 4/3 pi r^3.
  const double spacing = static_cast<double>(0.3f), r = static_cast<double>(0.1f);
  const auto mass = static_cast<float>(1000.0 * 4.0 / 3.0 * 3.14159265358979323846 * r * r * r);
  for (unsigned j = 0; j < 3; ++j) {
    for (unsigned i = 0; i < 2; ++i) {
      const std::size_t n = j * 2 + i;
      glm::vec4 expected(static_cast<float>(spacing * i), static_cast<float>(1.0 + spacing * j),
                         0.0f, 0.1f);
      EXPECT_EQ(s.particles.pos_radius[n], expected) << n;
      EXPECT_EQ(s.particles.vel_invmass[n], glm::vec4(1, 0, 0, 1.0f / mass)) << n;
      EXPECT_EQ(s.particles.material[n], 1u) << n;
    }
  }
  EXPECT_EQ(s.particles.pos_radius[6], glm::vec4(1, 3, 1, 0.2f));
  EXPECT_EQ(s.particles.vel_invmass[6], glm::vec4(0, -1, 0, 0.25f));
  EXPECT_EQ(s.particles.material[6], 0u);
  EXPECT_EQ(s.particles.vel_invmass[7].w, 0.0f);  // static

  std::string summary = vkphys::io::scene_summary(s);
  EXPECT_EQ(summary.find('\n'), std::string::npos);
  for (std::string_view part :
       {"full", "8 particles", "1 static", "8 planes", "2 materials", "0.01 s", "12 iterations"}) {
    EXPECT_NE(summary.find(part), std::string::npos) << part << " not in " << summary;
  }
}

TEST(SceneFile, DefaultsForOptionalFields) {
  Scene s = parse_scene(R"({"format": "vkphys-scene", "version": 1,
    "particles": [{"type": "particle", "position": [0, 0, 0], "radius": 1, "mass": 1}]})",
                        "<test>");
  const Scene defaults;
  EXPECT_EQ(s.name, "unnamed");
  EXPECT_EQ(s.settings.gravity, glm::vec3(0.0f, -9.81f, 0.0f));
  EXPECT_EQ(s.settings.time_step, 1.0f / 60.0f);
  EXPECT_EQ(s.settings.drag, 0.0f);
  EXPECT_EQ(s.settings.contact_margin, -1.0f);  // automatic
  EXPECT_EQ(s.settings.cell_size, 0.0f);        // automatic
  EXPECT_EQ(s.settings.solver.iterations, defaults.settings.solver.iterations);
  EXPECT_EQ(s.settings.solver.relaxation, defaults.settings.solver.relaxation);
  EXPECT_EQ(s.settings.solver.restitution_threshold,
            defaults.settings.solver.restitution_threshold);
  EXPECT_EQ(s.settings.solver.friction, defaults.settings.solver.friction);
  EXPECT_EQ(s.settings.solver.warm_start, defaults.settings.solver.warm_start);
  ASSERT_EQ(s.materials.size(), 1u);
  EXPECT_EQ(s.materials[0].name, "default");
  EXPECT_EQ(s.materials[0].restitution, 0.0f);
  EXPECT_EQ(s.materials[0].friction, 0.0f);
  EXPECT_EQ(s.materials[0].spook_k, vkphys::Material{}.spook_k);
  EXPECT_EQ(s.materials[0].spook_d, vkphys::Material{}.spook_d);
  EXPECT_TRUE(s.planes.empty());
  ASSERT_EQ(s.particles.size(), 1u);
}

TEST(SceneFile, DefaultMaterialTakesSolverSpook) {
  Scene s = parse_scene(R"({"format": "vkphys-scene", "version": 1,
    "solver": {"spook_k": 1234, "spook_d": 0.5},
    "particles": [{"type": "particle", "position": [0, 0, 0], "radius": 1, "mass": 1,
                   "material": "default"}]})",
                        "<test>");
  ASSERT_EQ(s.materials.size(), 1u);
  EXPECT_EQ(s.materials[0].spook_k, 1234.0f);
  EXPECT_EQ(s.materials[0].spook_d, 0.5f);
}

TEST(SceneFile, OpenBoxHasFivePlanes) {
  Scene s = parse_scene(base_scene().dump(), "<test>");
  ASSERT_EQ(s.planes.size(), 5u);
  for (const vkphys::Plane& p : s.planes) EXPECT_NE(p.normal, glm::vec3(0, -1, 0));
  EXPECT_EQ(s.particles.size(), 3u * 2u * 4u + 1u);
}

TEST(SceneFile, EveryExampleSceneLoads) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(kSourceDir / "scenes")) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 3u);
  for (const auto& file : files) {
    SCOPED_TRACE(file.string());
    Scene s;
    ASSERT_NO_THROW(s = load_scene(file));
    EXPECT_GT(s.particles.size() + s.bodies.size(), 0u);  // rigid scenes have bodies instead
    EXPECT_FALSE(s.name.empty());
    EXPECT_NE(vkphys::io::scene_summary(s).find(s.name), std::string::npos);
    // The writer's version-2 copy reads back to the same Scene, so every setting the file left
    // to its version's defaults is written out.
    vkphys::test::expect_same_scene(
        s, parse_scene(vkphys::io::write_scene_json(s), file.string() + " (written)"));
  }
}

TEST(SceneFile, DocumentationExampleLoads) {
  std::ifstream in(kSourceDir / "docs/scene-format.md");
  ASSERT_TRUE(in) << "docs/scene-format.md";
  std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string open = "```json\n";
  std::size_t begin = doc.find(open);
  ASSERT_NE(begin, std::string::npos);
  begin += open.size();
  std::size_t end = doc.find("```", begin);
  ASSERT_NE(end, std::string::npos);
  Scene s = parse_scene(std::string_view(doc).substr(begin, end - begin), "docs/scene-format.md");
  EXPECT_EQ(s.particles.size(), 20u * 6u * 20u);
}

TEST(SceneFile, ExampleScenesMatchTheirDescriptions) {
  Scene box = load_scene(kSourceDir / "scenes/particles_box.json");
  EXPECT_GE(box.particles.size(), 2000u);
  EXPECT_LE(box.particles.size(), 4000u);
  EXPECT_EQ(box.planes.size(), 5u);  // open top
  for (const glm::vec4& p : box.particles.pos_radius) EXPECT_EQ(p.w, 0.05f);
  EXPECT_EQ(box.materials[box.particles.material[0]].friction, 0.3f);
  EXPECT_EQ(box.settings.time_step, 1.0f / 60.0f);

  Scene pile = load_scene(kSourceDir / "scenes/pile_5k.json");
  std::size_t dynamic = 0;
  for (const glm::vec4& v : pile.particles.vel_invmass) dynamic += v.w > 0.0f ? 1u : 0u;
  EXPECT_GE(dynamic, 5000u);
  EXPECT_EQ(pile.planes.size(), 6u);  // closed box

  Scene bounce = load_scene(kSourceDir / "scenes/bounce.json");
  ASSERT_EQ(bounce.particles.size(), 1u);
  EXPECT_EQ(bounce.materials[bounce.particles.material[0]].restitution, 0.8f);
  ASSERT_EQ(bounce.planes.size(), 1u);
  const glm::vec4 p = bounce.particles.pos_radius[0];
  const float height = glm::dot(bounce.planes[0].normal, glm::vec3(p)) - bounce.planes[0].offset;
  EXPECT_NEAR(height - p.w, 1.0f, 1e-6f);  // lowest point 1 m above the floor
}

// ---- errors -------------------------------------------------------------------------------------

TEST(SceneFileErrors, UnknownKey) {
  json s = base_scene();
  s["solver"] = {{"iteratons", 8}};
  expect_error(error_of(s), {"solver.iteratons = 8", "unknown key", "iterations", "relaxation"});

  s = base_scene();
  s["particles"][1]["colour"] = "red";
  expect_error(error_of(s), {"particles[1].colour = \"red\"", "unknown key", "position"});

  s = base_scene();
  s["gravityy"] = {0, -9.81, 0};
  expect_error(error_of(s), {"gravityy", "unknown key", "time_step"});

  // A lattice key on a single particle is unknown there.
  s = base_scene();
  s["particles"][1]["spacing"] = 1.0;
  expect_error(error_of(s), {"particles[1].spacing = 1.0", "unknown key"});
}

TEST(SceneFileErrors, DuplicateKey) {
  std::string text = base_scene().dump();
  text.replace(text.find("\"radius\":0.1"), 12, "\"radius\":0.1,\"radius\":0.2");
  expect_error(text_error(text), {"particles[0].radius", "duplicate key"});
}

TEST(SceneFileErrors, WrongType) {
  json s = base_scene();
  s["time_step"] = "fast";
  expect_error(error_of(s), {"time_step = \"fast\"", "must be a number"});

  s = base_scene();
  s["solver"] = {{"iterations", 8.5}};
  expect_error(error_of(s), {"solver.iterations = 8.5", "must be an integer"});

  s = base_scene();
  s["solver"] = {{"friction", 1}};
  expect_error(error_of(s), {"solver.friction = 1", "true or false"});

  s = base_scene();
  s["gravity"] = {0, -9.81};
  expect_error(error_of(s), {"gravity = [0,-9.81]", "array of 3 numbers"});

  s = base_scene();
  s["gravity"] = {0, "down", 0};
  expect_error(error_of(s), {"gravity[1] = \"down\"", "must be a number"});

  s = base_scene();
  s["particles"] = {{"type", "particle"}};
  expect_error(error_of(s), {"particles = {", "must be an array"});

  expect_error(text_error("[1, 2, 3]"), {"(top level) = [1,2,3]", "must be a JSON object"});
}

TEST(SceneFileErrors, NegativeRadius) {
  json s = base_scene();
  s["particles"][0]["radius"] = -0.1;
  EXPECT_EQ(error_of(s), "<test>: particles[0].radius = -0.1: must be > 0");
}

TEST(SceneFileErrors, ZeroMass) {
  json s = base_scene();
  s["particles"][1]["mass"] = 0;
  expect_error(error_of(s), {"particles[1].mass = 0", "must be > 0"});

  s = base_scene();
  s["particles"][0]["mass"] = -2.0;
  expect_error(error_of(s), {"particles[0].mass = -2.0", "must be > 0"});

  s = base_scene();
  s["particles"][1].erase("mass");
  expect_error(error_of(s), {"particles[1]", "needs \"mass\""});

  s = base_scene();
  s["particles"][0]["density"] = 1000.0;
  expect_error(error_of(s), {"particles[0].density = 1000.0", "\"mass\""});
}

TEST(SceneFileErrors, InfiniteNumber) {
  // JSON cannot spell infinity, but a literal that overflows a double would become one.
  std::string text = base_scene().dump();
  text.insert(1, "\"time_step\": 1e999, ");
  expect_error(text_error(text), {"time_step = 1e999", "finite"});

  text = base_scene().dump();
  text.replace(text.find("\"spacing\":0.25"), 14, "\"spacing\":-1e400000");
  expect_error(text_error(text), {"particles[0].spacing = -1e400000", "finite"});

  // Finite as a double, infinite as a float.
  json s = base_scene();
  s["gravity"] = {0, -1e300, 0};
  expect_error(error_of(s), {"gravity[1] = -1e+300", "32-bit float"});
}

TEST(SceneFileErrors, TimeStepOutOfRange) {
  for (double h : {0.0, -0.01, 0.2}) {
    json s = base_scene();
    s["time_step"] = h;
    expect_error(error_of(s), {"time_step = " + json(h).dump(), "(0, 0.1]"});
  }
  json s = base_scene();
  s["time_step"] = 0.1;  // the bound itself is allowed
  EXPECT_NO_THROW(parse_scene(s.dump(), "<test>"));
}

TEST(SceneFileErrors, OtherRanges) {
  json s = base_scene();
  s["solver"] = {{"iterations", 0}};
  expect_error(error_of(s), {"solver.iterations = 0", "[1, 1000]"});
  s["solver"] = {{"iterations", 1001}};
  expect_error(error_of(s), {"solver.iterations = 1001", "[1, 1000]"});
  s["solver"] = {{"relaxation", 1.5}};
  expect_error(error_of(s), {"solver.relaxation = 1.5", "(0, 1]"});
  s["solver"] = {{"jacobi_contact_relaxation", 0.5}};
  expect_error(error_of(s), {"solver.jacobi_contact_relaxation = 0.5",
                             "needs \"version\": 2 (this file is version 1)"});
  s["version"] = 2;
  s["solver"] = {{"jacobi_contact_relaxation", 0}};
  expect_error(error_of(s), {"solver.jacobi_contact_relaxation = 0", "(0, 1]"});
  s["solver"] = {{"jacobi_contact_relaxation", 1.25}};
  expect_error(error_of(s), {"solver.jacobi_contact_relaxation = 1.25", "(0, 1]"});
  s["version"] = 1;
  s["solver"] = {{"warm_start", 1.5}};
  expect_error(error_of(s), {"solver.warm_start = 1.5", "[0, 1]"});
  s["solver"] = {{"spook_k", 0}};
  expect_error(error_of(s), {"solver.spook_k = 0", "> 0"});

  s = base_scene();
  s["drag"] = -1;
  expect_error(error_of(s), {"drag = -1", ">= 0"});

  s = base_scene();
  s["materials"][1]["restitution"] = 1.5;
  expect_error(error_of(s), {"materials[1].restitution = 1.5", "[0, 1]"});

  s = base_scene();
  s["particles"][0]["seed"] = -1;
  expect_error(error_of(s), {"particles[0].seed = -1", "integer >= 0"});
}

TEST(SceneFileErrors, UnknownMaterial) {
  json s = base_scene();
  s["particles"][0]["material"] = "stone";
  expect_error(error_of(s),
               {"particles[0].material = \"stone\"", "unknown material", "\"grain\", \"steel\""});

  s = base_scene();
  s["box"]["material"] = "glass";
  expect_error(error_of(s), {"box.material = \"glass\"", "unknown material"});

  s = base_scene();
  s["materials"][1]["name"] = "grain";
  expect_error(error_of(s), {"materials[1].name = \"grain\"", "duplicate material name"});
}

TEST(SceneFileErrors, VersionAndFormat) {
  // Versions 1 and 2 are read (tests/test_scene_file_v2.cpp); others name both.
  json s = base_scene();
  s["version"] = 3;
  EXPECT_EQ(error_of(s),
            "<test>: version = 3: unsupported version; this build reads version 1 or version 2");
  s["version"] = 0;
  expect_error(error_of(s), {"version = 0", "unsupported version", "version 1 or version 2"});
  s["version"] = 1.0;
  expect_error(error_of(s), {"version = 1.0", "unsupported version"});

  s = base_scene();
  s.erase("version");
  EXPECT_EQ(error_of(s),
            "<test>: version: required field is missing (this build reads version 1 or version 2)");

  s = base_scene();
  s["format"] = "other-scene";
  expect_error(error_of(s), {"format = \"other-scene\"", "\"vkphys-scene\""});

  // A newer version is reported as such, not as its unknown keys.
  s = base_scene();
  s["version"] = 7;
  s["future_field"] = true;
  expect_error(error_of(s), {"version = 7", "unsupported version"});
}

TEST(SceneFileErrors, TooManyParticlesFailsBeforeAllocating) {
  // 2^36 particles would need terabytes: a SceneError (not bad_alloc) proves nothing was allocated.
  json s = base_scene();
  s["particles"][0]["count"] = {4096, 4096, 4096};
  std::string message;
  try {
    parse_scene(s.dump(), "<test>");
    ADD_FAILURE() << "no error";
  } catch (const SceneError& e) {
    message = e.what();
  }
  expect_error(message, {"particles[0].count = [4096,4096,4096]", "68719476736",
                         std::to_string(kMaxParticles), "kMaxParticles", "GiB"});

  // The limit applies to the running total: 24 + 1 particles before, then exactly the limit.
  s = base_scene();
  static_assert(kMaxParticles == 2048u * 2048u);
  s["particles"].push_back(lattice({2048, 2048, 1}, 0.25, 0.1, 0.0, 0));
  expect_error(error_of(s), {"particles[2].count = [2048,2048,1]",
                             std::to_string(25u + kMaxParticles), "kMaxParticles"});

  s = base_scene();
  s["particles"][0]["count"] = {4294967295u, 4294967295u, 4294967295u};
  expect_error(error_of(s), {"particles[0].count", "kMaxParticles"});
}

TEST(SceneFileErrors, JitterOutOfRange) {
  for (double jitter : {0.5, -0.1, 0.75}) {
    json s = base_scene();
    s["particles"][0]["jitter"] = jitter;
    expect_error(error_of(s), {"particles[0].jitter = " + json(jitter).dump(), "[0, 0.5)"});
  }
}

TEST(SceneFileErrors, LatticeSpacingAndCount) {
  json s = base_scene();
  s["particles"][0]["spacing"] = 0.15;  // < 2 * radius = 0.2
  s["particles"][0]["jitter"] = 0.0;
  expect_error(error_of(s), {"particles[0].spacing = 0.15", "2 * radius", "overlap"});

  s = base_scene();
  s["particles"][0]["spacing"] = 0.21;  // >= 2 r, but jitter 0.1 could close the gap
  expect_error(error_of(s), {"particles[0].spacing = 0.21", "jitter", "overlap"});

  s = base_scene();
  s["particles"][0]["count"] = {3, 0, 4};
  expect_error(error_of(s), {"particles[0].count[1] = 0", "integer in [1,"});

  s = base_scene();
  s["particles"][0]["count"] = {3, 2.5, 4};
  expect_error(error_of(s), {"particles[0].count[1] = 2.5", "integer"});

  s = base_scene();
  s["particles"][0]["count"] = {3, 2};
  expect_error(error_of(s), {"particles[0].count = [3,2]", "array of 3 integers"});
}

TEST(SceneFileErrors, BadJsonSyntax) {
  std::string message = text_error("{\n  \"format\": \"vkphys-scene\",\n  \"version\": 1,,\n}");
  expect_error(message, {"invalid JSON at byte", "line 3", "syntax error"});

  expect_error(text_error(""), {"invalid JSON at byte"});
  expect_error(text_error("{\"format\": \"vkphys-scene\""), {"invalid JSON", "end of input"});
}

TEST(SceneFileErrors, MissingFile) {
  const std::filesystem::path path = kSourceDir / "scenes/does_not_exist.json";
  try {
    load_scene(path);
    ADD_FAILURE() << "no error";
  } catch (const SceneError& e) {
    std::string message = e.what();
    EXPECT_NE(message.find(path.string()), std::string::npos) << message;
    EXPECT_NE(message.find("cannot read scene file"), std::string::npos) << message;
  }
  EXPECT_THROW(load_scene(kSourceDir / "scenes"), SceneError);  // a directory
}

TEST(SceneFileErrors, ErrorNamesTheFile) {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() /
      ("vkphys_test_scene_file_bad_" + std::to_string(::getpid()) + ".json");
  json s = base_scene();
  s["particles"][0]["radius"] = -0.1;
  {
    std::ofstream out(path);
    out << s.dump(2);
  }
  try {
    load_scene(path);
    ADD_FAILURE() << "no error";
  } catch (const SceneError& e) {
    EXPECT_EQ(std::string(e.what()), path.string() + ": particles[0].radius = -0.1: must be > 0");
  }
  std::filesystem::remove(path);
}

TEST(SceneFileErrors, MissingRequiredFields) {
  json s = base_scene();
  s["particles"][0].erase("radius");
  expect_error(error_of(s), {"particles[0].radius", "required field is missing"});

  s = base_scene();
  s["particles"][0].erase("type");
  expect_error(error_of(s), {"particles[0].type", "required field is missing"});

  s = base_scene();
  s["particles"][0]["type"] = "grid";
  expect_error(error_of(s), {"particles[0].type = \"grid\"", "\"lattice\", \"particle\""});

  s = base_scene();
  s.erase("particles");
  expect_error(error_of(s), {"particles", "required field is missing"});

  s = base_scene();
  s["particles"] = json::array();
  expect_error(error_of(s), {"particles = []", "at least one"});
}

TEST(SceneFileErrors, PlanesAndBox) {
  json s = base_scene();
  s["planes"] = {{{"normal", {0, 0, 0}}}};
  expect_error(error_of(s), {"planes[0].normal = [0,0,0]", "non-zero"});

  s = base_scene();
  s["planes"] = json::array();
  for (int i = 0; i < 12; ++i) s["planes"].push_back({{"normal", {0, 1, 0}}, {"offset", -5}});
  expect_error(error_of(s), {"box = {", "5 planes", "17 in all", "at most 16"});

  s = base_scene();
  for (int i = 0; i < 17; ++i) s["planes"].push_back({{"normal", {0, 1, 0}}, {"offset", -5}});
  expect_error(error_of(s), {"planes = [", "17 planes", "at most 16"});

  s = base_scene();
  s["box"]["max"] = {1, 0, 1};
  expect_error(error_of(s), {"box.max = [1,0,1]", "box.min"});
}

TEST(SceneFileErrors, ParticlePenetratesPlane) {
  json s = base_scene();
  s["particles"][1]["position"] = {0.5, 0.05, 0.5};  // radius 0.1 sinks 5 cm into the floor
  expect_error(error_of(s),
               {"particles[1]: the particle at (0.5, 0.05, 0.5)", "the box floor", "by 0.05 m"});

  s = base_scene();
  s["particles"][0]["origin"] = {-0.95, 0.5, -0.5};  // lattice sticks through the x = -1 wall
  expect_error(error_of(s), {"particles[0]: lattice index (0, ", "the box wall x = -1"});
}

TEST(SceneFileErrors, GeneratorsOverlap) {
  json s = base_scene();
  s["particles"][1]["position"] = {-0.5, 0.55, -0.5};  // on top of the lattice's first particle
  expect_error(error_of(s), {"particles[0]: lattice index (0, 0, 0)",
                             "overlaps particles[1] at (-0.5, 0.55, -0.5)"});

  s = base_scene();
  s["particles"].push_back(
      {{"type", "particle"}, {"position", {0.5, 1.65, 0.5}}, {"radius", 0.1}, {"mass", 1}});
  expect_error(error_of(s), {"particles[1]: the particle", "overlaps particles[2]"});

  // Two lattices; the first one's last particle is the first to overlap the second's.
  s = base_scene();
  s["particles"][1] = s["particles"][0];
  s["particles"][1]["origin"] = {0.05, 0.75, -0.5};
  s["particles"][1]["jitter"] = 0.0;
  expect_error(error_of(s), {"particles[0]: lattice index (2, 1, 0)",
                             "overlaps particles[1] lattice index (0, 0, 0)"});

  // A single particle listed before the lattice it overlaps.
  s = base_scene();
  std::swap(s["particles"][0], s["particles"][1]);
  s["particles"][0]["position"] = {-0.25, 0.75, 0.0};
  expect_error(error_of(s), {"particles[0]: the particle at (-0.25, 0.75, 0)",
                             "overlaps particles[1] lattice index ("});

  // Interleaved lattices that do not touch are fine: the nearest sites are sqrt(3) * 0.1 apart.
  s = base_scene();
  s["particles"] = {lattice({6, 6, 6}, 0.2, 0.08, 0.0, 0), lattice({6, 6, 6}, 0.2, 0.08, 0.0, 0)};
  s["particles"][1]["origin"] = {0.1, 1.1, 0.1};
  s.erase("box");
  EXPECT_NO_THROW(parse_scene(s.dump(), "<test>"));
  s["particles"][1]["radius"] = 0.095;  // 0.08 + 0.095 > 0.1732
  expect_error(error_of(s), {"particles[0]: lattice index (0, 0, 0)",
                             "overlaps particles[1] lattice index (0, 0, 0)"});

  // Touching is fine.
  s = base_scene();
  s["particles"].push_back(
      {{"type", "particle"}, {"position", {0.5, 1.7, 0.5}}, {"radius", 0.1}, {"mass", 1}});
  EXPECT_NO_THROW(parse_scene(s.dump(), "<test>"));
}

TEST(SceneFileErrors, CellSizeTooSmall) {
  json s = base_scene();
  s["cell_size"] = 0.15;  // 2 * 0.1 + auto margin 0.005
  expect_error(error_of(s), {"cell_size = 0.15", "0.205"});
  s["cell_size"] = 0.21;
  EXPECT_NO_THROW(parse_scene(s.dump(), "<test>"));
  s["contact_margin"] = 0.1;
  expect_error(error_of(s), {"cell_size = 0.21", "0.3"});
}

// ---- the lattice generator ----------------------------------------------------------------------

TEST(SceneFileLattice, CountAndOrder) {
  Scene s = lattice_scene({5, 3, 2}, 0.5, 0.2, 0.0, 0);
  ASSERT_EQ(s.particles.size(), 30u);
  for (unsigned k = 0; k < 2; ++k) {
    for (unsigned j = 0; j < 3; ++j) {
      for (unsigned i = 0; i < 5; ++i) {
        std::size_t n = (k * 3 + j) * 5 + i;
        EXPECT_EQ(s.particles.pos_radius[n],
                  glm::vec4(static_cast<float>(0.5 * i), static_cast<float>(1.0 + 0.5 * j),
                            static_cast<float>(0.5 * k), 0.2f))
            << n;
      }
    }
  }
}

TEST(SceneFileLattice, JitterIsDeterministicPerSeed) {
  Scene a = lattice_scene({8, 8, 8}, 0.5, 0.1, 0.25, 12345);
  Scene b = lattice_scene({8, 8, 8}, 0.5, 0.1, 0.25, 12345);
  Scene c = lattice_scene({8, 8, 8}, 0.5, 0.1, 0.25, 12346);
  ASSERT_EQ(a.particles.size(), 512u);
  EXPECT_EQ(a.particles.pos_radius, b.particles.pos_radius);  // bit-identical
  std::size_t differ = 0;
  for (std::size_t n = 0; n < a.particles.size(); ++n) {
    differ += a.particles.pos_radius[n] != c.particles.pos_radius[n] ? 1u : 0u;
  }
  EXPECT_GT(differ, 500u);
  // The default seed is 0 and still jitters.
  Scene d = lattice_scene({2, 1, 1}, 0.5, 0.1, 0.25, 0);
  EXPECT_NE(d.particles.pos_radius[0], glm::vec4(0, 1, 0, 0.1f));
}

TEST(SceneFileLattice, JitterStaysWithinBounds) {
  const double spacing = static_cast<double>(0.4f), jitter = static_cast<double>(0.2f);
  Scene s = lattice_scene({10, 10, 10}, 0.4, 0.1, 0.2, 7);
  const double bound = jitter * spacing;
  double lo = 0.0, hi = 0.0;
  for (unsigned k = 0; k < 10; ++k) {
    for (unsigned j = 0; j < 10; ++j) {
      for (unsigned i = 0; i < 10; ++i) {
        glm::dvec3 x(s.particles.pos_radius[(k * 10 + j) * 10 + i]);
        glm::dvec3 grid = glm::dvec3(0.0, 1.0, 0.0) + spacing * glm::dvec3(i, j, k);
        for (int a = 0; a < 3; ++a) {
          double d = x[a] - grid[a];
          EXPECT_LE(std::abs(d), bound + 1e-6) << i << " " << j << " " << k;  // + float rounding
          lo = std::min(lo, d);
          hi = std::max(hi, d);
        }
      }
    }
  }
  // 3000 uniform draws cover most of the range on both sides.
  EXPECT_LT(lo, -0.9 * bound);
  EXPECT_GT(hi, 0.9 * bound);
}

}  // namespace
