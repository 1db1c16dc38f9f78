#include "host/gpu/window.h"

#include <volk.h>
// volk first: GLFW's Vulkan declarations need its types, and GLFW must not include Vulkan itself.
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <algorithm>
#include <utility>

#include "vkphys/viewer.h"

namespace vkphys::gpu {

namespace {

std::string glfw_error;  // GLFW's last error, for the one line without a display

[[noreturn]] void no_display(const std::string& what) {
  throw NoDisplayError(what + "; `vkphys render SCENE` draws PNG files without one");
}

Input& input_of(GLFWwindow* w) {
  return *static_cast<Input*>(glfwGetWindowUserPointer(w));
}

void on_key(GLFWwindow* w, int key, int, int action, int) {
  Input& in = input_of(w);
  if (action == GLFW_RELEASE) return;
  if (key == GLFW_KEY_S || key == GLFW_KEY_RIGHT) in.step = true;  // repeats while held
  if (action != GLFW_PRESS) return;
  if (key == GLFW_KEY_SPACE) in.toggle_pause = true;
  if (key == GLFW_KEY_R) in.restart = true;
  if (key == GLFW_KEY_ESCAPE || key == GLFW_KEY_Q) glfwSetWindowShouldClose(w, GLFW_TRUE);
}

void on_scroll(GLFWwindow* w, double, double dy) {
  input_of(w).wheel += dy;
}

}  // namespace

struct Window::Handle {
  GLFWwindow* window = nullptr;
};

Window::Window() : handle_(std::make_unique<Handle>()) {
  glfwSetErrorCallback([](int, const char* text) { glfw_error = text; });
  if (!glfwInit()) no_display("no display to open a window on (" + glfw_error + ")");
  if (!glfwVulkanSupported()) {
    glfwTerminate();
    no_display("GLFW finds no Vulkan loader to draw a window with");
  }
}

Window::~Window() {
  if (surface_) vkDestroySurfaceKHR(instance_, surface_, nullptr);
  if (handle_->window) glfwDestroyWindow(handle_->window);
  glfwTerminate();
}

std::vector<std::string> Window::surface_extensions() const {
  std::uint32_t count = 0;
  const char** names = glfwGetRequiredInstanceExtensions(&count);
  if (count == 0) no_display("this window system has no Vulkan surface (" + glfw_error + ")");
  return {names, names + count};
}

void Window::open(const vk::Context& ctx, std::uint32_t width, std::uint32_t height,
                  const std::string& title) {
  glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);
  handle_->window = glfwCreateWindow(int(width), int(height), title.c_str(), nullptr, nullptr);
  if (!handle_->window) no_display("no window could be opened (" + glfw_error + ")");
  instance_ = ctx.instance();
  if (glfwCreateWindowSurface(instance_, handle_->window, nullptr, &surface_) != VK_SUCCESS) {
    surface_ = VK_NULL_HANDLE;
    no_display("no Vulkan surface for the window (" + glfw_error + ")");
  }
  glfwSetWindowUserPointer(handle_->window, &input_);
  glfwSetKeyCallback(handle_->window, on_key);
  glfwSetScrollCallback(handle_->window, on_scroll);
}

bool Window::should_close() const {
  return glfwWindowShouldClose(handle_->window);
}

void Window::poll() {
  glfwPollEvents();
}

Input Window::take_input() {
  return std::exchange(input_, Input{});
}

void Window::set_title(const std::string& title) {
  glfwSetWindowTitle(handle_->window, title.c_str());
}

glm::dvec2 Window::cursor(std::uint32_t width, std::uint32_t height) const {
  glm::dvec2 c;
  glfwGetCursorPos(handle_->window, &c.x, &c.y);
  int ww = 1, wh = 1;
  glfwGetWindowSize(handle_->window, &ww, &wh);
  return c * glm::dvec2(width, height) / glm::dvec2(std::max(ww, 1), std::max(wh, 1));
}

bool Window::left_button() const {
  return glfwGetMouseButton(handle_->window, GLFW_MOUSE_BUTTON_LEFT) == GLFW_PRESS;
}

}  // namespace vkphys::gpu
