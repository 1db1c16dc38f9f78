// Rigid-body scenes built in code (declarations and the seed references: rigid_scenes.h).
//
// Parameters the seed documents leave open are chosen here and listed in docs/scene-format.md
// ("Rigid-body example scenes"). Every builder is deterministic: no randomness at all.
#include "host/sim/rigid_scenes.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

#include "host/sim/quat_double.h"
#include "host/sim/scene_builders.h"

namespace vkphys {

namespace {

constexpr double kPi = std::numbers::pi;
constexpr double kSlug = 14.5939;  // kg per slug (seed 004 Table 1 gives masses in slugs)

// A body orientation. + 0.0 turns -0 components into +0, as these scenes have always been built
// (scenes/*.json are exports of them); w = cos(half) is never -0.
glm::vec4 axis_angle(glm::dvec3 axis, double degrees) {
  return glm::vec4(quat_double::axis_angle(glm::normalize(axis), degrees) + 0.0);
}

Body box(glm::vec3 half_extents, glm::vec3 position, float mass, std::uint32_t material = 0) {
  Body b;
  b.shape = Shape::box;
  b.half_extents = half_extents;
  b.position = position;
  b.mass = mass;
  b.material = material;
  return b;
}
Body sphere(float radius, glm::vec3 position, float mass, std::uint32_t material = 0) {
  Body b;
  b.shape = Shape::sphere;
  b.radius = radius;
  b.position = position;
  b.mass = mass;
  b.material = material;
  return b;
}
Body capsule(float radius, float half_height, glm::vec3 position, float mass,
             std::uint32_t material = 0) {
  Body b;
  b.shape = Shape::capsule;
  b.radius = radius;
  b.half_height = half_height;
  b.position = position;
  b.mass = mass;
  b.material = material;
  return b;
}

// A distance joint from the world point `pivot` (on the world body) to body b's centre.
Joint bar(std::uint32_t world, std::uint32_t b, glm::vec3 pivot, float length) {
  Joint j;
  j.type = JointType::distance;
  j.body_a = world;
  j.body_b = b;
  j.anchor_a = pivot;
  j.anchor_b = glm::vec3(0.0f);
  j.length = length;
  return j;
}

Plane plane(glm::dvec3 normal, double offset, std::uint32_t material = 0) {
  const glm::dvec3 n = glm::normalize(normal);
  return Plane{glm::vec3(n), static_cast<float>(offset), material};
}

Scene base(std::string name, float friction, std::uint32_t iterations) {
  Scene s;
  s.name = std::move(name);
  s.settings.gravity = glm::vec3(0.0f, -10.0f, 0.0f);
  s.settings.time_step = 1.0f / 60.0f;
  s.settings.solver.iterations = iterations;
  s.materials = {Material{}};
  s.materials[0].friction = friction;
  return s;
}

// Half the extent of a body along world y (for placing its lowest point).
double half_height_y(const Body& b) {
  switch (b.shape) {
    case Shape::sphere:
      return double(b.radius);
    case Shape::capsule:
      return static_cast<double>(b.radius) +
             static_cast<double>(b.half_height) *
                 std::abs(quat_double::rotate(b.orientation, glm::dvec3(0.0, 1.0, 0.0)).y);
    case Shape::box: {
      // Row y of the rotation matrix dotted with the half extents, in absolute values.
      double h = 0.0;
      for (int axis = 0; axis < 3; ++axis) {
        glm::dvec3 e(0.0);
        e[axis] = 1.0;
        h += static_cast<double>(b.half_extents[axis]) *
             std::abs(quat_double::rotate(b.orientation, e).y);
      }
      return h;
    }
    case Shape::plane:
    case Shape::none:
      break;
  }
  return 0.0;
}

}  // namespace

Scene stack_scene(std::uint32_t count, bool intersecting) {
  std::string name = intersecting ? (count == 5 ? std::string("stack_intersecting")
                                                : fmt::format("stack_intersecting_{}", count))
                                  : fmt::format("stack_{}", count);
  Scene s = base(std::move(name), 0.5f, 25);
  s.settings.solver.warm_start = 0.0f;  // seed 000 section 10.1: no contact caching
  s.settings.solver.contact_cache = false;
  s.planes.push_back(plane({0.0, 1.0, 0.0}, 0.0));
  const double first = intersecting ? 0.0 : 2.0;
  const double pitch = intersecting ? 2.0 : 3.0;
  for (std::uint32_t k = 0; k < count; ++k) {
    const auto y = static_cast<float>(first + pitch * k);
    s.bodies.push_back(box(glm::vec3(1.2f), {0.0f, y, 0.0f}, 1.2f));
  }
  return s;
}

Scene funnel_scene() {
  // An inverted square pyramid: 4 walls inclined 30 degrees from vertical through the edges of
  // a 1 m x 1 m floor opening at y = 0, closed by the floor plane. Balls of radius 0.2 m, 1 kg,
  // in 4 layers of 5 (a quincunx, turned 45 degrees every other layer), 0.6 m apart in y.
  Scene s = base("funnel_20", 0.3f, 25);
  s.settings.solver.warm_start = 0.0f;  // seed 000 section 10.3: no contact caching
  s.settings.solver.contact_cache = false;
  const double tilt = 30.0 * kPi / 180.0;
  const double opening = 0.5;  // half width of the floor opening [m]
  s.planes.push_back(plane({0.0, 1.0, 0.0}, 0.0));
  // Wall through x = opening + y tan(tilt), normal pointing inwards (and up).
  const double c = std::cos(tilt), sn = std::sin(tilt);
  s.planes.push_back(plane({-c, sn, 0.0}, -opening * c));
  s.planes.push_back(plane({c, sn, 0.0}, -opening * c));
  s.planes.push_back(plane({0.0, sn, -c}, -opening * c));
  s.planes.push_back(plane({0.0, sn, c}, -opening * c));
  const float r = 0.2f;
  const double d = 0.35;
  for (int layer = 0; layer < 4; ++layer) {
    const double y = 2.0 + 0.6 * layer;
    std::array<glm::dvec2, 5> xz{};
    if (layer % 2 == 0) {
      xz = {glm::dvec2(0, 0), glm::dvec2(d, d), glm::dvec2(-d, d), glm::dvec2(-d, -d),
            glm::dvec2(d, -d)};
    } else {
      const double e = d * std::numbers::sqrt2;
      xz = {glm::dvec2(0, 0), glm::dvec2(e, 0), glm::dvec2(0, e), glm::dvec2(-e, 0),
            glm::dvec2(0, -e)};
    }
    for (const glm::dvec2& p : xz) {
      s.bodies.push_back(sphere(r, glm::vec3(glm::dvec3(p.x, y, p.y)), 1.0f));
    }
  }
  return s;
}

Scene pendulum_wave_scene(std::uint32_t count) {
  // Ball k makes N + k swings in T = 60 s: L_k = g (T / (2 pi (N + k)))^2, N the smallest
  // integer with L_0 <= 1 m (N = 30 for g = 9.81: 0.994 m down to 0.143 m for 50 balls).
  // g = 9.81 here: seed 000 gives no value for this scene. Balls of radius 0.1 m and 1 kg, 0.25
  // m apart along z, pivots at y = 3, all released from 15 degrees in the x-y plane.
  Scene s = base(fmt::format("pendulum_wave_{}", count), 0.0f, 8);
  s.settings.gravity = glm::vec3(0.0f, -9.81f, 0.0f);
  const double g = 9.81, period = 60.0;
  const double n0 = std::ceil(period * std::sqrt(g) / (2.0 * kPi));
  const double angle = 15.0 * kPi / 180.0;
  const double spacing = 0.25;
  for (std::uint32_t k = 0; k < count; ++k) {
    const double t = period / (2.0 * kPi * (n0 + k));
    const double length = g * t * t;
    const double z = (k - 0.5 * (count - 1.0)) * spacing;
    const glm::dvec3 pivot(0.0, 3.0, z);
    const glm::dvec3 x = pivot + length * glm::dvec3(std::sin(angle), -std::cos(angle), 0.0);
    s.bodies.push_back(sphere(0.1f, glm::vec3(x), 1.0f));
  }
  const std::uint32_t world = add_world_body(s);
  for (std::uint32_t k = 0; k < count; ++k) {
    const double t = period / (2.0 * kPi * (n0 + k));
    const double z = (k - 0.5 * (count - 1.0)) * spacing;
    s.joints.push_back(
        bar(world, k, glm::vec3(glm::dvec3(0.0, 3.0, z)), static_cast<float>(g * t * t)));
  }
  return s;
}

Scene pendulum_grid_scene(std::uint32_t n, bool push) {
  // Balls of radius 0.25 m, 1 kg, 0.51 m apart (1 cm gaps) at y = 2, each on a 1 m bar to the
  // world point above it; three 1.2 x 0.2 x 1.2 m slabs (1 kg) dropped on top. Floor plane at
  // y = 0.
  Scene s = base(fmt::format("pendulum_grid_{}x{}", n, n), 0.5f, 25);
  s.planes.push_back(plane({0.0, 1.0, 0.0}, 0.0));
  const double spacing = 0.51;
  for (std::uint32_t j = 0; j < n; ++j) {
    for (std::uint32_t i = 0; i < n; ++i) {
      const double x = (i - 0.5 * (n - 1.0)) * spacing;
      const double z = (j - 0.5 * (n - 1.0)) * spacing;
      s.bodies.push_back(sphere(0.25f, glm::vec3(glm::dvec3(x, 2.0, z)), 1.0f));
    }
  }
  // Flat slabs spanning about three balls each way: a box the size of a grid cell wedges the
  // free-hanging balls apart and drops through (measured: all three within 3 s).
  const std::array<glm::vec3, 3> boxes{glm::vec3(-0.3f, 2.6f, 0.0f), glm::vec3(0.3f, 3.2f, 0.2f),
                                       glm::vec3(0.0f, 3.8f, -0.3f)};
  for (const glm::vec3& p : boxes) s.bodies.push_back(box(glm::vec3(0.6f, 0.1f, 0.6f), p, 1.0f));
  const std::uint32_t world = add_world_body(s);
  for (std::uint32_t k = 0; k < n * n; ++k) {
    const glm::vec3 ball = s.bodies[k].position;
    s.joints.push_back(bar(world, k, ball + glm::vec3(0.0f, 1.0f, 0.0f), 1.0f));
  }
  if (push) {
    s.name += "_push";
    for (std::uint32_t i = 0; i < n; ++i) {
      ScheduledImpulse hit;
      hit.target = {false, (n / 2) * n + i};
      hit.time = 2.0f;
      hit.impulse = {6.0f, 0.0f, 0.0f};
      hit.point = s.bodies[hit.target.index].position;
      s.impulses.push_back(hit);
    }
  }
  return s;
}

Scene ragdoll_scene() {
  // Built standing in a doll frame (y up, facing +z, its left at +x, feet at y = 0), every part
  // with the same orientation so that every joint starts at relative rotation identity (inside
  // every Table 1 range), then laid face down (90 degrees about x) with its lowest point 1 m
  // above the floor plane. Masses: Table 1 in slugs x 14.5939. Inertia: from each shape (not
  // Table 1's uniform 1 slug ft^2).
  // 40 iterations: at 20 the shoulder limits (locked axes) give way by up to 0.7 rad for a step
  // when the arms hit the floor; at 40 by at most 0.06 rad (measured, CPU reference).
  Scene s = base("ragdoll", 0.5f, 40);
  s.planes.push_back(plane({0.0, 1.0, 0.0}, 0.0));

  std::vector<Body> parts;
  auto add = [&](Body b, double slugs) {
    b.mass = static_cast<float>(slugs * kSlug);
    parts.push_back(b);
  };
  // Doll-frame layout [m]: ankles y 0.08, knees 0.50, hips 0.94 (x = +-0.1); pelvis 0.92..1.08,
  // lower torso 1.08..1.24, upper torso 1.24..1.48, neck 1.51, head centre 1.64; shoulders at
  // y 1.43 from x = 0.17 to 0.31, arms hanging at x = +-0.28 with elbows at 1.12, wrists 0.86.
  add(box({0.16f, 0.08f, 0.10f}, {0.0f, 1.0f, 0.0f}, 0.0f), 0.35);   // 0 pelvis
  add(box({0.15f, 0.08f, 0.09f}, {0.0f, 1.16f, 0.0f}, 0.0f), 0.25);  // 1 lower torso
  add(box({0.17f, 0.12f, 0.10f}, {0.0f, 1.36f, 0.0f}, 0.0f), 0.20);  // 2 upper torso
  add(sphere(0.11f, {0.0f, 1.64f, 0.0f}, 0.0f), 0.20);               // 3 head
  for (float side : {1.0f, -1.0f}) {                                 // left (+x), then right
    add(box({0.07f, 0.04f, 0.05f}, {side * 0.24f, 1.43f, 0.0f}, 0.0f), 0.25);  // shoulder
    add(capsule(0.045f, 0.095f, {side * 0.28f, 1.26f, 0.0f}, 0.0f), 0.25);     // upper arm
    add(capsule(0.04f, 0.09f, {side * 0.28f, 0.99f, 0.0f}, 0.0f), 0.20);       // lower arm
    add(box({0.03f, 0.06f, 0.04f}, {side * 0.28f, 0.80f, 0.0f}, 0.0f), 0.20);  // hand
  }
  for (float side : {1.0f, -1.0f}) {
    add(capsule(0.07f, 0.15f, {side * 0.1f, 0.72f, 0.0f}, 0.0f), 0.25);        // upper leg
    add(capsule(0.055f, 0.155f, {side * 0.1f, 0.29f, 0.0f}, 0.0f), 0.20);      // lower leg
    add(box({0.05f, 0.04f, 0.11f}, {side * 0.1f, 0.04f, 0.04f}, 0.0f), 0.15);  // foot
  }

  // Joints: (parent, child, doll-frame pin, Table 1 limits of the child in degrees).
  struct Pin {
    std::uint32_t parent, child;
    glm::dvec3 at;
    glm::dvec3 lo, hi;
  };
  std::vector<Pin> pins = {
      {0, 1, {0.0, 1.08, 0.0}, {0, -20, -10}, {20, 20, 10}},       // lower torso
      {1, 2, {0.0, 1.24, 0.0}, {0, -20, -10}, {20, 20, 10}},       // upper torso
      {2, 3, {0.0, 1.51, 0.0}, {-35, -50, -40}, {45, 50, 40}},     // head
      {2, 4, {0.17, 1.43, 0.0}, {-45, 0, 0}, {0, 0, 0}},           // L shoulder
      {4, 5, {0.28, 1.40, 0.0}, {0, 0, -10}, {90, 120, 30}},       // L upper arm
      {5, 6, {0.28, 1.12, 0.0}, {-45, 0, 0}, {0, 110, 0}},         // L lower arm
      {6, 7, {0.28, 0.86, 0.0}, {0, -20, -45}, {90, 20, 45}},      // L hand
      {2, 8, {-0.17, 1.43, 0.0}, {-45, 0, 0}, {0, 0, 0}},          // R shoulder
      {8, 9, {-0.28, 1.40, 0.0}, {0, -120, -30}, {90, 0, 10}},     // R upper arm
      {9, 10, {-0.28, 1.12, 0.0}, {-45, -110, 0}, {0, 0, 0}},      // R lower arm
      {10, 11, {-0.28, 0.86, 0.0}, {-90, -20, -45}, {0, 20, 45}},  // R hand
      {0, 12, {0.1, 0.94, 0.0}, {-60, 0, 0}, {0, 0, 45}},          // L upper leg
      {12, 13, {0.1, 0.50, 0.0}, {0, 0, 0}, {135, 0, 0}},          // L lower leg
      {13, 14, {0.1, 0.08, 0.0}, {-20, -20, 0}, {45, 20, 0}},      // L foot
      {0, 15, {-0.1, 0.94, 0.0}, {-60, 0, 0}, {0, 0, 45}},         // R upper leg
      {15, 16, {-0.1, 0.50, 0.0}, {0, 0, 0}, {135, 0, 0}},         // R lower leg
      {16, 17, {-0.1, 0.08, 0.0}, {-20, -20, 0}, {45, 20, 0}},     // R foot
  };

  // Lay it face down: doll +y (head) -> world +z, doll +z (front) -> world -y.
  const glm::vec4 q = axis_angle({1.0, 0.0, 0.0}, 90.0);
  double lowest = std::numeric_limits<double>::max();
  for (Body& b : parts) {
    b.orientation = q;
    const double y = quat_double::rotate(q, glm::dvec3(b.position)).y;
    lowest = std::min(lowest, y - half_height_y(b));
  }
  const glm::dvec3 shift(0.0, 1.0 - lowest, 0.0);
  auto place = [&](glm::dvec3 doll) { return quat_double::rotate(q, doll) + shift; };
  std::vector<glm::dvec3> doll;  // doll-frame centres
  for (Body& b : parts) {
    doll.emplace_back(b.position);
    b.position = glm::vec3(place(glm::dvec3(b.position)));
    s.bodies.push_back(b);
  }
  // Every body frame is the doll frame turned by q, so the anchors are doll-frame offsets.
  const double to_rad = kPi / 180.0;
  for (const Pin& pin : pins) {
    Joint j;
    j.type = JointType::ball;
    j.body_a = pin.parent;
    j.body_b = pin.child;
    j.anchor_a = glm::vec3(pin.at - doll[pin.parent]);
    j.anchor_b = glm::vec3(pin.at - doll[pin.child]);
    j.limited = true;
    j.limit_lo = glm::vec3(pin.lo * to_rad);
    j.limit_hi = glm::vec3(pin.hi * to_rad);
    s.joints.push_back(j);
  }
  return s;
}

Scene pyramid_scene(std::uint32_t base_count, std::uint32_t copies) {
  // Rows of base, base - 1, ..., 1 boxes; row r's centres at y = 0.5 + r, x centred (so each row
  // is offset by half a box); boxes exactly touching. Friction 0.5, 60 Hz, 25 iterations (a
  // 20-row pyramid needs them with the 30 Hz contact stiffness cap: measured, 10 are not enough).
  std::string name = copies == 1 ? fmt::format("pyramid_{}", base_count)
                                 : fmt::format("pyramid_{}x{}", base_count, copies);
  Scene s = base(std::move(name), 0.5f, 25);
  s.planes.push_back(plane({0.0, 1.0, 0.0}, 0.0));
  for (std::uint32_t c = 0; c < copies; ++c) {
    const double z = 2.0 * (c - 0.5 * (copies - 1.0));
    for (std::uint32_t row = 0; row < base_count; ++row) {
      const std::uint32_t n = base_count - row;
      for (std::uint32_t i = 0; i < n; ++i) {
        const double x = i - 0.5 * (n - 1.0);
        s.bodies.push_back(box(glm::vec3(0.5f), glm::vec3(glm::dvec3(x, 0.5 + row, z)), 1.0f));
      }
    }
  }
  return s;
}

Scene wall_scene(std::uint32_t rows, std::uint32_t columns) {
  // Bricks 1 x 0.5 x 0.5 m (x long), 1 kg, rows 0.5 m high, odd rows shifted +0.5 m in x
  // (running bond), all exactly touching. Friction 0.5, 60 Hz, 25 iterations.
  std::string name =
      rows == 10 && columns == 10 ? std::string("wall") : fmt::format("wall_{}x{}", rows, columns);
  Scene s = base(std::move(name), 0.5f, 25);
  s.planes.push_back(plane({0.0, 1.0, 0.0}, 0.0));
  for (std::uint32_t r = 0; r < rows; ++r) {
    for (std::uint32_t c = 0; c < columns; ++c) {
      const double x = (c - 0.5 * (columns - 1.0)) + (r % 2 == 1 ? 0.5 : 0.0);
      const double y = 0.25 + 0.5 * r;
      s.bodies.push_back(box({0.5f, 0.25f, 0.25f}, glm::vec3(glm::dvec3(x, y, 0.0)), 1.0f));
    }
  }
  return s;
}

Scene chain_scene(std::uint32_t links) {
  // Capsules of radius 0.05 m and core 0.4 m (0.5 m tip to tip), 1 kg, lying end to end along +x
  // at y = 12 (so the chain, 0.5 m per link, clears the floor at y = 0 while it hangs); ball
  // joints at the tips; link 0's free tip pinned to the world at (0, 12, 0). 20 iterations.
  // 240 Hz: when the chain whips, its last links spin at tens of rad/s, and at 60 Hz a velocity-
  // level pin (linearised over a step) opens by up to 0.3 m there; at 240 Hz by 5 cm (measured).
  Scene s = base(fmt::format("chain_{}", links), 0.5f, 20);
  s.settings.time_step = 1.0f / 240.0f;
  s.planes.push_back(plane({0.0, 1.0, 0.0}, 0.0));
  const float r = 0.05f, hh = 0.2f;
  const double pitch = 2.0 * (static_cast<double>(r) + static_cast<double>(hh));
  const glm::vec4 q = axis_angle({0.0, 0.0, 1.0}, -90.0);  // local y -> world +x
  const glm::dvec3 origin(0.0, 12.0, 0.0);
  for (std::uint32_t k = 0; k < links; ++k) {
    Body b = capsule(r, hh, glm::vec3(origin + glm::dvec3((k + 0.5) * pitch, 0.0, 0.0)), 1.0f);
    b.orientation = q;
    s.bodies.push_back(b);
  }
  const std::uint32_t world = add_world_body(s);
  // Link k's tips are at local y = -/+ (hh + r): the -y tip towards the pin.
  const glm::vec3 tip(0.0f, hh + r, 0.0f);
  for (std::uint32_t k = 0; k < links; ++k) {
    Joint j;
    j.type = JointType::ball;
    j.body_a = k == 0 ? world : k - 1;
    j.body_b = k;
    j.anchor_a = k == 0 ? glm::vec3(origin) : tip;
    j.anchor_b = glm::vec3(0.0f, -tip.y, 0.0f);
    s.joints.push_back(j);
  }
  return s;
}

Scene box_rain_scene(std::uint32_t count) {
  // Boxes of edge 0.5 m, 1 kg, on a lattice 0.75 m apart starting at y = 1 (x fastest, then z,
  // then y), above an open container of 4 walls and a floor whose inner width W makes the
  // boxes fill it about 3 layers deep: W^2 = count * 0.25 m^2 / 3, at least 2 m. Each box is
  // turned about y by 0-30 degrees (a fixed pattern), so the boxes of a column land face on face
  // turned against each other and the manifolds are clipped polygons, not aligned squares.
  // (Turned about y only, a box's footprint stays within 0.34 m of its centre, less than half
  // the 0.75 m spacing.) Friction 0.5, 60 Hz, 25 iterations (at 8 the columns never come to
  // rest; at 25 the 1,000-box scene is at rest, 3e-5 m/s, after 10 s).
  Scene s = base(fmt::format("box_rain_{}", count), 0.5f, 25);
  const double width = std::max(2.0, std::sqrt(count * 0.25 / 3.0));
  const double spacing = 0.75;
  // A box turned by up to 30 degrees about y reaches 0.34 m from its centre in x and z.
  const auto side = static_cast<std::uint32_t>(std::floor((width - 0.7 - 0.1) / spacing)) + 1u;
  const double half = 0.5 * width;
  add_box_planes(s, glm::vec3(glm::dvec3(-half, 0.0, -half)),
                 glm::vec3(glm::dvec3(half, 0.0, half)), 0, true);
  for (std::uint32_t k = 0; k < count; ++k) {
    const std::uint32_t i = k % side, j = (k / side) % side, layer = k / (side * side);
    const double x = (i - 0.5 * (side - 1.0)) * spacing;
    const double z = (j - 0.5 * (side - 1.0)) * spacing;
    const double y = 1.0 + layer * spacing;
    Body b = box(glm::vec3(0.25f), glm::vec3(glm::dvec3(x, y, z)), 1.0f);
    b.orientation = axis_angle({0.0, 1.0, 0.0}, 30.0 * ((k * 7u) % 11u) / 10.0);
    s.bodies.push_back(b);
  }
  return s;
}

}  // namespace vkphys
