#version 450
// After the scan: total directed contacts, the overflow flag, and the indirect dispatch size
// for the stages that run over stored contacts. One invocation.
#extension GL_GOOGLE_include_directive : require
#include "kernels/layout.h"
layout(local_size_x = 1) in;
layout(std140, binding = 0) uniform Params { StepParams params; };
layout(std430, binding = 1) readonly buffer Offsets { uint contact_offset[]; };
layout(std430, binding = 2) buffer Counters { StepCounters counters; };

void main() {
  uint total = contact_offset[params.counts.x];
  uint stored = min(total, params.counts.w);
  counters.contacts = total;
  if (total > params.counts.w) counters.overflow = 1u;
  counters.dispatch_x = (stored + VKPHYS_GROUP_SIZE - 1u) / VKPHYS_GROUP_SIZE;
  counters.dispatch_y = 1u;
  counters.dispatch_z = 1u;
}
