// The sweep split into work items (kernels/world_broadphase.inl): rigid bodies whose walks span
// many chunks of VKPHYS_SWEEP_CHUNK entries, among particles, planes and a jointed group. The
// stored pair list is held to a brute-force oracle: every overlapping pair with a rigid body,
// over bounding boxes computed here in double precision, std::sort-ed into the documented order
// (owner by sorted min x; its plane pairs, its forward pairs up the sorted list, its backward
// particle pairs down it). A pair list that is right as a set but out of that order fails, as
// does a lost or duplicated pair at a chunk's edge. Pair-capacity overflow of the chunked count
// is redone and loses nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "kernels/world_layout.h"
#include "tests/backends.h"
#include "vkphys/scene.h"

namespace vkphys::test {
namespace {

struct Box3 {
  glm::dvec3 lo, hi;
};

// Closer than this to touching, float rounding may go either way: such pairs may be missing.
constexpr double kBoundary = 1e-5;

// Particles in [-1, 1]^3, then rigid bodies: `rods` boxes long in x (each walk spans most of
// the sorted list), a big sphere and a static box among the particles, two overlapping boxes
// joined by a joint (one collision group), and two planes the bodies reach.
Scene chunk_scene(std::uint32_t particles, std::uint32_t rods, std::uint32_t seed) {
  Scene s;
  s.settings.contact_margin = 0.01f;
  s.settings.gravity = glm::vec3(0.0f);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f), rad(0.01f, 0.03f);
  for (std::uint32_t i = 0; i < particles; ++i) {
    s.particles.add({u(rng), u(rng), u(rng)}, glm::vec3(0.0f), rad(rng), 1.0f, 0);
  }
  for (std::uint32_t k = 0; k < rods; ++k) {
    Body b;
    b.shape = Shape::box;
    b.half_extents = {0.7f + 0.2f * u(rng), 0.05f, 0.05f};
    b.position = {0.2f * u(rng), u(rng), u(rng)};
    b.mass = k % 5 == 4 ? 0.0f : 1.0f;
    s.bodies.push_back(b);
  }
  Body ball;
  ball.shape = Shape::sphere;
  ball.radius = 0.4f;
  ball.position = {0.3f, -0.2f, 0.1f};
  s.bodies.push_back(ball);
  Body wall;
  wall.half_extents = {0.1f, 0.8f, 0.8f};
  wall.position = {-0.5f, 0.0f, 0.0f};
  wall.mass = 0.0f;
  s.bodies.push_back(wall);
  Body a, b;
  a.half_extents = b.half_extents = glm::vec3(0.2f);
  a.position = {0.6f, 0.5f, -0.5f};
  b.position = {0.75f, 0.55f, -0.45f};
  const auto ia = static_cast<std::uint32_t>(s.bodies.size());
  s.bodies.push_back(a);
  s.bodies.push_back(b);
  Joint j;
  j.type = JointType::distance;
  j.body_a = ia;
  j.body_b = ia + 1;
  j.length = 0.2f;
  s.joints.push_back(j);
  s.planes.push_back({{0.0f, 1.0f, 0.0f}, -0.98f, 0});
  s.planes.push_back({{1.0f, 0.0f, 0.0f}, -0.85f, 0});
  return s;
}

struct Oracle {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> sure;  // in the documented order
  std::set<std::pair<std::uint32_t, std::uint32_t>> ambiguous;
  std::size_t longest_walk = 0, total_walk = 0;
  std::uint32_t plane_pairs = 0, group_skipped = 0;  // what the scene exercises
};

std::pair<std::uint32_t, std::uint32_t> unordered(std::uint32_t a, std::uint32_t b) {
  return {std::min(a, b), std::max(a, b)};
}

// World indices: the scene's bodies, one plane body per plane, then the particles. Bounding
// boxes grown by half the margin (rigid bodies here are unrotated boxes and spheres); sorted
// positions by min x (a particle's in float as the kernel rounds it, so ties among particles
// order as the kernel's keys), ties by index.
Oracle oracle_pairs(const Scene& s,
                    const std::set<std::pair<std::uint32_t, std::uint32_t>>& found) {
  const float pad_f = 0.5f * s.settings.contact_margin;
  const double pad = pad_f;
  const auto nb = static_cast<std::uint32_t>(s.bodies.size());
  const auto np = static_cast<std::uint32_t>(s.planes.size());
  const auto r = nb + np;
  const auto n = r + static_cast<std::uint32_t>(s.particles.size());
  std::vector<Box3> box(n);
  std::vector<double> key(n, 0.0);
  double r_max = 0.0;
  for (std::uint32_t i = 0; i < nb; ++i) {
    const Body& b = s.bodies[i];
    const glm::dvec3 e =
        b.shape == Shape::sphere ? glm::dvec3(b.radius) : glm::dvec3(b.half_extents);
    box[i] = {glm::dvec3(b.position) - e - pad, glm::dvec3(b.position) + e + pad};
    key[i] = box[i].lo.x;
  }
  for (std::uint32_t k = 0; k < s.particles.size(); ++k) {
    const glm::vec4 p = s.particles.pos_radius[k];
    const auto c = glm::dvec3(glm::vec3(p));
    box[r + k] = {c - (double(p.w) + pad), c + (double(p.w) + pad)};
    key[r + k] = double(p.x - (p.w + pad_f));
    r_max = std::max(r_max, double(p.w));
  }
  // How far back a particle may start and still reach a body (params.grid.z).
  const double reach = 2.0 * r_max + 2.0 * pad;
  std::vector<std::uint32_t> order;
  for (std::uint32_t i = 0; i < n; ++i) {
    if (i < nb || i >= r) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return key[a] < key[b]; });
  std::vector<std::uint32_t> pos(n, 0);
  for (std::uint32_t k = 0; k < order.size(); ++k) pos[order[k]] = k;

  // Groups: union of jointed dynamic bodies (one joint here).
  auto same_group = [&](std::uint32_t i, std::uint32_t j) {
    for (const Joint& jt : s.joints) {
      if (unordered(i, j) == unordered(jt.body_a, jt.body_b)) return true;
    }
    return false;
  };
  auto is_static = [&](std::uint32_t i) { return i < nb ? !(s.bodies[i].mass > 0.0f) : i < r; };
  auto slack = [&](std::uint32_t i, std::uint32_t j) {
    double m = 1e30;
    for (int a = 0; a < 3; ++a) {
      m = std::min({m, box[i].hi[a] - box[j].lo[a], box[j].hi[a] - box[i].lo[a]});
    }
    return m;
  };
  // (pos(owner), section, order within it) -> pair
  std::vector<std::tuple<std::uint32_t, int, std::int64_t, std::uint32_t, std::uint32_t>> list;
  Oracle out;
  auto consider = [&](double d, std::uint32_t owner, int section, std::int64_t sub,
                      std::uint32_t other) {
    if (d > kBoundary) {
      list.emplace_back(pos[owner], section, sub, owner, other);
    } else if (d >= -kBoundary) {
      out.ambiguous.insert(unordered(owner, other));
      if (found.count(unordered(owner, other)))
        list.emplace_back(pos[owner], section, sub, owner, other);
    }
  };
  for (std::uint32_t i = 0; i < nb; ++i) {
    // The walk the kernel takes from i: planes, then the sorted entries up to its max x, then
    // back down to min x - reach.
    std::size_t walk = np;
    for (std::uint32_t k = 0; k < np && !is_static(i); ++k) {
      const glm::dvec3 nrm = glm::normalize(glm::dvec3(s.planes[k].normal));
      const glm::dvec3 origin = nrm * double(s.planes[k].offset);
      const Box3& b = box[i];
      const glm::dvec3 near(nrm.x > 0.0 ? b.lo.x : b.hi.x, nrm.y > 0.0 ? b.lo.y : b.hi.y,
                            nrm.z > 0.0 ? b.lo.z : b.hi.z);
      const double d = pad - glm::dot(nrm, near - origin);
      out.plane_pairs += d > kBoundary ? 1u : 0u;
      consider(d, i, 0, k, nb + k);
    }
    for (std::uint32_t j : order) {
      if (j == i) continue;
      const bool forward = pos[j] > pos[i];
      if (forward ? key[j] <= box[i].hi.x : key[j] >= box[i].lo.x - reach) ++walk;
      if (!forward && j < nb) continue;  // the earlier rigid body owns the pair
      if (is_static(i) && is_static(j)) continue;
      if (same_group(i, j)) {
        out.group_skipped += slack(i, j) > kBoundary ? 1u : 0u;
        continue;
      }
      const auto p = static_cast<std::int64_t>(pos[j]);
      consider(slack(i, j), i, forward ? 1 : 2, forward ? p : -p, j);
    }
    out.longest_walk = std::max(out.longest_walk, walk);
    out.total_walk += walk;
  }
  std::sort(list.begin(), list.end());
  for (const auto& t : list) out.sure.push_back(unordered(std::get<3>(t), std::get<4>(t)));
  return out;
}

class SweepChunks : public WorldTest {
 protected:
  // One step's stored pairs, as unordered pairs in stored order.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> step_pairs(StepTrace* trace = nullptr) {
    StepTrace t;
    backend_->step(&t);
    std::vector<std::pair<std::uint32_t, std::uint32_t>> out;
    for (const glm::uvec4& p : t.pairs) out.push_back(unordered(p.x, p.y));
    if (trace) *trace = std::move(t);
    return out;
  }
};

// 3,001 particles and 3 or 9 rods: walks of thousands of entries (dozens of chunks), totals
// that are no multiple of the chunk or the group size. 200 rods over 267 sorted positions: the
// walks total more than 64 entries per position, so the chunk grows past VKPHYS_SWEEP_CHUNK.
TEST_P(SweepChunks, PairListIsTheBruteForceListInSweepOrder) {
  struct Case {
    std::uint32_t particles, rods, seed;
  };
  for (const Case& c : {Case{3001, 3, 1}, Case{3001, 9, 2}, Case{61, 200, 3}}) {
    SCOPED_TRACE("particles " + std::to_string(c.particles) + ", rods " + std::to_string(c.rods));
    const Scene s = chunk_scene(c.particles, c.rods, c.seed);
    load(s, 1u << 16);
    const auto pairs = step_pairs();
    EXPECT_EQ(backend_->stats().regrows, 0u);
    const std::set<std::pair<std::uint32_t, std::uint32_t>> found(pairs.begin(), pairs.end());
    const Oracle o = oracle_pairs(s, found);
    EXPECT_EQ(found.size(), pairs.size()) << "duplicated pairs";
    ASSERT_EQ(pairs.size(), o.sure.size());
    std::size_t first = 0;
    while (first < pairs.size() && pairs[first] == o.sure[first]) ++first;
    EXPECT_EQ(first, pairs.size()) << "first difference at " << first << " of " << pairs.size();
    EXPECT_LE(o.ambiguous.size(), 2u);
    EXPECT_GT(pairs.size(), 150u);
    EXPECT_GT(o.plane_pairs, 0u);
    EXPECT_EQ(o.group_skipped, 1u);
    const std::size_t n = s.bodies.size() + s.planes.size() + s.particles.size();
    if (c.rods < 100) {
      EXPECT_GT(o.longest_walk, 10 * VKPHYS_SWEEP_CHUNK);
    } else {
      EXPECT_GT(o.total_walk, VKPHYS_SWEEP_CHUNK * n);
    }
    std::printf(
        "%u particles, %u rods: %zu pairs, longest walk %zu entries, %zu in all over %zu "
        "positions\n",
        c.particles, c.rods, pairs.size(), o.longest_walk, o.total_walk, n);
  }
}

// 32 pair slots for a step that needs hundreds: the chunked count overflows, the step is
// flagged, grows and is redone, and stores the very pairs (bits and order) of a roomy run.
TEST_P(SweepChunks, OverflowOfChunkedPairsIsRedoneLosingNothing) {
  const Scene s = chunk_scene(3001, 9, 2);
  load(s, 1u << 16);
  StepTrace roomy;
  const auto roomy_pairs = step_pairs(&roomy);
  EXPECT_EQ(backend_->stats().regrows, 0u);
  load(s, 32);
  StepTrace tight;
  const auto tight_pairs = step_pairs(&tight);
  EXPECT_GE(backend_->stats().regrows, 1u);
  EXPECT_GT(roomy_pairs.size(), 200u);
  EXPECT_EQ(tight_pairs, roomy_pairs);
  ASSERT_EQ(tight.pairs.size(), roomy.pairs.size());
  EXPECT_TRUE(std::equal(tight.pairs.begin(), tight.pairs.end(), roomy.pairs.begin()));
}

INSTANTIATE_TEST_SUITE_P(Broadphase, SweepChunks,
                         ::testing::Values(Case{"cpu", SolverScheme::colored},
                                           Case{"gpu", SolverScheme::colored}),
                         case_name);

}  // namespace
}  // namespace vkphys::test
