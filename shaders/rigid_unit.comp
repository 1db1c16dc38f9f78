#version 450
#extension GL_GOOGLE_include_directive : require
// Per-unit solver work (kernels/rigid_units.inl); push = (mode, colour, kind, 0):
//   0 prepare rows (over units)
//   1 one colour's units in place (indirect per colour)
//   2 the overflow colour, sequentially in one invocation
//   3 Jacobi: every unit on split copies (over units)
#include "rigid_common.glsl"

void main() {
  uint t = gl_GlobalInvocationID.x;
  if (push.x == 1u) {
    unit_in_place(colored_unit(push.y, t), push.z);
    return;
  }
  if (push.x == 2u) {
    if (t != 0u) return;
    uint count = counters.color_end[push.y] - counters.color_start[push.y];
    for (uint k = 0u; k < count; ++k) unit_in_place(colored_unit(push.y, k), push.z);
    return;
  }
  if (t >= unit_count()) return;
  if (push.x == 0u) {
    prepare_unit(t);
  } else {
    jacobi_unit(t, push.z);
  }
}
