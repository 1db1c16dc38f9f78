// A window's swapchain drawn with the scene pass every picture shares (host/gpu/scene_pass.h), for
// `vkphys view`. The window system is the caller's (tools/view.cpp uses GLFW): this takes the
// surface it made and owns everything after it.
//
// One frame at a time: the image is acquired with a fence that is waited for, the pass is
// submitted and waited for (Context::run_once), then the image is presented. Nothing overlaps, so
// one depth buffer serves every image and no semaphores are needed; the simulation step, which
// waits for its own submission too, dominates a frame anyway. A UNORM format is preferred over
// an sRGB one, so that the window shows the very colours the PNG files of `vkphys render` hold.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "host/gpu/renderer.h"

namespace vkphys::gpu {

class Swapchain {
 public:
  // Throws vk::Unavailable, one line, when the context's queue cannot present to `surface`.
  // The surface must outlive the swapchain.
  Swapchain(const vk::Context& ctx, VkSurfaceKHR surface, VkExtent2D wanted);
  ~Swapchain();
  Swapchain(const Swapchain&) = delete;
  Swapchain& operator=(const Swapchain&) = delete;

  VkExtent2D extent() const { return extent_; }
  // Draws and presents one frame. With `capture`, the presented picture is also copied into it
  // (RGBA rows top to bottom, whatever order the swapchain's format keeps its channels in).
  // Returns false when the swapchain no longer matches the surface (resized): it is made anew
  // and the frame is skipped.
  bool present(const Drawable& drawable, Image* capture);

 private:
  void create(VkExtent2D wanted);
  void destroy();
  void recreate();  // after the surface changed

  const vk::Context& ctx_;
  VkSurfaceKHR surface_;
  VkSurfaceFormatKHR format_{};
  VkExtent2D extent_{};
  VkSwapchainKHR swapchain_ = VK_NULL_HANDLE;
  std::vector<VkImage> images_;
  std::vector<VkImageView> views_;
  std::vector<VkFramebuffer> framebuffers_;
  std::unique_ptr<Attachment> depth_;
  std::unique_ptr<ScenePass> pass_;
  VkFence acquired_ = VK_NULL_HANDLE;
  bool capturable_ = false;  // the images may be copied from (a capture)
};

}  // namespace vkphys::gpu
