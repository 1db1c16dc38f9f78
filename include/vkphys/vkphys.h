/// \file
/// vkphys: rigid bodies, particles, joints and springs on Vulkan compute, with a CPU reference.
/// This header includes the whole public API; docs/api.md is the guide.
///
///   vkphys::World world = vkphys::World::from_file("scenes/stack.json", {.backend = "gpu"});
///   world.step(60);
///   std::span<const glm::vec4> x = world.state(vkphys::Field::body_position);
///
/// Headers: vkphys/scene.h (what a scene holds), vkphys/build.h and vkphys/cloth.h (building one
/// in code), vkphys/scene_file.h (reading and writing scene files), vkphys/world.h (World),
/// vkphys/grab.h (World::pick and pull, the mouse spring), vkphys/viewer.h (a live window),
/// vkphys/snapshot.h (checkpoints), vkphys/metrics.h, vkphys/statistics.h, vkphys/difference.h,
/// vkphys/picture.h (World::render), vkphys/compare.h (the GPU held to the CPU),
/// vkphys/devices.h (the Vulkan devices), vkphys/recorder.h (a run written as `vkphys run` writes
/// it), vkphys/builtin_scenes.h (the scenes built in code), vkphys/limits.h (the scene loader's
/// size limits), vkphys/files.h (whole-or-nothing file writes), vkphys/plot.h (SVG line plots),
/// vkphys/soak.h (a long run's checks), vkphys/stability.h (force springs' explicit step bound),
/// vkphys/error.h, vkphys/version.h, vkphys/export.h (what the library exports). GLM types
/// (glm::vec3, glm::vec4) are part of the API: a user compiles with GLM's headers
/// (find_package(vkphys) brings glm::glm in).
///
/// Errors: every failure throws vkphys::Error with a one-line message (vkphys/error.h).
///
/// Thread safety:
/// * A World is not thread-safe: call one World from one thread at a time, its const functions
///   included (they read the World's host copy of the state, which step() and write rewrite, and
///   with ReadBack::on_demand refresh it).
///   The spans state() returns are read while nothing steps or writes that World.
/// * Different Worlds share no state and may be stepped from different threads at once, with one
///   exception on the GPU backend: Vulkan's function table (volk) is process-global. Create and
///   destroy GPU Worlds from one thread at a time (a GPU World opens its own Vulkan instance and
///   device, loading the table). Every call goes through the Vulkan loader to its own device's
///   chain, so GPU Worlds on different devices, with and without the validation layer, live in
///   one process; stepping them from several threads is fine (each has its own queue and
///   command buffers).
/// * A Snapshot is immutable and may be shared between threads.
/// * A Viewer is GLFW's: one at a time, made and run on the program's main thread.
#pragma once

#include "vkphys/build.h"
#include "vkphys/builtin_scenes.h"
#include "vkphys/cloth.h"
#include "vkphys/compare.h"
#include "vkphys/devices.h"
#include "vkphys/difference.h"
#include "vkphys/error.h"
#include "vkphys/files.h"
#include "vkphys/grab.h"
#include "vkphys/limits.h"
#include "vkphys/metrics.h"
#include "vkphys/picture.h"
#include "vkphys/plot.h"
#include "vkphys/recorder.h"
#include "vkphys/scene.h"
#include "vkphys/scene_file.h"
#include "vkphys/snapshot.h"
#include "vkphys/soak.h"
#include "vkphys/soft_body.h"
#include "vkphys/stability.h"
#include "vkphys/statistics.h"
#include "vkphys/version.h"
#include "vkphys/viewer.h"
#include "vkphys/world.h"
