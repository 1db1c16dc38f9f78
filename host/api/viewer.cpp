// vkphys::Viewer (include/vkphys/viewer.h): a World in a window. The window and its input are
// host/gpu/window.h's, the swapchain host/gpu/swapchain.h's; here are the loop that keeps the
// simulation to the wall clock, the orbiting camera and the mouse spring's grab.
#include "vkphys/viewer.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <utility>

#include "host/api/guarded.h"
#include "host/api/world_internal.h"
#include "host/gpu/swapchain.h"
#include "host/gpu/window.h"
#include "host/io/surface_mesh.h"

namespace vkphys {

namespace {

constexpr int kMaxStepsPerFrame = 4;
constexpr std::uint32_t kMaxSide = 16384;  // as World::render

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

}  // namespace

struct Viewer::Impl {
  Scene scene;
  WorldOptions world_options;  // the World's, on `device`
  bool capture = false;
  // Declared in the order they go: the World and the swapchain before the window (its surface),
  // the window before the device's instance.
  SharedDevice device;
  std::unique_ptr<gpu::Window> window;
  std::unique_ptr<gpu::Swapchain> swapchain;
  World world;
  std::optional<Orbit> orbit;
  bool paused = false, left_down = false, orbiting = false;
  std::optional<Grab> grab;
  double grab_depth = 0.0;  // the grabbed point's distance in front of the eye, along the view
  glm::dvec2 last_cursor{0.0};
  double ms_per_step = 0.0;
  gpu::Image last_frame;

  void restart() {
    world = World(scene, world_options);
    grab.reset();
  }

  // Left button: a press on an object grabs it, a press on empty space orbits, a release lets
  // go. Returns the camera after an orbit's drag.
  gpu::Camera handle_mouse(const gpu::CameraRay& ray, glm::dvec3 forward, glm::dvec2 cursor) {
    const bool pressed = window->left_button();
    if (pressed && !left_down) {
      grab = world.pick(ray.origin, ray.dir);
      orbiting = !grab;
      if (grab) grab_depth = grab->depth * glm::dot(ray.dir, forward);
    } else if (!pressed) {
      grab.reset();
      orbiting = false;
    }
    if (orbiting) {
      const glm::dvec2 d = cursor - last_cursor;
      orbit->yaw -= 0.01 * d.x;
      orbit->pitch = std::clamp(orbit->pitch + 0.01 * d.y, -1.5, 1.5);
    }
    left_down = pressed;
    last_cursor = cursor;
    return orbit->camera();
  }

  void step(const gpu::CameraRay& ray, glm::dvec3 forward) {
    using Clock = std::chrono::steady_clock;
    if (grab) {
      // The point under the cursor at the grabbed point's depth.
      world.pull(*grab, ray.origin + ray.dir * (grab_depth / glm::dot(ray.dir, forward)));
    }
    const auto t0 = Clock::now();
    world.step();
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    ms_per_step = world.steps() == 1 ? ms : 0.9 * ms_per_step + 0.1 * ms;  // a smoothed reading
  }
};

Viewer::Viewer(Scene scene, const ViewerOptions& options) {
  if (options.width == 0 || options.height == 0 || options.width > kMaxSide ||
      options.height > kMaxSide) {
    throw Error(fmt::format("Viewer: a {}x{} window: each side must be in 1..{}", options.width,
                            options.height, kMaxSide));
  }
  if (options.world.shared_device.is_open()) {
    throw Error(
        "ViewerOptions::world.shared_device: the Viewer opens its own device (one that "
        "can present to its window); leave it empty");
  }
  auto w = std::make_unique<Impl>();
  w->scene = std::move(scene);
  w->capture = options.capture;
  guarded([&] {
    w->window = std::make_unique<gpu::Window>();
    vk::ContextOptions context{.device = options.world.device,
                               .validation = options.world.validation,
                               .sync_validation = options.world.sync_validation};
    for (std::string& e : w->window->surface_extensions()) {
      context.surface_extensions.push_back(std::move(e));
    }
    w->device = SharedDeviceInternals::adopt(vk::Context::create(context));
    const vk::Context& ctx = SharedDeviceInternals::context(w->device);
    w->window->open(ctx, options.width, options.height, "vkphys view " + w->scene.name);
    try {
      w->swapchain = std::make_unique<gpu::Swapchain>(ctx, w->window->surface(),
                                                      VkExtent2D{options.width, options.height});
    } catch (const vk::Unavailable& e) {
      throw NoDisplayError(e.what());  // the device's queue cannot present to this window
    }
  });
  w->world_options = options.world;
  w->world_options.device.clear();
  w->world_options.validation = w->world_options.sync_validation = false;
  w->world_options.shared_device = w->device;
  w->restart();
  w->orbit.emplace(gpu::scene_camera(w->scene, WorldInternals::state(w->world)));
  impl_ = std::move(w);
}

Viewer::~Viewer() = default;

std::uint32_t Viewer::run(std::uint32_t frames) {
  Impl& w = *impl_;
  using Clock = std::chrono::steady_clock;
  const double h = double(w.scene.settings.time_step);
  double lag = 0.0;
  std::uint32_t presented = 0;
  auto last_tick = Clock::now(), last_title = last_tick;
  while (!w.window->should_close()) {
    w.window->poll();
    const gpu::Input input = w.window->take_input();
    const auto now = Clock::now();
    lag = std::min(lag + std::chrono::duration<double>(now - last_tick).count(),
                   kMaxStepsPerFrame * h);
    last_tick = now;
    if (input.restart) w.restart();
    w.paused ^= input.toggle_pause;
    w.orbit->distance *= std::pow(0.9, input.wheel);

    const VkExtent2D extent = w.swapchain->extent();
    const gpu::Camera before = w.orbit->camera();
    const glm::dvec2 cursor = w.window->cursor(extent.width, extent.height);
    const gpu::CameraRay ray = gpu::pixel_ray(before, extent.width, extent.height, cursor);
    const glm::dvec3 forward = glm::normalize(glm::dvec3(before.target - before.eye));
    const gpu::Camera camera = w.handle_mouse(ray, forward, cursor);

    int todo = w.paused ? 0 : static_cast<int>(lag / h);
    lag -= todo * h;
    if (input.step) todo = std::max(todo, 1);
    for (int k = 0; k < todo; ++k) w.step(ray, forward);

    const bool shown = guarded([&] {
      const vk::Context& ctx = SharedDeviceInternals::context(w.device);
      const gpu::Drawable drawable(
          ctx, io::surface_mesh(w.scene, WorldInternals::state(w.world), true), camera);
      return w.swapchain->present(drawable, w.capture ? &w.last_frame : nullptr);
    });
    if (!shown) continue;  // the window was resized: the swapchain was made anew
    ++presented;
    if (Clock::now() - last_title > std::chrono::milliseconds(250)) {
      w.window->set_title(status());
      last_title = Clock::now();
    }
    if (frames > 0 && presented >= frames) break;
  }
  return presented;
}

const World& Viewer::world() const {
  return impl_->world;
}

std::string Viewer::status() const {
  const Impl& w = *impl_;
  const Contacts c = w.world.contacts();
  return fmt::format(
      "{} ({}): step {} | {:.2f} ms/step | bodies {} | particles {} | contacts {} | colours "
      "{}{}",
      w.scene.name, w.world.backend_name(), w.world.steps(), w.ms_per_step, w.scene.bodies.size(),
      w.scene.particles.size(), c.points + c.particle_contacts, w.world.statistics().colors,
      w.paused ? " | paused" : "");
}

std::string Viewer::device_name() const {
  return SharedDeviceInternals::context(impl_->device).info().name;
}

Picture Viewer::last_frame() const {
  const gpu::Image& img = impl_->last_frame;
  if (img.rgba.empty()) throw Error("Viewer::last_frame: no frame was captured");
  return Picture{img.width, img.height, img.rgba, device_name()};
}

}  // namespace vkphys
