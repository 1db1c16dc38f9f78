#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_arithmetic : require
// Narrowphase and warm-start matching per stored SAP pair (indirect dispatch). The pairs' counts
// go into the step's counters once per subgroup: every invocation reaches the subgroup sum (no
// early return), and one of them adds it (GpuBackend requires subgroup arithmetic in compute).
#include "world_common.glsl"

void main() {
  uint p = gl_GlobalInvocationID.x;
  uvec3 counted = uvec3(0u);
  if (p < stored_pairs()) {
    counted = narrowphase_pair(p);
    if (VKPHYS_FAULT == FAULT_NARROWPHASE) {  // test-only (kernels/stages.h)
      for (uint k = 0u; k < pair_info[p].z; ++k) point_geom[4u * p + k].w += 0.01f;
    }
  }
  uvec3 sum = subgroupAdd(counted);
  if (subgroupElect()) add_narrowphase_counts(sum);
}
