// The CPU environment for the rigid-body stage functions in kernels/rigid_*.inl: the shaders
// see the buffers as std430 arrays (shaders/rigid_common.glsl), here they are member pointers
// with the same names, and the .inl files are included into the struct body (as for particles,
// host/cpu/particle_env.h). GLSL's integer atomics become plain read-modify-writes: the CPU
// runs one invocation at a time.
#pragma once

#include "kernels/collide.h"
#include "kernels/narrowphase.h"
#include "kernels/rigid_body.h"
#include "kernels/rigid_layout.h"
#include "kernels/rigid_rows.h"
#include "kernels/spook.h"

namespace vkphys::kern {

struct RigidEnv {
  RigidParams params{};
  RigidCounters counters{};
  vec4* body_pos = nullptr;
  vec4* body_rot = nullptr;
  vec4* body_vel = nullptr;
  vec4* body_omega = nullptr;
  vec4* body_start = nullptr;
  vec4* body_iinv = nullptr;
  vec4* body_inertia = nullptr;
  uvec4* body_shape = nullptr;
  vec4* body_dims = nullptr;
  vec4* body_aabb = nullptr;
  vec4* body_vel_pos = nullptr;
  uint* body_color = nullptr;
  uvec2* body_range = nullptr;
  uint* sort_keys = nullptr;
  uint* sort_values = nullptr;
  uint* pair_offsets = nullptr;
  uvec4* pair_info = nullptr;
  vec4* pair_normal = nullptr;
  vec4* point_geom = nullptr;
  vec4* point_lambda = nullptr;
  vec4* point_prep = nullptr;
  uvec4* prev_pair_info = nullptr;
  vec4* prev_point_lambda = nullptr;
  uint* prev_hash = nullptr;
  uvec4* joint_info = nullptr;
  vec4* joint_frames = nullptr;
  vec4* joint_rows = nullptr;
  vec4* joint_lambda = nullptr;
  uint* unit_color = nullptr;
  vec4* unit_dv = nullptr;

  static uint atomicAdd(uint& mem, uint v) {
    uint old = mem;
    mem = old + v;
    return old;
  }
  static uint atomicMax(uint& mem, uint v) {
    uint old = mem;
    mem = max(old, v);
    return old;
  }
  static uint atomicCompSwap(uint& mem, uint compare, uint v) {
    uint old = mem;
    if (old == compare) mem = v;
    return old;
  }

#include "kernels/rigid_bodies.inl"
#include "kernels/rigid_broadphase.inl"
#include "kernels/rigid_coloring.inl"
#include "kernels/rigid_joints.inl"
#include "kernels/rigid_narrowphase.inl"
#include "kernels/rigid_solver.inl"
#include "kernels/rigid_units.inl"
};

}  // namespace vkphys::kern
