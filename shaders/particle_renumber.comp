// The particles renumbered on the device (host/gpu/particle_renumber.h records the passes): the
// particle at slot k moves to slot to[k], with everything the next step carries about it. The
// result is the CPU's relabelling of a checkpoint (host/sim/particle_order.cpp,
// relabel_carried), bit for bit. push = (mode, count, rigid, with_cg); modes:
//   BODIES    (count = particles): position, velocity, shape and material, and the implicit
//             method's last solve (with_cg) from their copies (old_*) into their new slots
//   PAIRS     (count = pair capacity): the rigid pairs' particle numbers, every slot as the
//             checkpoint's relabelling does (a slot past the live pairs is never read)
//   CONTACTS  (count = particles): old particle p's warm-start entries, renumbered
//             (kernels/particle_renumber.h), each keyed by its new owner for the stable sort that
//             follows and counted into its owner's offset (scanned after)
//   GATHER    (count = the lists' capacity): the sorted entries into their places; the sort kept
//             the old order within each owner, as the CPU's counting sort does
// Every mode strides over its count, so a list longer than 65,535 workgroups is covered.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "kernels/limits.h"
#include "kernels/particle_renumber.h"

#define MODE_BODIES 0u
#define MODE_PAIRS 1u
#define MODE_CONTACTS 2u
#define MODE_GATHER 3u

layout(local_size_x = VKPHYS_GROUP_SIZE) in;

layout(std430, binding = 0) readonly buffer To { uint to[]; };
layout(std430, binding = 1) buffer BodyPos { vec4 body_pos[]; };
layout(std430, binding = 2) buffer BodyVel { vec4 body_vel[]; };
layout(std430, binding = 3) buffer BodyInfo { uvec4 body_info[]; };
layout(std430, binding = 4) buffer CgDv { vec4 cg_dv[]; };
layout(std430, binding = 5) readonly buffer OldPos { vec4 old_pos[]; };
layout(std430, binding = 6) readonly buffer OldVel { vec4 old_vel[]; };
layout(std430, binding = 7) readonly buffer OldInfo { uvec4 old_info[]; };
layout(std430, binding = 8) readonly buffer OldCg { vec4 old_cg[]; };
layout(std430, binding = 9) buffer PairInfo { uvec4 prev_pair_info[]; };
layout(std430, binding = 10) readonly buffer OldOffsets { uint old_offsets[]; };
layout(std430, binding = 11) buffer Offsets { uint offsets[]; };
layout(std430, binding = 12) buffer Other { uint prev_other[]; };
layout(std430, binding = 13) buffer Lambda { vec4 prev_lambda[]; };
layout(std430, binding = 14) buffer Keys { uint keys[]; };
layout(std430, binding = 15) buffer Values { uint values[]; };
layout(std430, binding = 16) buffer NewOther { uint new_other[]; };
layout(std430, binding = 17) buffer NewLambda { vec4 new_lambda[]; };

layout(push_constant) uniform Push { uvec4 push; };

// A rigid pair's body number: a particle's renumbered, a rigid body's kept.
uint renumbered_body(uint b, uint rigid, uint particles) {
  return b >= rigid && b - rigid < particles ? rigid + to[b - rigid] : b;
}

void main() {
  uint mode = push.x, count = push.y, rigid = push.z;
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint k = gl_GlobalInvocationID.x; k < count; k += stride) {
    if (mode == MODE_BODIES) {
      uint t = to[k];
      body_pos[rigid + t] = old_pos[k];
      body_vel[rigid + t] = old_vel[k];
      body_info[rigid + t] = old_info[k];
      if (push.w != 0u) cg_dv[t] = old_cg[k];
    } else if (mode == MODE_PAIRS) {
      uint particles = push.w;
      uvec4 pair = prev_pair_info[k];
      pair.x = renumbered_body(pair.x, rigid, particles);
      pair.y = renumbered_body(pair.y, rigid, particles);
      prev_pair_info[k] = pair;
    } else if (mode == MODE_CONTACTS) {
      for (uint c = old_offsets[k]; c < old_offsets[k + 1u]; ++c) {
        uint word = prev_other[c];
        uint body = word & VKPHYS_PCONTACT_OTHER_MASK;
        uint other_slot = body >= rigid ? to[body - rigid] : 0u;
        RenumberedPcontact r = renumber_pcontact(to[k], word, prev_lambda[c], rigid, other_slot);
        keys[c] = r.holder;
        values[c] = c;
        new_other[c] = r.other;
        new_lambda[c] = r.lambda;
        atomicAdd(offsets[r.holder], 1u);
      }
    } else if (mode == MODE_GATHER) {
      if (k >= old_offsets[push.w]) return;
      uint c = values[k];
      prev_other[k] = new_other[c];
      prev_lambda[k] = new_lambda[c];
    }
  }
}
