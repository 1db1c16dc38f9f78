// Scene file version 2: mixed scenes, per-body force and torque, "forces", kinematic paths on
// bodies and particles, "impulses"; their round trips through write_scene_json, their errors
// (each with its exact message), and version 1 staying as it was.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "host/io/scene_file.h"
#include "host/sim/rigid_scenes.h"
#include "tests/scene_compare.h"
#include "tests/scene_errors.h"
#include "tests/scene_v2_samples.h"
#include "tests/source_tree.h"

namespace {

using vkphys::test::error_of;
using vkphys::test::expect_same_scene;
using vkphys::test::kSourceDir;
using vkphys::test::mixed;
using vkphys::test::v1_particles;

using nlohmann::json;
using vkphys::CentralLaw;
using vkphys::KinematicPath;
using vkphys::Scene;
using vkphys::ScheduledImpulse;
using vkphys::Shape;
using vkphys::SolverScheme;
using vkphys::io::parse_scene;
using vkphys::io::write_scene_json;

Scene parse(const json& j) {
  return parse_scene(j.dump(), "<test>");
}

// ---- reading ------------------------------------------------------------------------------------

TEST(SceneFileV2, ReadsEveryNewField) {
  Scene s = parse(mixed());
  EXPECT_EQ(s.settings.drag, 0.1f);
  EXPECT_EQ(s.settings.quadratic_drag.density, 1.2f);
  EXPECT_EQ(s.settings.quadratic_drag.coefficient, 0.5f);
  EXPECT_EQ(s.settings.central.center, glm::vec3(1, 2, 3));
  EXPECT_EQ(s.settings.central.strength, 4.0f);
  EXPECT_EQ(s.settings.central.law, CentralLaw::linear);

  ASSERT_EQ(s.bodies.size(), 3u);  // 2 listed + the world
  EXPECT_EQ(s.bodies[0].force, glm::vec3(1, 0, -2));
  EXPECT_EQ(s.bodies[0].torque, glm::vec3(0, 0, 3));
  EXPECT_EQ(s.bodies[1].force, glm::vec3(0));
  EXPECT_EQ(s.bodies[1].torque, glm::vec3(0));
  EXPECT_EQ(s.bodies[1].mass, 1.0f);  // kept, though ignored while driven
  EXPECT_EQ(s.bodies[1].material, 1u);
  EXPECT_EQ(s.bodies[2].shape, Shape::none);
  ASSERT_EQ(s.joints.size(), 1u);
  EXPECT_EQ(s.joints[0].body_a, 2u);

  ASSERT_EQ(s.particles.size(), 9u);
  EXPECT_EQ(s.particles.pos_radius[8], glm::vec4(5, 2, 5, 0.1f));

  // Bodies' paths first, then particles', each with its index.
  ASSERT_EQ(s.kinematic.size(), 2u);
  const KinematicPath& kb = s.kinematic[0];
  EXPECT_FALSE(kb.target.particle);
  EXPECT_EQ(kb.target.index, 1u);
  EXPECT_EQ(kb.velocity, glm::vec3(1, 0, 0));
  EXPECT_EQ(kb.amplitude, glm::vec3(0, 0.5f, 0));
  EXPECT_EQ(kb.frequency, 2.0f);
  EXPECT_EQ(kb.phase, 0.5f);
  EXPECT_EQ(kb.angular_velocity, glm::vec3(0, 1, 0));
  const KinematicPath& kp = s.kinematic[1];
  EXPECT_TRUE(kp.target.particle);
  EXPECT_EQ(kp.target.index, 8u);
  EXPECT_EQ(kp.velocity, glm::vec3(0, -1, 0));
  EXPECT_EQ(kp.amplitude, glm::vec3(0));
  EXPECT_EQ(kp.frequency, 0.0f);
  EXPECT_EQ(kp.phase, 0.0f);
  EXPECT_EQ(kp.angular_velocity, glm::vec3(0));

  // File order; the point defaults to the target's initial position.
  ASSERT_EQ(s.impulses.size(), 3u);
  const ScheduledImpulse &i0 = s.impulses[0], &i1 = s.impulses[1], &i2 = s.impulses[2];
  EXPECT_FALSE(i0.target.particle);
  EXPECT_EQ(i0.target.index, 0u);
  EXPECT_EQ(i0.time, 0.5f);
  EXPECT_EQ(i0.impulse, glm::vec3(0, 1, 0));
  EXPECT_EQ(i0.point, glm::vec3(0, 1, 0));
  EXPECT_TRUE(i1.target.particle);
  EXPECT_EQ(i1.target.index, 8u);
  EXPECT_EQ(i1.time, 0.25f);
  EXPECT_EQ(i1.impulse, glm::vec3(1, 0, 0));
  EXPECT_EQ(i1.point, glm::vec3(5, 2, 5));
  EXPECT_FALSE(i2.target.particle);
  EXPECT_EQ(i2.target.index, 1u);
  EXPECT_EQ(i2.time, 1.0f);
  EXPECT_EQ(i2.point, glm::vec3(3, 1.25f, 0));

  const std::string summary = vkphys::io::scene_summary(s);
  for (const char* part : {"mixed: 3 bodies (1 static), 1 joints, 9 particles (0 static)"}) {
    EXPECT_NE(summary.find(part), std::string::npos) << summary;
  }
}

TEST(SceneFileV2, Defaults) {
  json j = mixed();
  j["forces"] = {{"quadratic_drag", {{"density", 1.2}}},
                 {"central", {{"center", {0, 0, 0}}, {"strength", 1}}}};
  j["bodies"][1]["kinematic"] = json::object();
  j["impulses"] = json::array();
  Scene s = parse(j);
  EXPECT_EQ(s.settings.quadratic_drag.coefficient, 0.47f);
  EXPECT_EQ(s.settings.central.law, CentralLaw::inverse_square);
  ASSERT_EQ(s.kinematic.size(), 2u);
  VKPHYS_EXPECT_SAME(s.kinematic[0].velocity, glm::vec3(0));
  VKPHYS_EXPECT_SAME(s.kinematic[0].amplitude, glm::vec3(0));
  VKPHYS_EXPECT_SAME(s.kinematic[0].frequency, 0.0f);
  VKPHYS_EXPECT_SAME(s.kinematic[0].phase, 0.0f);
  VKPHYS_EXPECT_SAME(s.kinematic[0].angular_velocity, glm::vec3(0));
  EXPECT_TRUE(s.impulses.empty());

  // Left out, the forces are off.
  j.erase("forces");
  s = parse(j);
  const vkphys::Settings defaults;
  VKPHYS_EXPECT_SAME(s.settings.quadratic_drag.density, defaults.quadratic_drag.density);
  VKPHYS_EXPECT_SAME(s.settings.central.strength, defaults.central.strength);
  EXPECT_FALSE(s.settings.wind.has_value());

  // A wind given only its velocity takes air and the flat plate's coefficients.
  j["forces"] = {{"wind", {{"velocity", {6, 0, 1.5}}}}};
  s = parse(j);
  ASSERT_TRUE(s.settings.wind.has_value());
  EXPECT_EQ(s.settings.wind->velocity, glm::vec3(6.0f, 0.0f, 1.5f));
  EXPECT_EQ(s.settings.wind->density, 1.2f);
  EXPECT_EQ(s.settings.wind->drag, 1.17f);
  EXPECT_EQ(s.settings.wind->lift, 1.17f);
}

TEST(SceneFileV2, ReadsTheCamera) {
  json j = mixed();
  EXPECT_FALSE(parse(j).camera.has_value());  // left out: the pictures frame the scene
  j["camera"] = {{"position", {3, 2, 6}}, {"target", {0, 0.5, 0}}};
  Scene s = parse(j);
  ASSERT_TRUE(s.camera.has_value());
  VKPHYS_EXPECT_SAME(s.camera->position, glm::vec3(3, 2, 6));
  VKPHYS_EXPECT_SAME(s.camera->target, glm::vec3(0, 0.5f, 0));
  VKPHYS_EXPECT_SAME(s.camera->up, glm::vec3(0, 1, 0));
  VKPHYS_EXPECT_SAME(s.camera->fov_y_deg, 40.0f);
  // An up that is not unit nor perpendicular to the view is kept as written: only its part
  // perpendicular to the view direction counts.
  j["camera"]["up"] = {2, 2, 0};
  j["camera"]["fov_y_deg"] = 179;
  s = parse(j);
  VKPHYS_EXPECT_SAME(s.camera->up, glm::vec3(2, 2, 0));
  VKPHYS_EXPECT_SAME(s.camera->fov_y_deg, 179.0f);
}

TEST(SceneFileV2, BodiesOnlyAndParticlesOnly) {
  json j = mixed();
  j.erase("particles");
  j["impulses"] = json::array({j["impulses"][0]});  // not {x}: clang copies x
  Scene s = parse(j);
  EXPECT_EQ(s.particles.size(), 0u);
  EXPECT_EQ(s.kinematic.size(), 1u);

  j = mixed();
  j.erase("bodies");
  j.erase("joints");
  j["impulses"] = json::array({j["impulses"][1]});  // not {x}: clang copies x
  s = parse(j);
  EXPECT_TRUE(s.bodies.empty());
  ASSERT_EQ(s.kinematic.size(), 1u);
  EXPECT_EQ(s.kinematic[0].target.index, 8u);
}

TEST(SceneFileV2, ParticleScenesTakeTheSceneDefaults) {
  // Version 1 keeps the particle pipeline's solver defaults; version 2 has one set of defaults.
  json j = v1_particles();
  Scene v1 = parse(j);
  EXPECT_EQ(v1.settings.solver.scheme, SolverScheme::jacobi);
  EXPECT_EQ(v1.settings.solver.contact_hertz, 0.0f);
  j["version"] = 2;
  Scene v2 = parse(j);
  const vkphys::SolverSettings defaults;
  EXPECT_EQ(v2.settings.solver.scheme, defaults.scheme);
  EXPECT_EQ(v2.settings.solver.contact_hertz, defaults.contact_hertz);
}

TEST(SceneFileV2, CellSizeCountsTheBodiesMargin) {
  // With a shaped body in the scene the automatic margin is 2 cm (as the world setup has it).
  json j = mixed();
  j["cell_size"] = 0.21;
  EXPECT_EQ(error_of(j),
            "<test>: cell_size = 0.21: must be >= 2 * largest radius + contact margin = 0.22 m "
            "(the broadphase searches adjacent cells only)");
  j["cell_size"] = 0.22;
  EXPECT_NO_THROW(parse(j));
}

// ---- round trips --------------------------------------------------------------------------------

// A mixed scene with every version-2 field, odd values included (thirds, -0, tiny numbers).
Scene every_field() {
  Scene s = vkphys::chain_scene(3);  // 3 capsules, ball joints, the world body last
  s.name = "every field";
  s.settings.drag = 0.125f;
  s.settings.quadratic_drag = {1.2f, 1.0f / 3.0f};
  s.settings.central = {398600.4f, {1.0f / 3.0f, -0.0f, 1e-7f}, CentralLaw::linear};
  s.settings.wind = vkphys::Wind{{6.0f, -0.0f, 1.0f / 3.0f}, 1.225f, 1.0f / 7.0f, 0.0f};
  s.settings.solver.substeps = 4;
  s.settings.solver.relax_iterations = 1;
  s.settings.solver.impact_passes = 3;
  s.settings.solver.particle_reorder = 7;
  s.bodies[0].force = {1.0f / 7.0f, -9.81f, 0.0f};
  s.bodies[1].torque = {0.0f, -0.0f, 2.5e-3f};
  s.bodies[2].force = {0.0f, 9.999999e9f, 0.0f};  // large, under the 1e10 N limit
  s.bodies[2].torque = {-1.0f, 0.0f, 0.0f};
  s.particles.add({5.0f, 1.0f, 5.0f}, {0.0f, -1.0f, 0.0f}, 0.1f, 0.5f, 0);
  s.particles.add({5.5f, 1.0f, 5.0f}, {}, 0.2f, 0.0f, 0);  // static
  s.particles.add({6.0f, 2.0f / 3.0f, 5.0f}, {1.0f, 0.0f, 0.0f}, 0.15f, 3.0f, 0);
  KinematicPath a;
  a.target = {false, 0};
  a.velocity = {0.1f, 0.0f, 0.0f};
  a.amplitude = {0.0f, 0.3f, 0.0f};
  a.frequency = 0.7f;
  a.phase = -1.0f / 3.0f;
  a.angular_velocity = {0.0f, 0.0f, 6.283185f};
  KinematicPath b;
  b.target = {false, 2};
  b.angular_velocity = {1.0f, 0.0f, 0.0f};
  KinematicPath c;
  c.target = {true, 0};
  c.amplitude = {0.0f, 0.0f, 0.05f};
  c.frequency = 3.0f;
  KinematicPath d;
  d.target = {true, 2};  // held where it is
  s.kinematic = {a, b, c, d};
  ScheduledImpulse i0;
  i0.target = {false, 1};
  i0.time = 1.0f / 3.0f;
  i0.impulse = {0.0f, 5.0f, 0.0f};
  i0.point = s.bodies[1].position;  // the default: left out
  ScheduledImpulse i1;
  i1.target = {true, 1};
  i1.time = 0.0f;
  i1.impulse = {-1.0f, 0.0f, 1e-20f};
  i1.point = glm::vec3(s.particles.pos_radius[1]);
  ScheduledImpulse i2;
  i2.target = {false, 0};
  i2.time = 2.5f;
  i2.impulse = {0.0f, 0.0f, 3.0f};
  i2.point = s.bodies[0].position + glm::vec3(0.1f, 0.2f, -0.3f);
  s.impulses = {i0, i1, i2, i0};
  s.camera = vkphys::SceneCamera{
      {4.0f, 2.0f / 3.0f, -0.0f}, {0.0f, 0.5f, 1e-7f}, {0.1f, 1.0f, 0.0f}, 33.3f};
  return s;
}

TEST(SceneFileV2, RoundTripsEveryField) {
  const Scene s = every_field();
  const std::string text = write_scene_json(s);
  EXPECT_NE(text.find("\"version\": 2"), std::string::npos);
  EXPECT_NE(text.find("\"world\""), std::string::npos);  // written as references
  Scene back;
  ASSERT_NO_THROW(back = parse_scene(text, "<round trip>")) << text;
  expect_same_scene(s, back);
  EXPECT_EQ(write_scene_json(back), text);
}

TEST(SceneFileV2, RoundTripsTheWorldBodyWhenSomethingNamesIt) {
  // A path or an impulse on the world body makes the writer list it as a body of its own.
  Scene s = vkphys::chain_scene(2);
  const auto world = static_cast<std::uint32_t>(s.bodies.size() - 1);
  KinematicPath k;
  k.target = {false, world};
  k.velocity = {0.0f, 0.0f, 1.0f};
  s.kinematic = {k};
  std::string text = write_scene_json(s);
  EXPECT_EQ(text.find("\"world\""), std::string::npos);
  expect_same_scene(s, parse_scene(text, "<round trip>"));

  s.kinematic.clear();
  ScheduledImpulse i;
  i.target = {false, world};
  i.impulse = {1.0f, 0.0f, 0.0f};
  s.impulses = {i};
  text = write_scene_json(s);
  EXPECT_EQ(text.find("\"world\""), std::string::npos);
  expect_same_scene(s, parse_scene(text, "<round trip>"));
}

TEST(SceneFileV2, WriterRefusesWhatNoFileHolds) {
  Scene s = every_field();
  std::swap(s.kinematic[0], s.kinematic[2]);  // a particle's path before a body's
  EXPECT_THROW(write_scene_json(s), std::invalid_argument);

  s = every_field();
  s.kinematic[1].target = s.kinematic[0].target;  // two paths for body 0
  EXPECT_THROW(write_scene_json(s), std::invalid_argument);

  s = every_field();
  s.kinematic[3].target.index = 3;  // no particle 3
  EXPECT_THROW(write_scene_json(s), std::invalid_argument);

  s = every_field();
  s.kinematic[2].angular_velocity = {0.0f, 1.0f, 0.0f};  // a particle does not turn
  EXPECT_THROW(write_scene_json(s), std::invalid_argument);

  s = every_field();
  s.impulses[1].point += glm::vec3(0.01f, 0.0f, 0.0f);  // a particle's impulse off its centre
  EXPECT_THROW(write_scene_json(s), std::invalid_argument);

  s = every_field();
  s.impulses[0].target.index = 3;  // the world body, written as "world"
  EXPECT_NO_THROW(write_scene_json(s));
  s.impulses[0].target.index = 4;
  EXPECT_THROW(write_scene_json(s), std::invalid_argument);

  s = every_field();
  s.bodies[0].force.x = std::numeric_limits<float>::infinity();
  EXPECT_THROW(write_scene_json(s), std::invalid_argument);
}

// A documentation fragment inside the mixed sample: a body object, or top-level members.
json with_fragment(const std::string& text) {
  json scene = mixed();
  json f = json::parse(text, nullptr, false);
  if (f.is_object() && f.contains("shape")) {
    scene["bodies"].push_back(f);
    return scene;
  }
  const json members = json::parse("{" + text + "}");
  for (const auto& [key, value] : members.items()) scene[key] = value;
  return scene;
}

// Every example of the reference loads: the ```json blocks are whole scenes, the ```jsonc blocks
// fragments (a body, or top-level members), loaded inside the mixed sample.
TEST(SceneFileV2, DocumentationExamplesLoad) {
  std::ifstream in(kSourceDir / "docs/scene-format.md");
  ASSERT_TRUE(in) << "docs/scene-format.md";
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::size_t scenes = 0, fragments = 0;
  for (const bool fragment : {false, true}) {
    const std::string open = fragment ? "```jsonc\n" : "```json\n";
    for (std::size_t begin = doc.find(open); begin != std::string::npos;
         begin = doc.find(open, begin)) {
      begin += open.size();
      const std::size_t end = doc.find("```", begin);
      ASSERT_NE(end, std::string::npos);
      const std::string text = doc.substr(begin, end - begin);
      SCOPED_TRACE(text);
      if (fragment) {
        EXPECT_NO_THROW(parse(with_fragment(text)));
        ++fragments;
      } else {
        EXPECT_NO_THROW(parse_scene(text, "docs/scene-format.md"));
        ++scenes;
      }
    }
  }
  EXPECT_GE(scenes, 3u);
  EXPECT_GE(fragments, 3u);
}

}  // namespace
