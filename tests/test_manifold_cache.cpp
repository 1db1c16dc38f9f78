// The manifold cache (solver.contact_cache, kernels/world_narrowphase.inl): a flat pair whose
// bodies have not moved relative to each other keeps its manifold, the kept manifold's gaps are
// the pair test's at the current pose, motion past the tolerance runs the test again, measured
// from the pose the test last ran at, and version-1 files run without the cache.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "host/io/scene_file.h"
#include "kernels/collide.h"
#include "tests/backends.h"
#include "tests/rigid_scene_helpers.h"

namespace vkphys::test {
namespace {

// Body i of a state as the pair test sees it (boxes and the floor plane through the origin).
kern::Collider collider_of(const Scene& s, const WorldState& st, std::size_t i) {
  kern::Collider c;
  if (i < s.bodies.size()) {
    c.type = VKPHYS_SHAPE_BOX;
    c.pos = glm::vec3(st.pos[i]);
    c.rot = st.rot[i];
    c.dims = glm::vec4(s.bodies[i].half_extents, 0.0f);
  } else {
    c.type = VKPHYS_SHAPE_PLANE;
    c.pos = glm::vec3(0.0f);
    c.rot = glm::vec4(0.0f, 0.0f, 0.0f, 1.0f);
    c.dims = glm::vec4(0.0f);
  }
  return c;
}

// Two unit boxes stacked on the floor, friction 0.5: a plane-box and a box-box pair.
Scene two_box_stack() {
  Scene s = empty_rigid_scene();
  s.materials[0].friction = 0.5f;
  s.planes.push_back(Plane{});
  s.bodies.push_back(make_box({0.0f, 0.5f, 0.0f}, glm::vec3(0.5f), 1.0f));
  s.bodies.push_back(make_box({0.1f, 1.5f, 0.05f}, glm::vec3(0.5f), 1.0f));
  return s;
}

// A unit box sliding along x at `speed` on a frictionless floor.
Scene sliding_box(float speed) {
  Scene s = empty_rigid_scene();
  s.settings.solver.friction = false;
  s.planes.push_back(Plane{});
  Body b = make_box({0.0f, 0.5f, 0.0f}, glm::vec3(0.5f), 1.0f);
  b.velocity = {speed, 0.0f, 0.0f};
  s.bodies.push_back(b);
  return s;
}

class ManifoldCache : public WorldTest {};

// At rest, both pairs keep their manifolds, and each kept point's gap is the gap the pair test
// finds at the pose the step starts from: to 1e-6 m (the kept gap is first order in the
// bodies' relative motion since the test ran, which at rest is below 1e-4 m).
TEST_P(ManifoldCache, ARestingStackKeepsItsManifoldsWithTheTestsGaps) {
  const Scene s = two_box_stack();
  load(s);
  run(120);
  WorldState before;
  backend_->read(before);
  StepTrace trace;
  backend_->step(&trace);
  EXPECT_EQ(backend_->stats().manifolds, 2u);
  EXPECT_EQ(backend_->stats().reused_manifolds, 2u);
  ASSERT_EQ(trace.pairs.size(), 2u);
  for (std::size_t p = 0; p < trace.pairs.size(); ++p) {
    const glm::uvec4 pair = trace.pairs[p];
    const kern::Manifold fresh =
        kern::collide(collider_of(s, before, pair.x), collider_of(s, before, pair.y), 0.0f);
    ASSERT_EQ(pair.z, fresh.count) << "pair " << p;
    std::vector<float> kept, found;
    for (std::uint32_t k = 0; k < pair.z; ++k) {
      kept.push_back(trace.points[4 * p + k].w);
      found.push_back(fresh.point[k].w);
    }
    std::sort(kept.begin(), kept.end());
    std::sort(found.begin(), found.end());
    for (std::size_t k = 0; k < kept.size(); ++k) {
      EXPECT_NEAR(kept[k], found[k], 1e-6f) << "pair " << p << ", point " << k;
    }
    EXPECT_LT(glm::length(glm::vec3(trace.normals[p]) - fresh.normal), 1e-5f);
  }
}

// A box sliding without friction at 0.036 m/s moves 0.6 mm a step against the floor. The
// reference is the pose the pair test ran at, so the manifold is kept one step (0.6 mm) and
// found again the next (1.2 mm): every other step. Had each kept step moved the reference, the
// slide would never pass the 1 mm tolerance and the manifold would be kept forever.
TEST_P(ManifoldCache, ASlowSlideRunsThePairTestEveryOtherStep) {
  load(sliding_box(0.036f));
  run(10);
  std::uint32_t kept = 0;
  for (int k = 0; k < 20; ++k) {
    backend_->step();
    ASSERT_EQ(backend_->stats().manifolds, 1u);
    kept += backend_->stats().reused_manifolds;
  }
  EXPECT_EQ(kept, 10u);
}

// Off, no manifold is kept; a fast slide (16.7 mm a step) keeps none either; a sphere, which
// rolls, never uses the cache.
TEST_P(ManifoldCache, OffFastOrRoundNothingIsKept) {
  Scene off = two_box_stack();
  off.settings.solver.contact_cache = false;
  load(off);
  for (int k = 0; k < 30; ++k) {
    backend_->step();
    EXPECT_EQ(backend_->stats().reused_manifolds, 0u);
  }
  Scene fast = sliding_box(1.0f);
  fast.bodies.push_back(make_sphere({5.0f, 0.5f, 0.0f}, 0.5f, 1.0f));
  load(fast);
  for (int k = 0; k < 30; ++k) {
    backend_->step();
    EXPECT_EQ(backend_->stats().manifolds, 2u);
    EXPECT_EQ(backend_->stats().reused_manifolds, 0u);
  }
}

VKPHYS_ON_ALL_CASES(ManifoldCache);

// The cache is a version-2 field, on by default there; version-1 files run without it (they
// predate it), and a scene written back keeps it off where it was off.
TEST(ManifoldCacheScene, OnInVersionTwoOffInVersionOneAndWrittenBack) {
  const char* v1 = R"({"format": "vkphys-scene", "version": 1, "name": "a",
    "bodies": [{"shape": "box", "half_extents": [0.5, 0.5, 0.5], "position": [0, 0.5, 0],
                "mass": 1}]})";
  const char* v2 = R"({"format": "vkphys-scene", "version": 2, "name": "a",
    "bodies": [{"shape": "box", "half_extents": [0.5, 0.5, 0.5], "position": [0, 0.5, 0],
                "mass": 1}]})";
  EXPECT_FALSE(io::parse_scene(v1, "v1").settings.solver.contact_cache);
  Scene s = io::parse_scene(v2, "v2");
  EXPECT_TRUE(s.settings.solver.contact_cache);
  EXPECT_EQ(io::write_scene_json(s).find("contact_cache"), std::string::npos);
  s.settings.solver.contact_cache = false;
  EXPECT_FALSE(io::parse_scene(io::write_scene_json(s), "written").settings.solver.contact_cache);
}

// Two restored copies of one run continue bit-identically with kept manifolds: the references
// travel in the carried state (a checkpoint).
TEST(ManifoldCacheScene, ARestoredRunKeepsTheSameManifolds) {
  const Scene s = two_box_stack();
  auto a = make_cpu_backend();
  a->load(s);
  for (int k = 0; k < 90; ++k) a->step();
  const CarriedState saved = a->save();
  auto b = make_cpu_backend();
  b->restore(s, saved);
  WorldState sa, sb;
  for (int k = 0; k < 30; ++k) {
    a->step();
    b->step();
    EXPECT_EQ(a->stats().reused_manifolds, b->stats().reused_manifolds);
  }
  EXPECT_EQ(a->stats().reused_manifolds, 2u);
  a->read(sa);
  b->read(sb);
  EXPECT_EQ(sa.pos, sb.pos);
  EXPECT_EQ(sa.rot, sb.rot);
}

}  // namespace
}  // namespace vkphys::test
