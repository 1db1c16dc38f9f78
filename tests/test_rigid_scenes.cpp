// Rigid-body scenes: the builders of host/sim/rigid_scenes.h (counts, masses, seed numbers,
// resting contact, joint anchors), the "bodies"/"joints" scene-file fields and their errors,
// write_scene_json round trips, and scenes/*.json against the builders.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <nlohmann/json.hpp>
#include <numbers>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "host/io/scene_file.h"
#include "host/sim/mixed_scenes.h"
#include "host/sim/rigid_scenes.h"
#include "host/sim/scene_builders.h"
#include "kernels/quat.h"
#include "tests/scene_compare.h"
#include "tests/scene_errors.h"
#include "tests/source_tree.h"

namespace {

using vkphys::test::error_of;
using vkphys::test::expect_error;
using vkphys::test::expect_same_scene;
using vkphys::test::kSourceDir;
using vkphys::test::text_error;

using nlohmann::json;
using vkphys::Body;
using vkphys::Joint;
using vkphys::JointType;
using vkphys::Scene;
using vkphys::Shape;
using vkphys::io::parse_scene;
using vkphys::io::SceneError;
using vkphys::io::write_scene_json;

constexpr double kSlug = 14.5939;

glm::dvec3 rotate(glm::vec4 q, glm::dvec3 v) {
  const glm::dvec3 u(q.x, q.y, q.z);
  const glm::dvec3 t = 2.0 * glm::cross(u, v);
  return v + static_cast<double>(q.w) * t + glm::cross(u, t);
}
glm::dvec3 world_point(const Scene& s, std::uint32_t b, glm::vec3 local) {
  const Body& body = s.bodies[b];
  return glm::dvec3(body.position) + rotate(body.orientation, glm::dvec3(local));
}

// Every builder with its default parameters, and a few other sizes.
std::vector<std::pair<std::string, Scene>> all_builders() {
  std::vector<std::pair<std::string, Scene>> v;
  v.emplace_back("stack", vkphys::stack_scene());
  v.emplace_back("stack intersecting", vkphys::stack_scene(5, true));
  v.emplace_back("stack 3", vkphys::stack_scene(3));
  v.emplace_back("funnel", vkphys::funnel_scene());
  v.emplace_back("pendulum wave", vkphys::pendulum_wave_scene());
  v.emplace_back("pendulum wave 7", vkphys::pendulum_wave_scene(7));
  v.emplace_back("pendulum grid", vkphys::pendulum_grid_scene());
  v.emplace_back("ragdoll", vkphys::ragdoll_scene());
  v.emplace_back("pyramid", vkphys::pyramid_scene());
  v.emplace_back("pyramid 4x3", vkphys::pyramid_scene(4, 3));
  v.emplace_back("wall", vkphys::wall_scene());
  v.emplace_back("wall 3x4", vkphys::wall_scene(3, 4));
  v.emplace_back("chain", vkphys::chain_scene());
  v.emplace_back("box rain", vkphys::box_rain_scene(1000));
  v.emplace_back("box rain 5", vkphys::box_rain_scene(5));
  v.emplace_back("cloth drape 9", vkphys::cloth_drape_scene(9));
  return v;
}

double total_mass(const Scene& s) {
  double m = 0.0;
  for (const Body& b : s.bodies) m += static_cast<double>(b.mass);
  return m;
}

// The world AABBs of boxes a and b overlap by more than rounding (for boxes at the identity
// orientation that is the boxes themselves overlapping; for turned ones it is conservative).
bool boxes_overlap(const Body& a, const Body& b) {
  auto extent = [](const Body& x) {
    return glm::abs(vkphys::kern::quat_axis_x(x.orientation)) * x.half_extents.x +
           glm::abs(vkphys::kern::quat_axis_y(x.orientation)) * x.half_extents.y +
           glm::abs(vkphys::kern::quat_axis_z(x.orientation)) * x.half_extents.z;
  };
  const glm::vec3 ea = extent(a), eb = extent(b);
  for (int k = 0; k < 3; ++k) {
    double gap = std::abs(static_cast<double>(a.position[k]) - static_cast<double>(b.position[k])) -
                 static_cast<double>(ea[k]) - static_cast<double>(eb[k]);
    if (gap >= -1e-6) return false;
  }
  return true;
}

void expect_no_box_overlaps(const Scene& s) {
  for (std::size_t i = 0; i < s.bodies.size(); ++i) {
    for (std::size_t j = i + 1; j < s.bodies.size(); ++j) {
      if (s.bodies[i].shape != Shape::box || s.bodies[j].shape != Shape::box) continue;
      EXPECT_FALSE(boxes_overlap(s.bodies[i], s.bodies[j])) << i << " " << j;
    }
  }
}

void expect_identity_orientations(const Scene& s) {
  for (const Body& b : s.bodies) EXPECT_EQ(b.orientation, glm::vec4(0, 0, 0, 1));
}

// ---- builders -----------------------------------------------------------------------------------

TEST(RigidScene, StackMatchesSeed000) {
  Scene s = vkphys::stack_scene();
  EXPECT_EQ(s.name, "stack_5");
  EXPECT_EQ(s.settings.gravity, glm::vec3(0, -10, 0));
  EXPECT_EQ(s.settings.time_step, 1.0f / 60.0f);
  EXPECT_EQ(s.settings.solver.iterations, 25u);
  ASSERT_EQ(s.planes.size(), 1u);
  EXPECT_EQ(s.planes[0].normal, glm::vec3(0, 1, 0));
  EXPECT_EQ(s.planes[0].offset, 0.0f);
  EXPECT_EQ(s.materials[0].friction, 0.5f);
  ASSERT_EQ(s.bodies.size(), 5u);
  EXPECT_TRUE(s.joints.empty());
  for (std::size_t k = 0; k < 5; ++k) {
    const Body& b = s.bodies[k];
    EXPECT_EQ(b.shape, Shape::box);
    EXPECT_EQ(b.half_extents, glm::vec3(1.2f));
    EXPECT_EQ(b.mass, 1.2f);
    EXPECT_EQ(b.position, glm::vec3(0.0f, 2.0f + 3.0f * static_cast<float>(k), 0.0f));
  }
  EXPECT_NEAR(s.bodies[0].position.y - 1.2f, 0.8f, 1e-6f);  // gap to the floor
  for (std::size_t k = 1; k < 5; ++k) {                     // gaps between cubes
    EXPECT_NEAR(s.bodies[k].position.y - s.bodies[k - 1].position.y - 2.4f, 0.6f, 1e-6f);
  }

  Scene x = vkphys::stack_scene(5, true);
  EXPECT_EQ(x.name, "stack_intersecting");
  ASSERT_EQ(x.bodies.size(), 5u);
  for (std::size_t k = 0; k < 5; ++k) {
    EXPECT_EQ(x.bodies[k].position, glm::vec3(0.0f, 2.0f * static_cast<float>(k), 0.0f));
  }
  EXPECT_EQ(vkphys::stack_scene(7).bodies.size(), 7u);
}

TEST(RigidScene, FunnelHoldsTwentyBallsAboveAnOpening) {
  Scene s = vkphys::funnel_scene();
  ASSERT_EQ(s.bodies.size(), 20u);
  ASSERT_EQ(s.planes.size(), 5u);  // floor + 4 walls
  for (const Body& b : s.bodies) {
    EXPECT_EQ(b.shape, Shape::sphere);
    EXPECT_GT(b.mass, 0.0f);
    for (const vkphys::Plane& p : s.planes) {  // every ball on the free side of every plane
      EXPECT_GT(glm::dot(p.normal, b.position) - p.offset, b.radius);
    }
  }
  for (std::size_t i = 0; i < s.bodies.size(); ++i) {
    for (std::size_t j = i + 1; j < s.bodies.size(); ++j) {
      const Body &a = s.bodies[i], &b = s.bodies[j];
      EXPECT_GT(glm::length(a.position - b.position), a.radius + b.radius) << i << " " << j;
    }
  }
  // The walls lean outwards: inward normals with an upward component, so the funnel narrows
  // towards the floor.
  for (std::size_t p = 1; p < 5; ++p) {
    EXPECT_GT(s.planes[p].normal.y, 0.0f);
    EXPECT_NEAR(glm::length(s.planes[p].normal), 1.0f, 1e-6f);
  }
  // 4 layers of 5.
  std::vector<float> heights;
  for (const Body& b : s.bodies) heights.push_back(b.position.y);
  std::sort(heights.begin(), heights.end());
  heights.erase(std::unique(heights.begin(), heights.end()), heights.end());
  EXPECT_EQ(heights.size(), 4u);
}

TEST(RigidScene, PendulumWavePeriods) {
  const std::uint32_t n = 50;
  Scene s = vkphys::pendulum_wave_scene(n);
  ASSERT_EQ(s.bodies.size(), n + 1);
  ASSERT_EQ(s.joints.size(), n);
  const Body& world = s.bodies[n];
  EXPECT_EQ(world.shape, Shape::none);
  EXPECT_EQ(world.mass, 0.0f);
  const double g = -static_cast<double>(s.settings.gravity.y);
  EXPECT_NEAR(g, 9.81, 1e-6);
  double first_swings = 0.0;
  for (std::uint32_t k = 0; k < n; ++k) {
    const Joint& j = s.joints[k];
    EXPECT_EQ(j.type, JointType::distance);
    EXPECT_EQ(j.body_a, n);
    EXPECT_EQ(j.body_b, k);
    const Body& b = s.bodies[k];
    EXPECT_EQ(b.shape, Shape::sphere);
    EXPECT_EQ(b.radius, 0.1f);
    EXPECT_EQ(b.mass, 1.0f);
    // The ball starts on its bar, at 15 degrees from the vertical in the x-y plane.
    glm::dvec3 d = world_point(s, k, j.anchor_b) - world_point(s, n, j.anchor_a);
    EXPECT_NEAR(glm::length(d), static_cast<double>(j.length), 1e-5);
    EXPECT_NEAR(std::atan2(d.x, -d.y) * 180.0 / std::numbers::pi, 15.0, 1e-3);
    EXPECT_NEAR(d.z, 0.0, 1e-6);
    // Swings in 60 s: consecutive integers N + k.
    const double swings =
        60.0 / (2.0 * std::numbers::pi * std::sqrt(static_cast<double>(j.length) / g));
    if (k == 0) first_swings = swings;
    EXPECT_NEAR(swings, std::round(first_swings) + k, 1e-3) << k;
    if (k > 0) {  // neighbours do not touch
      EXPECT_GT(b.position.z - s.bodies[k - 1].position.z, 2.0f * b.radius);
    }
  }
  EXPECT_LE(s.joints[0].length, 1.0f);
  EXPECT_GT(s.joints[0].length, 0.9f);
}

TEST(RigidScene, PendulumGrid) {
  Scene s = vkphys::pendulum_grid_scene(5);
  EXPECT_EQ(s.name, "pendulum_grid_5x5");
  std::size_t balls = 0, boxes = 0;
  for (const Body& b : s.bodies) {
    balls += b.shape == Shape::sphere ? 1u : 0u;
    boxes += b.shape == Shape::box ? 1u : 0u;
  }
  EXPECT_EQ(balls, 25u);
  EXPECT_GE(boxes, 2u);
  ASSERT_EQ(s.bodies.size(), balls + boxes + 1);
  EXPECT_EQ(s.bodies.back().shape, Shape::none);
  ASSERT_EQ(s.joints.size(), 25u);
  for (std::uint32_t k = 0; k < 25; ++k) {
    const Joint& j = s.joints[k];
    EXPECT_EQ(j.type, JointType::distance);
    EXPECT_EQ(j.body_b, k);
    glm::dvec3 d = world_point(s, k, j.anchor_b) - world_point(s, j.body_a, j.anchor_a);
    EXPECT_NEAR(glm::length(d), static_cast<double>(j.length), 1e-5);
    EXPECT_NEAR(d.x, 0.0, 1e-6);  // hanging straight down
    EXPECT_NEAR(d.z, 0.0, 1e-6);
  }
  // Neighbours almost touch: the smallest gap between balls is positive and under 2 cm.
  double smallest = 1e9;
  for (std::size_t i = 0; i < 25; ++i) {
    for (std::size_t j = i + 1; j < 25; ++j) {
      const Body &a = s.bodies[i], &b = s.bodies[j];
      smallest = std::min(smallest, static_cast<double>(glm::length(a.position - b.position) -
                                                        a.radius - b.radius));
    }
  }
  EXPECT_GT(smallest, 0.0);
  EXPECT_LT(smallest, 0.02);
  // The boxes start above the balls and apart from each other.
  float top = 0.0f;
  for (std::size_t i = 0; i < 25; ++i) {
    top = std::max(top, s.bodies[i].position.y + s.bodies[i].radius);
  }
  for (std::size_t i = 25; i < 25 + boxes; ++i) {
    EXPECT_GT(s.bodies[i].position.y - s.bodies[i].half_extents.y, top);
  }
  expect_no_box_overlaps(s);
}

TEST(RigidScene, RagdollFollowsTable1) {
  Scene s = vkphys::ragdoll_scene();
  ASSERT_EQ(s.bodies.size(), 18u);
  ASSERT_EQ(s.joints.size(), 17u);
  EXPECT_NEAR(total_mass(s), 4.00 * kSlug, 1e-4);
  const double slugs[18] = {0.35, 0.25, 0.20, 0.20, 0.25, 0.25, 0.20, 0.20, 0.25,
                            0.25, 0.20, 0.20, 0.25, 0.20, 0.15, 0.25, 0.20, 0.15};
  for (std::size_t i = 0; i < 18; ++i) {
    EXPECT_FLOAT_EQ(s.bodies[i].mass, static_cast<float>(slugs[i] * kSlug)) << i;
  }
  EXPECT_EQ(s.bodies[3].shape, Shape::sphere);  // head
  // A tree: every body but the pelvis is the child (body b) of exactly one joint, and its
  // parent comes before it.
  std::vector<int> parents(18, 0);
  for (const Joint& j : s.joints) {
    EXPECT_EQ(j.type, JointType::ball);
    EXPECT_TRUE(j.limited);
    EXPECT_LT(j.body_a, j.body_b);
    ++parents[j.body_b];
    EXPECT_TRUE(glm::all(glm::lessThanEqual(j.limit_lo, j.limit_hi)));
    EXPECT_TRUE(glm::all(glm::lessThanEqual(j.limit_lo, glm::vec3(0.0f))));  // starts in range
    EXPECT_TRUE(glm::all(glm::greaterThanEqual(j.limit_hi, glm::vec3(0.0f))));
  }
  EXPECT_EQ(parents[0], 0);
  for (std::size_t i = 1; i < 18; ++i) EXPECT_EQ(parents[i], 1) << i;
  // Table 1 rows, degrees to radians: head (-35, -50, -40) / (45, 50, 40); R upper arm
  // (0, -120, -30) / (90, 0, 10).
  const float r = static_cast<float>(std::numbers::pi / 180.0);
  const Joint& head = s.joints[2];
  EXPECT_EQ(head.body_b, 3u);
  EXPECT_NEAR(head.limit_lo.x, -35.0f * r, 1e-6f);
  EXPECT_NEAR(head.limit_lo.y, -50.0f * r, 1e-6f);
  EXPECT_NEAR(head.limit_hi.z, 40.0f * r, 1e-6f);
  const Joint& arm = s.joints[8];
  EXPECT_EQ(arm.body_b, 9u);
  EXPECT_NEAR(arm.limit_lo.y, -120.0f * r, 1e-6f);
  EXPECT_NEAR(arm.limit_hi.x, 90.0f * r, 1e-6f);
  EXPECT_NEAR(arm.limit_hi.z, 10.0f * r, 1e-6f);
  // Same orientation everywhere: every joint starts at relative rotation identity.
  for (const Body& b : s.bodies) EXPECT_EQ(b.orientation, s.bodies[0].orientation);
  // Dropped from about 1 m: the lowest body centre is a little above 1 m.
  float lowest = 1e9f;
  for (const Body& b : s.bodies) lowest = std::min(lowest, b.position.y);
  EXPECT_GT(lowest, 1.0f);
  EXPECT_LT(lowest, 1.3f);
}

TEST(RigidScene, PyramidRestsExactly) {
  Scene s = vkphys::pyramid_scene(20);
  ASSERT_EQ(s.bodies.size(), 20u * 21u / 2u);
  EXPECT_EQ(total_mass(s), 210.0);
  expect_identity_orientations(s);
  expect_no_box_overlaps(s);
  std::size_t index = 0;
  for (std::uint32_t row = 0; row < 20; ++row) {
    for (std::uint32_t i = 0; i < 20 - row; ++i, ++index) {
      const Body& b = s.bodies[index];
      EXPECT_EQ(b.half_extents, glm::vec3(0.5f));
      EXPECT_EQ(b.mass, 1.0f);
      EXPECT_EQ(b.position.y, 0.5f + static_cast<float>(row));  // exactly on the box below
      if (i > 0) {  // touching its left neighbour exactly
        EXPECT_EQ(b.position.x - s.bodies[index - 1].position.x, 1.0f);
      }
    }
  }
  // Each row is offset by half a box from the one below.
  EXPECT_EQ(s.bodies[20].position.x - s.bodies[0].position.x, 0.5f);
  Scene many = vkphys::pyramid_scene(4, 3);
  EXPECT_EQ(many.bodies.size(), 30u);
  expect_no_box_overlaps(many);
}

TEST(RigidScene, WallChainAndBoxRain) {
  Scene wall = vkphys::wall_scene(10, 10);
  EXPECT_EQ(wall.name, "wall");
  ASSERT_EQ(wall.bodies.size(), 100u);
  expect_no_box_overlaps(wall);
  for (const Body& b : wall.bodies) {
    EXPECT_EQ(b.half_extents, glm::vec3(0.5f, 0.25f, 0.25f));
    EXPECT_EQ(std::fmod(b.position.y - 0.25f, 0.5f), 0.0f);  // rows resting exactly
  }
  EXPECT_EQ(wall.bodies[10].position.x - wall.bodies[0].position.x, 0.5f);  // running bond

  Scene chain = vkphys::chain_scene(20);
  ASSERT_EQ(chain.bodies.size(), 21u);
  ASSERT_EQ(chain.joints.size(), 20u);
  EXPECT_EQ(chain.bodies[20].shape, Shape::none);
  EXPECT_EQ(chain.joints[0].body_a, 20u);  // pinned to the world
  for (std::uint32_t k = 0; k < 20; ++k) {
    EXPECT_EQ(chain.bodies[k].shape, Shape::capsule);
    EXPECT_EQ(chain.joints[k].type, JointType::ball);
    EXPECT_EQ(chain.joints[k].body_b, k);
    if (k > 0) {
      EXPECT_EQ(chain.joints[k].body_a, k - 1);
    }
    EXPECT_NEAR(chain.bodies[k].position.y, 12.0f, 1e-6f);  // released horizontally
  }

  for (std::uint32_t count : {5u, 1000u, 20000u}) {
    Scene rain = vkphys::box_rain_scene(count);
    ASSERT_EQ(rain.bodies.size(), count);
    ASSERT_EQ(rain.planes.size(), 5u);  // open container
    // Every box inside the walls, above the floor.
    for (const Body& b : rain.bodies) {
      for (const vkphys::Plane& p : rain.planes) {
        // a box turned by up to 30 degrees about y reaches 0.25 (cos 30 + sin 30) = 0.34 m
        EXPECT_GT(glm::dot(p.normal, b.position) - p.offset, 0.342f);
      }
    }
    if (count <= 1000) expect_no_box_overlaps(rain);
    // The floor area makes a pile about 3 layers deep (at least 2 m x 2 m).
    double width = 0.0;
    for (const vkphys::Plane& p : rain.planes) {
      if (p.normal.x == 1.0f) width = -2.0 * static_cast<double>(p.offset);
    }
    EXPECT_GE(width, 2.0);
    if (width > 2.0) {
      EXPECT_NEAR(count * 0.125 / (width * width) / 0.5, 3.0, 0.05) << count;
    }
  }
}

TEST(RigidScene, JointAnchorsCoincideAtBuildTime) {
  for (const auto& [name, s] : all_builders()) {
    SCOPED_TRACE(name);
    for (std::size_t i = 0; i < s.joints.size(); ++i) {
      const Joint& j = s.joints[i];
      ASSERT_LT(j.body_a, s.bodies.size());
      ASSERT_LT(j.body_b, s.bodies.size());
      EXPECT_NE(j.body_a, j.body_b);
      if (j.type == JointType::distance) continue;
      glm::dvec3 a = world_point(s, j.body_a, j.anchor_a);
      glm::dvec3 b = world_point(s, j.body_b, j.anchor_b);
      EXPECT_LT(glm::length(a - b), 1e-5) << "joint " << i;
    }
  }
}

TEST(RigidScene, WorldBody) {
  Scene s;
  s.bodies.resize(3);
  EXPECT_EQ(vkphys::add_world_body(s), 3u);
  ASSERT_EQ(s.bodies.size(), 4u);
  EXPECT_EQ(s.bodies[3].shape, Shape::none);
  EXPECT_EQ(s.bodies[3].mass, 0.0f);
  EXPECT_EQ(s.bodies[3].position, glm::vec3(0.0f));
}

// ---- round trips --------------------------------------------------------------------------------

TEST(RigidSceneFile, EveryBuilderRoundTrips) {
  for (const auto& [name, s] : all_builders()) {
    SCOPED_TRACE(name);
    std::string text = write_scene_json(s);
    Scene back;
    ASSERT_NO_THROW(back = parse_scene(text, name)) << text.substr(0, 2000);
    expect_same_scene(s, back);
    EXPECT_EQ(write_scene_json(back), text);
  }
}

TEST(RigidSceneFile, RoundTripsEveryFieldAndParticles) {
  Scene s = vkphys::chain_scene(3);
  s.name = "odd";
  s.settings.drag = 0.125f;
  s.settings.contact_margin = -1.0f;
  s.settings.cell_size = 0.7f;
  s.settings.solver.scheme = vkphys::SolverScheme::jacobi;
  s.settings.solver.restitution = vkphys::RestitutionModel::newton;
  s.settings.solver.friction_model = vkphys::FrictionModel::scaled_box;
  s.settings.solver.split_impulse = true;
  s.settings.solver.gyroscopic = false;
  s.settings.solver.max_colors = 3;
  s.settings.solver.speculative_reach = false;  // the version-2 settings: not the defaults
  s.settings.solver.contact_cache = false;
  s.settings.solver.joint_trees = false;
  s.settings.solver.jacobi_contact_relaxation = 0.625f;
  s.materials.push_back(vkphys::Material{"rubber \"x\"", 0.75f, 1.1f, 3e5f, 2.5f});
  s.bodies[1].material = 1;
  s.bodies[1].velocity = glm::vec3(0.1f, -0.2f, 1e-9f);
  s.bodies[1].angular_velocity = glm::vec3(3.0f, 0.0f, -1.0f / 3.0f);
  s.bodies[2].mass = 0.0f;  // static
  Body sphere;
  sphere.shape = Shape::sphere;
  sphere.radius = 0.3f;
  sphere.position = glm::vec3(1.0f / 7.0f, 2.0f, 3.0f);
  s.bodies.insert(s.bodies.begin() + 3, sphere);  // before the world body
  for (Joint& j : s.joints) {
    if (j.body_a == 3) j.body_a = 4;
  }
  Joint hinge;
  hinge.type = JointType::hinge;
  hinge.body_a = 0;
  hinge.body_b = 3;
  hinge.axis_a = glm::normalize(glm::vec3(1, 2, 3));
  hinge.axis_b = glm::vec3(0, 0, 1);
  hinge.ref_a = glm::normalize(glm::cross(hinge.axis_a, glm::vec3(1, 0, 0)));
  hinge.limited = true;
  hinge.limit_lo.x = -0.3f;
  hinge.limit_hi.x = 1.234567f;
  hinge.spook_k = 5e6f;
  hinge.limit_d = 0.0f;
  s.joints.push_back(hinge);
  Joint dist;
  dist.type = JointType::distance;
  dist.body_a = 1;
  dist.body_b = 3;
  dist.anchor_a = glm::vec3(0.01f, 0.0f, 0.0f);
  dist.length = 0.3333f;
  s.joints.push_back(dist);
  Scene back = parse_scene(write_scene_json(s), "<round trip>");
  expect_same_scene(s, back);

  // A world body that is not last is written as an explicit shapeless body.
  Scene w = vkphys::pendulum_wave_scene(3);
  std::rotate(w.bodies.begin(), w.bodies.end() - 1, w.bodies.end());
  for (Joint& j : w.joints) {
    j.body_a = 0;
    ++j.body_b;
  }
  std::string text = write_scene_json(w);
  EXPECT_NE(text.find("\"shape\": \"none\""), std::string::npos);
  expect_same_scene(w, parse_scene(text, "<round trip>"));

  // Particle scenes: every particle written on its own.
  Scene p = vkphys::particle_box_scene(200, 7, 0.05f, 2);
  p.particles.add({0.5f, 0.5f, 0.5f}, {}, 0.01f, 0.0f, 0);  // a static one
  expect_same_scene(p, parse_scene(write_scene_json(p), "<round trip>"));
}

// ---- parsing ------------------------------------------------------------------------------------

json base_rigid() {
  return json::parse(R"({
    "format": "vkphys-scene", "version": 1, "name": "rigid",
    "materials": [{"name": "wood", "friction": 0.5}, {"name": "steel", "restitution": 0.5}],
    "planes": [{"normal": [0, 1, 0]}],
    "bodies": [
      {"shape": "box", "half_extents": [0.5, 0.25, 0.5], "position": [0, 1, 0], "mass": 2},
      {"shape": "sphere", "radius": 0.5, "position": [0, 3, 0], "density": 1000,
       "material": "steel"},
      {"shape": "capsule", "radius": 0.1, "half_height": 0.4, "position": [2, 3, 0],
       "orientation": {"axis": [0, 0, 1], "angle_deg": 90}, "mass": 1}
    ],
    "joints": [
      {"type": "ball", "bodies": [0, 1], "anchor": [0, 2, 0]},
      {"type": "distance", "bodies": ["world", 2], "anchor_a": [2, 5, 0]},
      {"type": "hinge", "bodies": [1, 2], "anchor": [1, 3, 0], "axis": [0, 0, 2],
       "limits": {"lo_deg": -45, "hi_deg": 30}, "spook": {"k": 1e6}},
      {"type": "ball", "bodies": [0, 2], "anchor_a": [0, 0, 0], "anchor_b": [0, 0.5, 0],
       "limits": {"lo_deg": [-10, -20, -30], "hi_deg": [10, 20, 30]},
       "limit_spook": {"k": 2e6, "d": 1}}
    ]
  })");
}

TEST(RigidSceneFile, ParsesBodiesAndJoints) {
  Scene s = parse_scene(base_rigid().dump(), "<test>");
  ASSERT_EQ(s.bodies.size(), 4u);  // 3 listed + the world
  EXPECT_EQ(s.bodies[0].mass, 2.0f);
  EXPECT_EQ(s.bodies[0].half_extents, glm::vec3(0.5f, 0.25f, 0.5f));
  EXPECT_EQ(s.bodies[1].material, 1u);
  EXPECT_FLOAT_EQ(s.bodies[1].mass,
                  static_cast<float>(1000.0 * 4.0 / 3.0 * std::numbers::pi * 0.125));
  const float h = static_cast<float>(std::sqrt(0.5));
  EXPECT_NEAR(s.bodies[2].orientation.z, h, 1e-7f);
  EXPECT_NEAR(s.bodies[2].orientation.w, h, 1e-7f);
  EXPECT_EQ(s.bodies[3].shape, Shape::none);
  EXPECT_EQ(s.bodies[3].mass, 0.0f);
  ASSERT_EQ(s.joints.size(), 4u);
  // World anchor -> local anchors that coincide in the world.
  const Joint& ball = s.joints[0];
  EXPECT_EQ(ball.anchor_a, glm::vec3(0, 1, 0));
  EXPECT_EQ(ball.anchor_b, glm::vec3(0, -1, 0));
  EXPECT_FALSE(ball.limited);
  // Distance: default length = the initial distance between the anchors.
  const Joint& dist = s.joints[1];
  EXPECT_EQ(dist.body_a, 3u);
  EXPECT_EQ(dist.anchor_a, glm::vec3(2, 5, 0));
  EXPECT_EQ(dist.anchor_b, glm::vec3(0));
  EXPECT_NEAR(dist.length, 2.0f, 1e-6f);
  // Hinge: the world axis and a perpendicular reference in both frames; angle 0 at the start.
  const Joint& hinge = s.joints[2];
  EXPECT_LT(glm::length(world_point(s, 1, hinge.anchor_a) - world_point(s, 2, hinge.anchor_b)),
            1e-6);
  glm::dvec3 axis_a = rotate(s.bodies[1].orientation, glm::dvec3(hinge.axis_a));
  glm::dvec3 axis_b = rotate(s.bodies[2].orientation, glm::dvec3(hinge.axis_b));
  glm::dvec3 ref_a = rotate(s.bodies[1].orientation, glm::dvec3(hinge.ref_a));
  glm::dvec3 ref_b = rotate(s.bodies[2].orientation, glm::dvec3(hinge.ref_b));
  EXPECT_LT(glm::length(axis_a - glm::dvec3(0, 0, 1)), 1e-6);
  EXPECT_LT(glm::length(axis_b - glm::dvec3(0, 0, 1)), 1e-6);
  EXPECT_LT(glm::length(ref_a - ref_b), 1e-6);
  EXPECT_NEAR(glm::dot(ref_a, axis_a), 0.0, 1e-6);
  EXPECT_NEAR(glm::length(ref_a), 1.0, 1e-6);
  EXPECT_TRUE(hinge.limited);
  EXPECT_FLOAT_EQ(hinge.limit_lo.x, static_cast<float>(-std::numbers::pi / 4.0));
  EXPECT_FLOAT_EQ(hinge.limit_hi.x, static_cast<float>(std::numbers::pi / 6.0));
  EXPECT_EQ(hinge.spook_k, 1e6f);
  EXPECT_EQ(hinge.spook_d, 4.0f);
  const Joint& limited = s.joints[3];
  EXPECT_FLOAT_EQ(limited.limit_lo.z, static_cast<float>(-std::numbers::pi / 6.0));
  EXPECT_FLOAT_EQ(limited.limit_hi.y, static_cast<float>(std::numbers::pi / 9.0));
  EXPECT_EQ(limited.limit_k, 2e6f);
  EXPECT_EQ(limited.limit_d, 1.0f);

  std::string summary = vkphys::io::scene_summary(s);
  for (std::string_view part : {"rigid", "4 bodies (1 static)", "4 joints", "1 planes"}) {
    EXPECT_NE(summary.find(part), std::string::npos) << part << " not in " << summary;
  }

  // Solver fields.
  json j = base_rigid();
  j["solver"] = {
      {"scheme", "jacobi"},    {"restitution", "newton"}, {"friction_model", "scaled_box"},
      {"split_impulse", true}, {"gyroscopic", false},     {"max_colors", 30}};
  Scene t = parse_scene(j.dump(), "<test>");
  EXPECT_EQ(t.settings.solver.scheme, vkphys::SolverScheme::jacobi);
  EXPECT_EQ(t.settings.solver.restitution, vkphys::RestitutionModel::newton);
  EXPECT_EQ(t.settings.solver.friction_model, vkphys::FrictionModel::scaled_box);
  EXPECT_TRUE(t.settings.solver.split_impulse);
  EXPECT_FALSE(t.settings.solver.gyroscopic);
  EXPECT_EQ(t.settings.solver.max_colors, 30u);

  // A quaternion is normalised; a static body has mass 0.
  j = base_rigid();
  j["bodies"][0]["orientation"] = {0, 0, 0, 2};
  j["bodies"][0].erase("mass");
  j["bodies"][0]["static"] = true;
  j["joints"] = json::array();
  Scene u = parse_scene(j.dump(), "<test>");
  EXPECT_EQ(u.bodies[0].orientation, glm::vec4(0, 0, 0, 1));
  EXPECT_EQ(u.bodies[0].mass, 0.0f);
  EXPECT_EQ(u.bodies.size(), 3u);  // no joint uses the world
}

TEST(RigidSceneFile, BodyErrors) {
  json s = base_rigid();
  s["particles"] =
      json::array({{{"type", "particle"}, {"position", {0, 5, 0}}, {"radius", 0.1}, {"mass", 1}}});
  expect_error(error_of(s), {"bodies = [", "particles or rigid bodies, not both"});

  s = base_rigid();
  s.erase("bodies");
  s.erase("joints");
  expect_error(error_of(s), {"<test>: particles: required field is missing", "\"bodies\""});

  s = base_rigid();
  s.erase("bodies");
  expect_error(error_of(s), {"joints = [", "needs \"bodies\""});

  s = base_rigid();
  s["bodies"] = json::array();
  expect_error(error_of(s), {"bodies = []", "at least one body"});

  s = base_rigid();
  s["bodies"][1]["shape"] = "cone";
  expect_error(error_of(s), {"bodies[1].shape = \"cone\"", "unknown shape", "\"capsule\""});

  s = base_rigid();
  s["bodies"][1].erase("radius");
  expect_error(error_of(s), {"bodies[1].radius: required field is missing", "sphere"});

  s = base_rigid();
  s["bodies"][2].erase("half_height");
  expect_error(error_of(s), {"bodies[2].half_height: required field is missing", "capsule"});

  s = base_rigid();
  s["bodies"][0]["radius"] = 1;
  expect_error(error_of(s), {"bodies[0].radius = 1", "not used by a box"});

  s = base_rigid();
  s["bodies"][0]["half_extents"] = {0.5, -0.25, 0.5};
  expect_error(error_of(s), {"bodies[0].half_extents[1] = -0.25", "must be > 0"});

  s = base_rigid();
  s["bodies"][0]["half_extents"] = {0.5, 0.25};
  expect_error(error_of(s), {"bodies[0].half_extents = [0.5,0.25]", "array of 3 numbers"});

  s = base_rigid();
  s["bodies"][1]["radius"] = 1e5;
  expect_error(error_of(s), {"bodies[1].radius = 100000.0", "<= 10000 m"});

  s = base_rigid();
  s["bodies"][0]["colour"] = "red";
  expect_error(error_of(s), {"bodies[0].colour = \"red\"", "unknown key", "half_extents"});

  std::string text = base_rigid().dump();
  text.replace(text.find("\"mass\":2"), 8, "\"mass\":2,\"mass\":3");
  expect_error(text_error(text), {"bodies[0].mass", "duplicate key"});

  s = base_rigid();
  s["bodies"][0]["density"] = 10;
  expect_error(error_of(s), {"bodies[0].density = 10", "cannot be combined with \"mass\""});

  s = base_rigid();
  s["bodies"][0]["static"] = true;
  expect_error(error_of(s), {"bodies[0].mass = 2", "cannot be combined with \"static\""});

  s = base_rigid();
  s["bodies"][0].erase("mass");
  expect_error(error_of(s), {"<test>: bodies[0]: needs \"mass\" or \"density\""});

  s = base_rigid();
  s["bodies"][0]["mass"] = 0;
  expect_error(error_of(s), {"bodies[0].mass = 0", "must be > 0"});

  s = base_rigid();
  s["bodies"][1].erase("density");
  s["bodies"][1]["mass"] = 1e-35;  // the smallest radius (1e-4 m): I = 4e-44 kg m^2
  s["bodies"][1]["radius"] = 1e-4;
  expect_error(error_of(s), {"bodies[1].mass = 1e-35", "moments of inertia", "32-bit float"});

  text = base_rigid().dump();
  text.replace(text.find("\"position\":[0,1,0]"), 18, "\"position\":[0,1e999,0]");
  expect_error(text_error(text), {"bodies[0].position[1] = 1e999", "finite"});

  s = base_rigid();
  s["bodies"][0]["position"] = {0, 2e6, 0};
  expect_error(error_of(s), {"bodies[0].position[1] = 2000000.0", "within 1e+06 m"});

  s = base_rigid();
  s["bodies"][0]["orientation"] = {0, 0, 0, 0};
  expect_error(error_of(s), {"bodies[0].orientation = [0,0,0,0]", "non-zero"});

  s = base_rigid();
  s["bodies"][0]["orientation"] = {0, 0, 1};
  expect_error(error_of(s), {"bodies[0].orientation = [0,0,1]", "quaternion [x, y, z, w]"});

  s = base_rigid();
  s["bodies"][2]["orientation"] = {{"axis", {0, 0, 0}}, {"angle_deg", 10}};
  expect_error(error_of(s), {"bodies[2].orientation.axis = [0,0,0]", "non-zero"});

  s = base_rigid();
  s["bodies"][2]["orientation"] = {{"axis", {0, 0, 1}}, {"angle", 10}};
  expect_error(error_of(s), {"bodies[2].orientation.angle = 10", "unknown key", "angle_deg"});

  s = base_rigid();
  s["bodies"][1]["material"] = "glass";
  expect_error(error_of(s), {"bodies[1].material = \"glass\"", "unknown material", "\"wood\""});

  s = base_rigid();
  s["bodies"][1]["shape"] = "none";
  s["bodies"][1].erase("radius");
  expect_error(error_of(s), {"bodies[1].density = 1000", "no volume"});
}

TEST(RigidSceneFile, JointErrors) {
  json s = base_rigid();
  s["joints"][0]["bodies"] = {0, 7};
  expect_error(error_of(s),
               {"joints[0].bodies[1] = 7", "out of range", "lists 3 bodies", "0 to 2"});

  s = base_rigid();
  s["joints"][0]["bodies"] = {-1, 0};
  expect_error(error_of(s), {"joints[0].bodies[0] = -1", "out of range"});

  s = base_rigid();
  s["joints"][0]["bodies"] = {1, 1};
  expect_error(error_of(s), {"joints[0].bodies = [1,1]", "joins a body to itself"});

  s = base_rigid();
  s["joints"][0]["bodies"] = {"world", "world"};
  expect_error(error_of(s), {"joints[0].bodies = [\"world\",\"world\"]", "itself"});

  s = base_rigid();
  s["joints"][0]["bodies"] = {"ground", 0};
  expect_error(error_of(s), {"joints[0].bodies[0] = \"ground\"", "\"world\""});

  s = base_rigid();
  s["joints"][0]["bodies"] = {0};
  expect_error(error_of(s), {"joints[0].bodies = [0]", "array of 2 bodies"});

  s = base_rigid();
  s["bodies"][0].erase("mass");
  s["bodies"][0]["static"] = true;
  s["joints"][0]["bodies"] = {"world", 0};
  expect_error(error_of(s), {"joints[0].bodies = [\"world\",0]", "two static bodies"});

  s = base_rigid();
  s["joints"][0]["type"] = "slider";
  expect_error(error_of(s), {"joints[0].type = \"slider\"", "unknown joint type", "\"hinge\""});

  s = base_rigid();
  s["joints"][0].erase("anchor");
  expect_error(error_of(s), {"<test>: joints[0]: a ball joint needs \"anchor\""});

  s = base_rigid();
  s["joints"][0]["anchor_a"] = {0, 0, 0};
  expect_error(error_of(s), {"joints[0].anchor_a = [0,0,0]", "cannot be combined with \"anchor\""});

  s = base_rigid();
  s["joints"][3].erase("anchor_b");
  expect_error(error_of(s), {"joints[3].anchor_b: required field is missing", "go together"});

  s = base_rigid();
  s["joints"][1].erase("anchor_a");
  s["joints"][1]["anchor"] = {0, 0, 0};
  expect_error(error_of(s), {"joints[1].anchor = [0,0,0]", "not used by a distance joint"});

  s = base_rigid();
  s["joints"][1]["length"] = -1;
  expect_error(error_of(s), {"joints[1].length = -1", "must be > 0"});

  s = base_rigid();
  s["joints"][1]["anchor_a"] = {2, 3, 0};  // on body 2's centre
  expect_error(error_of(s), {"joints[1].length: required field is missing", "coincide"});

  s = base_rigid();
  s["joints"][0]["length"] = 1;
  expect_error(error_of(s), {"joints[0].length = 1", "only a distance joint"});

  s = base_rigid();
  s["joints"][0]["axis"] = {0, 0, 1};
  expect_error(error_of(s), {"joints[0].axis = [0,0,1]", "only a hinge joint"});

  s = base_rigid();
  s["joints"][2].erase("axis");
  expect_error(error_of(s), {"joints[2].axis_a: required field is missing", "\"axis\""});

  s = base_rigid();
  s["joints"][2]["axis"] = {0, 0, 0};
  expect_error(error_of(s), {"joints[2].axis = [0,0,0]", "non-zero"});

  s = base_rigid();
  s["joints"][2].erase("axis");
  s["joints"][2]["axis_a"] = {0, 0, 1};
  s["joints"][2]["axis_b"] = {0, 0, 1};
  s["joints"][2]["ref_a"] = {1, 0, 0};
  s["joints"][2]["ref_b"] = {0, 0.6, 0.8};
  expect_error(error_of(s), {"joints[2].ref_b = [0,0.6,0.8]", "perpendicular to axis_b"});

  s = base_rigid();
  s["joints"][2]["limits"] = {{"lo_deg", 30}, {"hi_deg", -45}};
  expect_error(error_of(s), {"joints[2].limits.hi_deg = -45", "must be >= lo_deg = 30"});

  s = base_rigid();
  s["joints"][2]["limits"] = {{"lo_deg", {0, 0, 0}}, {"hi_deg", 1}};
  expect_error(error_of(s), {"joints[2].limits.lo_deg = [0,0,0]", "must be a number"});

  s = base_rigid();
  s["joints"][3]["limits"] = {{"lo_deg", 0}, {"hi_deg", {1, 2, 3}}};
  expect_error(error_of(s), {"joints[3].limits.lo_deg = 0", "array of 3 angles"});

  s = base_rigid();
  s["joints"][3]["limits"] = {{"lo_deg", {0, 5, 0}}, {"hi_deg", {1, 2, 3}}};
  expect_error(error_of(s), {"joints[3].limits.hi_deg = [1,2,3]", "must be >= lo_deg"});

  s = base_rigid();
  s["joints"][3]["limits"] = {{"lo_deg", {0, 0, -200}}, {"hi_deg", {1, 2, 3}}};
  expect_error(error_of(s), {"joints[3].limits.lo_deg[2] = -200", "[-180, 180]"});

  s = base_rigid();
  s["joints"][3]["limits"] = {{"lo_deg", {0, 0, 0}}};
  expect_error(error_of(s), {"joints[3].limits.hi_deg: required field is missing"});

  s = base_rigid();
  s["joints"][1]["limits"] = {{"lo_deg", 0}, {"hi_deg", 1}};
  expect_error(error_of(s), {"joints[1].limits = {", "no angle limits"});

  s = base_rigid();
  s["joints"][0]["spook"] = {{"k", 0}};
  expect_error(error_of(s), {"joints[0].spook.k = 0", "must be > 0"});

  s = base_rigid();
  s["joints"][0]["spook"] = {{"beta", 0.2}};
  expect_error(error_of(s), {"joints[0].spook.beta = 0.2", "unknown key", "k, d"});
}

TEST(RigidSceneFile, SolverFieldErrors) {
  json s = base_rigid();
  s["solver"] = {{"scheme", "gauss-seidel"}};
  expect_error(error_of(s), {"solver.scheme = \"gauss-seidel\"",
                             "\"sequential\", \"colored\", "
                             "\"jacobi\""});
  s["solver"] = {{"restitution", 0.5}};
  expect_error(error_of(s), {"solver.restitution = 0.5", "must be a string"});
  s["solver"] = {{"friction_model", "box"}};
  expect_error(error_of(s), {"solver.friction_model = \"box\"", "\"scaled_box\""});
  s["solver"] = {{"max_colors", 31}};
  expect_error(error_of(s), {"solver.max_colors = 31", "[1, 30]"});
  s["solver"] = {{"max_colors", 0}};
  expect_error(error_of(s), {"solver.max_colors = 0", "[1, 30]"});
  s["solver"] = {{"split_impulse", 1}};
  expect_error(error_of(s), {"solver.split_impulse = 1", "true or false"});
}

TEST(RigidSceneFile, DocumentationExamplesLoad) {
  std::ifstream in(kSourceDir / "docs/scene-format.md");
  ASSERT_TRUE(in) << "docs/scene-format.md";
  std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string open = "```json\n";
  std::size_t examples = 0, rigid = 0;
  for (std::size_t begin = doc.find(open); begin != std::string::npos;
       begin = doc.find(open, begin)) {
    begin += open.size();
    std::size_t end = doc.find("```", begin);
    ASSERT_NE(end, std::string::npos);
    Scene s;
    ASSERT_NO_THROW(s = parse_scene(std::string_view(doc).substr(begin, end - begin), "doc"))
        << "example " << examples;
    ++examples;
    rigid += s.bodies.empty() ? 0u : 1u;
    begin = end;
  }
  EXPECT_GE(examples, 2u);
  EXPECT_GE(rigid, 1u);
}

// ---- scenes/*.json ------------------------------------------------------------------------------

// A version-1 file (the seed scenes) is its builder with the version-2 solver switches off: it
// loads without the manifold cache, the joint trees and the speculative reach, as the seed
// documents' solvers ran (docs/scene-format.md, "Version 1"); a version-2 file is its builder.
TEST(RigidSceneFile, SceneFilesMatchTheirBuilders) {
  const std::vector<std::pair<std::string, std::function<Scene()>>> files = {
      {"stack_5.json", [] { return vkphys::stack_scene(5); }},
      {"stack_intersecting.json", [] { return vkphys::stack_scene(5, true); }},
      {"funnel_20.json", [] { return vkphys::funnel_scene(); }},
      {"pendulum_wave_50.json", [] { return vkphys::pendulum_wave_scene(50); }},
      {"pendulum_grid_5x5.json", [] { return vkphys::pendulum_grid_scene(5); }},
      {"ragdoll.json", [] { return vkphys::ragdoll_scene(); }},
      {"pyramid_20.json", [] { return vkphys::pyramid_scene(20); }},
      {"wall.json", [] { return vkphys::wall_scene(); }},
      {"chain_20.json", [] { return vkphys::chain_scene(20); }},
      {"pendulum_grid_5x5_push.json", [] { return vkphys::pendulum_grid_scene(5, true); }},
      {"ramp.json", [] { return vkphys::ramp_scene(); }},
      {"particle_bed.json", [] { return vkphys::particle_bed_scene(); }},
      {"paddle.json", [] { return vkphys::paddle_scene(); }},
      {"cloth_drape.json", [] { return vkphys::cloth_drape_scene(); }},
      {"cloth_drape_64.json", [] { return vkphys::cloth_drape_scene(64); }},
      {"large/cloth_drape_128.json", [] { return vkphys::cloth_drape_scene(128); }},
      {"large/cloth_drape_256.json", [] { return vkphys::cloth_drape_scene(256); }},
      {"jelly_cube.json", [] { return vkphys::jelly_cube_scene(); }},
      {"jelly_pyramid.json", [] { return vkphys::jelly_pyramid_scene(); }},
      {"rope_box.json", [] { return vkphys::rope_box_scene(); }},
      {"trampoline.json", [] { return vkphys::trampoline_scene(); }},
      {"flag.json", [] { return vkphys::flag_scene(); }},
      {"tablecloth.json",
       [] {
         return vkphys::tablecloth_scene(
             vkphys::read_obj_mesh(kSourceDir / "scenes" / "meshes" / "disc.obj"));
       }},
  };
  for (const auto& [file, build] : files) {
    SCOPED_TRACE(file);
    Scene loaded;
    ASSERT_NO_THROW(loaded = vkphys::io::load_scene(kSourceDir / "scenes" / file));
    Scene built = build();
    std::ifstream in(kSourceDir / "scenes" / file);
    if (nlohmann::json::parse(in).at("version") == 1) {
      built.settings.solver.contact_cache = false;
      built.settings.solver.joint_trees = false;
      built.settings.solver.speculative_reach = false;
      built.settings.solver.jacobi_contact_relaxation = 1.0f;
    }
    expect_same_scene(built, loaded);
    EXPECT_EQ(loaded.name + ".json", std::filesystem::path(file).filename().string());
  }
  // Every scene file with bodies is one of these.
  for (const auto& entry : std::filesystem::directory_iterator(kSourceDir / "scenes")) {
    if (entry.path().extension() != ".json") continue;
    Scene s = vkphys::io::load_scene(entry.path());
    if (s.bodies.empty()) continue;
    const std::string name = entry.path().filename().string();
    EXPECT_TRUE(
        std::any_of(files.begin(), files.end(), [&](const auto& f) { return f.first == name; }))
        << name << " has bodies but no builder check";
  }
}

}  // namespace
