// Rigid-body backends against an independent oracle and against each other: the broadphase's
// pair set against brute force over independently computed bounding boxes, GPU versus CPU stage
// by stage from identical inputs and over whole runs, run-to-run determinism, pair-capacity
// overflow (grow and redo, nothing lost), the colouring's invariants, and the GPU's refusal of
// the sequential scheme.
//
// Unlike the particle step, the rigid step is not bit-identical between the backends even on
// lavapipe (measured: ~1e-7 relative after one step; its compiler contracts and reorders float
// maths that the CPU build keeps in source order). The tests print the measured differences;
// the tolerances are what a real GPU may need, and every run prints how far a 1-ulp nudge of
// the input carries the same run on the CPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "host/sim/compare.h"
#include "host/sim/mixed_scenes.h"
#include "host/sim/rigid_scenes.h"
#include "host/sim/splitmix.h"
#include "kernels/world_layout.h"
#include "tests/backends.h"
#include "tests/box3.h"
#include "tests/rigid_scene_helpers.h"
#include "tests/same_state.h"

namespace vkphys::test {
namespace {

// ---- deterministic scenes -----------------------------------------------------------------------

// Float draws from splitmix64 (host/sim/splitmix.h), with no std:: distributions: their output
// is not specified across standard libraries.
struct Random {
  SplitMix64 bits;
  // [0, 1) in steps of 2^-24: exact in a float.
  float unit() { return static_cast<float>(bits.unit()); }
  float range(float lo, float hi) { return lo + (hi - lo) * unit(); }
  std::uint32_t below(std::uint32_t n) { return static_cast<std::uint32_t>(bits.next() % n); }
  // Each component drawn in turn (argument evaluation order is unspecified).
  glm::vec3 vec(float lo, float hi) {
    const float x = range(lo, hi);
    const float y = range(lo, hi);
    const float z = range(lo, hi);
    return {x, y, z};
  }
};

// A uniformly distributed rotation: rejection sampling in the unit 4-ball, normalised.
glm::vec4 random_rotation(Random& r) {
  for (;;) {
    const glm::vec3 xyz = r.vec(-1.0f, 1.0f);
    const float w = r.range(-1.0f, 1.0f);
    const glm::vec4 q(xyz, w);
    const float l2 = glm::dot(q, q);
    if (l2 > 0.01f && l2 <= 1.0f) return q / std::sqrt(l2);
  }
}

// A random body of the given shape kind (0 sphere, 1 capsule, 2 box) with sizes in
// [0.05, size] m.
Body random_body(Random& r, std::uint32_t kind, float size) {
  Body b;
  switch (kind) {
    case 0:
      b.shape = Shape::sphere;
      b.radius = size;
      break;
    case 1:
      b.shape = Shape::capsule;
      b.radius = r.range(0.05f, size);
      b.half_height = r.range(0.05f, size);
      break;
    default:
      b.shape = Shape::box;
      b.half_extents = r.vec(0.05f, size);
      break;
  }
  b.orientation = random_rotation(r);
  return b;
}

// `n` bodies at rest, no gravity: spheres, capsules and boxes in equal shares with sizes from
// 0.05 m to 3 m (one in eight between 0.5 and 3 m), random orientations, uniformly in a cube of
// half side `half`; every 16th body static. A floor near the cube's bottom and an inclined
// plane through its lower corner. `margin` = 0 keeps the default contact margin.
Scene random_mixed_scene(std::uint32_t n, std::uint64_t seed, float half, float margin) {
  Scene s = empty_rigid_scene(0.0f);
  s.settings.contact_margin = margin;
  s.settings.solver.iterations = 1;  // only the broadphase matters here
  Random r{SplitMix64(seed)};
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint32_t kind = r.below(3);
    const float size = r.below(8) == 0 ? r.range(0.5f, 3.0f) : r.range(0.05f, 0.5f);
    Body b = random_body(r, kind, size);
    b.position = r.vec(-half, half);
    b.mass = i % 16 == 7 ? 0.0f : r.range(0.5f, 5.0f);
    s.bodies.push_back(b);
  }
  s.planes.push_back({{0.0f, 1.0f, 0.0f}, -half + 1.0f, 0});
  s.planes.push_back({glm::normalize(glm::vec3(1.0f, 2.0f, 1.5f)), -0.8f * half, 0});
  return s;
}

// `n` bodies of mixed shapes (sizes 0.1-0.35 m, random orientations and small random
// velocities) on a lattice 0.9 m apart, falling into an open box of 4 walls and a floor, onto a
// static box in its middle. Friction 0.5, g = 10, 60 Hz, 10 iterations.
Scene mixed_drop_scene(std::uint32_t n, std::uint64_t seed) {
  Scene s = empty_rigid_scene(-10.0f);
  s.materials[0].friction = 0.5f;
  s.materials[0].restitution = 0.2f;
  const float half = 2.0f;
  s.planes.push_back({{0.0f, 1.0f, 0.0f}, 0.0f, 0});
  s.planes.push_back({{1.0f, 0.0f, 0.0f}, -half, 0});
  s.planes.push_back({{-1.0f, 0.0f, 0.0f}, -half, 0});
  s.planes.push_back({{0.0f, 0.0f, 1.0f}, -half, 0});
  s.planes.push_back({{0.0f, 0.0f, -1.0f}, -half, 0});
  s.bodies.push_back(make_box({0.0f, 0.2f, 0.0f}, {0.6f, 0.2f, 0.4f}, 0.0f));  // static
  Random r{SplitMix64(seed)};
  const std::uint32_t side = 4;
  for (std::uint32_t k = 0; k < n; ++k) {
    const std::uint32_t i = k % side, j = (k / side) % side, layer = k / (side * side);
    Body b = random_body(r, k % 3, r.range(0.1f, 0.35f));
    b.position = {0.9f * (static_cast<float>(i) - 1.5f), 1.0f + 0.9f * static_cast<float>(layer),
                  0.9f * (static_cast<float>(j) - 1.5f)};
    b.velocity = r.vec(-1.0f, 1.0f);
    b.angular_velocity = r.vec(-2.0f, 2.0f);
    b.mass = r.range(0.5f, 2.0f);
    s.bodies.push_back(b);
  }
  return s;
}

// `n` boxes of edge 0.5 m on a lattice 0.75 m apart (4 x 4 per layer, the lowest 1 m up) falling
// into an open box of 4 walls and a floor 2.9 m wide: no pairs at first, ~115 once they have
// landed. (Built here rather than with box_rain_scene so that the pair counts this test relies
// on stay put.) Friction 0.5, g = 10, 60 Hz, 8 iterations.
Scene rain_scene(std::uint32_t n) {
  Scene s = empty_rigid_scene(-10.0f);
  s.materials[0].friction = 0.5f;
  s.settings.solver.iterations = 8;
  const float half = 1.45f;
  s.planes.push_back({{0.0f, 1.0f, 0.0f}, 0.0f, 0});
  s.planes.push_back({{1.0f, 0.0f, 0.0f}, -half, 0});
  s.planes.push_back({{-1.0f, 0.0f, 0.0f}, -half, 0});
  s.planes.push_back({{0.0f, 0.0f, 1.0f}, -half, 0});
  s.planes.push_back({{0.0f, 0.0f, -1.0f}, -half, 0});
  for (std::uint32_t k = 0; k < n; ++k) {
    const std::uint32_t i = k % 4, j = (k / 4) % 4, layer = k / 16;
    const glm::vec3 p(0.75f * (static_cast<float>(i) - 1.5f),
                      1.0f + 0.75f * static_cast<float>(layer),
                      0.75f * (static_cast<float>(j) - 1.5f));
    s.bodies.push_back(make_box(p, glm::vec3(0.25f), 1.0f));
  }
  return s;
}

Scene with_scheme(Scene s, SolverScheme scheme) {
  s.settings.solver.scheme = scheme;
  return s;
}

// ---- broadphase oracle --------------------------------------------------------------------------

glm::dvec3 rotate(glm::dvec4 q, glm::dvec3 v) {
  const glm::dvec3 u(q);
  const glm::dvec3 t = 2.0 * glm::cross(u, v);
  return v + q.w * t + glm::cross(u, t);
}

// The body's AABB from its shape alone (double precision), grown by `pad` on every side:
// sphere +-r, capsule: its core segment +-r, box: |R| times the half extents.
Box3 oracle_aabb(const Body& b, double pad) {
  const glm::dvec4 q = glm::normalize(glm::dvec4(b.orientation));
  const glm::dvec3 ax = glm::abs(rotate(q, {1.0, 0.0, 0.0}));
  const glm::dvec3 ay = glm::abs(rotate(q, {0.0, 1.0, 0.0}));
  const glm::dvec3 az = glm::abs(rotate(q, {0.0, 0.0, 1.0}));
  glm::dvec3 ext(0.0);
  switch (b.shape) {
    case Shape::sphere:
      ext = glm::dvec3(static_cast<double>(b.radius));
      break;
    case Shape::capsule:
      ext = ay * static_cast<double>(b.half_height) + glm::dvec3(static_cast<double>(b.radius));
      break;
    case Shape::box: {
      const glm::dvec3 h(b.half_extents);
      ext = ax * h.x + ay * h.y + az * h.z;
      break;
    }
    default:
      break;
  }
  const glm::dvec3 p(b.position);
  return {p - ext - glm::dvec3(pad), p + ext + glm::dvec3(pad)};
}

// How far two boxes overlap along their least overlapping axis (< 0: apart).
double overlap_slack(const Box3& a, const Box3& b) {
  double s = 1e30;
  for (int k = 0; k < 3; ++k) s = std::min({s, a.hi[k] - b.lo[k], b.hi[k] - a.lo[k]});
  return s;
}

using PairSet = std::set<std::pair<std::uint32_t, std::uint32_t>>;

struct OraclePairs {
  PairSet sure;       // pairs with a clear overlap: must be found
  PairSet ambiguous;  // within kBoundary of touching: float rounding may go either way
  std::uint32_t plane_pairs = 0, static_static_skipped = 0;
};

// Closer than this to the overlap boundary, the oracle's double-precision bounding boxes and the
// kernel's float ones may disagree (coordinates up to ~15 m: float ulp 1e-6 m, a few roundings).
constexpr double kBoundary = 1e-4;

// The shape number of world body `body` (host/sim/compare.h, world_shape).
std::uint32_t shape_rank(const Scene& s, std::uint32_t body) {
  return static_cast<std::uint32_t>(world_shape(s, body));
}

// (a, b) with the lower shape number first, ties by index: the stored order.
std::pair<std::uint32_t, std::uint32_t> canonical(const Scene& s, std::uint32_t i,
                                                  std::uint32_t j) {
  const std::uint32_t si = shape_rank(s, i), sj = shape_rank(s, j);
  const bool swap = sj < si || (sj == si && j < i);
  return swap ? std::make_pair(j, i) : std::make_pair(i, j);
}

// Every pair the broadphase must find, by brute force: all body pairs whose AABBs (grown by
// half the margin) overlap, and every body whose AABB reaches within half the margin of a plane,
// except pairs of two static bodies (planes are static). No joints, so no collision groups.
OraclePairs brute_force_pairs(const Scene& s) {
  const double margin =
      s.settings.contact_margin > 0.0f ? static_cast<double>(s.settings.contact_margin) : 0.02;
  const auto n = static_cast<std::uint32_t>(s.bodies.size());
  std::vector<Box3> box(n);
  for (std::uint32_t i = 0; i < n; ++i) box[i] = oracle_aabb(s.bodies[i], 0.5 * margin);
  auto is_static = [&](std::uint32_t i) { return !(s.bodies[i].mass > 0.0f); };
  OraclePairs out;
  for (std::uint32_t i = 0; i < n; ++i) {
    for (std::uint32_t j = i + 1; j < n; ++j) {
      const double slack = overlap_slack(box[i], box[j]);
      if (slack < -kBoundary) continue;
      if (is_static(i) && is_static(j)) {
        ++out.static_static_skipped;
        continue;
      }
      (slack > kBoundary ? out.sure : out.ambiguous).insert(canonical(s, i, j));
    }
  }
  for (std::uint32_t k = 0; k < s.planes.size(); ++k) {
    const glm::dvec3 nrm = glm::normalize(glm::dvec3(s.planes[k].normal));
    const glm::dvec3 origin =
        glm::dvec3(s.planes[k].normal) * static_cast<double>(s.planes[k].offset);
    const std::uint32_t plane_body = n + k;
    for (std::uint32_t i = 0; i < n; ++i) {
      if (is_static(i)) continue;
      const Box3& b = box[i];
      const glm::dvec3 nearest(nrm.x > 0.0 ? b.lo.x : b.hi.x, nrm.y > 0.0 ? b.lo.y : b.hi.y,
                               nrm.z > 0.0 ? b.lo.z : b.hi.z);
      const double reach = glm::dot(nrm, nearest - origin) - 0.5 * margin;
      if (reach > kBoundary) continue;
      if (reach < -kBoundary) {
        out.sure.insert({plane_body, i});
        ++out.plane_pairs;
      } else {
        out.ambiguous.insert({plane_body, i});
      }
    }
  }
  return out;
}

std::string list_pairs(const PairSet& pairs, std::size_t max = 8) {
  std::string out;
  std::size_t k = 0;
  for (const auto& [a, b] : pairs) {
    if (k++ == max) return out + " ...";
    out += " (" + std::to_string(a) + ", " + std::to_string(b) + ")";
  }
  return out;
}

// ---- comparisons --------------------------------------------------------------------------------

double max_abs(const std::vector<glm::vec4>& a, int components) {
  double m = 0.0;
  for (const glm::vec4& v : a) {
    for (int k = 0; k < components; ++k) m = std::max(m, std::abs(static_cast<double>(v[k])));
  }
  return m;
}

// Index of the first differing element, or -1.
template <class T>
long first_difference(const std::vector<T>& a, const std::vector<T>& b) {
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    if (std::memcmp(&a[i], &b[i], sizeof(T)) != 0) return static_cast<long>(i);
  }
  return a.size() == b.size() ? -1 : static_cast<long>(std::min(a.size(), b.size()));
}

// The rotation angle [rad] between two orientations (q and -q are the same).
double orientation_angle(glm::vec4 a, glm::vec4 b) {
  const glm::dvec4 qa = glm::normalize(glm::dvec4(a));
  const glm::dvec4 qb = glm::normalize(glm::dvec4(b));
  // conj(qa) qb
  const glm::dvec3 ua(-qa.x, -qa.y, -qa.z), ub(qb);
  const glm::dvec3 v = qa.w * ub + qb.w * ua + glm::cross(ua, ub);
  const double w = qa.w * qb.w - glm::dot(ua, ub);
  return 2.0 * std::atan2(glm::length(v), std::abs(w));
}

struct StateDiff {
  double pos = 0, rot = 0, vel = 0, omega = 0;
  void max_with(const StateDiff& o) {
    pos = std::max(pos, o.pos);
    rot = std::max(rot, o.rot);
    vel = std::max(vel, o.vel);
    omega = std::max(omega, o.omega);
  }
};

// Largest differences over all bodies and particles: |dx|, rotation angle, |dv|, |dw|. NaN
// propagates.
StateDiff state_diff(const WorldState& a, const WorldState& b) {
  StateDiff d;
  auto worst = [](double m, double x) { return std::isnan(x) || x > m ? x : m; };
  for (std::size_t i = 0; i < a.pos.size(); ++i) {
    d.pos = worst(d.pos, glm::length(glm::dvec3(a.pos[i]) - glm::dvec3(b.pos[i])));
    d.rot = worst(d.rot, orientation_angle(a.rot[i], b.rot[i]));
    d.vel = worst(d.vel, glm::length(glm::dvec3(a.vel[i]) - glm::dvec3(b.vel[i])));
    d.omega = worst(d.omega, glm::length(glm::dvec3(a.omega[i]) - glm::dvec3(b.omega[i])));
  }
  const Particles& pa = a.particles;
  const Particles& pb = b.particles;
  for (std::size_t i = 0; i < pa.size(); ++i) {
    d.pos = worst(d.pos, glm::length(glm::dvec3(pa.pos_radius[i]) - glm::dvec3(pb.pos_radius[i])));
    d.vel =
        worst(d.vel, glm::length(glm::dvec3(pa.vel_invmass[i]) - glm::dvec3(pb.vel_invmass[i])));
  }
  return d;
}

bool within(const StateDiff& d, const StateDiff& tol) {
  return d.pos <= tol.pos && d.rot <= tol.rot && d.vel <= tol.vel && d.omega <= tol.omega;
}

bool all_finite(const WorldState& st) {
  for (const auto* v : {&st.pos, &st.rot, &st.vel, &st.omega, &st.particles.pos_radius,
                        &st.particles.vel_invmass}) {
    for (const glm::vec4& x : *v) {
      if (!std::isfinite(x.x) || !std::isfinite(x.y) || !std::isfinite(x.z) ||
          !std::isfinite(x.w)) {
        return false;
      }
    }
  }
  return true;
}

// ---- 1. broadphase against brute force ----------------------------------------------------------

class RigidBroadphase : public WorldTest {};

// One step of 1,237 bodies (not a multiple of 64) of mixed shapes and sizes at rest with no
// gravity: the stored pairs are exactly the brute-force pair set, each once, in canonical order.
// The trace is taken after the step, but its pairs are the broadphase's, from the step start
// (the scene's positions).
TEST_P(RigidBroadphase, MatchesBruteForceOracle) {
  struct Case {
    std::uint64_t seed;
    float half, margin;
  };
  for (const Case& c : {Case{1, 12.0f, 0.0f}, Case{2, 11.0f, 0.3f}}) {
    SCOPED_TRACE("seed " + std::to_string(c.seed));
    const Scene s = random_mixed_scene(1237, c.seed, c.half, c.margin);
    Backend& b = load(s);
    StepTrace t;
    b.step(&t);
    EXPECT_EQ(b.stats().pairs, t.pairs.size());

    PairSet found;
    std::uint32_t duplicates = 0, misordered = 0;
    for (const glm::uvec4& p : t.pairs) {
      if (!found.insert({p.x, p.y}).second) ++duplicates;
      if (canonical(s, p.x, p.y) != std::make_pair(p.x, p.y)) ++misordered;
    }
    const OraclePairs oracle = brute_force_pairs(s);
    PairSet missing, extra;
    for (const auto& p : oracle.sure) {
      if (!found.count(p)) missing.insert(p);
    }
    for (const auto& p : found) {
      if (!oracle.sure.count(p) && !oracle.ambiguous.count(p)) extra.insert(p);
    }
    EXPECT_EQ(duplicates, 0u);
    EXPECT_EQ(misordered, 0u) << "lower shape number first, ties by index";
    EXPECT_TRUE(missing.empty()) << missing.size() << " missing:" << list_pairs(missing);
    EXPECT_TRUE(extra.empty()) << extra.size() << " extra:" << list_pairs(extra);
    // The scene exercises what it should: many pairs, plane pairs, static-static overlaps.
    EXPECT_GT(oracle.sure.size(), 1000u);
    EXPECT_GT(oracle.plane_pairs, 20u);
    EXPECT_GT(oracle.static_static_skipped, 0u);
    EXPECT_LE(oracle.ambiguous.size(), 2u);
    std::printf(
        "seed %u: %zu pairs (%u with planes), %zu within %.0e m of touching, %u static-static "
        "overlaps skipped\n",
        static_cast<unsigned>(c.seed), oracle.sure.size(), oracle.plane_pairs,
        oracle.ambiguous.size(), kBoundary, oracle.static_static_skipped);
  }
}

INSTANTIATE_TEST_SUITE_P(Rigid, RigidBroadphase,
                         ::testing::Values(Case{"cpu", SolverScheme::colored},
                                           Case{"gpu", SolverScheme::colored}),
                         case_name);

// ---- 2. GPU versus CPU ------------------------------------------------------------------------

class RigidGpuVsCpu : public WithGpu<> {
 protected:
  // One step of `s` on both backends from identical inputs, every stage's output compared.
  void compare_one_step(const Scene& s, const char* what, std::size_t min_pairs) {
    SCOPED_TRACE(std::string(what) + " / " + scheme_name(s.settings.solver.scheme));
    std::unique_ptr<Backend> gpu = make_gpu_backend(*ctx_);
    std::unique_ptr<Backend> cpu = make_cpu_backend();
    gpu->load(s);
    cpu->load(s);
    StepTrace g, c;
    gpu->step(&g);
    cpu->step(&c);
    // Every stage's outputs within what rounding allows (host/sim/compare.h, compare_traces,
    // which says each limit and why).
    for (const StageCheck& check : compare_traces(s, g, c)) {
      EXPECT_LE(check.diff, check.limit) << stage_name(check.stage) << ": " << check.what;
    }
    EXPECT_GE(c.pairs.size(), min_pairs);
    const double lambda_scale = std::max(
        {max_abs(c.lambdas, 3), max_abs(c.joint_lambda, 4), max_abs(c.pcontact_lambda, 3)});
    EXPECT_GT(lambda_scale, 0.0);
    // State after the step: velocities within 1e-3 m/s and 1e-2 rad/s (the impulse tolerance
    // over masses of ~1 kg and lever arms of ~0.1 m), and that over one step of 1/60 s for the
    // positions (2e-5 m) and orientations (2e-4 rad).
    WorldState gs, cs;
    gpu->read(gs);
    cpu->read(cs);
    const StateDiff d = state_diff(gs, cs);
    EXPECT_LE(d.vel, 1e-3);
    EXPECT_LE(d.omega, 1e-2);
    EXPECT_LE(d.pos, 2e-5);
    EXPECT_LE(d.rot, 2e-4);
    std::printf("%s/%s: %zu pairs, %u points, impulse scale %.3g; max diff:", what,
                scheme_name(s.settings.solver.scheme), c.pairs.size(), cpu->stats().points,
                lambda_scale);
    for (const StageCheck& check : compare_traces(s, g, c)) {
      std::printf(" %s %.3g,", check.what.c_str(), check.diff);
    }
    std::printf(" x %.3g m, q %.3g rad, v %.3g m/s, w %.3g rad/s\n", d.pos, d.rot, d.vel, d.omega);
  }

  // `steps` steps on both backends. Alongside, the CPU runs three copies of the scene with
  // every body moved by 1 ulp (nudged_scene, seeds 1 to 3): how far rounding alone carries this
  // run, its envelope. After each step the GPU-CPU difference must be within the fixed tolerance or
  // within twice the envelope so far, whichever is larger: a GPU that differs only by rounding
  // passes, one that computes something else (a wrong row, a lost warm start) does not.
  //   With `chaotic` (a pour of colliding particles, where the 1-ulp runs themselves fly
  // apart), the moment a run leaves the others is itself a matter of rounding, so each step is
  // held to twice the envelope of the whole run instead: the GPU may not spread further than
  // rounding does.
  void compare_run(const Scene& s, std::uint32_t steps, const StateDiff& tol, const char* what,
                   bool chaotic = false) {
    SCOPED_TRACE(std::string(what) + " / " + scheme_name(s.settings.solver.scheme));
    std::unique_ptr<Backend> gpu = make_gpu_backend(*ctx_);
    std::unique_ptr<Backend> cpu = make_cpu_backend();
    gpu->load(s);
    cpu->load(s);
    std::vector<std::unique_ptr<Backend>> nudge;
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      nudge.push_back(make_cpu_backend());
      nudge.back()->load(nudged_scene(s, seed));
    }
    StateDiff worst, envelope, at_bad;
    std::optional<std::uint32_t> first_bad;
    std::vector<StateDiff> diffs;
    WorldState gs, cs, ns;
    auto allowed = [&] {
      return StateDiff{std::max(tol.pos, 2.0 * envelope.pos), std::max(tol.rot, 2.0 * envelope.rot),
                       std::max(tol.vel, 2.0 * envelope.vel),
                       std::max(tol.omega, 2.0 * envelope.omega)};
    };
    for (std::uint32_t k = 1; k <= steps; ++k) {
      gpu->step();
      cpu->step();
      gpu->read(gs);
      cpu->read(cs);
      for (auto& b : nudge) {
        b->step();
        b->read(ns);
        envelope.max_with(state_diff(ns, cs));
      }
      const StateDiff d = state_diff(gs, cs);
      worst.max_with(d);
      diffs.push_back(d);
      if (!chaotic && !first_bad && !within(d, allowed())) {
        first_bad = k;
        at_bad = d;
      }
    }
    for (std::uint32_t k = 1; chaotic && k <= steps && !first_bad; ++k) {
      if (!within(diffs[k - 1], allowed())) {
        first_bad = k;
        at_bad = diffs[k - 1];
      }
    }
    EXPECT_TRUE(all_finite(gs));
    EXPECT_FALSE(first_bad.has_value())
        << "step " << first_bad.value_or(0) << ": max |dx| " << at_bad.pos << " m, angle "
        << at_bad.rot << " rad, |dv| " << at_bad.vel << " m/s, |dw| " << at_bad.omega
        << " rad/s; 1-ulp envelope at the end " << envelope.pos << " m, " << envelope.rot
        << " rad, " << envelope.vel << " m/s, " << envelope.omega << " rad/s";
    std::printf(
        "%s/%s, %u steps: GPU-CPU max |dx| %.3g m, angle %.3g rad, |dv| %.3g m/s, |dw| %.3g "
        "rad/s; 1-ulp envelope %.3g m, %.3g rad, %.3g m/s, %.3g rad/s\n",
        what, scheme_name(s.settings.solver.scheme), steps, worst.pos, worst.rot, worst.vel,
        worst.omega, envelope.pos, envelope.rot, envelope.vel, envelope.omega);
  }
};

// Every stage of one step from the same mid-run state: a pile of mixed shapes (all shape pairs,
// planes, a static body) and a rag-doll just after landing (joints with limits, contacts).
TEST_F(RigidGpuVsCpu, EveryStageFromIdenticalInputs) {
  const Scene pile = reference_scene_at(mixed_drop_scene(48, 7), 75);
  const Scene doll = reference_scene_at(ragdoll_scene(), 40);
  for (SolverScheme scheme : {SolverScheme::colored, SolverScheme::jacobi}) {
    compare_one_step(with_scheme(pile, scheme), "mixed pile", 60);
    compare_one_step(with_scheme(doll, scheme), "ragdoll", 10);
  }
}

// Whole runs. The CPU library is built with -ffp-contract=off from the same kernel source, so a
// GPU differs only by rounding (its compiler's fused multiply-adds and reassociation, its sqrt
// and division): ~1 ulp per operation. Fixed tolerances: 1 mm (0.1% of a pyramid box, 5% of the
// 2 cm contact margin), 0.01 rad, 1 cm/s, and 0.02 rad/s on the 1 m boxes (1 cm/s at their
// corners) or 0.2 rad/s on the rag-doll (1 cm/s at 5 cm, its hands and feet). Where the run
// itself amplifies rounding beyond that, the 1-ulp envelope of compare_run decides: measured on
// lavapipe, the Jacobi pyramid (8 iterations for 10 layers: it does not converge and keeps
// rocking, ARCHITECTURE.md "Known limit") drifts ~1 cm from a 1-ulp nudge within 100 steps.
TEST_F(RigidGpuVsCpu, PyramidOver100Steps) {
  for (SolverScheme scheme : {SolverScheme::colored, SolverScheme::jacobi}) {
    compare_run(with_scheme(pyramid_scene(10), scheme), 100, {1e-3, 1e-2, 1e-2, 2e-2},
                "pyramid 10");
  }
}

// Mixed scenes (particles and rigid bodies in one world): a 10 kg box landing on a bed of
// 288 particles, and 300 particles pouring onto a static ramp. Every stage of one step, then 100
// steps with the fixed tolerances of the pyramid (or the 1-ulp envelope; the pour is chaotic:
// measured on lavapipe, the 1-ulp runs end 6.5 cm and 4 m/s apart, the GPU 9 cm).
TEST_F(RigidGpuVsCpu, MixedScenesEveryStageFromIdenticalInputs) {
  const Scene bed = reference_scene_at(particle_bed_scene(2, 10.0f), 40);
  const Scene ramp = reference_scene_at(ramp_scene(300), 50);
  for (SolverScheme scheme : {SolverScheme::colored, SolverScheme::jacobi}) {
    compare_one_step(with_scheme(bed, scheme), "box on a particle bed", 1);
    compare_one_step(with_scheme(ramp, scheme), "particles on a ramp", 10);
  }
}

TEST_F(RigidGpuVsCpu, MixedScenesOver100Steps) {
  for (SolverScheme scheme : {SolverScheme::colored, SolverScheme::jacobi}) {
    compare_run(with_scheme(particle_bed_scene(2, 10.0f), scheme), 100, {1e-3, 1e-2, 1e-2, 2e-2},
                "box on a particle bed");
    compare_run(with_scheme(ramp_scene(300), scheme), 100, {1e-3, 1e-2, 1e-2, 2e-2},
                "particles on a ramp", true);
  }
}

TEST_F(RigidGpuVsCpu, RagdollOver100Steps) {
  for (SolverScheme scheme : {SolverScheme::colored, SolverScheme::jacobi}) {
    compare_run(with_scheme(ragdoll_scene(), scheme), 100, {1e-3, 1e-2, 1e-2, 2e-1}, "ragdoll");
  }
}

// The sequential scheme is CPU-only: the GPU backend refuses it at load, saying why.
TEST(RigidGpuBackend, RejectsSequentialScheme) {
  VKPHYS_GPU_TEST_CONTEXT(ctx);
  std::unique_ptr<Backend> gpu = make_gpu_backend(ctx);
  const Scene s = with_scheme(pyramid_scene(3), SolverScheme::sequential);
  try {
    gpu->load(s);
    ADD_FAILURE() << "load accepted the sequential scheme";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("sequential"), std::string::npos) << e.what();
  }
  // The backend is still usable with a scheme it runs.
  gpu->load(with_scheme(s, SolverScheme::colored));
  gpu->step();
  EXPECT_GT(gpu->stats().pairs, 0u);
}

// ---- 3. determinism ---------------------------------------------------------------------------

class RigidDeterminism : public WorldTest {};

// Two runs of the same scene on one backend are bit-identical: no float atomics, a fixed pair
// order, and a colouring whose result does not depend on thread timing.
TEST_P(RigidDeterminism, TwoRunsAreBitIdentical) {
  const Scene s = mixed_drop_scene(32, 11);
  load(s);
  const WorldState a = run(100);
  const std::uint32_t points = backend_->stats().points;
  load(s);
  const WorldState b = run(100);
  EXPECT_GT(points, 20u) << "the bodies should have landed";
  EXPECT_EQ(backend_->stats().points, points);
  EXPECT_TRUE(all_finite(a));
  EXPECT_EQ(first_difference(a.pos, b.pos), -1) << "positions";
  EXPECT_EQ(first_difference(a.rot, b.rot), -1) << "orientations";
  EXPECT_EQ(first_difference(a.vel, b.vel), -1) << "velocities";
  EXPECT_EQ(first_difference(a.omega, b.omega), -1) << "angular velocities";
}

VKPHYS_ON_ALL_CASES(RigidDeterminism);

// ---- 4. pair-capacity overflow --------------------------------------------------------------

class RigidCapacity : public WorldTest {
 protected:
  // Compares two traces of the same step bit for bit.
  void expect_same_trace(const StepTrace& a, const StepTrace& b) {
    EXPECT_EQ(first_difference(a.pairs, b.pairs), -1) << "pairs";
    EXPECT_EQ(first_difference(a.normals, b.normals), -1) << "normals";
    EXPECT_EQ(first_difference(a.points, b.points), -1) << "points";
    EXPECT_EQ(first_difference(a.lambdas, b.lambdas), -1) << "lambdas";
    EXPECT_EQ(first_difference(a.joint_lambda, b.joint_lambda), -1) << "joint lambdas";
    // Jacobi leaves the unit colours unused (and unwritten).
    if (GetParam().scheme == SolverScheme::colored) {
      EXPECT_EQ(first_difference(a.colors, b.colors), -1) << "colours";
    }
  }
  std::vector<std::uint32_t> regrows_against_roomy(const Scene& s, std::uint32_t steps);
};

// 16 pair slots for a pyramid that needs ~145: the step grows the buffers, redoes itself, and
// its result is identical to a run that never overflowed.
TEST_P(RigidCapacity, OverflowGrowsAndLosesNothing) {
  const Scene s = pyramid_scene(10);
  load(s);
  StepTrace roomy;
  backend_->step(&roomy);
  EXPECT_EQ(backend_->stats().regrows, 0u);
  WorldState roomy_state;
  backend_->read(roomy_state);

  load(s, 16);
  StepTrace tight;
  backend_->step(&tight);
  EXPECT_GE(backend_->stats().regrows, 1u);
  EXPECT_GE(backend_->stats().pair_capacity, roomy.pairs.size());
  EXPECT_GT(roomy.pairs.size(), 100u);
  ASSERT_EQ(tight.pairs.size(), roomy.pairs.size());
  expect_same_trace(tight, roomy);
  WorldState tight_state;
  backend_->read(tight_state);
  EXPECT_TRUE(same_state(tight_state, roomy_state));
}

// Runs s for `steps` steps with roomy buffers, then again from 16 pair slots, and expects every
// step's state, the last step's trace and the pair count to match bit for bit. Returns the
// steps at which the tight run regrew its buffers (and redid the step).
std::vector<std::uint32_t> RigidCapacity::regrows_against_roomy(const Scene& s,
                                                                std::uint32_t steps) {
  std::vector<WorldState> roomy(steps);
  StepTrace roomy_trace;
  load(s);
  for (std::uint32_t k = 0; k < steps; ++k) {
    backend_->step(k + 1 == steps ? &roomy_trace : nullptr);
    backend_->read(roomy[k]);
    EXPECT_EQ(backend_->stats().regrows, 0u);
  }
  const std::uint32_t roomy_pairs = backend_->stats().pairs;

  load(s, 16);
  std::vector<std::uint32_t> regrown_at;
  std::optional<std::uint32_t> first_bad;
  StepTrace tight_trace;
  for (std::uint32_t k = 0; k < steps; ++k) {
    backend_->step(k + 1 == steps ? &tight_trace : nullptr);
    if (backend_->stats().regrows > 0) regrown_at.push_back(k + 1);
    WorldState st;
    backend_->read(st);
    if (!first_bad && !same_state(st, roomy[k])) first_bad = k + 1;
  }
  EXPECT_FALSE(first_bad.has_value()) << "first step that differs: " << first_bad.value_or(0);
  EXPECT_EQ(backend_->stats().pairs, roomy_pairs);
  EXPECT_GT(roomy_pairs, 100u);
  expect_same_trace(tight_trace, roomy_trace);
  std::string at;
  for (std::uint32_t k : regrown_at) at += " " + std::to_string(k);
  std::printf("regrown at steps%s (capacity 16 -> %u; %u pairs at step %u)\n", at.c_str(),
              backend_->stats().pair_capacity, roomy_pairs, steps);
  return regrown_at;
}

// 128 boxes raining into a container: no pairs at first, 143 to 152 once they have landed. A run
// that starts with 16 slots regrows when the first layer lands (to ~112) and again when the pile
// outgrows the grown buffers, the second time with plenty of warm-start history to carry over.
// (With 100 boxes the pile ends at 110 to 117 pairs, depending on the scheme and backend: too
// close to the first regrow's 112 slots to be sure of the second.)
// After each of 100 steps it matches a run that never overflowed, bit for bit, and so does the
// last step's trace. These counts are the plain margin's: with the speculative reach (on by
// default since stop 36) the landing boxes' grown reach finds more pairs at the first regrow
// (step 24, to 256 slots), and the pile (128 to 132 pairs at step 100) never outgrows them, so
// this test of a second regrow runs without it (the reach is RegrowsWithTheReachMatchRoomyRun's).
TEST_P(RigidCapacity, SmallStartingCapacityMatchesRoomyRunOver100Steps) {
  Scene s = rain_scene(128);
  s.settings.solver.speculative_reach = false;
  const std::vector<std::uint32_t> regrown_at = regrows_against_roomy(s, 100);
  ASSERT_GE(regrown_at.size(), 2u);
  EXPECT_GT(regrown_at.back(), 40u) << "a regrow with warm-start history";
}

// The same rain with the speculative reach: the regrow's redo restores the step start, reach and
// all, so the tight run matches the roomy one bit for bit.
TEST_P(RigidCapacity, RegrowsWithTheReachMatchRoomyRun) {
  const Scene s = rain_scene(128);
  ASSERT_TRUE(s.settings.solver.speculative_reach);
  EXPECT_GE(regrows_against_roomy(s, 100).size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(Rigid, RigidCapacity,
                         ::testing::Values(Case{"cpu", SolverScheme::colored},
                                           Case{"cpu", SolverScheme::jacobi},
                                           Case{"gpu", SolverScheme::colored},
                                           Case{"gpu", SolverScheme::jacobi}),
                         case_name);

// ---- 5. colouring invariants ------------------------------------------------------------------

class RigidColoring : public WorldTest {
 protected:
  struct Summary {
    std::uint32_t colors = 0;            // colours in use below the overflow colour
    std::uint32_t overflow = 0;          // active units in the overflow colour
    std::uint32_t marked_uncolored = 0;  // ... of which the trace marks VKPHYS_UNCOLORED
    double overflow_lambda = 0;          // sum of the normal impulses of overflow contacts
  };

  // One step of `s` with a trace; checks the colouring's invariants on the trace.
  Summary check_coloring(Scene s, WorldState& after) {
    s.settings.solver.scheme = SolverScheme::colored;
    const std::uint32_t max_colors = s.settings.solver.max_colors;
    backend_->load(s);
    StepTrace t;
    backend_->step(&t);
    backend_->read(after);
    const auto joints = static_cast<std::uint32_t>(s.joints.size());
    EXPECT_EQ(t.colors.size(), joints + t.pairs.size());
    // Units of one colour never share a dynamic body (static ones: planes, mass-0 bodies, are
    // never written and may be shared). After the step, pos.w still holds 1/m.
    auto dynamic = [&](std::uint32_t b) { return after.pos[b].w > 0.0f; };
    std::vector<std::vector<std::uint32_t>> owner(
        max_colors, std::vector<std::uint32_t>(after.pos.size(), ~0u));
    Summary sum;
    std::uint32_t highest = 0, conflicts = 0, bad_active = 0, bad_inactive = 0;
    std::set<std::uint32_t> in_use;
    for (std::uint32_t u = 0; u < t.colors.size(); ++u) {
      const bool is_joint = u < joints;
      const glm::uvec4 p = is_joint ? glm::uvec4(0u) : t.pairs[u - joints];
      const std::uint32_t a = is_joint ? s.joints[u].body_a : p.x;
      const std::uint32_t b = is_joint ? s.joints[u].body_b : p.y;
      const bool active = is_joint || p.z > 0u;
      const std::uint32_t c = t.colors[u];
      if (!active) {
        if (c != VKPHYS_INACTIVE_COLOR) ++bad_inactive;
        continue;
      }
      // The overflow colour is max_colors in the solver's colour ranges; the unit's own entry
      // may keep "uncoloured" (kernels/world_coloring.inl: color_key maps it to max_colors).
      if (c == max_colors || c == VKPHYS_UNCOLORED) {
        ++sum.overflow;
        if (c == VKPHYS_UNCOLORED) ++sum.marked_uncolored;
        for (std::uint32_t k = 0; !is_joint && k < p.z; ++k) {
          sum.overflow_lambda += static_cast<double>(t.lambdas[4 * (u - joints) + k].x);
        }
        continue;
      }
      if (c > max_colors) {
        ++bad_active;
        continue;
      }
      highest = std::max(highest, c + 1);
      in_use.insert(c);
      for (std::uint32_t body : {a, b}) {
        if (!dynamic(body)) continue;
        if (owner[c][body] != ~0u) {
          if (++conflicts <= 5) {
            ADD_FAILURE() << "units " << owner[c][body] << " and " << u << " share body " << body
                          << " in colour " << c;
          }
        }
        owner[c][body] = u;
      }
    }
    EXPECT_EQ(conflicts, 0u);
    EXPECT_EQ(bad_active, 0u) << "active units with a colour past the overflow colour";
    EXPECT_EQ(bad_inactive, 0u) << "inactive pairs not in colour " << VKPHYS_INACTIVE_COLOR;
    EXPECT_EQ(backend_->stats().overflow_units, sum.overflow);
    EXPECT_EQ(backend_->stats().colors, highest) << "the highest colour in use + 1";
    // The first step's colouring is fresh (no contact keeps a colour yet): no colour below the
    // highest is left empty.
    EXPECT_EQ(in_use.size(), highest) << "colours are used from 0 without gaps";
    sum.colors = highest;
    EXPECT_TRUE(all_finite(after));
    return sum;
  }
};

TEST_P(RigidColoring, NoColourSharesADynamicBody) {
  WorldState st;
  for (const Scene& s :
       {pyramid_scene(10), ragdoll_scene(), reference_scene_at(mixed_drop_scene(48, 7), 75)}) {
    SCOPED_TRACE(s.name);
    const Summary sum = check_coloring(s, st);
    EXPECT_GE(sum.colors, 2u);
    EXPECT_EQ(sum.overflow, 0u) << "24 colours are plenty here";
  }
}

// Two colours for a pyramid that needs ~9: most units go to the overflow colour, which is still
// solved (mass-split Jacobi, kern::overflow_passes a sweep), so the pyramid stands. Unsolved, those
// boxes would fall freely for the step: 2.8 mm (g h^2) at 0.17 m/s (g h). Solved, the step is like
// the one with all colours (measured: max sag 1.1 mm at 0.07 m/s with 2 colours, 1.3 mm at 0.08 m/s
// with 9: the soft 30 Hz contacts take up the load over the first steps).
TEST_P(RigidColoring, OverflowColourIsSolved) {
  Scene s = pyramid_scene(10);
  auto sag = [&](const WorldState& st) {
    double drop = 0.0, speed = 0.0;
    for (std::size_t i = 0; i < s.bodies.size(); ++i) {
      drop = std::max(drop, static_cast<double>(s.bodies[i].position.y - st.pos[i].y));
      speed = std::max(speed, glm::length(glm::dvec3(st.vel[i])));
    }
    return std::make_pair(drop, speed);
  };
  WorldState all, two;
  const Summary ref = check_coloring(s, all);
  EXPECT_EQ(ref.overflow, 0u);
  s.settings.solver.max_colors = 2;
  const Summary sum = check_coloring(s, two);
  EXPECT_EQ(sum.colors, 2u);
  EXPECT_GT(sum.overflow, 50u);
  EXPECT_GT(sum.overflow_lambda, 0.0) << "overflow contacts carry load";
  const auto [drop, speed] = sag(two);
  const auto [ref_drop, ref_speed] = sag(all);
  const double h = static_cast<double>(s.settings.time_step);
  const double g = 10.0;
  EXPECT_LT(drop, 0.5 * g * h * h);
  EXPECT_LT(speed, 0.5 * g * h);
  EXPECT_LT(drop, 1.25 * ref_drop);
  EXPECT_LT(speed, 1.25 * ref_speed);
  std::printf(
      "max_colors 2: %u overflow units (%u marked uncoloured in the trace), max sag %.3g "
      "m at %.3g m/s; with %u colours: %.3g m at %.3g m/s\n",
      sum.overflow, sum.marked_uncolored, drop, speed, ref.colors, ref_drop, ref_speed);
}

INSTANTIATE_TEST_SUITE_P(Rigid, RigidColoring,
                         ::testing::Values(Case{"cpu", SolverScheme::colored},
                                           Case{"gpu", SolverScheme::colored}),
                         case_name);

}  // namespace
}  // namespace vkphys::test
