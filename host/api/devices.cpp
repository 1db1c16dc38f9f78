// vkphys::gpu_devices (vkphys/devices.h): the Vulkan context's device list in public types.
#include "vkphys/devices.h"

#include "host/api/guarded.h"
#include "host/vk/context.h"

namespace vkphys {

std::vector<GpuDevice> gpu_devices() {
  return guarded([] {
    std::vector<GpuDevice> out;
    for (const vk::DeviceInfo& d : vk::Context::list_devices()) {
      out.push_back({.index = d.index,
                     .name = d.name,
                     .type = d.type,
                     .driver = d.driver,
                     .api_major = VK_API_VERSION_MAJOR(d.api_version),
                     .api_minor = VK_API_VERSION_MINOR(d.api_version),
                     .api_patch = VK_API_VERSION_PATCH(d.api_version),
                     .device_local_bytes = d.device_local_bytes,
                     .max_storage_buffer_range = d.max_storage_buffer_range,
                     .max_workgroup_invocations = d.max_workgroup_invocations,
                     .max_compute_shared_memory = d.max_compute_shared_memory,
                     .subgroup_size = d.subgroup_size,
                     .timestamps = d.timestamps});
    }
    return out;
  });
}

std::uint64_t validation_errors_reported() {
  return vk::Context::validation_errors_in_process();
}

}  // namespace vkphys
