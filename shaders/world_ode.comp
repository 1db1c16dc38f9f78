#version 450
#extension GL_GOOGLE_include_directive : require
// Force springs and the particles' explicit and implicit integrators (kernels/world_ode.inl,
// world_implicit.inl): one invocation per particle, per unit (ODE_MARK), per line (CG_LINES) or
// one (CG_START); push:
// (unused, stage, h as float bits, role). A CG pass's workgroup is one chunk of particles: its
// scalar step before a barrier, its chunk's sums after one.
//
// The mode (VKPHYS_ODE_MODES) is a specialization constant, one pipeline per mode
// (host/gpu/world_kernels.cpp, WorldKernels::ode), not the push constant it once was. With the
// mode pushed, lavapipe (Mesa 22.3) compiled a new variant of this shader at every dispatch and
// kept every one: it inlines the push constants and uniforms that branch conditions read, and
// goes on doing so at each dispatch, with no cache, for a pipeline whose first inlined variant
// came out much smaller than the whole, as a mode switch's does. The implicit method's 117
// passes a step (4 x 4 cloth, 16 CG iterations) cost about 4 s and 135 MB a step that way; with
// the mode a constant, 10 to 50 ms, and the CG passes no memory (ARCHITECTURE.md, "Implicit
// integrator", has what is left).
#include "world_common.glsl"

layout(constant_id = 1) const uint ODE_MODE = ODE_SPRING_FORCE;

void main() {
  uint x = gl_GlobalInvocationID.x;
  if (ODE_MODE == ODE_MARK) {
    if (x < params.coloring.w) ode_mark_unit(x);
    return;
  }
  bool in_range =
      x < ode_pass_invocations(ODE_MODE, params.kinds.y, params.lines.y + params.lines.z);
  // Every invocation reaches the barriers (the mode is a constant).
  if (cg_pass_step(ODE_MODE)) {
    if (gl_LocalInvocationID.x == 0u) cg_begin_pass(ODE_MODE);
    barrier();
  }
  // Test-only (kernels/stages.h): the first stage's acceleration counts twice.
  if (in_range && VKPHYS_FAULT == FAULT_PREDICT && ODE_MODE == ODE_STAGE && push.y == 0u) {
    ode_deriv[x] *= 2.0f;
  }
  if (in_range) ode_pass(ODE_MODE, x, push.y, uintBitsToFloat(push.z), push.w);
  if (cg_pass_sums(ODE_MODE)) {
    barrier();
    if (gl_LocalInvocationID.x == 0u) cg_chunk_sum(ODE_MODE, gl_WorkGroupID.x);
  }
}
