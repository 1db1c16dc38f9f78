#version 450
// The renderer's fragment stage (host/gpu/renderer.h): Lambert shading, two-sided (a plane is
// seen from either side), 35% ambient.
layout(location = 0) in vec3 normal;
layout(location = 1) in vec3 color;
layout(push_constant) uniform Push {
  mat4 view_proj;
  vec4 light;
} push;
layout(location = 0) out vec4 out_color;

void main() {
  float lit = abs(dot(normalize(normal), push.light.xyz));
  out_color = vec4(color * (0.35 + 0.65 * lit), 1.0);
}
