// The CPU environment for the world's stage functions in kernels/*.inl: the shaders see the
// buffers as std430 arrays (shaders/world_common.glsl), here they are member pointers with the
// same names, and the .inl files are included into the struct body. GLSL's integer atomics
// become plain read-modify-writes: the CPU runs one invocation at a time.
#pragma once

#include "host/cpu/wide_lanes.h"
#include "kernels/aero.h"
#include "kernels/collide.h"
#include "kernels/grid.h"
#include "kernels/implicit.h"
#include "kernels/integrate.h"
#include "kernels/narrowphase.h"
#include "kernels/ode.h"
#include "kernels/rigid_body.h"
#include "kernels/rows.h"
#include "kernels/spook.h"
#include "kernels/spring_force.h"
#include "kernels/stages.h"
#include "kernels/world_layout.h"

namespace vkphys::kern {

struct WorldEnv {
  WorldParams params{};
  WorldCounters counters{};
#define VKPHYS_ENV_MEMBER(b, T, name) T* name = nullptr;
  VKPHYS_WORLD_BUFFERS(VKPHYS_ENV_MEMBER)
#undef VKPHYS_ENV_MEMBER

  // The GPU's workgroup memory of the CG passes (shaders/world_common.glsl): one chunk's
  // products and the pass's scalar step (kernels/world_implicit.inl).
  vec3 cg_dots[VKPHYS_CG_CHUNK]{};
  CgStep cg_step{};

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
  static uint atomicOr(uint& mem, uint v) {
    uint old = mem;
    mem = old | v;
    return old;
  }
  static uint atomicCompSwap(uint& mem, uint compare, uint v) {
    uint old = mem;
    if (old == compare) mem = v;
    return old;
  }

#include "host/cpu/manifold_lanes.inl"
#include "kernels/contact_manifold.inl"
#include "kernels/contact_particle.inl"
#include "kernels/joint_trees.inl"
#include "kernels/joints.inl"
#include "kernels/particle_grid.inl"
#include "kernels/world_bodies.inl"
#include "kernels/world_broadphase.inl"
#include "kernels/world_coloring.inl"
#include "kernels/world_implicit.inl"
#include "kernels/world_narrowphase.inl"
#include "kernels/world_ode.inl"
#include "kernels/strain_limit.inl"
#include "kernels/world_units.inl"
};

}  // namespace vkphys::kern
