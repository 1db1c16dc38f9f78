/// \file
/// The Vulkan devices the GPU backend can run on (`vkphys info`), in the order
/// WorldOptions::device counts them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vkphys/export.h"

namespace vkphys {

struct GpuDevice {
  std::uint32_t index = 0;  ///< WorldOptions::device "N" picks it
  std::string name;
  /// "discrete", "integrated", "virtual", "cpu" (a CPU driver such as lavapipe) or "other"
  std::string type;
  std::string driver;                                         ///< the driver's name and version
  std::uint32_t api_major = 0, api_minor = 0, api_patch = 0;  ///< the Vulkan version it offers
  std::uint64_t device_local_bytes = 0;                       ///< device-local memory [bytes]
  std::uint32_t max_storage_buffer_range = 0;                 ///< [bytes]
  std::uint32_t max_workgroup_invocations = 0;
  std::uint32_t max_compute_shared_memory = 0;  ///< [bytes]
  std::uint32_t subgroup_size = 0;
  bool timestamps = false;  ///< it times the step's stages (StepStatistics::stages)
};

/// Every Vulkan device with a compute queue (none: an empty list). Throws Error, one line saying
/// what is missing, without a Vulkan loader or instance.
VKPHYS_API std::vector<GpuDevice> gpu_devices();

/// How many errors the Vulkan validation layer has reported in this process so far, over every
/// World and device opened with WorldOptions::validation or sync_validation (closed ones
/// included). Each is also printed to stderr as it happens. Zero without the layer. The CLI
/// exits with status 3 when this is not zero at its end.
VKPHYS_API std::uint64_t validation_errors_reported();

}  // namespace vkphys
