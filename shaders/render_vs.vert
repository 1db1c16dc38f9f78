#version 450
// The renderer's vertex stage (host/gpu/renderer.h): world-space triangles with a flat normal
// and a colour per vertex; push: the view-projection matrix and the light direction.
layout(location = 0) in vec4 in_position;
layout(location = 1) in vec4 in_normal;
layout(location = 2) in vec4 in_color;
layout(push_constant) uniform Push {
  mat4 view_proj;
  vec4 light;
} push;
layout(location = 0) out vec3 normal;
layout(location = 1) out vec3 color;

void main() {
  gl_Position = push.view_proj * vec4(in_position.xyz, 1.0);
  normal = in_normal.xyz;
  color = in_color.rgb;
}
