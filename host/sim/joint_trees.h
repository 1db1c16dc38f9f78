// The joint trees of a world (kernels/joint_trees.inl solves each one directly): which joints
// join rigid bodies into trees, and each tree's nodes in elimination order.
#pragma once

#include "host/sim/world_setup.h"

namespace vkphys {

// With solver.joint_trees, marks every joint between rigid bodies, at least one of them dynamic,
// that closes no loop through dynamic bodies and is no hinge with a limit (VKPHYS_JOINT_IN_TREE
// in joint_info; a tree takes one pin, as its root: joint_trees.cpp says why), and lists
// each connected tree of them: its dynamic bodies and its joints as nodes, each node after all
// its children (a joint's neighbours are its dynamic bodies, a body's its tree joints). A joint
// that would close a loop stays with the sweep alone. Particles are never tree nodes.
void build_joint_trees(const Scene& scene, WorldArrays& w);

}  // namespace vkphys
