// The window of vkphys::Viewer (include/vkphys/viewer.h): GLFW, the window, its Vulkan surface
// and what the keyboard, the wheel and the mouse did since the last frame. GLFW is kept to this
// file's implementation; the Viewer sees Vulkan handles and plain input.
//
// Opening it is in two halves because the Vulkan instance sits between them: the instance must
// carry the surface extensions the window system asks for (surface_extensions), and the surface
// is made on that instance (open). Every failure that means "no display" throws NoDisplayError,
// one line that also says `vkphys render SCENE` draws without one.
#pragma once

#include <cstdint>
#include <glm/glm.hpp>
#include <memory>
#include <string>
#include <vector>

#include "host/vk/context.h"

namespace vkphys::gpu {

// What the callbacks saw since the last frame took it (Window::take_input).
struct Input {
  bool toggle_pause = false, step = false, restart = false;
  double wheel = 0.0;  // wheel clicks, positive away from the user
};

class Window {
 public:
  // Initialises GLFW; throws NoDisplayError without a display or a Vulkan loader for GLFW.
  Window();
  ~Window();
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;

  // The instance extensions a surface on this window system needs (NoDisplayError: none).
  std::vector<std::string> surface_extensions() const;
  // Opens the window, titled `title`, and its surface on `ctx`'s instance (made with
  // surface_extensions()); NoDisplayError when either cannot be made.
  void open(const vk::Context& ctx, std::uint32_t width, std::uint32_t height,
            const std::string& title);
  VkSurfaceKHR surface() const { return surface_; }

  bool should_close() const;
  void poll();  // the window system's events into the input
  Input take_input();
  void set_title(const std::string& title);
  // The cursor in the window's pixels scaled to `extent` (a swapchain's pixels differ from the
  // window's coordinates on high-density displays), and the left button.
  glm::dvec2 cursor(std::uint32_t width, std::uint32_t height) const;
  bool left_button() const;

 private:
  struct Handle;  // GLFW's window
  std::unique_ptr<Handle> handle_;
  VkInstance instance_ = VK_NULL_HANDLE;
  VkSurfaceKHR surface_ = VK_NULL_HANDLE;
  Input input_;
};

}  // namespace vkphys::gpu
