// The draw every picture of vkphys shares: one render pass and graphics pipeline
// (shaders/render_vs.vert, render_fs.frag) that clear to the background and draw the surface mesh
// of host/io/surface_mesh.h, particles as spheres, with a depth buffer. Lambert shading with the
// light at the camera, two-sided (|n . l|, so a cloth's back is lit as its front): flat per facet,
// except a cloth's (the scene's triangles), shaded with per-point normals from the current
// positions. Colours by kind: particles blue, rigid bodies orange, cloth green, planes grey,
// joints dark grey lines (strips facing the eye between their anchors), on a pale background; a
// plane is drawn from its free side only.
//
// Two targets use it, so that a window and a PNG file show the same picture: the offscreen image
// of `vkphys render` (host/gpu/renderer.h), left ready to copy out, and the swapchain images of
// `vkphys view` (host/gpu/swapchain.h), left ready to present. A ScenePass is made for its
// target's colour format and final layout; viewport and scissor are dynamic, so one pass draws
// any size.
#pragma once

#include <cstdint>
#include <glm/glm.hpp>

#include "host/io/surface_mesh.h"
#include "host/vk/buffer.h"
#include "host/vk/context.h"

namespace vkphys::gpu {

struct Camera {
  glm::vec3 eye{0.0f, 0.0f, 10.0f};
  glm::vec3 target{0.0f};
  glm::vec3 up{0.0f, 1.0f, 0.0f};
  float fov_y = 0.7f;  // [rad]
};

// The colours the renderer gives each kind, before shading, and its background.
glm::vec3 kind_color(io::PointKind kind);
inline constexpr glm::vec3 kBackground{0.93f, 0.95f, 0.98f};

// World to clip space for a picture of the given size (Vulkan: y down, depth 0..1).
glm::mat4 view_proj(const Camera& camera, std::uint32_t width, std::uint32_t height);
// Where a world point lands in a picture of the given size [pixels, origin top left].
glm::vec2 project(const Camera& camera, std::uint32_t width, std::uint32_t height, glm::vec3 world);

// The ray from the eye through `pixel` [pixels, origin top left; a pixel's centre at +0.5] of a
// picture of the given size: the inverse of project(), so project() of any point on it gives
// `pixel` back. `dir` is a unit vector.
struct CameraRay {
  glm::dvec3 origin, dir;
};
CameraRay pixel_ray(const Camera& camera, std::uint32_t width, std::uint32_t height,
                    glm::dvec2 pixel);

// An image in device memory of its own, and a view of it: a target's colour or depth attachment.
struct Attachment {
  Attachment(const vk::Context& ctx, std::uint32_t width, std::uint32_t height, VkFormat format,
             VkImageUsageFlags usage, VkImageAspectFlags aspect);
  ~Attachment();
  Attachment(const Attachment&) = delete;
  Attachment& operator=(const Attachment&) = delete;
  const vk::Context& ctx;
  VkImage image = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkImageView view = VK_NULL_HANDLE;
};

// Records a copy of a 4-byte-per-pixel colour image, in TRANSFER_SRC_OPTIMAL layout, into the
// host-visible buffer `dst` (rows top to bottom), readable by the host once `cb` has run.
void copy_to_host(VkCommandBuffer cb, VkImage image, VkExtent2D extent, const vk::Buffer& dst);

inline constexpr VkFormat kDepthFormat = VK_FORMAT_D32_SFLOAT;

// A mesh's triangles uploaded for one draw seen from one camera. It must live until the command
// buffer that draws it has run.
struct Drawable {
  Drawable(const vk::Context& ctx, const io::SurfaceMesh& mesh, const Camera& camera);
  vk::Buffer vertices;
  std::uint32_t count = 0;
  Camera camera;
};

class ScenePass {
 public:
  // `final_layout`: the colour attachment's layout after the pass, which the target reads it in
  // (TRANSFER_SRC_OPTIMAL to copy, PRESENT_SRC_KHR to present). Throws vk::Error if the
  // context's queue cannot draw (no graphics bit).
  ScenePass(const vk::Context& ctx, VkFormat color_format, VkImageLayout final_layout);
  ~ScenePass();
  ScenePass(const ScenePass&) = delete;
  ScenePass& operator=(const ScenePass&) = delete;

  VkRenderPass render_pass() const { return pass_; }
  // Records the whole pass into `framebuffer` (colour + kDepthFormat depth, made with
  // render_pass()) of the given size.
  void record(VkCommandBuffer cb, VkFramebuffer framebuffer, VkExtent2D extent,
              const Drawable& drawable) const;

 private:
  const vk::Context& ctx_;
  VkRenderPass pass_ = VK_NULL_HANDLE;
  VkShaderModule vs_ = VK_NULL_HANDLE, fs_ = VK_NULL_HANDLE;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  VkPipeline pipeline_ = VK_NULL_HANDLE;
};

}  // namespace vkphys::gpu
