#version 450
#extension GL_GOOGLE_include_directive : require
// A small scene's colouring and solver sweeps in ONE workgroup: the colours follow each other
// through workgroup barriers instead of one dispatch and one full pipeline barrier each.
//
// Why: a coloured sweep is a dispatch per colour list and a barrier between colours, so a solve
// records about 2 x colours x (iterations + 1) dispatches; on a real GPU each costs a few
// microseconds however little it holds (an H100 ran the 210-box pyramid's 10 colours x 11 sweeps
// in 2.75 ms, ~8 us per dispatch, for ~60 units a colour). A workgroup barrier costs well under
// a microsecond. The GPU backend picks this kernel where one round of the workgroup covers each
// colour (FusedPolicy in host/sim/backend.h, choose_fusion in host/gpu/step_recording.cpp).
//
// The results are bit for bit those of the per-colour dispatches: the units of one colour share
// no dynamic body, so the order in which invocations take them changes nothing, and the colours
// and the unit-then-average passes of Jacobi and of the overflow colour (mass-split Jacobi,
// kernels/world_coloring.inl) follow each other in the same order.
//
// An invocation reads velocities another one wrote before the barrier, so every buffer is
// coherent. This file is the variant for any device: `coherent` (device-wide) and a buffer
// memory barrier before each workgroup barrier. world_fused_workgroup.comp is the same kernel
// for a GPU with the Vulkan memory model, whose buffers are coherent within the workgroup only.
//
// push = (mode, a, b, c), mode VKPHYS_FUSED_MODES:
//   FUSED_COLORING  a = colours recorded: COLOR_PROPOSE / COLOR_ASSIGN for each colour and
//                   sub-pass, over the live units (world_color.comp's per-dispatch passes)
//   FUSED_SWEEPS    a = the first sweep's kind (KIND_NONE: none) | the kind of the b sweeps that
//                   follow << 8 | FUSED_MEASURE_LAST (the last sweep is the step's last: the
//                   solver residual, kernels/world_units.inl), c = colours recorded (coloured
//                   scheme) or 0 (Jacobi)
#define VKPHYS_LOCAL_SIZE VKPHYS_FUSED_GROUP_SIZE
#define VKPHYS_BUFFER_QUALIFIER coherent
#include "world_common.glsl"

// Every write before it visible to every invocation of the workgroup after it.
void workgroup_sync() {
  memoryBarrierBuffer();
  barrier();
}

#include "world_fused_body.glsl"
