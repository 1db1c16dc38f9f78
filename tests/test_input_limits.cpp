// Issue 13: inputs that crashed the loader or loaded as nonsense. Each is rejected with one line
// naming the field, the value and the limit (docs/scene-format.md, "Limits"), and the classes
// behind them are bounded: the JSON nesting depth, every coordinate, speed, acceleration and
// size, forces, torques and impulses, the contact margin and the cell size, and the cost of many
// small generators.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

#include "host/io/scene_file.h"
#include "tests/scene_errors.h"
#include "tests/scene_v2_samples.h"

namespace vkphys {
namespace {

using nlohmann::json;
using test::error_of;
using test::expect_error;
using test::mixed;
using test::text_error;

// One particle above a floor (scenes/bounce.json).
json bounce() {
  return json::parse(R"({
    "format": "vkphys-scene", "version": 2, "name": "bounce",
    "planes": [{"normal": [0, 1, 0]}],
    "particles": [{"type": "particle", "position": [0, 1.05, 0], "radius": 0.05, "mass": 1}]
  })");
}

TEST(InputLimits, DeepNestingIsAnErrorNotAStackOverflow) {
  // 100,000 levels (200 KB of brackets) used to recurse through the serializer of the error
  // message until the stack ran out; the parser now stops at the 65th level.
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  std::string text = R"({"format": "vkphys-scene", "version": 2, "name": )" + deep + "}";
  expect_error(text_error(text), {"name[0][0]", "more than 64", "at most 64 levels"});
  expect_error(text_error(std::string(200000, '[')), {"<test>: [0][0][0]", "more than 64"});

  // 64 levels still parse (and then fail on what the value is).
  text = R"({"format": "vkphys-scene", "version": 2, "name": )" + std::string(63, '[') +
         std::string(63, ']') + "}";
  expect_error(text_error(text), {"name = [[[", "must be a string"});
}

TEST(InputLimits, CoordinatesSpeedsAndAccelerations) {
  json s = bounce();
  s["gravity"] = {0, -9.81, 9.2e18};  // made a particle's grid cell overflow an int
  expect_error(error_of(s), {"gravity[2] = 9.2e+18", "within +-10000 m/s^2"});
  s = bounce();
  s["gravity"] = {0, -3e38, 0};
  expect_error(error_of(s), {"gravity[1] = -3e+38", "10000 m/s^2"});

  s = bounce();
  s["particles"][0]["position"] = {1e9, 1, 0};
  expect_error(error_of(s), {"particles[0].position[0] = 1000000000.0", "within 1e+06 m"});
  s = bounce();
  s["particles"][0]["velocity"] = {0, -2e4, 0};
  expect_error(error_of(s), {"particles[0].velocity[1] = -20000.0", "within +-10000 m/s"});
  s = bounce();
  s["particles"][0] = {{"type", "lattice"}, {"origin", {0, 1, 0}}, {"count", {2000, 1, 1}},
                       {"spacing", 1000},   {"radius", 0.05},      {"mass", 1}};
  expect_error(error_of(s),
               {"particles[0].count = [2000,1,1]", "reaches 1.999e+06 m", "within 1e+06 m"});

  s = mixed();
  s["bodies"][0]["velocity"] = {3e4, 0, 0};
  expect_error(error_of(s), {"bodies[0].velocity[0] = 30000.0", "10000 m/s"});
  s = mixed();
  s["bodies"][0]["angular_velocity"] = {0, 0, -1e5};
  expect_error(error_of(s), {"bodies[0].angular_velocity[2] = -100000.0", "10000 rad/s"});
  s = mixed();
  s["bodies"][1]["kinematic"]["velocity"] = {1e5, 0, 0};
  expect_error(error_of(s), {"bodies[1].kinematic.velocity[0] = 100000.0", "10000 m/s"});
  s = mixed();
  s["planes"][0]["offset"] = 2e6;
  expect_error(error_of(s), {"planes[0].offset = 2000000.0", "within 1e+06 m"});
}

TEST(InputLimits, JointAnchors) {
  // An anchor at 1e30 m loaded and made the joint do nothing.
  json s = mixed();
  s["joints"][0]["anchor_a"] = {0, 1e30, 0};
  expect_error(error_of(s), {"joints[0].anchor_a[1] = 1e+30", "within 1e+06 m"});
  s = mixed();
  s["joints"][0].erase("anchor_a");
  s["joints"][0]["type"] = "ball";
  s["joints"][0]["anchor"] = {-2e6, 0, 0};
  expect_error(error_of(s), {"joints[0].anchor[0] = -2000000.0", "within 1e+06 m"});
}

// Applied loads were finite only: a force of 3e38 N loaded. Each is now bounded, with the limit
// itself still accepted.
TEST(InputLimits, ForcesTorquesAndImpulses) {
  json s = mixed();
  s["bodies"][0]["force"] = {0, -3e38, 0};
  expect_error(error_of(s), {"bodies[0].force[1] = -3e+38", "must be within +-1e+10 N"});
  s = mixed();
  s["bodies"][0]["torque"] = {0, 0, 2e10};
  expect_error(error_of(s), {"bodies[0].torque[2] = 20000000000.0", "must be within +-1e+10 N m"});
  s = mixed();
  s["impulses"][0]["impulse"] = {1e9, 0, 0};
  expect_error(error_of(s),
               {"impulses[0].impulse[0] = 1000000000.0", "must be within +-1e+08 N s"});

  // The run-time NaN test's old input (tests/test_cli.cpp): now refused as it loads.
  s = mixed();
  s["impulses"][0]["impulse"] = {0, 3e38, 0};
  expect_error(error_of(s), {"impulses[0].impulse[1] = 3e+38", "must be within +-1e+08 N s"});

  s = mixed();
  s["bodies"][0]["force"] = {1e10, 0, -1e10};
  s["bodies"][0]["torque"] = {-1e10, 0, 1e10};
  s["impulses"][0]["impulse"] = {0, -1e8, 1e8};
  const Scene at_limits = io::parse_scene(s.dump(), "<test>");
  EXPECT_EQ(at_limits.bodies[0].force, glm::vec3(1e10f, 0.0f, -1e10f));
  EXPECT_EQ(at_limits.bodies[0].torque, glm::vec3(-1e10f, 0.0f, 1e10f));
  EXPECT_EQ(at_limits.impulses[0].impulse, glm::vec3(0.0f, -1e8f, 1e8f));
}

TEST(InputLimits, Sizes) {
  json s = bounce();
  s["particles"][0]["radius"] = 1e-5;
  expect_error(error_of(s), {"particles[0].radius = 1e-05", ">= 0.0001 m"});
  s = bounce();
  s["particles"][0]["radius"] = 2e4;
  expect_error(error_of(s), {"particles[0].radius = 20000.0", "<= 10000 m"});
  s = mixed();
  s["bodies"][0]["half_extents"] = {0.5, 5e-5, 0.5};
  expect_error(error_of(s), {"bodies[0].half_extents[1] = 5e-05", ">= 0.0001 m"});
}

TEST(InputLimits, ContactMarginAndCellSize) {
  json s = bounce();
  s["contact_margin"] = 100;  // made every pair a candidate
  expect_error(error_of(s), {"contact_margin = 100", "<= 1 m"});
  s["contact_margin"] = 1;
  EXPECT_NO_THROW(io::parse_scene(s.dump(), "<test>"));

  s = bounce();
  s["cell_size"] = 3e38;  // one cell for the whole world
  expect_error(error_of(s),
               {"cell_size = 3e+38", "<= 8 * (2 * largest radius + contact margin)", "0.82 m"});
  s["cell_size"] = 0.82;  // 8 * (2 * 0.05 + 5% of 0.05)
  EXPECT_NO_THROW(io::parse_scene(s.dump(), "<test>"));
}

// `side` x `side` one-site lattices 0.2 m apart in x and z.
json one_site_lattices(int side) {
  json s = bounce();
  json& list = s["particles"];
  list = json::array();
  for (int k = 0; k < side * side; ++k) {
    list.push_back({{"type", "lattice"},
                    {"origin", {0.2 * (k % side), 1, 0.2 * (k / side)}},
                    {"count", {1, 1, 1}},
                    {"spacing", 0.1},
                    {"radius", 0.05},
                    {"mass", 1}});
  }
  return s;
}

// One parse of `text` [s].
double parse_seconds(const std::string& text) {
  const auto t0 = std::chrono::steady_clock::now();
  io::parse_scene(text, "<test>");
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

TEST(InputLimits, ManyOneSiteLatticesParseInLinearTime) {
  // The overlap check visited every lattice for every particle: 100,000 one-site lattices made
  // 10^10 box tests. Four times the lattices must now take about four times as long, not 16.
  // Timed as the fastest of five of each, the two sizes alternating, so that load on the
  // machine falls on both alike (with three of one size and then three of the other, a build
  // running beside the suite once pushed the ratio past 8).
  const std::string small = one_site_lattices(100).dump(), large = one_site_lattices(200).dump();
  double best_small = 1e30, best_large = 1e30;
  for (int k = 0; k < 5; ++k) {
    best_small = std::min(best_small, parse_seconds(small));
    best_large = std::min(best_large, parse_seconds(large));
  }
  EXPECT_LT(best_large / best_small, 8.0);

  // An overlap among them is still found: the last lattice overlaps the first.
  json s = one_site_lattices(200);
  s["particles"].push_back({{"type", "lattice"},
                            {"origin", {0.05, 1, 0}},
                            {"count", {1, 1, 1}},
                            {"spacing", 0.1},
                            {"radius", 0.05},
                            {"mass", 1}});
  expect_error(error_of(s), {"particles[0]: lattice index (0, 0, 0)", "overlaps particles[40000]"});
}

}  // namespace
}  // namespace vkphys
