// The Vulkan context: instance, one compute-capable device and queue, a command pool, and the
// debug messenger, all through volk.
//
// Device choice: a discrete GPU first, then integrated, virtual, CPU (lavapipe); `--device N`
// picks by index in `vkphys info` order, `--device NAME` by a case-insensitive substring of the
// device name. With validation on (tests always), the first validation error is printed to stderr
// at once and counted; ValidationGuard in the tests turns the count into a failure. Synchronization
// validation (ContextOptions::sync_validation) reports its hazards as such errors too.
#pragma once

#include <volk.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace vkphys::vk {

class PipelineCache;  // host/vk/pipeline_cache.h

// Thrown when there is no Vulkan loader, no instance, or no usable device. The message is one
// clear line meant for the user.
struct Unavailable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Any other Vulkan failure: the call and the VkResult.
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// An allocation the device (or the driver's host memory) could not satisfy. The message is one
// line: how many bytes, for what, the VkResult and what to do.
struct OutOfMemory : Error {
  OutOfMemory(VkDeviceSize bytes, VkResult result, const std::string& what,
              const std::string& advice);
  VkDeviceSize bytes;
  VkResult result;
};

// VK_ERROR_DEVICE_LOST: the device reset or hung. Nothing recorded on it can be trusted and the
// context cannot be used again; the message says so and what to do.
struct DeviceLost : Error {
  explicit DeviceLost(const char* call);
};

// Throws DeviceLost, OutOfMemory (for `what`, with a generic advice) or Error for a failure.
void check(VkResult result, const char* what);

// "VK_ERROR_DEVICE_LOST" etc., or the number for results without a name here.
std::string result_name(VkResult result);

struct DeviceInfo {
  std::uint32_t index = 0;
  std::string name;
  std::string type;  // "discrete", "integrated", "virtual", "cpu", "other"
  std::string driver;
  std::uint32_t api_version = 0;
  std::uint64_t device_local_bytes = 0;
  std::uint32_t max_workgroup_size = 0;
  std::uint32_t max_workgroup_invocations = 0;
  std::uint32_t max_storage_buffer_range = 0;
  std::uint32_t subgroup_size = 0;
  // Subgroup arithmetic (subgroupAdd) in compute shaders: the GPU narrowphase counts with it.
  bool subgroup_arithmetic = false;
  // Subgroup ballots (subgroupBallot and its counts) in compute shaders: the GPU colouring lists
  // its uncoloured units with them.
  bool subgroup_ballot = false;
  std::uint32_t max_compute_shared_memory = 0;
  float timestamp_period_ns = 0.0f;
  bool timestamps = false;
  // The Vulkan memory model (VK_KHR_vulkan_memory_model), enabled on the device when it has it:
  // shaders/world_fused_workgroup.comp needs it for buffers coherent within one workgroup only.
  bool memory_model = false;
};

struct ContextOptions {
  std::string device;       // "" = best, "N" = index, otherwise a name substring
  bool validation = false;  // enable VK_LAYER_KHRONOS_validation and the debug messenger
  // A window's needs (`vkphys view`): the instance extensions its window system asks for
  // (glfwGetRequiredInstanceExtensions). Non-empty, the device also gets VK_KHR_swapchain, and
  // create throws Unavailable when the instance or the picked device lacks them.
  std::vector<std::string> surface_extensions;
  // Also the layer's synchronization validation (implies validation): every missing or too
  // weak barrier between two commands that touch the same memory is a validation error
  // (SYNC-HAZARD-*). The layer checks each command's accesses as it is recorded, so it slows
  // recording most (tests/test_gpu_sync_validation.cpp).
  bool sync_validation = false;
};

class Context {
 public:
  static std::unique_ptr<Context> create(const ContextOptions& options);
  // Devices in the order `--device N` counts them. Throws Unavailable without Vulkan.
  static std::vector<DeviceInfo> list_devices();

  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  VkInstance instance() const { return instance_; }
  VkDevice device() const { return device_; }
  VkPhysicalDevice physical() const { return physical_; }
  VkQueue queue() const { return queue_; }
  std::uint32_t queue_family() const { return queue_family_; }
  const DeviceInfo& info() const { return info_; }
  bool validation_enabled() const { return validation_; }
  bool sync_validation_enabled() const { return sync_validation_; }
  std::uint32_t validation_errors() const { return validation_errors_; }
  // Every Context's validation errors in this process, closed ones included: a command that
  // opens and closes contexts (bench: one per workload) still answers for all of them at exit.
  static std::uint64_t validation_errors_in_process();

  // The pipeline cache every pipeline of this context is created with, loaded from disk at
  // creation and saved at destruction (host/vk/pipeline_cache.h); VK_NULL_HANDLE when
  // VKPHYS_PIPELINE_CACHE=off.
  VkPipelineCache pipeline_cache() const;
  const PipelineCache& pipeline_cache_file() const { return *pipeline_cache_; }

  VkCommandBuffer allocate_command_buffer() const;
  void free_command_buffer(VkCommandBuffer cb) const;
  // Submits recorded command buffers, in order, in one submission and waits for them to finish.
  void submit_and_wait(std::span<const VkCommandBuffer> cbs) const;
  void submit_and_wait(VkCommandBuffer cb) const { submit_and_wait(std::span(&cb, 1)); }
  // The same in two halves, for submissions in flight together: submit signals `fence` (one of
  // the caller's, unsignalled) when they finish, and wait waits for it and unsignals it.
  void submit(std::span<const VkCommandBuffer> cbs, VkFence fence) const;
  void wait(VkFence fence) const;
  VkFence create_fence() const;
  void destroy_fence(VkFence fence) const;
  // Submissions since the context was made or its faults last set (inject_faults).
  std::uint64_t submits() const { return submits_; }
  // Records with `record` into a temporary command buffer, submits and waits.
  void run_once(const std::function<void(VkCommandBuffer)>& record) const;
  // The first memory type of `type_bits` with every one of `flags`; the first that also has
  // every one of `preferred`, if there is one. `index` is the type's, `flags` all its properties.
  struct MemoryType {
    std::uint32_t index = 0;
    VkMemoryPropertyFlags flags = 0;
  };
  MemoryType find_memory_type(std::uint32_t type_bits, VkMemoryPropertyFlags flags,
                              VkMemoryPropertyFlags preferred = 0) const;

  // Fault injection, for the tests of what a failing device leaves behind. Set by inject_faults,
  // or for a whole process (the command line) by VKPHYS_INJECT_FAULT: "oom:BYTES" (every
  // allocation of at least BYTES fails with VK_ERROR_OUT_OF_DEVICE_MEMORY) or "device-lost:N"
  // (the Nth submit from the context's creation returns VK_ERROR_DEVICE_LOST without running,
  // and every later one too, as after a real loss) or "validation-error:N" (the Nth submit has
  // the validation layer report one error through the debug messenger, as a real one arrives;
  // nothing without validation, which is what the messenger needs). Faults{} turns them off and
  // forgets a simulated loss. Nothing is injected unless asked.
  struct Faults {
    VkDeviceSize fail_allocations_from = 0;        // bytes; 0: no allocation fails
    std::uint64_t lose_device_at_submit = 0;       // 1 = the next submit; 0: never
    std::uint64_t validation_error_at_submit = 0;  // 1 = the next submit; 0: never
  };
  void inject_faults(const Faults& faults) const;
  // VK_ERROR_OUT_OF_DEVICE_MEMORY when an injected fault fails an allocation of `bytes`.
  VkResult injected_allocation_result(VkDeviceSize bytes) const;
  // Device memory held by live vk::Buffers of this context (their allocations' sizes), for the
  // memory figures of `vkphys bench`.
  std::uint64_t allocated_bytes() const { return allocated_bytes_; }
  void count_allocation(std::int64_t delta) const {
    allocated_bytes_ =
        static_cast<std::uint64_t>(static_cast<std::int64_t>(allocated_bytes_) + delta);
  }

 private:
  Context() = default;
  void report_injected_error() const;
  static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT,
                                                   VkDebugUtilsMessageTypeFlagsEXT,
                                                   const VkDebugUtilsMessengerCallbackDataEXT*,
                                                   void*);

  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  PFN_vkDestroyDebugUtilsMessengerEXT destroy_messenger_ = nullptr;  // this instance's
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  std::uint32_t queue_family_ = 0;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  DeviceInfo info_;
  std::unique_ptr<PipelineCache> pipeline_cache_;
  mutable std::uint64_t allocated_bytes_ = 0;
  mutable Faults faults_;
  mutable std::uint64_t submits_ = 0;  // since the context was made or the faults set
  mutable bool lost_ = false;          // a simulated device loss happened
  bool validation_ = false;
  bool sync_validation_ = false;
  std::uint32_t validation_errors_ = 0;
};

}  // namespace vkphys::vk
