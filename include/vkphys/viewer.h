/// \file
/// vkphys::Viewer: a live window on a World (`vkphys view` is built on it). It owns the window
/// (GLFW), its Vulkan surface and swapchain and the World, simulates the scene in step with the
/// wall clock and draws every frame with the renderer of World::render, so a window shows what a
/// picture would.
///
/// Time: each frame adds the frame's wall time to a lag and takes as many steps of the scene's
/// time_step as the lag holds, at most 4: a scene too heavy for real time runs as fast as it can
/// instead of falling ever further behind.
///
/// Controls: space pauses, S or the right arrow takes one step (paused or not), R restarts from
/// the scene's first state, a left drag on empty space orbits the camera about its target, the
/// wheel zooms, a left drag that starts on a dynamic body or particle grabs it with the mouse
/// spring (World::pick and World::pull) pulling it towards the cursor, Esc or Q closes the
/// window. The window's title is the status line (status()).
///
/// GLFW's rules hold: one Viewer at a time, made and run on the program's main thread.
/// libvkphys links GLFW itself (a runtime dependency, libglfw.so.3): a program that uses the
/// Viewer needs no GLFW of its own, and one that does not never opens a window.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "vkphys/error.h"
#include "vkphys/export.h"
#include "vkphys/picture.h"
#include "vkphys/scene.h"
#include "vkphys/world.h"

namespace vkphys {

/// Thrown by Viewer's constructor when no window can be shown: no display (no DISPLAY or
/// WAYLAND_DISPLAY, GLFW cannot initialise), no Vulkan loader for GLFW, no Vulkan surface for the
/// window system or no queue that presents to it. what() is one line saying which, and that
/// World::render (`vkphys render`) draws pictures without a display.
struct VKPHYS_API NoDisplayError : Error {
  using Error::Error;
};

struct ViewerOptions {
  std::uint32_t width = 640, height = 480;  ///< the window's size [pixels]
  /// The World's backend, device and validation, as for a World. shared_device must stay empty:
  /// the Viewer opens the device itself, with the window system's surface extensions.
  WorldOptions world;
  /// Keep a copy of every presented frame for last_frame() (a screenshot; slower).
  bool capture = false;
};

class VKPHYS_API Viewer {
 public:
  /// Opens the window and the Vulkan device, and loads `scene` into a World on them. Throws
  /// NoDisplayError without a display to show the window on, Error for the rest (a scene the
  /// World refuses, no Vulkan device, a size of 0 or over 16384, a shared_device).
  explicit Viewer(Scene scene, const ViewerOptions& options = {});
  ~Viewer();
  Viewer(const Viewer&) = delete;
  Viewer& operator=(const Viewer&) = delete;

  /// Shows the World until the window is closed or, with `frames` > 0, until that many frames
  /// were presented by this call; returns how many were.
  std::uint32_t run(std::uint32_t frames = 0);

  /// The World on screen (after R, the restarted one).
  const World& world() const;
  /// "NAME (BACKEND): step N | X ms/step | bodies B | particles P | contacts C | colours K",
  /// with " | paused" while paused: the window's title.
  std::string status() const;
  /// The Vulkan device the window is drawn on.
  std::string device_name() const;
  /// The last presented frame (ViewerOptions::capture). Throws Error when none was captured.
  Picture last_frame() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace vkphys
