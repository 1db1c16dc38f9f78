// `vkphys view SCENE`: a live window (GLFW, a Vulkan swapchain) that simulates the scene on a
// backend and draws every frame with the scene pass `vkphys render` uses (host/gpu/scene_pass.h),
// so a window shows what a PNG frame would.
//
// Time: the simulation keeps to the wall clock. Each frame adds the frame's wall time to a lag
// and takes as many steps of the scene's time_step as the lag holds, at most kMaxStepsPerFrame:
// a scene too heavy for real time runs as fast as it can instead of falling ever further behind.
//
// Controls: space pauses, S or the right arrow takes one step (paused or not), R restarts from
// the scene file's state, a left drag on empty space orbits the camera about its target, the
// wheel zooms, a left drag that starts on a dynamic body or particle grabs it with a mouse spring
// (host/sim/mouse_spring.h) pulling it towards the cursor, Esc or Q quits. The window's title is
// the status line: ms/step, bodies, particles, contacts and colours; it is also printed at exit.
//
// Without a display (no DISPLAY, GLFW cannot initialise, no Vulkan surface or presentation
// support) the command says so in one line and exits with status 2.
#include <volk.h>
// volk first: GLFW's Vulkan declarations need its types, and GLFW must not include Vulkan itself.
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "host/gpu/swapchain.h"
#include "host/sim/mouse_spring.h"
#include "tools/commands.h"
#include "tools/internal.h"
#include "vkphys/picture.h"
#include "vkphys/scene_file.h"

namespace vkphys::tools {

namespace {

constexpr int kMaxStepsPerFrame = 4;

std::string glfw_error;  // GLFW's last error, for the one line without a display

// The window and GLFW itself, closed in reverse order of opening.
struct Window {
  GLFWwindow* handle = nullptr;
  ~Window() {
    if (handle) glfwDestroyWindow(handle);
    glfwTerminate();
  }
};

struct Surface {
  VkInstance instance;
  VkSurfaceKHR handle = VK_NULL_HANDLE;
  ~Surface() { vkDestroySurfaceKHR(instance, handle, nullptr); }
};

// What the callbacks saw since the last frame took it.
struct Input {
  bool toggle_pause = false, step = false, restart = false;
  double wheel = 0.0;
};

void on_key(GLFWwindow* w, int key, int, int action, int) {
  auto* in = static_cast<Input*>(glfwGetWindowUserPointer(w));
  if (action == GLFW_RELEASE) return;
  if (key == GLFW_KEY_S || key == GLFW_KEY_RIGHT) in->step = true;  // repeats while held
  if (action != GLFW_PRESS) return;
  if (key == GLFW_KEY_SPACE) in->toggle_pause = true;
  if (key == GLFW_KEY_R) in->restart = true;
  if (key == GLFW_KEY_ESCAPE || key == GLFW_KEY_Q) glfwSetWindowShouldClose(w, GLFW_TRUE);
}

void on_scroll(GLFWwindow* w, double, double dy) {
  static_cast<Input*>(glfwGetWindowUserPointer(w))->wheel += dy;
}

// The camera as yaw and pitch about its target (about the world's y axis), and a distance: what
// a drag and the wheel move. The starting camera's up and field of view are kept, so the first
// frame is that camera's picture.
struct Orbit {
  glm::dvec3 target;
  double yaw, pitch, distance;
  glm::vec3 up;
  float fov_y;
  explicit Orbit(const gpu::Camera& c) : target(c.target), up(c.up), fov_y(c.fov_y) {
    const glm::dvec3 d = glm::dvec3(c.eye) - target;
    distance = glm::length(d);
    yaw = std::atan2(d.x, d.z);
    pitch = std::asin(d.y / distance);
  }
  gpu::Camera camera() const {
    const glm::dvec3 d(std::cos(pitch) * std::sin(yaw), std::sin(pitch),
                       std::cos(pitch) * std::cos(yaw));
    gpu::Camera c;
    c.target = glm::vec3(target);
    c.eye = glm::vec3(target + distance * d);
    c.up = up;
    c.fov_y = fov_y;
    return c;
  }
};

std::string status_line(const Scene& scene, const Backend& backend, std::uint64_t steps,
                        double ms_per_step, bool paused) {
  const StepStats& s = backend.stats();
  return fmt::format(
      "{} ({}): step {} | {:.2f} ms/step | bodies {} | particles {} | contacts {} | colours "
      "{}{}",
      scene.name, backend.name(), steps, ms_per_step, scene.bodies.size(), scene.particles.size(),
      s.points + s.particle_contacts, s.colors, paused ? " | paused" : "");
}

}  // namespace

int cmd_view(const Options& opt) {
  Scene scene = read_scene_file(opt.scene);
  SolverSettings& solver = scene.settings.solver;
  if (!opt.scheme.empty()) solver.scheme = parse_scheme(opt.scheme);
  if (opt.backend == "gpu" && solver.scheme == SolverScheme::sequential) {
    solver.scheme = SolverScheme::colored;  // the GPU's nearest scheme, as `vkphys render` does
  }

  glfwSetErrorCallback([](int, const char* text) { glfw_error = text; });
  Window window;
  if (!glfwInit()) {
    throw vk::Unavailable("no display to open a window on (" + glfw_error +
                          "); `vkphys render SCENE` draws PNG files without one");
  }
  if (!glfwVulkanSupported()) {
    throw vk::Unavailable(
        "GLFW finds no Vulkan loader to draw a window with; `vkphys render "
        "SCENE` draws PNG files without one");
  }
  std::uint32_t count = 0;
  const char** names = glfwGetRequiredInstanceExtensions(&count);
  vk::ContextOptions options = context_options(opt);
  for (std::uint32_t i = 0; i < count; ++i) options.surface_extensions.emplace_back(names[i]);
  if (options.surface_extensions.empty()) {
    throw vk::Unavailable("this window system has no Vulkan surface (" + glfw_error +
                          "); `vkphys render SCENE` draws PNG files without one");
  }
  std::unique_ptr<vk::Context> ctx = vk::Context::create(options);

  glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);
  window.handle = glfwCreateWindow(int(opt.width), int(opt.height),
                                   ("vkphys view " + scene.name).c_str(), nullptr, nullptr);
  if (!window.handle) {
    throw vk::Unavailable("no window could be opened (" + glfw_error +
                          "); `vkphys render SCENE` draws PNG files without one");
  }
  Surface surface{ctx->instance()};
  if (glfwCreateWindowSurface(ctx->instance(), window.handle, nullptr, &surface.handle) !=
      VK_SUCCESS) {
    throw vk::Unavailable("no Vulkan surface for the window (" + glfw_error +
                          "); `vkphys render SCENE` draws PNG files without one");
  }
  gpu::Swapchain swapchain(*ctx, surface.handle, {opt.width, opt.height});

  std::unique_ptr<Backend> backend =
      opt.backend == "cpu" ? make_cpu_backend() : make_gpu_backend(*ctx);
  backend->load(scene);
  WorldState state;
  backend->read(state);
  Orbit orbit(gpu::scene_camera(scene, state));
  std::printf(
      "%s\nbackend: %s on %s; space pause, S or right arrow step, R restart, left drag "
      "orbit or grab, wheel zoom, Esc or Q quit\n",
      scene_summary(scene).c_str(), backend->name().c_str(), ctx->info().name.c_str());
  std::fflush(stdout);

  Input input;
  glfwSetWindowUserPointer(window.handle, &input);
  glfwSetKeyCallback(window.handle, on_key);
  glfwSetScrollCallback(window.handle, on_scroll);

  using Clock = std::chrono::steady_clock;
  const double h = scene.settings.time_step;
  bool paused = false, left_down = false, orbiting = false;
  std::optional<Grab> grab;
  double grab_depth = 0.0;  // the grabbed point's distance in front of the eye, along the view
  glm::dvec2 last_cursor(0.0);
  std::uint64_t steps = 0;
  double ms_per_step = 0.0, lag = 0.0;
  std::uint32_t frames = 0;
  gpu::Image last_frame;
  auto last_tick = Clock::now(), last_title = last_tick;

  while (!glfwWindowShouldClose(window.handle)) {
    glfwPollEvents();
    const auto now = Clock::now();
    lag = std::min(lag + std::chrono::duration<double>(now - last_tick).count(),
                   kMaxStepsPerFrame * h);
    last_tick = now;
    if (input.restart) {
      backend->load(scene);
      backend->read(state);
      steps = 0;
      grab.reset();
    }
    paused ^= input.toggle_pause;
    orbit.distance *= std::pow(0.9, input.wheel);

    const VkExtent2D extent = swapchain.extent();
    gpu::Camera camera = orbit.camera();
    glm::dvec2 cursor;
    glfwGetCursorPos(window.handle, &cursor.x, &cursor.y);
    // Window coordinates to the swapchain's pixels (they differ on high-density displays).
    int ww = 1, wh = 1;
    glfwGetWindowSize(window.handle, &ww, &wh);
    cursor *=
        glm::dvec2(extent.width, extent.height) / glm::dvec2(std::max(ww, 1), std::max(wh, 1));
    const gpu::CameraRay ray = gpu::pixel_ray(camera, extent.width, extent.height, cursor);
    const glm::dvec3 forward = glm::normalize(glm::dvec3(camera.target - camera.eye));
    const bool pressed = glfwGetMouseButton(window.handle, GLFW_MOUSE_BUTTON_LEFT) == GLFW_PRESS;
    if (pressed && !left_down) {
      grab = pick(scene, state, ray.origin, ray.dir);
      orbiting = !grab;
      if (grab) grab_depth = grab->depth * glm::dot(ray.dir, forward);
    } else if (!pressed) {
      grab.reset();
      orbiting = false;
    }
    if (orbiting) {
      const glm::dvec2 d = cursor - last_cursor;
      orbit.yaw -= 0.01 * d.x;
      orbit.pitch = std::clamp(orbit.pitch + 0.01 * d.y, -1.5, 1.5);
      camera = orbit.camera();
    }
    left_down = pressed;
    last_cursor = cursor;

    int todo = paused ? 0 : static_cast<int>(lag / h);
    lag -= todo * h;
    if (input.step) todo = std::max(todo, 1);
    for (int k = 0; k < todo; ++k) {
      if (grab) {
        // The point under the cursor at the grabbed point's depth.
        const glm::dvec3 target = ray.origin + ray.dir * (grab_depth / glm::dot(ray.dir, forward));
        apply_mouse_spring(scene, state, *grab, target, h);
        backend->write(state);
      }
      const auto t0 = Clock::now();
      backend->step();
      backend->read(state);
      const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
      ms_per_step = steps == 0 ? ms : 0.9 * ms_per_step + 0.1 * ms;  // a smoothed reading
      ++steps;
    }
    input = Input{};

    const gpu::Drawable drawable(*ctx, io::surface_mesh(scene, state, true), camera);
    if (!swapchain.present(drawable, opt.screenshot.empty() ? nullptr : &last_frame)) continue;
    ++frames;
    if (Clock::now() - last_title > std::chrono::milliseconds(250)) {
      glfwSetWindowTitle(window.handle,
                         status_line(scene, *backend, steps, ms_per_step, paused).c_str());
      last_title = Clock::now();
    }
    if (opt.frames > 0 && frames >= opt.frames) break;
  }
  std::printf("%s\n", status_line(scene, *backend, steps, ms_per_step, paused).c_str());
  if (!opt.screenshot.empty()) {
    if (last_frame.rgba.empty()) throw std::runtime_error("--screenshot: no frame was presented");
    const Picture shot{last_frame.width, last_frame.height, std::move(last_frame.rgba), {}};
    shot.write_png(opt.screenshot);
    std::printf("screenshot: %s (%ux%u, frame %u)\n", opt.screenshot.c_str(), last_frame.width,
                last_frame.height, frames);
  }
  return 0;
}

}  // namespace vkphys::tools
