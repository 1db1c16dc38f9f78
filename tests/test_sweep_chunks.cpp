// The sweep split into work items (kernels/world_broadphase.inl): rigid bodies whose walks span
// many chunks of VKPHYS_SWEEP_CHUNK entries, among particles, planes and a jointed group; and
// the sweep in slabs along z. The stored pair list is held to a brute-force oracle: every
// overlapping pair with a rigid body, over bounding boxes computed here in double precision,
// std::sort-ed into the documented order (owner by sorted (slab, min x); its plane pairs, its
// forward pairs up the sorted list, its backward particle pairs down it, its pairs in the slab
// above, its particle pairs in the slab below). A pair list that is right as a set but out of
// that order fails, as does a lost or duplicated pair at a chunk's or a slab's edge.
// Pair-capacity overflow of the chunked count is redone and loses nothing.
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

#include "host/sim/world_setup.h"
#include "kernels/world_layout.h"
#include "tests/backends.h"
#include "tests/box3.h"
#include "vkphys/scene.h"

namespace vkphys::test {
namespace {

// Closer than this to touching, float rounding may go either way: such pairs may be missing.
constexpr double kSweepBoundary = 1e-5;

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

struct SweepOracle {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> sure;  // in the documented order
  std::set<std::pair<std::uint32_t, std::uint32_t>> ambiguous;
  std::size_t longest_walk = 0, total_walk = 0;
  std::uint32_t plane_pairs = 0, group_skipped = 0;  // what the scene exercises
  std::uint32_t unreachable = 0;  // overlapping pairs in slabs that no walk joins
  std::uint32_t up_pairs = 0, down_pairs = 0, wrap_pairs = 0;  // pairs across slabs
};

std::pair<std::uint32_t, std::uint32_t> unordered(std::uint32_t a, std::uint32_t b) {
  return {std::min(a, b), std::max(a, b)};
}

// The slab width W and 1 / W the world's step uses (0: one slab).
glm::vec2 slab_width(const Scene& s) {
  const WorldArrays world = build_world(s);
  const glm::vec4 sweep = make_world_params(s, world, default_capacities(world)).sweep;
  return {sweep.x, sweep.y};
}

// The slab of a min z, as the kernel computes it (kernels/world_broadphase.inl, sweep_slab).
std::uint32_t slab_of(float z, float inv_width) {
  const float bound = 1048576.0f;
  float c = std::floor(z * inv_width);
  c = c >= -bound ? std::min(c, bound) : -bound;
  return static_cast<std::uint32_t>(c + bound) % VKPHYS_SWEEP_SLABS;
}

// World indices: the scene's bodies, one plane body per plane, then the particles. Bounding
// boxes grown by half the margin (rigid bodies here are unrotated boxes and spheres); sorted
// positions by slab and then min x, both from the bounds in float as the kernel rounds them (so
// near-ties order as the kernel's keys), ties by index.
SweepOracle sweep_oracle(const Scene& s,
                         const std::set<std::pair<std::uint32_t, std::uint32_t>>& found,
                         glm::vec2 slab = glm::vec2(0.0f)) {
  const float pad_f = 0.5f * s.settings.contact_margin;
  const double pad = double(pad_f);
  const auto nb = static_cast<std::uint32_t>(s.bodies.size());
  const auto np = static_cast<std::uint32_t>(s.planes.size());
  const auto r = nb + np;
  const auto n = r + static_cast<std::uint32_t>(s.particles.size());
  std::vector<Box3> box(n);
  std::vector<glm::vec3> lo_f(n, glm::vec3(0.0f));  // the kernel's min corner
  double r_max = 0.0;
  for (std::uint32_t i = 0; i < nb; ++i) {
    const Body& b = s.bodies[i];
    const glm::vec3 e = b.shape == Shape::sphere ? glm::vec3(b.radius) : b.half_extents;
    box[i] = {glm::dvec3(b.position) - glm::dvec3(e) - pad,
              glm::dvec3(b.position) + glm::dvec3(e) + pad};
    lo_f[i] = b.position - e - glm::vec3(pad_f);
  }
  for (std::uint32_t k = 0; k < s.particles.size(); ++k) {
    const glm::vec4 p = s.particles.pos_radius[k];
    const auto c = glm::dvec3(glm::vec3(p));
    box[r + k] = {c - (double(p.w) + pad), c + (double(p.w) + pad)};
    lo_f[r + k] = glm::vec3(p) - glm::vec3(p.w + pad_f);
    r_max = std::max(r_max, double(p.w));
  }
  std::vector<double> key(n, 0.0);
  std::vector<std::uint32_t> slab_at(n, 0u);
  for (std::uint32_t i = 0; i < n; ++i) {
    key[i] = double(lo_f[i].x);
    if (slab.x > 0.0f) slab_at[i] = slab_of(lo_f[i].z, slab.y);
  }
  const std::uint32_t slabs = VKPHYS_SWEEP_SLABS;
  auto up = [&](std::uint32_t k) { return (k + 1u) % slabs; };
  auto down = [&](std::uint32_t k) { return (k + slabs - 1u) % slabs; };
  // How far back a particle may start and still reach a body (params.grid.z).
  const double reach = 2.0 * r_max + 2.0 * pad;
  std::vector<std::uint32_t> order;
  for (std::uint32_t i = 0; i < n; ++i) {
    if (i < nb || i >= r) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return std::tie(slab_at[a], key[a]) < std::tie(slab_at[b], key[b]);
  });
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
  SweepOracle out;
  auto consider = [&](double d, std::uint32_t owner, int section, std::int64_t sub,
                      std::uint32_t other) {
    if (d > kSweepBoundary) {
      list.emplace_back(pos[owner], section, sub, owner, other);
    } else if (d >= -kSweepBoundary) {
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
      out.plane_pairs += d > kSweepBoundary ? 1u : 0u;
      consider(d, i, 0, k, nb + k);
    }
    for (std::uint32_t j : order) {
      if (j == i) continue;
      const bool particle = j >= r;
      const auto p = static_cast<std::int64_t>(pos[j]);
      int section = 0;
      std::int64_t sub = p;
      if (slab_at[j] == slab_at[i]) {
        const bool forward = pos[j] > pos[i];
        if (forward ? key[j] <= box[i].hi.x : key[j] >= box[i].lo.x - reach) ++walk;
        if (!forward && !particle) continue;  // the earlier rigid body owns the pair
        section = forward ? 1 : 2;
        sub = forward ? p : -p;
      } else if (slab_at[j] == up(slab_at[i])) {
        if (key[j] <= box[i].hi.x && key[j] >= box[i].lo.x - double(slab.x)) ++walk;
        section = 3;
      } else if (slab_at[j] == down(slab_at[i])) {
        if (key[j] <= box[i].hi.x && key[j] >= box[i].lo.x - reach) ++walk;
        if (!particle) continue;  // found by the up walk of the rigid body below
        section = 4;
      } else {
        // Two slabs apart: no walk reaches the pair, so it must not overlap.
        if (slack(i, j) >= -kSweepBoundary) ++out.unreachable;
        continue;
      }
      if (is_static(i) && is_static(j)) continue;
      if (same_group(i, j)) {
        out.group_skipped += slack(i, j) > kSweepBoundary ? 1u : 0u;
        continue;
      }
      if (slack(i, j) > kSweepBoundary) {
        out.up_pairs += section == 3 ? 1u : 0u;
        out.down_pairs += section == 4 ? 1u : 0u;
        out.wrap_pairs += section == 3 && slab_at[j] < slab_at[i] ? 1u : 0u;
      }
      consider(slack(i, j), i, section, sub, j);
    }
    out.longest_walk = std::max(out.longest_walk, walk);
    out.total_walk += walk;
  }
  std::sort(list.begin(), list.end());
  for (const auto& t : list) out.sure.push_back(unordered(std::get<3>(t), std::get<4>(t)));
  return out;
}

// A pile spread along z: `bodies` unrotated spheres and boxes (every fifth static) and
// `particles` particles in 4 x 1 x 8 m, no gravity, two planes. 400 rigid bodies over 8 m make
// the world cut slabs (host/sim/world_params.cpp): about 15 of them, one of which is the modulo's
// wrap (slab numbers 1022 and 0 meet at z = -W).
Scene slab_scene(std::uint32_t particles, std::uint32_t bodies, std::uint32_t seed) {
  Scene s;
  s.settings.contact_margin = 0.01f;
  s.settings.gravity = glm::vec3(0.0f);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f), rad(0.01f, 0.03f), size(0.05f, 0.15f);
  for (std::uint32_t i = 0; i < particles; ++i) {
    s.particles.add({2.0f * u(rng), 0.5f * u(rng), 4.0f * u(rng)}, glm::vec3(0.0f), rad(rng), 1.0f,
                    0);
  }
  for (std::uint32_t k = 0; k < bodies; ++k) {
    Body b;
    b.shape = k % 2 == 0 ? Shape::sphere : Shape::box;
    b.radius = size(rng);
    b.half_extents = {size(rng), size(rng), size(rng)};
    b.position = {2.0f * u(rng), 0.5f * u(rng), 4.0f * u(rng)};
    b.mass = k % 5 == 4 ? 0.0f : 1.0f;
    s.bodies.push_back(b);
  }
  s.planes.push_back({{0.0f, 1.0f, 0.0f}, -0.45f, 0});
  s.planes.push_back({{1.0f, 0.0f, 0.0f}, -1.9f, 0});
  return s;
}

// The step's pair list against the oracle's: no pair twice, the oracle's pairs in its order, at
// most 2 pairs within rounding of touching. False where the lengths differ (nothing to compare).
bool pair_list_matches(const std::vector<std::pair<std::uint32_t, std::uint32_t>>& pairs,
                       const std::set<std::pair<std::uint32_t, std::uint32_t>>& found,
                       const SweepOracle& o) {
  EXPECT_EQ(found.size(), pairs.size()) << "duplicated pairs";
  EXPECT_EQ(pairs.size(), o.sure.size());
  if (pairs.size() != o.sure.size()) return false;
  std::size_t first = 0;
  while (first < pairs.size() && pairs[first] == o.sure[first]) ++first;
  EXPECT_EQ(first, pairs.size()) << "first difference at " << first << " of " << pairs.size();
  EXPECT_LE(o.ambiguous.size(), 2u);
  return true;
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
    const SweepOracle o = sweep_oracle(s, found);
    ASSERT_TRUE(pair_list_matches(pairs, found, o));
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

// The sweep in slabs along z: the pair list is the brute-force list in the slab sweep's order,
// with pairs across slab edges (up and down walks), across the modulo's wrap, and among bodies
// 1023 slabs away whose slab numbers alias those near the origin (they share walks and must fail
// the z test there, not pair). Against the same scene swept along x alone, the walks are
// several times shorter.
TEST_P(SweepChunks, SlabSweepFindsTheBruteForceListInSlabOrder) {
  for (std::uint32_t seed : {5u, 6u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Scene s = slab_scene(2001, 401, seed);
    const glm::vec2 slab = slab_width(s);
    ASSERT_GT(slab.x, 0.0f) << "the pile should be cut into slabs";
    // Three overlapping spheres 1023 slabs up the z axis, over the pile's middle in x and y.
    for (int k = 0; k < 3; ++k) {
      Body b;
      b.shape = Shape::sphere;
      b.radius = 0.1f;
      b.position = {0.05f * float(k), 0.0f, 1023.0f * slab.x + 0.1f + 0.05f * float(k)};
      s.bodies.push_back(b);
    }
    ASSERT_EQ(slab_width(s), slab);
    load(s, 1u << 16);
    const auto pairs = step_pairs();
    EXPECT_EQ(backend_->stats().regrows, 0u);
    const std::set<std::pair<std::uint32_t, std::uint32_t>> found(pairs.begin(), pairs.end());
    const SweepOracle o = sweep_oracle(s, found, slab);
    EXPECT_EQ(o.unreachable, 0u);
    ASSERT_TRUE(pair_list_matches(pairs, found, o));
    const auto far = static_cast<std::uint32_t>(s.bodies.size()) - 3u;
    EXPECT_TRUE(found.count({far, far + 1}) && found.count({far + 1, far + 2}));
    // About 100 pairs cross a slab edge upwards, 5-20 of them across the wrap; a particle below
    // a body's slab that reaches up into the body is rarer (4 in each seed).
    EXPECT_GT(o.up_pairs, 50u);
    EXPECT_GT(o.down_pairs, 0u);
    EXPECT_GT(o.wrap_pairs, 0u);
    // 13 slabs over 8 m: the walks are about a third as long (24,240 against 67,595 entries).
    const SweepOracle along_x = sweep_oracle(s, found);
    EXPECT_LT(o.total_walk * 2, along_x.total_walk);
    std::printf(
        "seed %u: W %.3f m, %zu pairs (%u up, %u down, %u across the wrap), walks %zu "
        "entries against %zu along x alone\n",
        seed, double(slab.x), pairs.size(), o.up_pairs, o.down_pairs, o.wrap_pairs, o.total_walk,
        along_x.total_walk);
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
