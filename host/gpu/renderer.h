// Offscreen pictures of a world state with the Vulkan device the simulation uses (`vkphys
// render`): a graphics pipeline (shaders/render_vs.vert, render_fs.frag) draws the surface mesh
// of host/io/surface_mesh.h, particles as spheres, into an RGBA image with a depth buffer, which
// is read back. Flat Lambert shading with the light at the camera, two-sided; colours by kind:
// particles blue, rigid bodies orange, planes grey, on a pale background; a plane is drawn from
// its free side only. Joints are not drawn.
#pragma once

#include <cstdint>
#include <glm/glm.hpp>
#include <vector>

#include "host/io/surface_mesh.h"
#include "host/vk/context.h"

namespace vkphys::gpu {

struct Camera {
  glm::vec3 eye{0.0f, 0.0f, 10.0f};
  glm::vec3 target{0.0f};
  glm::vec3 up{0.0f, 1.0f, 0.0f};
  float fov_y = 0.7f;  // [rad]
};

// A camera that frames the state: aimed at the centre of the bodies' and particles' bounding
// box (planes left out) from above and to the side, far enough for its bounding sphere to fit.
Camera framing_camera(const Scene& scene, const WorldState& state);

struct Image {
  std::uint32_t width = 0, height = 0;
  std::vector<std::uint8_t> rgba;  // rows top to bottom
  glm::u8vec4 at(std::uint32_t x, std::uint32_t y) const;
};

// The colours the renderer gives each kind, before shading, and its background.
glm::vec3 kind_color(io::PointKind kind);
inline constexpr glm::vec3 kBackground{0.93f, 0.95f, 0.98f};

class Renderer {
 public:
  // Throws vk::Error if the context's queue cannot draw (no graphics bit).
  Renderer(const vk::Context& ctx, std::uint32_t width, std::uint32_t height);
  ~Renderer();
  Renderer(const Renderer&) = delete;
  Renderer& operator=(const Renderer&) = delete;

  Image draw(const io::SurfaceMesh& mesh, const Camera& camera) const;
  // Where a world point lands in the picture [pixels, origin top left].
  glm::vec2 project(const Camera& camera, glm::vec3 world) const;

 private:
  glm::mat4 view_proj(const Camera& camera) const;
  const vk::Context& ctx_;
  std::uint32_t width_, height_;
  VkImage color_ = VK_NULL_HANDLE, depth_ = VK_NULL_HANDLE;
  VkDeviceMemory color_memory_ = VK_NULL_HANDLE, depth_memory_ = VK_NULL_HANDLE;
  VkImageView color_view_ = VK_NULL_HANDLE, depth_view_ = VK_NULL_HANDLE;
  VkRenderPass pass_ = VK_NULL_HANDLE;
  VkFramebuffer framebuffer_ = VK_NULL_HANDLE;
  VkShaderModule vs_ = VK_NULL_HANDLE, fs_ = VK_NULL_HANDLE;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  VkPipeline pipeline_ = VK_NULL_HANDLE;
};

}  // namespace vkphys::gpu
