#version 450
#extension GL_GOOGLE_include_directive : require
// Driven motion (kernels/world_bodies.inl); push.x: VKPHYS_DRIVE_MODES: the impulses due this
// step in one invocation, or one kinematic path per invocation.
#include "world_common.glsl"

void main() {
  uint k = gl_GlobalInvocationID.x;
  if (push.x == DRIVE_IMPULSES) {
    if (k == 0u) apply_impulses();
    return;
  }
  if (k >= params.drive.y) return;
  if (push.x == DRIVE_PATH_VELOCITY) {
    drive_path_velocity(k);
  } else {
    drive_path_pose(k);
  }
}
