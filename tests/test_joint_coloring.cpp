// The joints' colours, made once at load (host/sim/joint_coloring.h), and the step's colouring
// that fits the contacts around them (kernels/world_coloring.inl). Checked against brute force:
// the greedy rule itself (each joint the lowest colour free on its dynamic bodies, the masks the
// union of their joints' colours, joints past max_colors left uncoloured, static bodies shared),
// then in the world on both backends: every step keeps the joints' load colours, and no two
// units of one colour (joints and contact manifolds) share a dynamic body.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "host/sim/joint_coloring.h"
#include "host/sim/rigid_scenes.h"
#include "host/sim/world_setup.h"
#include "kernels/world_layout.h"
#include "tests/backends.h"
#include "tests/rigid_scene_helpers.h"

namespace vkphys::test {
namespace {

// A world of `bodies` bodies, those in `statics` with 1/m = 0, and the joints (a, b).
WorldArrays joint_world(std::uint32_t bodies, const std::vector<std::uint32_t>& statics,
                        const std::vector<glm::uvec2>& joints) {
  WorldArrays w;
  w.vel.assign(bodies, glm::vec4(0.0f, 0.0f, 0.0f, 1.0f));
  w.pos.assign(bodies, glm::vec4(0.0f));
  for (std::uint32_t s : statics) w.vel[s].w = 0.0f;
  for (glm::uvec2 j : joints) w.joint_info.emplace_back(j.x, j.y, 0u, 0u);
  return w;
}

// The greedy rule and the masks, checked joint by joint against the colours so far.
void expect_greedy(const WorldArrays& w, std::uint32_t max_colors) {
  const std::vector<std::uint32_t> out = color_joints(w, max_colors);
  const std::uint32_t n = w.bodies(), joints = w.joints();
  ASSERT_EQ(out.size(), n + joints);
  std::vector<std::uint32_t> used(n, 0u);
  auto dynamic = [&](std::uint32_t b) { return w.vel[b].w > 0.0f; };
  for (std::uint32_t j = 0; j < joints; ++j) {
    const std::uint32_t a = w.joint_info[j].x, b = w.joint_info[j].y;
    std::uint32_t lowest = 0;
    while (lowest < max_colors &&
           ((dynamic(a) && (used[a] >> lowest & 1u)) || (dynamic(b) && (used[b] >> lowest & 1u)))) {
      ++lowest;
    }
    const std::uint32_t want = lowest < max_colors ? lowest : VKPHYS_UNCOLORED;
    ASSERT_EQ(out[n + j], want) << "joint " << j;
    if (want == VKPHYS_UNCOLORED) continue;
    if (dynamic(a)) used[a] |= 1u << want;
    if (dynamic(b)) used[b] |= 1u << want;
  }
  for (std::uint32_t b = 0; b < n; ++b) EXPECT_EQ(out[b], used[b]) << "mask of body " << b;
}

TEST(JointColoring, ChainsAlternateStarsRunOutAndStaticBodiesAreShared) {
  // A chain of six bodies: 0, 1, 0, 1, 0.
  const WorldArrays chain = joint_world(6, {}, {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}});
  const std::vector<std::uint32_t> c = color_joints(chain, 24);
  EXPECT_EQ(std::vector<std::uint32_t>(c.begin() + 6, c.end()),
            (std::vector<std::uint32_t>{0, 1, 0, 1, 0}));
  EXPECT_EQ(c[2], 0b11u);  // body 2 holds colours 0 and 1
  expect_greedy(chain, 24);
  // A star of five arms on one body, three colours: two arms are left to the step.
  const WorldArrays star = joint_world(6, {}, {{0, 1}, {0, 2}, {0, 3}, {0, 4}, {0, 5}});
  const std::vector<std::uint32_t> s = color_joints(star, 3);
  EXPECT_EQ(std::vector<std::uint32_t>(s.begin() + 6, s.end()),
            (std::vector<std::uint32_t>{0, 1, 2, VKPHYS_UNCOLORED, VKPHYS_UNCOLORED}));
  EXPECT_EQ(s[0], 0b111u);
  expect_greedy(star, 3);
  // Four bodies hung from one static body: one colour for all, and the static body no mask.
  const WorldArrays hung = joint_world(5, {0}, {{0, 1}, {2, 0}, {0, 3}, {4, 0}});
  const std::vector<std::uint32_t> h = color_joints(hung, 24);
  EXPECT_EQ(std::vector<std::uint32_t>(h.begin() + 5, h.end()),
            (std::vector<std::uint32_t>{0, 0, 0, 0}));
  EXPECT_EQ(h[0], 0u);
}

TEST(JointColoring, RandomGraphsFollowTheGreedyRule) {
  std::mt19937 rng(7);
  for (std::uint32_t trial = 0; trial < 20; ++trial) {
    const std::uint32_t n = 37 + trial * 5;
    std::uniform_int_distribution<std::uint32_t> body(0, n - 1);
    std::vector<std::uint32_t> statics;
    for (std::uint32_t b = 0; b < n; b += 7) statics.push_back(b);
    std::vector<glm::uvec2> joints;
    for (std::uint32_t k = 0; k < 3 * n; ++k) {
      const std::uint32_t a = body(rng), b = body(rng);
      if (a != b) joints.emplace_back(a, b);
    }
    expect_greedy(joint_world(n, statics, joints), trial % 2 == 0 ? 24u : 5u);
  }
}

// A hub box with five arms on the floor, each arm a ball joint, and max_colors 3: the hub holds
// three joint colours from load, two arms are coloured (or overflow) with the contacts every
// step, and the hub's floor contact finds every colour taken on it.
Scene hub_scene() {
  Scene s = empty_rigid_scene(-9.81f);
  s.planes.push_back({{0.0f, 1.0f, 0.0f}, 0.0f, 0});
  s.bodies.push_back(make_box({0.0f, 0.25f, 0.0f}, {0.25f, 0.25f, 0.25f}, 2.0f));
  for (std::uint32_t k = 0; k < 5; ++k) {
    const float angle = 1.2566371f * static_cast<float>(k);
    const glm::vec3 dir(std::cos(angle), 0.0f, std::sin(angle));
    s.bodies.push_back(
        make_box(glm::vec3(0.0f, 0.2f, 0.0f) + 0.75f * dir, {0.2f, 0.2f, 0.2f}, 1.0f));
    Joint j;
    j.type = JointType::ball;
    j.body_a = 0;
    j.body_b = k + 1;
    j.anchor_a = glm::vec3(0.0f, -0.05f, 0.0f) + 0.25f * dir;
    j.anchor_b = glm::vec3(0.0f, 0.0f, 0.0f) - 0.3f * dir;
    s.joints.push_back(j);
  }
  s.settings.solver.max_colors = 3;
  return s;
}

class JointColoringWorld : public WorldTest {};

// Every step's colours: the joints' are their load colours where they have one, and no two
// units of one colour share a dynamic body (joints and manifolds; the overflow colour aside).
void expect_step_colours(Backend& backend, const Scene& s, std::uint32_t steps) {
  const WorldArrays w = build_world(s);
  const std::vector<std::uint32_t> load = color_joints(w, s.settings.solver.max_colors);
  const std::uint32_t n = w.bodies(), joints = w.joints(), max = s.settings.solver.max_colors;
  std::uint32_t contact_units = 0;
  for (std::uint32_t step = 0; step < steps; ++step) {
    StepTrace t;
    backend.step(&t);
    ASSERT_EQ(t.colors.size(), joints + t.pairs.size());
    std::vector<std::vector<std::uint32_t>> owner(max, std::vector<std::uint32_t>(n, ~0u));
    for (std::uint32_t u = 0; u < t.colors.size(); ++u) {
      const bool is_joint = u < joints;
      if (is_joint && load[n + u] != VKPHYS_UNCOLORED) {
        ASSERT_EQ(t.colors[u], load[n + u]) << "step " << step << ", joint " << u;
      }
      const glm::uvec4 p = is_joint ? glm::uvec4(0u) : t.pairs[u - joints];
      if (!is_joint && p.z == 0u) continue;
      contact_units += is_joint ? 0u : 1u;
      const std::uint32_t c = t.colors[u];
      if (c >= max) continue;  // the overflow colour: mass-split Jacobi, bodies may be shared
      const glm::uvec2 ab = is_joint ? glm::uvec2(w.joint_info[u]) : glm::uvec2(p);
      for (std::uint32_t b : {ab.x, ab.y}) {
        if (w.vel[b].w <= 0.0f) continue;
        ASSERT_EQ(owner[c][b], ~0u) << "step " << step << ": units " << owner[c][b] << " and " << u
                                    << " share body " << b << " in colour " << c;
        owner[c][b] = u;
      }
    }
  }
  EXPECT_GT(contact_units, 0u) << "the scene was meant to have contacts";
}

TEST_P(JointColoringWorld, JointsKeepTheirLoadColoursAndColoursShareNoBody) {
  if (GetParam().scheme != SolverScheme::colored) GTEST_SKIP() << "the coloured scheme's";
  expect_step_colours(load(ragdoll_scene()), ragdoll_scene(), 40);
  expect_step_colours(load(hub_scene()), hub_scene(), 40);
}

INSTANTIATE_TEST_SUITE_P(World, JointColoringWorld, all_cases(), case_name);

}  // namespace
}  // namespace vkphys::test
