#version 450
#extension GL_GOOGLE_include_directive : require
// Per-unit solver work (kernels/world_units.inl); push = (mode, colour list or phase, sweep
// kind, 0), mode:
// VKPHYS_UNIT_MODES:
//   UNIT_PREPARE          prepare rows (over joints and pairs, indirect)
//   UNIT_COLOR            one colour's joints and pairs in place (indirect per colour list;
//                         its particle contacts: world_pcontact.comp)
//   UNIT_OVERFLOW_COLOR   the overflow colour's list push.y on split copies (indirect per list;
//                         then BODY_JACOBI_AVERAGE, kernels/world_coloring.inl)
//   UNIT_JACOBI           every joint and pair on split copies (indirect)
//   UNIT_TARGETS          the rows' targets for the coming solve phase push.y
//                         (VKPHYS_TARGET_PHASES; over joints and pairs, indirect)
#include "world_common.glsl"

void main() {
  uint t = gl_GlobalInvocationID.x;
  if (push.x == UNIT_COLOR) {
    uint u = colored_unit(push.y, t);
    if (!fault_skips_unit(u, push.z)) unit_in_place(u, push.z);
    return;
  }
  if (push.x == UNIT_OVERFLOW_COLOR) {
    uint u = colored_unit(push.y, t);
    if (u != VKPHYS_UNCOLORED && !fault_skips_unit(u, push.z)) jacobi_unit(u, push.z);
    return;
  }
  // Joints and pairs only: the particle contacts have their own kernel (world_pcontact.comp).
  if (t >= pcontact_unit_base()) return;
  if (push.x == UNIT_PREPARE) {
    prepare_unit(t);
  } else if (push.x == UNIT_TARGETS) {
    unit_targets(t, push.y);
  } else if (!fault_skips_unit(t, push.z)) {
    jacobi_unit(t, push.z);
  }
}
