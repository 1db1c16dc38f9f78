// The rigid-body narrowphase (kernels/collide.h): analytic cases for every pair of shapes,
// invariance under swapping and rigid motions, feature-id stability and degenerate inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "kernels/collide.h"

namespace {

using vkphys::kern::collide;
using vkphys::kern::Collider;
using vkphys::kern::Manifold;
using vkphys::kern::quat_axis_angle;
using vkphys::kern::quat_mul;
using vkphys::kern::quat_rotate;

using glm::vec3;
using glm::vec4;

constexpr float kTol = 1e-5f;
constexpr float kMargin = 0.05f;
constexpr float kPi = 3.14159265358979f;
const vec4 kIdentity(0.0f, 0.0f, 0.0f, 1.0f);

Collider make(std::uint32_t type, vec3 pos, vec4 rot, vec4 dims) {
  Collider c{};
  c.type = type;
  c.pos = pos;
  c.rot = rot;
  c.dims = dims;
  return c;
}

Collider plane(vec3 pos, vec4 rot = kIdentity) {
  return make(VKPHYS_SHAPE_PLANE, pos, rot, vec4(0.0f));
}
Collider sphere(vec3 pos, float r) {
  return make(VKPHYS_SHAPE_SPHERE, pos, kIdentity, vec4(0.0f, 0.0f, 0.0f, r));
}
Collider capsule(vec3 pos, vec4 rot, float half_len, float r) {
  return make(VKPHYS_SHAPE_CAPSULE, pos, rot, vec4(0.0f, half_len, 0.0f, r));
}
Collider box(vec3 pos, vec4 rot, vec3 half) {
  return make(VKPHYS_SHAPE_BOX, pos, rot, vec4(half, 0.0f));
}

vec4 rot_about(vec3 axis, float deg) {
  return quat_axis_angle(glm::normalize(axis), deg * kPi / 180.0f);
}
// Capsule axis (local y) along world x.
const vec4 kAlongX = quat_axis_angle(vec3(0.0f, 0.0f, 1.0f), -0.5f * kPi);
// Capsule axis along world z.
const vec4 kAlongZ = quat_axis_angle(vec3(1.0f, 0.0f, 0.0f), 0.5f * kPi);

void expect_vec(vec3 got, vec3 want, float tol = kTol) {
  EXPECT_NEAR(got.x, want.x, tol);
  EXPECT_NEAR(got.y, want.y, tol);
  EXPECT_NEAR(got.z, want.z, tol);
}

bool finite(const Manifold& m) {
  bool ok = std::isfinite(m.normal.x) && std::isfinite(m.normal.y) && std::isfinite(m.normal.z);
  for (std::uint32_t i = 0; i < m.count; ++i)
    for (int k = 0; k < 4; ++k) ok = ok && std::isfinite(m.point[i][k]);
  return ok && m.count <= VKPHYS_MAX_MANIFOLD;
}

// The manifold has a point at p with gap g (any order).
void expect_has_point(const Manifold& m, vec3 p, float g, float tol = kTol) {
  for (std::uint32_t i = 0; i < m.count; ++i) {
    vec4 q = m.point[i];
    if (glm::length(vec3(q) - p) < tol && std::abs(q.w - g) < tol) return;
  }
  std::string got;
  for (std::uint32_t i = 0; i < m.count; ++i) {
    vec4 q = m.point[i];
    got += " (" + std::to_string(q.x) + "," + std::to_string(q.y) + "," + std::to_string(q.z) +
           " g=" + std::to_string(q.w) + ")";
  }
  ADD_FAILURE() << "no point at (" << p.x << "," << p.y << "," << p.z << ") gap " << g << "; got"
                << got;
}

// Same points (as sets) and gaps, normals related by `sign`.
void expect_same_manifold(const Manifold& m, const Manifold& ref, float sign = 1.0f) {
  ASSERT_EQ(m.count, ref.count);
  expect_vec(m.normal, sign * ref.normal);
  for (std::uint32_t i = 0; i < ref.count; ++i)
    expect_has_point(m, vec3(ref.point[i]), ref.point[i].w);
}

std::set<std::uint32_t> ids(const Manifold& m) {
  std::set<std::uint32_t> s;
  for (std::uint32_t i = 0; i < m.count; ++i) s.insert(m.feature[i]);
  return s;
}

// Moves a collider by the rigid motion x -> q x + t.
Collider moved(Collider c, vec4 q, vec3 t) {
  c.pos = quat_rotate(q, c.pos) + t;
  c.rot = quat_mul(q, c.rot);
  return c;
}

// collide(a, b) after moving both by (q, t) equals the moved manifold of collide(a, b).
void expect_rigid_invariance(Collider a, Collider b) {
  const vec4 q = rot_about(vec3(0.3f, -1.0f, 0.5f), 37.0f);
  const vec3 t(1.5f, -2.0f, 0.25f);
  Manifold ref = collide(a, b, kMargin);
  Manifold m = collide(moved(a, q, t), moved(b, q, t), kMargin);
  ASSERT_GT(ref.count, 0u);
  ASSERT_EQ(m.count, ref.count);
  expect_vec(m.normal, quat_rotate(q, ref.normal), 2e-5f);
  for (std::uint32_t i = 0; i < ref.count; ++i)
    expect_has_point(m, quat_rotate(q, vec3(ref.point[i])) + t, ref.point[i].w, 2e-5f);
  EXPECT_EQ(ids(m), ids(ref));
}

// ---------------------------------------------------------------------------------------------
// Plane pairs.

TEST(Collide, PlaneSphere) {
  Manifold m = collide(plane(vec3(0.0f)), sphere(vec3(1.0f, 0.49f, 2.0f), 0.5f), kMargin);
  ASSERT_EQ(m.count, 1u);
  expect_vec(m.normal, vec3(0.0f, 1.0f, 0.0f));
  expect_has_point(m, vec3(1.0f, -0.005f, 2.0f), -0.01f);
  EXPECT_EQ(m.feature[0], 0u);
  EXPECT_EQ(collide(plane(vec3(0.0f)), sphere(vec3(0.0f, 0.6f, 0.0f), 0.5f), kMargin).count, 0u);
  // A tilted plane: normal is its local +y.
  const vec4 q = rot_about(vec3(0.0f, 0.0f, 1.0f), 30.0f);
  const vec3 n = quat_rotate(q, vec3(0.0f, 1.0f, 0.0f));
  const vec3 p0(0.5f, 1.0f, -1.0f);
  m = collide(plane(p0, q), sphere(p0 + 0.52f * n, 0.5f), kMargin);
  ASSERT_EQ(m.count, 1u);
  expect_vec(m.normal, n);
  expect_has_point(m, p0 + 0.01f * n, 0.02f);
}

TEST(Collide, PlaneCapsuleLying) {
  Manifold m =
      collide(plane(vec3(0.0f)), capsule(vec3(0.0f, 0.24f, 0.0f), kAlongX, 1.0f, 0.25f), kMargin);
  ASSERT_EQ(m.count, 2u);
  expect_vec(m.normal, vec3(0.0f, 1.0f, 0.0f));
  expect_has_point(m, vec3(1.0f, -0.005f, 0.0f), -0.01f);
  expect_has_point(m, vec3(-1.0f, -0.005f, 0.0f), -0.01f);
  EXPECT_EQ(ids(m), (std::set<std::uint32_t>{0u, 1u}));
}

TEST(Collide, PlaneCapsuleStanding) {
  Manifold m =
      collide(plane(vec3(0.0f)), capsule(vec3(2.0f, 1.24f, 0.0f), kIdentity, 1.0f, 0.25f), kMargin);
  ASSERT_EQ(m.count, 1u);
  expect_has_point(m, vec3(2.0f, -0.005f, 0.0f), -0.01f);
  EXPECT_EQ(m.feature[0], 0u);  // the -y end
}

TEST(Collide, PlaneBoxResting) {
  Manifold m = collide(plane(vec3(0.0f)),
                       box(vec3(0.0f, 0.29f, 0.0f), kIdentity, vec3(0.5f, 0.3f, 0.4f)), kMargin);
  ASSERT_EQ(m.count, 4u);
  expect_vec(m.normal, vec3(0.0f, 1.0f, 0.0f));
  for (float x : {-0.5f, 0.5f})
    for (float z : {-0.4f, 0.4f}) expect_has_point(m, vec3(x, -0.005f, z), -0.01f);
  EXPECT_EQ(ids(m), (std::set<std::uint32_t>{0u, 1u, 4u, 5u}));
}

TEST(Collide, PlaneBoxTiltedOnEdge) {
  const float c = std::sqrt(0.5f) - 0.01f;
  Manifold m = collide(
      plane(vec3(0.0f)),
      box(vec3(0.0f, c, 0.0f), rot_about(vec3(0.0f, 0.0f, 1.0f), 45.0f), vec3(0.5f)), kMargin);
  ASSERT_EQ(m.count, 2u);
  expect_has_point(m, vec3(0.0f, -0.005f, 0.5f), -0.01f, 2e-5f);
  expect_has_point(m, vec3(0.0f, -0.005f, -0.5f), -0.01f, 2e-5f);
}

TEST(Collide, PlaneBoxMargin) {
  const vec3 half(0.5f, 0.3f, 0.4f);
  EXPECT_EQ(
      collide(plane(vec3(0.0f)), box(vec3(0.0f, 0.36f, 0.0f), kIdentity, half), kMargin).count, 0u);
  Manifold m = collide(plane(vec3(0.0f)), box(vec3(0.0f, 0.32f, 0.0f), kIdentity, half), kMargin);
  ASSERT_EQ(m.count, 4u);
  for (float x : {-0.5f, 0.5f})
    for (float z : {-0.4f, 0.4f}) expect_has_point(m, vec3(x, 0.01f, z), 0.02f);
}

TEST(Collide, PlaneBoxThinKeepsFourDeepest) {
  // All 8 corners are within a large margin: the bottom 4 are kept.
  Manifold m = collide(plane(vec3(0.0f)),
                       box(vec3(0.0f, 0.01f, 0.0f), kIdentity, vec3(0.5f, 0.02f, 0.5f)), 0.2f);
  ASSERT_EQ(m.count, 4u);
  EXPECT_EQ(ids(m), (std::set<std::uint32_t>{0u, 1u, 4u, 5u}));
  for (std::uint32_t i = 0; i < 4; ++i) EXPECT_NEAR(m.point[i].w, -0.01f, kTol);
}

// ---------------------------------------------------------------------------------------------
// Sphere pairs.

TEST(Collide, SphereSphere) {
  Manifold m = collide(sphere(vec3(0.0f), 0.5f), sphere(vec3(0.54f, 0.72f, 0.0f), 0.5f), kMargin);
  ASSERT_EQ(m.count, 1u);
  const vec3 n(0.6f, 0.8f, 0.0f);
  expect_vec(m.normal, n);
  expect_has_point(m, 0.45f * n, -0.1f);
  EXPECT_EQ(collide(sphere(vec3(0.0f), 0.5f), sphere(vec3(0.0f, 1.06f, 0.0f), 0.5f), kMargin).count,
            0u);
}

TEST(Collide, SphereCapsule) {
  const Collider cap = capsule(vec3(0.0f), kAlongX, 1.0f, 0.25f);
  Manifold m = collide(sphere(vec3(0.3f, 0.74f, 0.0f), 0.5f), cap, kMargin);
  ASSERT_EQ(m.count, 1u);
  expect_vec(m.normal, vec3(0.0f, -1.0f, 0.0f));
  expect_has_point(m, vec3(0.3f, 0.245f, 0.0f), -0.01f);
  // Beyond the +x end: against the end point.
  m = collide(sphere(vec3(1.3f, 0.4f, 0.0f), 0.3f), cap, kMargin);
  ASSERT_EQ(m.count, 1u);
  const vec3 n = glm::normalize(vec3(-0.3f, -0.4f, 0.0f));
  expect_vec(m.normal, n);
  expect_has_point(m, vec3(1.3f, 0.4f, 0.0f) + (0.3f - 0.025f) * n, -0.05f);
}

TEST(Collide, SphereBoxFace) {
  const Collider b = box(vec3(0.0f), kIdentity, vec3(1.0f, 0.5f, 0.75f));
  Manifold m = collide(sphere(vec3(0.2f, 0.79f, 0.1f), 0.3f), b, kMargin);
  ASSERT_EQ(m.count, 1u);
  expect_vec(m.normal, vec3(0.0f, -1.0f, 0.0f));
  expect_has_point(m, vec3(0.2f, 0.495f, 0.1f), -0.01f);
}

TEST(Collide, SphereBoxEdge) {
  const Collider b = box(vec3(0.0f), kIdentity, vec3(1.0f, 0.5f, 0.75f));
  const vec3 c(1.2f, 0.7f, 0.0f);
  Manifold m = collide(sphere(c, 0.3f), b, kMargin);
  ASSERT_EQ(m.count, 1u);
  const vec3 n = glm::normalize(vec3(-1.0f, -1.0f, 0.0f));
  const float g = std::sqrt(0.08f) - 0.3f;
  expect_vec(m.normal, n);
  expect_has_point(m, c + (0.3f + 0.5f * g) * n, g);
}

TEST(Collide, SphereBoxCorner) {
  const Collider b = box(vec3(0.0f), kIdentity, vec3(1.0f, 0.5f, 0.75f));
  const vec3 c(1.1f, 0.6f, 0.85f);
  Manifold m = collide(sphere(c, 0.2f), b, kMargin);
  ASSERT_EQ(m.count, 1u);
  const vec3 n = glm::normalize(vec3(-1.0f));
  const float g = std::sqrt(0.03f) - 0.2f;
  expect_vec(m.normal, n);
  expect_has_point(m, c + (0.2f + 0.5f * g) * n, g);
}

TEST(Collide, SphereBoxCentreInside) {
  const Collider b = box(vec3(0.0f), kIdentity, vec3(1.0f, 0.5f, 0.75f));
  Manifold m = collide(sphere(vec3(0.9f, 0.1f, 0.2f), 0.2f), b, kMargin);
  ASSERT_EQ(m.count, 1u);
  expect_vec(m.normal, vec3(-1.0f, 0.0f, 0.0f));  // pushed out through +x
  expect_has_point(m, vec3(0.85f, 0.1f, 0.2f), -0.3f);
  // Exactly at the centre: nearest face is +y (smallest extent); defined, no NaN.
  m = collide(sphere(vec3(0.0f), 0.2f), b, kMargin);
  ASSERT_EQ(m.count, 1u);
  EXPECT_TRUE(finite(m));
  expect_vec(m.normal, vec3(0.0f, -1.0f, 0.0f));
  EXPECT_NEAR(m.point[0].w, -0.7f, kTol);
}

TEST(Collide, SphereBoxRotatedInvariance) {
  expect_rigid_invariance(sphere(vec3(1.2f, 0.7f, 0.0f), 0.3f),
                          box(vec3(0.0f), kIdentity, vec3(1.0f, 0.5f, 0.75f)));
  expect_rigid_invariance(sphere(vec3(0.9f, 0.1f, 0.2f), 0.2f),
                          box(vec3(0.0f), kIdentity, vec3(1.0f, 0.5f, 0.75f)));
}

// ---------------------------------------------------------------------------------------------
// Capsule pairs.

TEST(Collide, CapsuleCapsuleCrossing) {
  Manifold m = collide(capsule(vec3(0.0f), kAlongX, 1.0f, 0.2f),
                       capsule(vec3(0.1f, 0.48f, 0.2f), kAlongZ, 1.0f, 0.3f), kMargin);
  ASSERT_EQ(m.count, 1u);
  expect_vec(m.normal, vec3(0.0f, 1.0f, 0.0f));
  expect_has_point(m, vec3(0.1f, 0.19f, 0.0f), -0.02f);
  EXPECT_EQ(m.feature[0], 2u);
}

TEST(Collide, CapsuleCapsuleParallel) {
  Manifold m = collide(capsule(vec3(0.0f), kAlongX, 1.0f, 0.2f),
                       capsule(vec3(0.8f, 0.39f, 0.0f), kAlongX, 0.5f, 0.2f), kMargin);
  ASSERT_EQ(m.count, 2u);
  expect_vec(m.normal, vec3(0.0f, 1.0f, 0.0f));
  expect_has_point(m, vec3(0.3f, 0.195f, 0.0f), -0.01f);
  expect_has_point(m, vec3(1.0f, 0.195f, 0.0f), -0.01f);
  EXPECT_EQ(ids(m), (std::set<std::uint32_t>{0u, 1u}));
  // Parallel but not overlapping: one point between the facing ends.
  m = collide(capsule(vec3(0.0f), kAlongX, 1.0f, 0.2f),
              capsule(vec3(2.3f, 0.0f, 0.0f), kAlongX, 1.0f, 0.2f), kMargin);
  ASSERT_EQ(m.count, 1u);
  expect_vec(m.normal, vec3(1.0f, 0.0f, 0.0f));
  expect_has_point(m, vec3(1.15f, 0.0f, 0.0f), -0.1f);
}

// Crossed at 2 degrees, b 0.01 m into a at the crossing: at the ends of the overlap (x = +-cos 2)
// b's axis is w = cos 2 sin 2 = 0.0349 m to the side, so the vertical line there enters b
// sqrt(r_b^2 - w^2) below its axis: gap 0.19 - 0.0937 - 0.1 = -0.00372 m, not the axes'
// -0.01 m, which put b's surface point w^2 / (2 r_b) = 6.1 mm outside b. The crossing itself
// keeps the least gap as a third point.
TEST(Collide, CapsuleCapsuleNearlyParallelCrossed) {
  const vec4 crossed = quat_mul(rot_about(vec3(0.0f, 1.0f, 0.0f), 2.0f), kAlongX);
  Manifold m = collide(capsule(vec3(0.0f), kAlongX, 1.0f, 0.1f),
                       capsule(vec3(0.0f, 0.19f, 0.0f), crossed, 1.0f, 0.1f), kMargin);
  ASSERT_EQ(m.count, 3u);
  expect_vec(m.normal, vec3(0.0f, 1.0f, 0.0f));
  const float end = 0.99939083f;
  const float g_end = -0.00372037f;
  expect_has_point(m, vec3(-end, 0.1f + 0.5f * g_end, 0.0f), g_end);
  expect_has_point(m, vec3(end, 0.1f + 0.5f * g_end, 0.0f), g_end);
  // The crossing's parameter comes from nearly parallel segments: 1.1e-5 m of rounding along x.
  expect_has_point(m, vec3(0.0f, 0.095f, 0.0f), -0.01f, 1e-4f);
  EXPECT_EQ(ids(m), (std::set<std::uint32_t>{0u, 1u, 2u}));
}

TEST(Collide, CapsuleCapsuleInvariance) {
  Collider a = capsule(vec3(0.0f), kAlongX, 1.0f, 0.2f);
  Collider b = capsule(vec3(0.8f, 0.39f, 0.0f), kAlongX, 0.5f, 0.2f);
  expect_rigid_invariance(a, b);
  // Swapping the two capsules negates the normal and keeps the points.
  expect_same_manifold(collide(b, a, kMargin), collide(a, b, kMargin), -1.0f);
  b = capsule(vec3(0.1f, 0.48f, 0.2f), kAlongZ, 1.0f, 0.3f);
  expect_rigid_invariance(a, b);
  expect_same_manifold(collide(b, a, kMargin), collide(a, b, kMargin), -1.0f);
}

TEST(Collide, CapsuleBoxLying) {
  const Collider b = box(vec3(0.0f), kIdentity, vec3(1.0f, 0.5f, 1.0f));
  const Collider cap = capsule(vec3(0.2f, 0.69f, 0.1f), kAlongX, 0.5f, 0.2f);
  Manifold m = collide(cap, b, kMargin);
  ASSERT_EQ(m.count, 2u);
  expect_vec(m.normal, vec3(0.0f, -1.0f, 0.0f));
  expect_has_point(m, vec3(-0.3f, 0.495f, 0.1f), -0.01f);
  expect_has_point(m, vec3(0.7f, 0.495f, 0.1f), -0.01f);
  expect_rigid_invariance(cap, b);
  // Hanging over the +x edge: clipped to the face.
  m = collide(capsule(vec3(0.8f, 0.69f, 0.1f), kAlongX, 0.5f, 0.2f), b, kMargin);
  ASSERT_EQ(m.count, 2u);
  expect_has_point(m, vec3(0.3f, 0.495f, 0.1f), -0.01f);
  expect_has_point(m, vec3(1.0f, 0.495f, 0.1f), -0.01f);
}

TEST(Collide, CapsuleBoxStanding) {
  const Collider b = box(vec3(0.0f), kIdentity, vec3(1.0f, 0.5f, 1.0f));
  const Collider cap = capsule(vec3(0.3f, 1.19f, -0.2f), kIdentity, 0.5f, 0.2f);
  Manifold m = collide(cap, b, kMargin);
  ASSERT_EQ(m.count, 1u);
  expect_vec(m.normal, vec3(0.0f, -1.0f, 0.0f));
  expect_has_point(m, vec3(0.3f, 0.495f, -0.2f), -0.01f);
  expect_rigid_invariance(cap, b);
}

TEST(Collide, CapsuleBoxCoreInside) {
  // The segment's lower end is 0.1 inside the top face: SAT, deepest end carries the point.
  const Collider b = box(vec3(0.0f), kIdentity, vec3(1.0f, 0.5f, 1.0f));
  Manifold m = collide(capsule(vec3(0.3f, 0.9f, -0.2f), kIdentity, 0.5f, 0.2f), b, kMargin);
  ASSERT_EQ(m.count, 1u);
  expect_vec(m.normal, vec3(0.0f, -1.0f, 0.0f));
  expect_has_point(m, vec3(0.3f, 0.35f, -0.2f), -0.3f);
}

TEST(Collide, CapsuleBoxAcrossEdge) {
  // A capsule along z just beyond the box's top +x edge: one point on the edge, diagonal normal.
  const Collider b = box(vec3(0.0f), kIdentity, vec3(1.0f, 0.5f, 1.0f));
  const vec3 c(1.1f, 0.6f, 0.0f);
  Manifold m = collide(capsule(c, kAlongZ, 0.5f, 0.2f), b, kMargin);
  ASSERT_EQ(m.count, 1u);
  const vec3 n = glm::normalize(vec3(-1.0f, -1.0f, 0.0f));
  const float g = std::sqrt(0.02f) - 0.2f;
  expect_vec(m.normal, n);
  EXPECT_NEAR(m.point[0].w, g, kTol);
  EXPECT_NEAR(m.point[0].x, 1.1f + (0.2f + 0.5f * g) * n.x, kTol);
  EXPECT_NEAR(m.point[0].y, 0.6f + (0.2f + 0.5f * g) * n.y, kTol);
}

// ---------------------------------------------------------------------------------------------
// Box-box.

TEST(Collide, BoxBoxSmallOnLarge) {
  const Collider a = box(vec3(0.0f), kIdentity, vec3(1.0f, 0.5f, 1.0f));
  const vec4 q = rot_about(vec3(0.0f, 1.0f, 0.0f), 10.0f);
  const vec3 c(0.1f, 0.69f, -0.2f);
  const Collider b = box(c, q, vec3(0.3f, 0.2f, 0.4f));
  Manifold m = collide(a, b, kMargin);
  ASSERT_EQ(m.count, 4u);
  expect_vec(m.normal, vec3(0.0f, 1.0f, 0.0f));
  for (float x : {-0.3f, 0.3f}) {
    for (float z : {-0.4f, 0.4f}) {
      vec3 p = c + quat_rotate(q, vec3(x, -0.2f, z));
      expect_has_point(m, vec3(p.x, 0.495f, p.z), -0.01f);
    }
  }
  // b under a: flipped normal, same points.
  const Collider b2 = box(vec3(c.x, -c.y, c.z), q, vec3(0.3f, 0.2f, 0.4f));
  m = collide(a, b2, kMargin);
  ASSERT_EQ(m.count, 4u);
  expect_vec(m.normal, vec3(0.0f, -1.0f, 0.0f));
  for (float x : {-0.3f, 0.3f}) {
    for (float z : {-0.4f, 0.4f}) {
      vec3 p = c + quat_rotate(q, vec3(x, -0.2f, z));
      expect_has_point(m, vec3(p.x, -0.495f, p.z), -0.01f);
    }
  }
  // Swapped roles: negated normal, same gaps and points.
  expect_same_manifold(collide(b, a, kMargin), collide(a, b, kMargin), -1.0f);
  expect_rigid_invariance(a, b);
}

TEST(Collide, BoxBoxSameSizeRotated) {
  const vec3 half(0.5f);
  const Collider a = box(vec3(0.0f), kIdentity, half);
  const vec4 q = rot_about(vec3(0.0f, 1.0f, 0.0f), 10.0f);
  const Collider b = box(vec3(0.1f, 0.99f, 0.05f), q, half);
  Manifold m = collide(a, b, kMargin);
  ASSERT_EQ(m.count, 4u);
  expect_vec(m.normal, vec3(0.0f, 1.0f, 0.0f));
  float area = 0.0f;
  for (std::uint32_t i = 0; i < 4; ++i) {
    vec4 p = m.point[i];
    EXPECT_NEAR(p.w, -0.01f, kTol);
    EXPECT_NEAR(p.y, 0.495f, kTol);
    // Inside both footprints.
    EXPECT_LE(std::abs(p.x), 0.5f + kTol);
    EXPECT_LE(std::abs(p.z), 0.5f + kTol);
    vec3 l = quat_rotate(vkphys::kern::quat_conj(q), vec3(p) - b.pos);
    EXPECT_LE(std::abs(l.x), 0.5f + kTol);
    EXPECT_LE(std::abs(l.z), 0.5f + kTol);
  }
  // The 4 points span a large part of the overlap (about 0.76 m^2): the quad's area, from the
  // two triangles of its diagonals in the order deepest, farthest, side 1, side 2.
  auto tri = [](vec3 p, vec3 r, vec3 s) { return 0.5f * std::abs(glm::cross(r - p, s - p).y); };
  area = tri(vec3(m.point[0]), vec3(m.point[1]), vec3(m.point[2])) +
         tri(vec3(m.point[0]), vec3(m.point[1]), vec3(m.point[3]));
  EXPECT_GT(area, 0.5f);
  expect_same_manifold(collide(b, a, kMargin), m, -1.0f);
  expect_rigid_invariance(a, b);
}

TEST(Collide, BoxBoxEdgeEdge) {
  const float h = std::sqrt(0.5f);  // half diagonal of a unit cube's face
  const Collider a = box(vec3(0.0f), rot_about(vec3(0.0f, 0.0f, 1.0f), 45.0f), vec3(0.5f));
  const Collider b =
      box(vec3(0.0f, 2.0f * h - 0.05f, 0.0f), rot_about(vec3(1.0f, 0.0f, 0.0f), 45.0f), vec3(0.5f));
  Manifold m = collide(a, b, kMargin);
  ASSERT_EQ(m.count, 1u);
  expect_vec(m.normal, vec3(0.0f, 1.0f, 0.0f));
  expect_has_point(m, vec3(0.0f, h - 0.025f, 0.0f), -0.05f);
  EXPECT_NE(m.feature[0] & 0x8000u, 0u);
  expect_same_manifold(collide(b, a, kMargin), m, -1.0f);
  expect_rigid_invariance(a, b);
  // Separated edges within the margin: a speculative point.
  const Collider b3 =
      box(vec3(0.0f, 2.0f * h + 0.03f, 0.0f), rot_about(vec3(1.0f, 0.0f, 0.0f), 45.0f), vec3(0.5f));
  m = collide(a, b3, kMargin);
  ASSERT_EQ(m.count, 1u);
  expect_has_point(m, vec3(0.0f, h + 0.015f, 0.0f), 0.03f);
}

TEST(Collide, BoxBoxMargin) {
  const Collider a = box(vec3(0.0f), kIdentity, vec3(0.5f));
  EXPECT_EQ(collide(a, box(vec3(0.2f, 1.06f, 0.0f), kIdentity, vec3(0.5f)), kMargin).count, 0u);
  // b's bottom face lies inside a's top face, 0.02 above it: 4 speculative points.
  Manifold m = collide(a, box(vec3(0.0f, 0.92f, 0.0f), kIdentity, vec3(0.4f)), kMargin);
  ASSERT_EQ(m.count, 4u);
  for (float x : {-0.4f, 0.4f})
    for (float z : {-0.4f, 0.4f}) expect_has_point(m, vec3(x, 0.51f, z), 0.02f);
}

TEST(Collide, BoxBoxFeatureIdsStable) {
  const Collider a = box(vec3(0.0f), kIdentity, vec3(1.0f, 0.5f, 1.0f));
  const vec4 q = rot_about(vec3(0.0f, 1.0f, 0.0f), 10.0f);
  const vec4 dq = quat_axis_angle(glm::normalize(vec3(0.3f, 0.2f, 1.0f)), 0.001f);
  const vec3 dx(1e-4f, -1e-4f, 1e-4f);
  // Small box on a large one (4 incident vertices) and same-size boxes (clipped, reduced).
  const Collider small = box(vec3(0.1f, 0.69f, -0.2f), q, vec3(0.3f, 0.2f, 0.4f));
  const Collider same_a = box(vec3(0.0f), kIdentity, vec3(0.5f));
  const Collider same_b = box(vec3(0.1f, 0.99f, 0.05f), q, vec3(0.5f));
  struct Case {
    Collider a, b;
  };
  for (const Case& c : {Case{a, small}, Case{same_a, same_b}}) {
    Manifold m0 = collide(c.a, c.b, kMargin);
    ASSERT_EQ(m0.count, 4u);
    EXPECT_EQ(ids(m0).size(), 4u);
    Collider nudged = c.b;
    nudged.pos += dx;
    nudged.rot = quat_mul(dq, nudged.rot);
    Manifold m1 = collide(c.a, nudged, kMargin);
    EXPECT_EQ(ids(m1), ids(m0));
    nudged = c.b;
    nudged.pos -= dx;
    nudged.rot = quat_mul(vkphys::kern::quat_conj(dq), nudged.rot);
    EXPECT_EQ(ids(collide(c.a, nudged, kMargin)), ids(m0));
  }
}

TEST(Collide, CapsuleFeatureIdsStable) {
  const Collider b = box(vec3(0.0f), kIdentity, vec3(1.0f, 0.5f, 1.0f));
  const Collider cap = capsule(vec3(0.2f, 0.69f, 0.1f), kAlongX, 0.5f, 0.2f);
  Collider nudged = cap;
  nudged.pos += vec3(1e-4f, -1e-4f, 1e-4f);
  nudged.rot = quat_mul(quat_axis_angle(vec3(0.0f, 0.0f, 1.0f), 0.001f), nudged.rot);
  EXPECT_EQ(ids(collide(nudged, b, kMargin)), ids(collide(cap, b, kMargin)));
  const Collider c0 = capsule(vec3(0.0f), kAlongX, 1.0f, 0.2f);
  const Collider c1 = capsule(vec3(0.8f, 0.39f, 0.0f), kAlongX, 0.5f, 0.2f);
  nudged = c1;
  nudged.pos += vec3(1e-4f, -1e-4f, 1e-4f);
  nudged.rot = quat_mul(quat_axis_angle(vec3(0.0f, 0.0f, 1.0f), 0.001f), nudged.rot);
  EXPECT_EQ(ids(collide(c0, nudged, kMargin)), ids(collide(c0, c1, kMargin)));
}

// ---------------------------------------------------------------------------------------------
// Dispatch and degenerate inputs.

TEST(Collide, UnsupportedPairsAreEmpty) {
  const Collider p = plane(vec3(0.0f));
  EXPECT_EQ(collide(p, p, kMargin).count, 0u);
  const Collider none = make(VKPHYS_SHAPE_NONE, vec3(0.0f), kIdentity, vec4(1.0f));
  const Collider s = sphere(vec3(0.0f), 1.0f);
  EXPECT_EQ(collide(s, none, kMargin).count, 0u);
  EXPECT_EQ(collide(none, none, kMargin).count, 0u);
  EXPECT_EQ(collide(box(vec3(0.0f), kIdentity, vec3(1.0f)), s, kMargin).count, 0u);  // misordered
}

TEST(Collide, DegenerateInputsHaveNoNaN) {
  const vec3 o(0.3f, -0.2f, 0.1f);
  Manifold m = collide(sphere(o, 0.5f), sphere(o, 0.25f), kMargin);
  ASSERT_EQ(m.count, 1u);
  EXPECT_TRUE(finite(m));
  expect_vec(m.normal, vec3(0.0f, 1.0f, 0.0f));
  EXPECT_NEAR(m.point[0].w, -0.75f, kTol);

  // Sphere centre on a capsule's segment.
  m = collide(sphere(o, 0.5f), capsule(o, kAlongX, 1.0f, 0.2f), kMargin);
  ASSERT_EQ(m.count, 1u);
  EXPECT_TRUE(finite(m));

  // Zero-length capsules: coincident, and against every other shape.
  const Collider dot0 = capsule(o, kIdentity, 0.0f, 0.3f);
  m = collide(dot0, dot0, kMargin);
  ASSERT_EQ(m.count, 1u);
  EXPECT_TRUE(finite(m));
  EXPECT_NEAR(m.point[0].w, -0.6f, kTol);
  m = collide(dot0, capsule(o + vec3(0.0f, 0.5f, 0.0f), kIdentity, 0.0f, 0.3f), kMargin);
  ASSERT_EQ(m.count, 1u);
  expect_vec(m.normal, vec3(0.0f, 1.0f, 0.0f));
  EXPECT_NEAR(m.point[0].w, -0.1f, kTol);
  m = collide(plane(vec3(0.0f)), capsule(vec3(0.0f, 0.29f, 0.0f), kIdentity, 0.0f, 0.3f), kMargin);
  EXPECT_TRUE(finite(m));
  ASSERT_EQ(m.count, 1u);
  expect_has_point(m, vec3(0.0f, -0.005f, 0.0f), -0.01f);
  m = collide(capsule(vec3(0.0f, 0.79f, 0.0f), kIdentity, 0.0f, 0.3f),
              box(vec3(0.0f), kIdentity, vec3(0.5f)), kMargin);
  ASSERT_EQ(m.count, 1u);
  EXPECT_TRUE(finite(m));
  expect_has_point(m, vec3(0.0f, 0.495f, 0.0f), -0.01f);
  m = collide(capsule(vec3(0.1f, 0.0f, 0.0f), kIdentity, 0.0f, 0.3f),
              box(vec3(0.0f), kIdentity, vec3(0.5f)), kMargin);
  ASSERT_EQ(m.count, 1u);
  EXPECT_TRUE(finite(m));
  expect_vec(m.normal, vec3(-1.0f, 0.0f, 0.0f));
  EXPECT_NEAR(m.point[0].w, -0.7f, kTol);

  // Coaxial overlapping capsules, identical capsules, crossing segments.
  const Collider c = capsule(o, kAlongX, 1.0f, 0.2f);
  m = collide(c, capsule(o + vec3(0.5f, 0.0f, 0.0f), kAlongX, 1.0f, 0.2f), kMargin);
  EXPECT_TRUE(finite(m));
  EXPECT_GT(m.count, 0u);
  m = collide(c, c, kMargin);
  EXPECT_TRUE(finite(m));
  EXPECT_GT(m.count, 0u);
  m = collide(c, capsule(o, kAlongZ, 1.0f, 0.2f), kMargin);
  ASSERT_EQ(m.count, 1u);
  EXPECT_TRUE(finite(m));
  EXPECT_NEAR(std::abs(m.normal.y), 1.0f, kTol);
  EXPECT_NEAR(m.point[0].w, -0.4f, kTol);

  // Capsule segment inside a box, coincident boxes.
  m = collide(capsule(vec3(0.0f), kAlongX, 0.2f, 0.1f), box(vec3(0.0f), kIdentity, vec3(0.5f)),
              kMargin);
  EXPECT_TRUE(finite(m));
  EXPECT_GT(m.count, 0u);
  const Collider bx = box(o, rot_about(vec3(1.0f, 2.0f, 3.0f), 20.0f), vec3(0.5f, 0.3f, 0.2f));
  m = collide(bx, bx, kMargin);
  EXPECT_TRUE(finite(m));
  EXPECT_GT(m.count, 0u);
  m = collide(box(vec3(0.0f), kIdentity, vec3(0.0f)), box(vec3(0.0f), kIdentity, vec3(0.0f)),
              kMargin);
  EXPECT_TRUE(finite(m));
}

// Signed distance from p to a collider's surface (plane: height over it).
float signed_distance(const Collider& c, vec3 p) {
  vec3 l = quat_rotate(vkphys::kern::quat_conj(c.rot), p - c.pos);
  switch (c.type) {
    case VKPHYS_SHAPE_PLANE:
      return l.y;
    case VKPHYS_SHAPE_SPHERE:
      return glm::length(l) - c.dims.w;
    case VKPHYS_SHAPE_CAPSULE:
      return glm::length(l - vec3(0.0f, glm::clamp(l.y, -c.dims.y, c.dims.y), 0.0f)) - c.dims.w;
    default: {
      vec3 e(c.dims);
      vec3 q = glm::abs(l) - e;
      return glm::length(glm::max(q, vec3(0.0f))) +
             std::min(std::max(q.x, std::max(q.y, q.z)), 0.0f);
    }
  }
}

float min_gap(const Manifold& m) {
  float g = 1e30f;
  for (std::uint32_t i = 0; i < m.count; ++i) g = std::min(g, m.point[i].w);
  return g;
}

// A vector's components drawn in a stated order. Last first is the order gcc evaluated the
// vector constructors' arguments in when RandomPairsPointsOnSurfaces' trials were written (the
// order is unspecified); clang's first-first order drew other trials, among them a nearly
// parallel capsule pair whose second contact point lay 0.7 mm outside capsule b (stop 42). The
// test runs both.
template <int N>
glm::vec<N, float> draw_in_order(std::uniform_real_distribution<float>& dist, std::mt19937& rng,
                                 bool last_first) {
  glm::vec<N, float> v(0.0f);
  for (int k = 0; k < N; ++k) v[last_first ? N - 1 - k : k] = dist(rng);
  return v;
}

// Random shallow contacts of every pair type: b is moved along a random direction until the
// deepest gap is about -0.02 (bisection). Then the normal is unit and each point's two surface
// points (point -/+ gap/2 normal) lie on a's and b's surfaces. A capsule's contact may use the
// sphere of either end, whose surface can lie inside the capsule: there it is only checked to
// be inside. Deep random overlaps are only checked for NaN.
TEST(Collide, RandomPairsPointsOnSurfaces) {
  for (const bool last_first : {true, false}) {
    std::mt19937 rng(12345);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::uniform_real_distribution<float> size(0.1f, 0.8f);
    auto random_rot = [&]() {
      const vec4 q = draw_in_order<4>(u, rng, last_first);
      return glm::length(q) > 1e-3f ? glm::normalize(q) : kIdentity;
    };
    auto random_collider = [&](std::uint32_t type) {
      const vec3 pos = 0.6f * draw_in_order<3>(u, rng, last_first);
      const vec4 dims = vec4(1.0f, 1.0f, 1.0f, 0.5f) * draw_in_order<4>(size, rng, last_first);
      return make(type, pos, random_rot(), dims);
    };
    int checked = 0;
    for (std::uint32_t ta = 0; ta < 4; ++ta) {
      for (std::uint32_t tb = std::max(ta, 1u); tb < 4; ++tb) {
        for (int trial = 0; trial < 500; ++trial) {
          Collider a = random_collider(ta);
          Collider b = random_collider(tb);
          ASSERT_TRUE(finite(collide(a, b, kMargin))) << ta << " " << tb << " trial " << trial;
          vec3 dir = glm::normalize(draw_in_order<3>(u, rng, last_first) + vec3(0.0f, 1e-3f, 0.0f));
          if (ta == 0) dir = quat_rotate(a.rot, vec3(0.0f, 1.0f, 0.0f));  // planes: move along n
          const vec3 start = b.pos;
          float lo = 0.0f;
          float hi = 4.0f;
          for (int it = 0; it < 40; ++it) {
            float mid = 0.5f * (lo + hi);
            b.pos = start + mid * dir;
            Manifold mm = collide(a, b, kMargin);
            if (mm.count > 0 && min_gap(mm) < -0.02f) {
              lo = mid;
            } else {
              hi = mid;
            }
          }
          b.pos = start + lo * dir;
          Manifold m = collide(a, b, kMargin);
          ASSERT_TRUE(finite(m));
          if (m.count == 0) continue;
          ASSERT_NEAR(glm::length(m.normal), 1.0f, 1e-4f);
          EXPECT_EQ(ids(m).size(), m.count) << "feature ids must be unique within a manifold";
          for (std::uint32_t i = 0; i < m.count; ++i) {
            vec3 p(m.point[i]);
            float g = m.point[i].w;
            ASSERT_LT(g, kMargin);
            const float da = signed_distance(a, p - 0.5f * g * m.normal);
            const float db = signed_distance(b, p + 0.5f * g * m.normal);
            const std::string where = std::string(last_first ? "last first" : "first first") +
                                      " pair " + std::to_string(ta) + "-" + std::to_string(tb) +
                                      " trial " + std::to_string(trial) + " point " +
                                      std::to_string(i) + " id " + std::to_string(m.feature[i]);
            if (ta == VKPHYS_SHAPE_CAPSULE) {
              EXPECT_LT(da, 1e-4f) << where;
            } else {
              EXPECT_NEAR(da, 0.0f, 1e-4f) << where;
            }
            if (ta == VKPHYS_SHAPE_CAPSULE && tb == VKPHYS_SHAPE_CAPSULE) {
              // Both capsule-capsule manifolds measure the gap to b's surface itself.
              EXPECT_NEAR(db, 0.0f, 1e-4f) << where;
            } else if (tb == VKPHYS_SHAPE_CAPSULE) {
              EXPECT_LT(db, 1e-4f) << where;
            } else {
              EXPECT_NEAR(db, 0.0f, 1e-4f) << where;
            }
            ++checked;
          }
        }
      }
    }
    EXPECT_GT(checked, 1000) << (last_first ? "last first" : "first first");
  }
}

}  // namespace
