/// \file
/// vkphys::BackendComparison: the GPU backend held to the CPU reference over a run of a scene
/// (`vkphys compare`). Bitwise equality is not expected: each step's differences of position,
/// orientation, velocity and angular velocity are held to fixed tolerances or, where the scene
/// is chaotic, to its rounding envelope (how far the CPU carries the scene from states nudged
/// by one ulp), and one-step checks from the CPU's state hold every stage's output. docs/api.md
/// and ARCHITECTURE.md ("Backend comparison") give the rules.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "vkphys/difference.h"
#include "vkphys/export.h"
#include "vkphys/scene.h"

namespace vkphys {

struct BackendCompareOptions {
  Tolerance tolerance;  ///< the fixed limits
  /// CPU runs of the scene nudged by one ulp that measure the rounding envelope (0: the fixed
  /// tolerances alone).
  std::uint32_t seeds = 3;
  /// A run may differ from the CPU by this many times the whole run's envelope.
  double factor = 2.0;
  /// One-step checks spread over the run (the first at step 0): both backends take one step
  /// from the CPU's state there and every stage's output is compared. 0: none.
  std::uint32_t checks = 6;
  std::string device;            ///< the GPU backend's device, as WorldOptions::device
  bool validation = false;       ///< as WorldOptions::validation
  bool sync_validation = false;  ///< as WorldOptions::sync_validation
};

class VKPHYS_API BackendComparison {
 public:
  /// Runs `steps` steps of `scene` on the GPU backend and on the CPU backend (the reference)
  /// and compares them after every step; `on_step`, if set, is called with each finished step.
  /// The scene's solver scheme must be one the GPU runs (colored or jacobi). Throws Error for
  /// a scene the step cannot run, a sequential scheme or no Vulkan device.
  BackendComparison(const Scene& scene, std::uint32_t steps,
                    const BackendCompareOptions& options = {},
                    const std::function<void(std::uint32_t)>& on_step = {});
  ~BackendComparison();
  BackendComparison(BackendComparison&&) noexcept;
  BackendComparison& operator=(BackendComparison&&) noexcept;

  /// The run stayed within its limits and every one-step check passed.
  bool passed() const;
  /// One line: "within the fixed tolerances", "within the rounding envelope", or where the run
  /// left its limits (step, quantity, body, the stage it was traced to) and the first failed
  /// one-step check.
  const std::string& verdict() const;
  /// Entry k: the differences after step k + 1 over every body and particle.
  std::span<const StepError> steps() const;
  /// Entry k: the rounding envelope after step k + 1 (empty with seeds = 0).
  std::span<const StepError> envelope() const;
  /// The limits the run was held to: max(tolerance, factor x the whole run's envelope).
  Tolerance allowed() const;
  std::string gpu_name() const;  ///< "gpu (DEVICE NAME)"
  std::string cpu_name() const;  ///< "cpu"
  /// The GPU's device type, as World::device_type ("cpu" for a CPU Vulkan driver).
  std::string gpu_device_type() const;
  /// Writes the report: one self-contained HTML page (the verdict, the differences over time
  /// per body kind against the envelope and the limit, both backends' energy and momentum, the
  /// settings and devices). `scene_file` names the scene in it. Throws Error naming the path if
  /// it cannot be written.
  void write_report(const std::filesystem::path& path, const std::string& scene_file = "") const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace vkphys
