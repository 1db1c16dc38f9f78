/// \file
/// The Vulkan devices the GPU backend can run on (`vkphys info`), in the order
/// WorldOptions::device counts them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
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

/// Measured figures of a device that bound a step from below (`vkphys bench` prints the floors
/// they give beside each step's time).
struct DeviceSpeed {
  double copy_gb_per_s = 0.0;    ///< a large buffer copy: bytes read + bytes written [GB/s]
  double kernel_gb_per_s = 0.0;  ///< a compute kernel streaming a large buffer, the same [GB/s]
  double dispatch_us = 0.0;      ///< one small dispatch and the compute barrier after it [us]
  /// The faster of the two ways bytes were seen to move: the bandwidth a step's floor uses.
  double gb_per_s() const {
    return copy_gb_per_s > kernel_gb_per_s ? copy_gb_per_s : kernel_gb_per_s;
  }
};

/// Every Vulkan device with a compute queue (none: an empty list). Throws Error, one line saying
/// what is missing, without a Vulkan loader or instance.
VKPHYS_API std::vector<GpuDevice> gpu_devices();

/// One opened Vulkan device (its instance, device and queue) that several GPU Worlds share
/// through WorldOptions::shared_device, instead of each opening its own: `vkphys bench` runs
/// every workload on one. A copy is another handle to the same device, which stays open while
/// any handle or World holds it. The Worlds sharing a device take turns on its one queue: use
/// them from one thread. A default-constructed SharedDevice holds no device.
class VKPHYS_API SharedDevice {
 public:
  SharedDevice();
  ~SharedDevice();
  SharedDevice(const SharedDevice&);
  SharedDevice& operator=(const SharedDevice&);
  /// Opens the device `device` picks (WorldOptions::device's rules), with the validation layer
  /// (and its synchronization validation) as WorldOptions asks for them. Throws Error, one line
  /// saying what is missing, without a Vulkan device.
  static SharedDevice open(std::string_view device = {}, bool validation = false,
                           bool sync_validation = false);
  bool is_open() const;
  /// The device, as gpu_devices() lists it. Throws Error when none is open.
  GpuDevice info() const;
  /// Times a buffer copy and a chain of small dispatches on this device (a fraction of a second;
  /// best of three). Throws Error when none is open or the device has no timestamps.
  DeviceSpeed measure_speed() const;
  /// The validation layer's error count on this device, over every World that used it.
  std::uint32_t validation_errors() const;

 private:
  friend struct SharedDeviceInternals;  ///< host/api/world_internal.h: the World's backend
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

/// How many errors the Vulkan validation layer has reported in this process so far, over every
/// World and device opened with WorldOptions::validation or sync_validation (closed ones
/// included). Each is also printed to stderr as it happens. Zero without the layer. The CLI
/// exits with status 3 when this is not zero at its end.
VKPHYS_API std::uint64_t validation_errors_reported();

}  // namespace vkphys
