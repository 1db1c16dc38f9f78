// Common prologue of the world shaders: the shared layout, the step constants at binding 0,
// every world buffer at a fixed binding (the host binds one table to every world kernel,
// host/gpu/world_buffers.cpp), the per-dispatch push constants, and the stage functions of
// kernels/*.inl, which use the buffers by these names. Each world shader is then a thin main():
// index, bounds check, call one stage function. A kernel's pipeline binds only the buffers its
// main() reaches (host/vk/spirv_reflect.h), so the table may be longer than a stage may bind.
#include "kernels/collide.h"
#include "kernels/grid.h"
#include "kernels/implicit.h"
#include "kernels/integrate.h"
#include "kernels/narrowphase.h"
#include "kernels/ode.h"
#include "kernels/rigid_body.h"
#include "kernels/rows.h"
#include "kernels/spook.h"
#include "kernels/aero.h"
#include "kernels/spring_force.h"
#include "kernels/stages.h"
#include "kernels/world_layout.h"

// A shader may set its own workgroup size and qualify every buffer (world_fused.comp: one
// workgroup whose invocations read each other's writes after a barrier, so `workgroupcoherent`).
// (`restrict` on every buffer was measured on an H100 and changed no stage's time by 2%.)
#ifndef VKPHYS_LOCAL_SIZE
#define VKPHYS_LOCAL_SIZE VKPHYS_GROUP_SIZE
#endif
#ifndef VKPHYS_BUFFER_QUALIFIER
#define VKPHYS_BUFFER_QUALIFIER
#endif
layout(local_size_x = VKPHYS_LOCAL_SIZE) in;
layout(std140, binding = 0) uniform Params { WorldParams params; };
layout(std430, binding = 1) VKPHYS_BUFFER_QUALIFIER buffer Counters { WorldCounters counters; };
#define VKPHYS_DECLARE_BUFFER(b, T, name) \
  layout(std430, binding = b) VKPHYS_BUFFER_QUALIFIER buffer Buffer_##name { T name[]; };
VKPHYS_WORLD_BUFFERS(VKPHYS_DECLARE_BUFFER)

// (mode, a, b, c): which stage function (kernels/stages.h), and its arguments.
layout(push_constant) uniform Push { uvec4 push; };

// Test-only: the stage whose kernel is made wrong on purpose (VKPHYS_FAULTS, kernels/stages.h).
// FAULT_NONE in every shipping pipeline, where the faulty branches compile away.
layout(constant_id = 0) const uint VKPHYS_FAULT = FAULT_NONE;

// The implicit integrator's CG passes (kernels/world_implicit.inl): a workgroup is one chunk
// (VKPHYS_GROUP_SIZE = VKPHYS_CG_CHUNK); its particles' products, and the pass's scalar step.
shared vec3 cg_dots[VKPHYS_CG_CHUNK];
shared CgStep cg_step;

#include "kernels/world_bodies.inl"
#include "kernels/world_broadphase.inl"
#include "kernels/world_coloring.inl"
#include "kernels/particle_grid.inl"
#include "kernels/world_narrowphase.inl"
#include "kernels/contact_manifold.inl"
#include "kernels/contact_particle.inl"
#include "kernels/joints.inl"
#include "kernels/joint_trees.inl"
#include "kernels/world_units.inl"
#include "kernels/world_ode.inl"
#include "kernels/strain_limit.inl"
#include "kernels/world_implicit.inl"

// FAULT_SOLVE: the solve's sweeps pass over every even-numbered unit (it keeps its warm start).
bool fault_skips_unit(uint u, uint kind) {
  return VKPHYS_FAULT == FAULT_SOLVE && kind == KIND_SOLVE && (u & 1u) == 0u;
}
