// Offscreen pictures of a world state with the Vulkan device the simulation uses (`vkphys
// render`): the scene draw of host/gpu/scene_pass.h into an RGBA image with a depth buffer, which
// is read back. The live window of `vkphys view` draws with the same pass
// (host/gpu/swapchain.h).
#pragma once

#include <cstdint>
#include <glm/glm.hpp>
#include <vector>

#include "host/gpu/scene_pass.h"

namespace vkphys::gpu {

// A camera that frames the state: aimed at the centre of the bodies' and particles' bounding
// box (planes left out) from above and to the side, far enough for its bounding sphere to fit.
Camera framing_camera(const Scene& scene, const WorldState& state);
// The camera every picture of the scene uses: the scene file's (Scene::camera) where it has
// one, else framing_camera(scene, state).
Camera scene_camera(const Scene& scene, const WorldState& state);

struct Image {
  std::uint32_t width = 0, height = 0;
  std::vector<std::uint8_t> rgba;  // rows top to bottom
  glm::u8vec4 at(std::uint32_t x, std::uint32_t y) const;
};

class Renderer {
 public:
  // Throws vk::Error if the context's queue cannot draw (no graphics bit).
  Renderer(const vk::Context& ctx, std::uint32_t width, std::uint32_t height);
  ~Renderer();
  Renderer(const Renderer&) = delete;
  Renderer& operator=(const Renderer&) = delete;

  Image draw(const io::SurfaceMesh& mesh, const Camera& camera) const;
  std::uint32_t width() const { return width_; }
  std::uint32_t height() const { return height_; }
  // Where a world point lands in the picture [pixels, origin top left].
  glm::vec2 project(const Camera& camera, glm::vec3 world) const {
    return gpu::project(camera, width_, height_, world);
  }

 private:
  const vk::Context& ctx_;
  std::uint32_t width_, height_;
  ScenePass pass_;
  Attachment color_, depth_;
  VkFramebuffer framebuffer_ = VK_NULL_HANDLE;
};

}  // namespace vkphys::gpu
