#version 450
#extension GL_GOOGLE_include_directive : require
// Per-unit solver work (kernels/world_units.inl); push = (mode, colour, sweep kind, 0), mode:
// VKPHYS_UNIT_MODES:
//   UNIT_PREPARE          prepare rows (over units, indirect)
//   UNIT_COLOR            one colour's units in place (indirect per colour)
//   UNIT_OVERFLOW_COLOR   the overflow colour, sequentially in one invocation
//   UNIT_JACOBI           every unit on split copies (over units, indirect)
//   UNIT_TARGETS          the rows' targets for the coming solve phase push.y
//                         (VKPHYS_TARGET_PHASES; over units, indirect)
#include "world_common.glsl"

void main() {
  uint t = gl_GlobalInvocationID.x;
  if (push.x == UNIT_COLOR) {
    unit_in_place(colored_unit(push.y, t), push.z);
    return;
  }
  if (push.x == UNIT_OVERFLOW_COLOR) {
    if (t != 0u) return;
    uint count = counters.color_end[push.y] - counters.color_start[push.y];
    for (uint k = 0u; k < count; ++k) unit_in_place(colored_unit(push.y, k), push.z);
    return;
  }
  if (t >= unit_count()) return;
  if (push.x == UNIT_PREPARE) {
    prepare_unit(t);
  } else if (push.x == UNIT_TARGETS) {
    unit_targets(t, push.y);
  } else {
    jacobi_unit(t, push.z);
  }
}
