// Scene file version 2: every new error, with its exact one-line message (file, JSON path,
// value, rule), and the version-1 rules that stay.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "host/io/scene_file.h"
#include "tests/scene_errors.h"
#include "tests/scene_v2_samples.h"

namespace {

using vkphys::test::error_of;
using vkphys::test::expect_error;
using vkphys::test::mixed;
using vkphys::test::v1_bodies;
using vkphys::test::v1_particles;

using nlohmann::json;

const std::string kNeedsV2 = ": needs \"version\": 2 (this file is version 1)";

TEST(SceneFileV2Errors, NewFieldsNeedVersion2) {
  json j = v1_particles();
  j["camera"] = {{"position", {0, 0, 5}}, {"target", {0, 0, 0}}};
  EXPECT_EQ(error_of(j), "<test>: camera = {\"position\":[0,0,5],\"target\":[0,0,0]}" + kNeedsV2);

  j = v1_particles();
  j["forces"] = {{"quadratic_drag", {{"density", 1}}}};
  EXPECT_EQ(error_of(j), "<test>: forces = {\"quadratic_drag\":{\"density\":1}}" + kNeedsV2);

  j = v1_particles();
  j["impulses"] = json::array();
  EXPECT_EQ(error_of(j), "<test>: impulses = []" + kNeedsV2);

  j = v1_particles();
  j["particles"][0]["kinematic"] = json::object();
  EXPECT_EQ(error_of(j), "<test>: particles[0].kinematic = {}" + kNeedsV2);

  j = v1_bodies();
  j["bodies"][0]["force"] = {1, 0, 0};
  EXPECT_EQ(error_of(j), "<test>: bodies[0].force = [1,0,0]" + kNeedsV2);

  j = v1_bodies();
  j["bodies"][0]["torque"] = {0, 0, 1};
  EXPECT_EQ(error_of(j), "<test>: bodies[0].torque = [0,0,1]" + kNeedsV2);

  j = v1_bodies();
  j["bodies"][0]["kinematic"] = {{"velocity", {1, 0, 0}}};
  EXPECT_EQ(error_of(j), "<test>: bodies[0].kinematic = {\"velocity\":[1,0,0]}" + kNeedsV2);

  j = v1_bodies();
  j["solver"] = {{"substeps", 4}};
  EXPECT_EQ(error_of(j), "<test>: solver.substeps = 4" + kNeedsV2);

  j = mixed();
  j["solver"] = {{"substeps", 0}};
  EXPECT_EQ(error_of(j), "<test>: solver.substeps = 0: must be an integer in [1, 64]");

  j = mixed();
  j["solver"] = {{"relax_iterations", 1001}};
  EXPECT_EQ(error_of(j), "<test>: solver.relax_iterations = 1001: must be an integer in [0, 1000]");

  j = mixed();
  j["solver"] = {{"impact_passes", 0}};
  EXPECT_EQ(error_of(j), "<test>: solver.impact_passes = 0: must be an integer in [1, 64]");

  j = mixed();
  j["solver"] = {{"particle_reorder", -1}};
  EXPECT_EQ(error_of(j),
            "<test>: solver.particle_reorder = -1: must be an integer in [0, 1000000000]");

  // Version 1 keeps its rule and its message for particles with bodies.
  j = v1_bodies();
  j["particles"] = v1_particles()["particles"];
  expect_error(error_of(j), {"<test>: bodies = [",
                             ": a scene has particles or rigid bodies, not both (this one also "
                             "has \"particles\")"});

  // Version 1's unknown-key lists are as they were: the version-2 keys are not offered.
  j = v1_bodies();
  j["bodies"][0]["colour"] = "red";
  EXPECT_EQ(error_of(j),
            "<test>: bodies[0].colour = \"red\": unknown key; allowed keys here: shape, radius, "
            "half_extents, half_height, position, orientation, velocity, angular_velocity, mass, "
            "density, static, material");
}

TEST(SceneFileV2Errors, UnknownKeys) {
  json j = mixed();
  j["gravityy"] = 1;
  EXPECT_EQ(error_of(j),
            "<test>: gravityy = 1: unknown key; allowed keys here: format, version, name, "
            "description, gravity, time_step, drag, contact_margin, cell_size, solver, materials, "
            "planes, box, particles, bodies, joints, forces, impulses, cloths, soft_bodies, "
            "mesh_cloths, springs, triangles, camera");

  j = mixed();
  j["forces"]["linear_drag"] = 1;
  EXPECT_EQ(error_of(j),
            "<test>: forces.linear_drag = 1: unknown key; allowed keys here: quadratic_drag, "
            "central, wind");

  j = mixed();
  j["forces"]["wind"] = {{"velocity", {1, 0, 0}}, {"speed", 1}};
  EXPECT_EQ(error_of(j),
            "<test>: forces.wind.speed = 1: unknown key; allowed keys here: velocity, density, "
            "drag, lift, skin_friction");

  j = mixed();
  j["forces"]["quadratic_drag"]["area"] = 1;
  EXPECT_EQ(error_of(j),
            "<test>: forces.quadratic_drag.area = 1: unknown key; allowed keys here: density, "
            "coefficient");

  j = mixed();
  j["forces"]["central"]["mass"] = 1;
  EXPECT_EQ(error_of(j),
            "<test>: forces.central.mass = 1: unknown key; allowed keys here: center, strength, "
            "law");

  j = mixed();
  j["bodies"][1]["kinematic"]["speed"] = 1;
  EXPECT_EQ(error_of(j),
            "<test>: bodies[1].kinematic.speed = 1: unknown key; allowed keys here: velocity, "
            "amplitude, frequency, phase, angular_velocity");

  j = mixed();
  j["particles"][1]["kinematic"]["speed"] = 1;
  EXPECT_EQ(error_of(j),
            "<test>: particles[1].kinematic.speed = 1: unknown key; allowed keys here: velocity, "
            "amplitude, frequency, phase");

  j = mixed();
  j["impulses"][0]["at"] = 1;
  EXPECT_EQ(error_of(j),
            "<test>: impulses[0].at = 1: unknown key; allowed keys here: time, body, particle, "
            "impulse, point");

  // Only a single particle has a path; a lattice does not.
  j = mixed();
  j["particles"][0]["kinematic"] = json::object();
  expect_error(error_of(j), {"<test>: particles[0].kinematic = {}: unknown key; allowed keys "
                             "here: type, origin, count"});
}

TEST(SceneFileV2Errors, Forces) {
  json j = mixed();
  j["forces"]["central"]["law"] = "cubic";
  EXPECT_EQ(error_of(j),
            "<test>: forces.central.law = \"cubic\": must be one of \"inverse_square\", "
            "\"linear\"");

  j = mixed();
  j["forces"]["quadratic_drag"]["density"] = -1.2;
  EXPECT_EQ(error_of(j), "<test>: forces.quadratic_drag.density = -1.2: must be >= 0");

  j = mixed();
  j["forces"]["quadratic_drag"]["coefficient"] = -0.5;
  EXPECT_EQ(error_of(j), "<test>: forces.quadratic_drag.coefficient = -0.5: must be >= 0");

  for (const char* field : {"density", "drag", "lift", "skin_friction"}) {
    j = mixed();
    j["forces"]["wind"] = {{"velocity", {6, 0, 0}}, {field, -0.5}};
    EXPECT_EQ(error_of(j), std::string("<test>: forces.wind.") + field + " = -0.5: must be >= 0");
  }

  j = mixed();
  j["forces"]["wind"] = {{"velocity", {6, 0}}};
  EXPECT_EQ(error_of(j), "<test>: forces.wind.velocity = [6,0]: must be an array of 3 numbers");

  j = mixed();
  j["forces"]["wind"] = {{"density", 1.2}};
  EXPECT_EQ(error_of(j), "<test>: forces.wind.velocity: required field is missing");

  j = mixed();
  j["forces"]["central"]["strength"] = -4;
  EXPECT_EQ(error_of(j), "<test>: forces.central.strength = -4: must be >= 0");

  j = mixed();
  j["forces"]["central"]["center"] = {1, 2};
  EXPECT_EQ(error_of(j), "<test>: forces.central.center = [1,2]: must be an array of 3 numbers");

  j = mixed();
  j["forces"]["central"].erase("strength");
  EXPECT_EQ(error_of(j), "<test>: forces.central.strength: required field is missing");

  j = mixed();
  j["forces"]["quadratic_drag"].erase("density");
  EXPECT_EQ(error_of(j), "<test>: forces.quadratic_drag.density: required field is missing");

  j = mixed();
  j["forces"] = {1, 2};
  EXPECT_EQ(error_of(j), "<test>: forces = [1,2]: must be an object");
}

TEST(SceneFileV2Errors, BodyForceAndTorque) {
  json j = mixed();
  j["bodies"][0]["force"] = {1e300, 0, 0};
  EXPECT_EQ(error_of(j), "<test>: bodies[0].force[0] = 1e+300: out of range for a 32-bit float");

  j = mixed();
  j["bodies"][0]["torque"] = {0, "up", 0};
  EXPECT_EQ(error_of(j), "<test>: bodies[0].torque[1] = \"up\": must be a number");
}

TEST(SceneFileV2Errors, Kinematic) {
  json j = mixed();
  j["bodies"][1]["kinematic"]["frequency"] = -2;
  EXPECT_EQ(error_of(j), "<test>: bodies[1].kinematic.frequency = -2: must be >= 0");

  j = mixed();
  j["particles"][1]["kinematic"]["angular_velocity"] = {0, 1, 0};
  EXPECT_EQ(error_of(j),
            "<test>: particles[1].kinematic.angular_velocity = [0,1,0]: a particle does not turn: "
            "only a body's path has an angular velocity");

  j = mixed();
  j["bodies"][1]["kinematic"]["amplitude"] = {0, 1};
  EXPECT_EQ(error_of(j),
            "<test>: bodies[1].kinematic.amplitude = [0,1]: must be an array of 3 numbers");

  j = mixed();
  j["bodies"][1]["kinematic"]["phase"] = 1e39;
  EXPECT_EQ(error_of(j),
            "<test>: bodies[1].kinematic.phase = 1e+39: out of range for a 32-bit float");

  j = mixed();
  j["bodies"][1]["kinematic"] = true;
  EXPECT_EQ(error_of(j), "<test>: bodies[1].kinematic = true: must be an object");

  // The mass of a kinematic body is ignored while it is driven, but it must still be valid.
  j = mixed();
  j["bodies"][1].erase("mass");
  EXPECT_EQ(error_of(j),
            "<test>: bodies[1]: needs \"mass\" or \"density\" (or \"static\": true for an "
            "immovable body)");
  j = mixed();
  j["particles"][1]["mass"] = 0;
  EXPECT_EQ(error_of(j), "<test>: particles[1].mass = 0: must be > 0");
}

TEST(SceneFileV2Errors, Impulses) {
  json j = mixed();
  j["impulses"][0]["particle"] = 0;
  EXPECT_EQ(error_of(j),
            "<test>: impulses[0].particle = 0: cannot be combined with \"body\"; give one of the "
            "two");

  j = mixed();
  j["impulses"][0].erase("body");
  EXPECT_EQ(error_of(j),
            "<test>: impulses[0]: needs \"body\" or \"particle\" (the index of what it acts on)");

  j = mixed();
  j["impulses"][1]["point"] = {5, 2, 5};
  EXPECT_EQ(error_of(j),
            "<test>: impulses[1].point = [5,2,5]: a particle takes an impulse at its centre; "
            "leave \"point\" out");

  j = mixed();
  j["impulses"][0]["time"] = -1;
  EXPECT_EQ(error_of(j), "<test>: impulses[0].time = -1: must be >= 0");

  j = mixed();
  j["impulses"][0].erase("time");
  EXPECT_EQ(error_of(j), "<test>: impulses[0].time: required field is missing");

  j = mixed();
  j["impulses"][0].erase("impulse");
  EXPECT_EQ(error_of(j), "<test>: impulses[0].impulse: required field is missing");

  j = mixed();
  j["impulses"][2]["point"] = {3, 1.25};
  EXPECT_EQ(error_of(j), "<test>: impulses[2].point = [3,1.25]: must be an array of 3 numbers");

  j = mixed();
  j["impulses"] = {{"time", 1}};
  EXPECT_EQ(error_of(j), "<test>: impulses = {\"time\":1}: must be an array");
}

TEST(SceneFileV2Errors, ImpulseTargetsOutOfRange) {
  // The world body is no listed body: like a joint's index, an impulse's counts listed bodies.
  json j = mixed();
  j["impulses"][0]["body"] = 2;
  EXPECT_EQ(error_of(j),
            "<test>: impulses[0].body = 2: body index out of range: \"bodies\" lists 2 bodies "
            "(indices 0 to 1)");

  j["impulses"][0]["body"] = -1;
  EXPECT_EQ(error_of(j),
            "<test>: impulses[0].body = -1: body index out of range: \"bodies\" lists 2 bodies "
            "(indices 0 to 1)");

  j["impulses"][0]["body"] = "world";
  EXPECT_EQ(error_of(j), "<test>: impulses[0].body = \"world\": must be a body index (an integer)");

  j = mixed();
  j["impulses"][1]["particle"] = 9;
  EXPECT_EQ(error_of(j),
            "<test>: impulses[1].particle = 9: particle index out of range: \"particles\" "
            "generates 9 particles (indices 0 to 8)");

  j["impulses"][1]["particle"] = 1.5;
  EXPECT_EQ(error_of(j),
            "<test>: impulses[1].particle = 1.5: must be a particle index (an integer)");

  j = mixed();
  j.erase("particles");
  j["impulses"] = json::array({j["impulses"][1]});  // not {x}: clang copies x
  EXPECT_EQ(error_of(j),
            "<test>: impulses[0].particle = 8: particle index out of range: the scene has no "
            "\"particles\"");

  j = mixed();
  j.erase("bodies");
  j.erase("joints");
  j["impulses"] = json::array({j["impulses"][0]});  // not {x}: clang copies x
  EXPECT_EQ(error_of(j),
            "<test>: impulses[0].body = 0: body index out of range: the scene has no \"bodies\"");
}

TEST(SceneFileV2Errors, Contents) {
  // A version-2 scene still needs particles, bodies, cloths, soft bodies or mesh cloths, and
  // lists given must not be empty.
  json j = mixed();
  j.erase("particles");
  j.erase("bodies");
  j.erase("joints");
  j.erase("impulses");
  EXPECT_EQ(error_of(j),
            "<test>: particles: required field is missing (a scene needs \"particles\", "
            "\"bodies\", \"cloths\", \"soft_bodies\" or \"mesh_cloths\")");

  j = mixed();
  j["particles"] = json::array();
  EXPECT_EQ(error_of(j), "<test>: particles = []: must list at least one particle generator");

  // An empty cloths, soft_bodies or mesh_cloths list is not content either: a scene whose
  // only content was "soft_bodies": [] loaded, wrote back without the list, and the written
  // file failed to load (fuzz_scene_load's finding, stop 36).
  for (const char* key : {"cloths", "soft_bodies", "mesh_cloths"}) {
    j = mixed();
    j.erase("particles");
    j.erase("bodies");
    j.erase("joints");
    j.erase("impulses");
    j[key] = json::array();
    EXPECT_EQ(error_of(j), std::string("<test>: ") + key +
                               " = []: lists nothing, and the scene has no other content (a "
                               "scene needs at least one particle generator, body, cloth, soft "
                               "body or mesh cloth)");
    // Beside other content an empty list is allowed: it adds nothing.
    j = mixed();
    j[key] = json::array();
    EXPECT_NO_THROW(vkphys::io::parse_scene(j.dump(), "<test>")) << key;
  }

  j = mixed();
  j.erase("bodies");
  j["impulses"] = json::array();
  expect_error(error_of(j), {"<test>: joints = [{\"anchor_a\":[0,3,0],\"bodies\":[\"world\",0],",
                             "...: joints join rigid bodies: the scene needs \"bodies\""});

  // Particles are still checked against the planes and each other.
  j = mixed();
  j["particles"][1]["position"] = {-2, 0.55, -2};
  expect_error(error_of(j),
               {"<test>: particles[0]: lattice index (0, 0, 0)", "overlaps particles[1]"});
}

// A camera that cannot form a picture: every rule names its field, the value and the limit.
TEST(SceneFileV2Errors, Camera) {
  auto with_camera = [](const json& camera) {
    json j = mixed();
    j["camera"] = camera;
    return error_of(j);
  };
  EXPECT_EQ(with_camera({{"position", {0, 1, 5}}, {"target", {0, 1, 5}}}),
            "<test>: camera.target = [0,1,5]: must be at least 0.0001 m from camera.position (the "
            "camera looks from its position at its target)");
  EXPECT_EQ(with_camera({{"position", {2e6, 0, 0}}, {"target", {0, 0, 0}}}),
            "<test>: camera.position[0] = 2000000.0: must be within 1e+06 m of the origin");
  // Near the coordinate limit floats are 0.0625 m apart: 0.01 m in the file is none in float.
  EXPECT_EQ(with_camera({{"position", {999999, 0, 0}}, {"target", {999999.01, 0, 0}}}),
            "<test>: camera.target = [999999.01,0,0]: must be at least 0.0001 m from "
            "camera.position (the camera looks from its position at its target)");
  EXPECT_EQ(with_camera({{"position", {0, 5, 0}}, {"target", {0, 0, 0}}}),
            "<test>: camera.target = [0,0,0]: looks along camera.up (default [0, 1, 0]), which "
            "must be at least 1 degree from the view direction: give camera.up");
  json down = mixed();  // looking straight down is fine with another up
  down["camera"] = {{"position", {0, 5, 0}}, {"target", {0, 0, 0}}, {"up", {0, 0, -1}}};
  EXPECT_NO_THROW(vkphys::io::parse_scene(down.dump(), "<test>"));
  EXPECT_EQ(with_camera({{"position", {0, 0, 5}}, {"target", {0, 0, 0}}, {"up", {0, 0, -2}}}),
            "<test>: camera.up = [0,0,-2]: is parallel to the view direction camera.target - "
            "camera.position; must be at least 1 degree from it");
  // 0.5 degree off the view direction: still too close.
  EXPECT_EQ(with_camera({{"position", {0, 0, 5}}, {"target", {0, 0, 0}}, {"up", {0.0087, 0, 1}}}),
            "<test>: camera.up = [0.0087,0,1]: is parallel to the view direction camera.target - "
            "camera.position; must be at least 1 degree from it");
  EXPECT_EQ(with_camera({{"position", {0, 0, 5}}, {"target", {0, 0, 0}}, {"up", {0, 0, 0}}}),
            "<test>: camera.up = [0,0,0]: must not be zero");
  for (double fov : {0.0, -10.0, 180.0, 179.5, 1e-4}) {
    SCOPED_TRACE(fov);
    const std::string message =
        with_camera({{"position", {0, 0, 5}}, {"target", {0, 0, 0}}, {"fov_y_deg", fov}});
    expect_error(message, {"<test>: camera.fov_y_deg = ",
                           ": must be in [0.001, 179] degrees (the vertical field of view; 0 "
                           "and 180 form no picture)"});
  }
  EXPECT_EQ(with_camera({{"position", {0, 0, 5}}}),
            "<test>: camera.target: required field is missing");
  EXPECT_EQ(with_camera({{"position", {0, 0, 5}}, {"target", {0, 0, 0}}, {"fov", 40}}),
            "<test>: camera.fov = 40: unknown key; allowed keys here: position, target, up, "
            "fov_y_deg");
  // JSON has no NaN or infinity; a literal that overflows is refused where it stands.
  json j = mixed();
  j["camera"] = {{"position", {0, 0, 12345}}, {"target", {0, 0, 0}}};
  std::string text = j.dump();
  text.replace(text.find("12345"), 5, "1e999");
  expect_error(vkphys::test::text_error(text), {"camera.position[2]", "1e999"});
}

}  // namespace
