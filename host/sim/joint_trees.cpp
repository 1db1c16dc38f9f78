#include "host/sim/joint_trees.h"

#include <numeric>
#include <vector>

namespace vkphys {

namespace {

// A node of the traversal: a body (index < R) or a joint (R + joint index); its parent's
// traversal index (kNone for the root) and the end of the edge's joint the body is (0 a, 1 b).
struct Visit {
  std::uint32_t node;
  std::uint32_t parent;
  std::uint32_t side;
};
constexpr std::uint32_t kNone = 0xFFFFFFFFu;

// Joint j's rows in its tree's solve, by the kernels' rule (joint_tree_rows_of).
std::uint32_t tree_row_mask(const WorldArrays& w, std::uint32_t j) {
  return kern::joint_tree_row_mask(w.joint_info[j], w.joint_frames[VKPHYS_JOINT_STRIDE * j + 6u],
                                   w.joint_frames[VKPHYS_JOINT_STRIDE * j + 7u]);
}

}  // namespace

void build_joint_trees(const Scene& scene, WorldArrays& w) {
  w.tree_ranges.clear();
  w.tree_nodes.clear();
  if (!scene.settings.solver.joint_trees) return;
  const std::uint32_t r = w.rigid;
  auto dynamic = [&](std::uint32_t i) { return i < r && w.vel[i].w > 0.0f; };
  std::vector<std::uint32_t> loop(r);
  std::iota(loop.begin(), loop.end(), 0u);
  std::vector<std::vector<std::uint32_t>> body_joints(r);
  // A joint to a static body (a pin) has one neighbour in the tree, so it is the root or a leaf.
  // Eliminated first, as a leaf, its block -E (SPOOK's eps, ~1e-5 of an inverse mass) would be
  // inverted alone and its body's block would become M + G^T G / eps: the float factor then
  // loses the body's own mass (a pendulum fell 1% too fast and, warm-started, blew up). So each
  // tree takes at most one pin, as its root, where it is eliminated last; any other pin of the
  // same tree stays with the sweep. Every leaf is then a body.
  std::vector<std::uint32_t> pins;
  // The scene's joints come first in joint_info (the springs after them join particles).
  for (std::uint32_t k = 0; k < scene.joints.size(); ++k) {
    const glm::uvec4 info = w.joint_info[k];
    if (info.x >= r || info.y >= r) continue;
    // A hinge with a limit stays with the sweep, its point rows scalar (kernels/joints.inl,
    // joint_rows_sweep): solved exactly between two sweeps of its limit row, the point rows turn
    // the door that hit its limit back about the hinge while the limit row turns it about its
    // centre of mass, and the door rebounded at 0.095 rad/s where the rows swept together stop
    // it (RigidPhysics.HingeTurnsOnlyAboutItsAxisAndStopsAtItsLimit).
    if (info.z == VKPHYS_JOINT_HINGE && (info.w & VKPHYS_JOINT_LIMITED) != 0u) continue;
    const bool da = dynamic(info.x), db = dynamic(info.y);
    if (!da || !db) {
      if (da || db) pins.push_back(k);
      continue;
    }
    const std::uint32_t ra = union_find_root(loop, info.x), rb = union_find_root(loop, info.y);
    if (ra == rb) continue;  // a loop: this joint stays with the sweep
    loop[ra] = rb;
    body_joints[info.x].push_back(k);
    body_joints[info.y].push_back(k);
    w.joint_info[k].w |= VKPHYS_JOINT_IN_TREE;
  }
  std::vector<std::uint32_t> root_pin(r, kNone);  // per tree (its union-find root)
  for (std::uint32_t k : pins) {
    const glm::uvec4 info = w.joint_info[k];
    const std::uint32_t tree = union_find_root(loop, dynamic(info.x) ? info.x : info.y);
    if (root_pin[tree] != kNone) continue;
    root_pin[tree] = k;
    w.joint_info[k].w |= VKPHYS_JOINT_IN_TREE;
  }
  std::vector<bool> seen(r + w.joints(), false);
  std::vector<Visit> visits;
  std::vector<Visit> stack;
  for (std::uint32_t body = 0; body < r; ++body) {
    const std::uint32_t tree = dynamic(body) ? union_find_root(loop, body) : kNone;
    const bool pinned = tree != kNone && root_pin[tree] != kNone;
    if (seen[body] || (body_joints[body].empty() && !pinned)) continue;
    // Pre-order from the tree's pin, or else from this body: a node is listed before its
    // children, so the reversed list has every node after its children (the factor's order).
    const std::uint32_t start = pinned ? r + root_pin[tree] : body;
    visits.clear();
    stack.push_back({start, kNone, 0u});
    seen[start] = true;
    while (!stack.empty()) {
      const Visit v = stack.back();
      stack.pop_back();
      const auto here = static_cast<std::uint32_t>(visits.size());
      visits.push_back(v);
      if (v.node < r) {
        for (std::uint32_t k : body_joints[v.node]) {
          if (seen[r + k]) continue;
          seen[r + k] = true;
          stack.push_back({r + k, here, w.joint_info[k].y == v.node ? 1u : 0u});
        }
      } else {
        const glm::uvec4 info = w.joint_info[v.node - r];
        for (std::uint32_t b : {info.x, info.y}) {
          if (!dynamic(b) || seen[b]) continue;
          seen[b] = true;
          stack.push_back({b, here, info.y == b ? 1u : 0u});
        }
      }
    }
    const auto first = static_cast<std::uint32_t>(w.tree_nodes.size());
    const auto count = static_cast<std::uint32_t>(visits.size());
    for (std::uint32_t k = count; k-- > 0;) {
      const Visit& v = visits[k];
      const std::uint32_t parent =
          v.parent == kNone ? VKPHYS_TREE_ROOT : first + count - 1u - v.parent;
      if (v.node < r) {
        w.tree_nodes.emplace_back(v.node, parent, v.side, 0u);
      } else {
        const std::uint32_t j = v.node - r;
        w.tree_nodes.emplace_back(j | VKPHYS_TREE_JOINT, parent, v.side, tree_row_mask(w, j));
      }
    }
    w.tree_ranges.emplace_back(first, first + count);
  }
}

}  // namespace vkphys
