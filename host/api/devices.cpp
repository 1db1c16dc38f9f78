// vkphys::gpu_devices and SharedDevice (vkphys/devices.h): the Vulkan context's device list in
// public types, and one context several Worlds share.
#include "vkphys/devices.h"

#include "host/api/guarded.h"
#include "host/api/world_internal.h"
#include "host/gpu/device_speed.h"
#include "host/vk/context.h"
#include "vkphys/error.h"

namespace vkphys {

namespace {

GpuDevice public_info(const vk::DeviceInfo& d) {
  return {.index = d.index,
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
          .timestamps = d.timestamps};
}

}  // namespace

std::vector<GpuDevice> gpu_devices() {
  return guarded([] {
    std::vector<GpuDevice> out;
    for (const vk::DeviceInfo& d : vk::Context::list_devices()) out.push_back(public_info(d));
    return out;
  });
}

struct SharedDevice::Impl {
  std::unique_ptr<vk::Context> ctx;
};

SharedDevice::SharedDevice() = default;
SharedDevice::~SharedDevice() = default;
SharedDevice::SharedDevice(const SharedDevice&) = default;
SharedDevice& SharedDevice::operator=(const SharedDevice&) = default;

SharedDevice SharedDevice::open(std::string_view device, bool validation, bool sync_validation) {
  SharedDevice out;
  out.impl_ = guarded([&] {
    return std::make_shared<Impl>(Impl{vk::Context::create({.device = std::string(device),
                                                            .validation = validation,
                                                            .sync_validation = sync_validation})});
  });
  return out;
}

bool SharedDevice::is_open() const {
  return impl_ != nullptr;
}

GpuDevice SharedDevice::info() const {
  return public_info(SharedDeviceInternals::context(*this).info());
}

DeviceSpeed SharedDevice::measure_speed() const {
  const vk::Context& ctx = SharedDeviceInternals::context(*this);
  return guarded([&] { return gpu::measure_device_speed(ctx); });
}

std::uint32_t SharedDevice::validation_errors() const {
  return SharedDeviceInternals::context(*this).validation_errors();
}

std::shared_ptr<vk::Context> SharedDeviceInternals::context_ptr(const SharedDevice& device) {
  if (!device.impl_) {
    throw Error("SharedDevice: none is open (make one with SharedDevice::open)");
  }
  // The aliasing constructor: the context lives as long as the device's Impl.
  return {device.impl_, device.impl_->ctx.get()};
}

vk::Context& SharedDeviceInternals::context(const SharedDevice& device) {
  return *context_ptr(device);
}

SharedDevice SharedDeviceInternals::adopt(std::unique_ptr<vk::Context> ctx) {
  SharedDevice out;
  out.impl_ = std::make_shared<SharedDevice::Impl>(SharedDevice::Impl{std::move(ctx)});
  return out;
}

std::uint64_t validation_errors_reported() {
  return vk::Context::validation_errors_in_process();
}

}  // namespace vkphys
