#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_ballot : require
// Colouring and incidence lists (kernels/world_coloring.inl); push = (mode, colour, pass, 0),
// mode: VKPHYS_COLOR_MODES, over the live units, indirect (COLOR_PROPOSE and COLOR_ASSIGN: over
// the units color_init left uncoloured, listed in sort_values; INCIDENCE_KEY and INCIDENCE_RANGE:
// the unit's two entries; COLOR_RANGE and COLOR_GATHER: the sorted positions); OVERFLOW_COUNT and
// OVERFLOW_FILL: over colour list push.y, indirect; INCIDENCE_COUNT and INCIDENCE_FILL: over the
// stored particle contacts, indirect; OVERFLOW_ORDER: over the bodies.
#include "world_common.glsl"

void main() {
  uint k = gl_GlobalInvocationID.x;
  if (push.x == OVERFLOW_COUNT) {
    overflow_count(push.y, k);
    return;
  }
  if (push.x == OVERFLOW_FILL) {
    overflow_fill(push.y, k);
    return;
  }
  if (push.x == INCIDENCE_COUNT) {
    incidence_count(k);
    return;
  }
  if (push.x == INCIDENCE_FILL) {
    incidence_fill(k);
    return;
  }
  if (push.x == OVERFLOW_ORDER) {
    if (k < params.counts.x) overflow_order(k);
    return;
  }
  if (push.x == COLOR_PROPOSE || push.x == COLOR_ASSIGN) {  // over color_init's list
    if (k >= counters.uncolored) return;
    if (push.x == COLOR_PROPOSE) {
      color_propose(sort_values[k], push.y, push.z);
    } else {
      color_assign(sort_values[k], push.y, push.z);
    }
    return;
  }
  if (push.x == COLOR_INIT) {
    // The subgroup's uncoloured units take consecutive entries of color_init's list, reserved
    // with one atomic (kernels/world_coloring.inl, list_uncolored): every invocation reaches the
    // ballot (no return before it), and the elected one, the first active, reserves.
    bool listed = k < unit_count() && color_init(k);
    uvec4 ballot = subgroupBallot(listed);
    uint count = subgroupBallotBitCount(ballot);
    uint base = 0u;
    if (subgroupElect() && count > 0u) base = atomicAdd(counters.uncolored, count);
    base = subgroupBroadcastFirst(base);
    if (listed) sort_values[base + subgroupBallotExclusiveBitCount(ballot)] = k;
    return;
  }
  if (k >= unit_count()) return;
  switch (push.x) {
    case COLOR_KEY: color_key(k); break;
    case COLOR_RANGE: color_range(k); break;
    case INCIDENCE_KEY:
      incidence_key(2u * k);
      incidence_key(2u * k + 1u);
      break;
    case INCIDENCE_RANGE:
      incidence_range(2u * k);
      incidence_range(2u * k + 1u);
      break;
    case COLOR_GATHER: pcontact_gather(k); break;
    default: break;
  }
}
