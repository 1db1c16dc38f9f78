#include "host/vk/context.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "host/vk/pipeline_cache.h"

namespace vkphys::vk {

std::string result_name(VkResult result) {
  switch (result) {
    case VK_ERROR_OUT_OF_HOST_MEMORY:
      return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY:
      return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
    case VK_ERROR_DEVICE_LOST:
      return "VK_ERROR_DEVICE_LOST";
    case VK_ERROR_INITIALIZATION_FAILED:
      return "VK_ERROR_INITIALIZATION_FAILED";
    default:
      return "VkResult " + std::to_string(static_cast<int>(result));
  }
}

OutOfMemory::OutOfMemory(VkDeviceSize n, VkResult r, const std::string& what,
                         const std::string& advice)
    : Error("out of " +
            std::string(r == VK_ERROR_OUT_OF_HOST_MEMORY ? "host memory" : "device memory") +
            ": could not allocate " + std::to_string(n) + " bytes for " + what + " (" +
            result_name(r) + "); " + advice),
      bytes(n),
      result(r) {}

DeviceLost::DeviceLost(const char* call)
    : Error(std::string("the Vulkan device was lost (VK_ERROR_DEVICE_LOST from ") + call +
            ": the GPU or its driver reset or hung); the GPU backend cannot go on: run again, or "
            "use --backend cpu") {}

void check(VkResult result, const char* what) {
  if (result == VK_SUCCESS) return;
  if (result == VK_ERROR_DEVICE_LOST) throw DeviceLost(what);
  if (result == VK_ERROR_OUT_OF_DEVICE_MEMORY || result == VK_ERROR_OUT_OF_HOST_MEMORY) {
    throw OutOfMemory(0, result, what, "use a smaller scene or --backend cpu");
  }
  throw Error(std::string("Vulkan: ") + what + " failed with " + result_name(result));
}

namespace {

// VKPHYS_INJECT_FAULT (Context::Faults): "oom:BYTES", "device-lost:N" or "validation-error:N",
// BYTES and N > 0.
Context::Faults faults_from_environment() {
  const char* env = std::getenv("VKPHYS_INJECT_FAULT");
  Context::Faults f;
  if (!env || !*env) return f;
  const std::string text = env;
  const std::size_t colon = text.find(':');
  const std::string kind = text.substr(0, colon);
  const std::string number = colon == std::string::npos ? "" : text.substr(colon + 1);
  const bool digits = !number.empty() && number.size() <= 18 &&
                      std::all_of(number.begin(), number.end(), [](char c) {
                        return std::isdigit(static_cast<unsigned char>(c));
                      });
  const std::uint64_t n = digits ? std::stoull(number) : 0;
  if (n > 0 && kind == "oom") {
    f.fail_allocations_from = n;
  } else if (n > 0 && kind == "device-lost") {
    f.lose_device_at_submit = n;
  } else if (n > 0 && kind == "validation-error") {
    f.validation_error_at_submit = n;
  } else {
    throw Error("VKPHYS_INJECT_FAULT=" + text +
                ": expected oom:BYTES, device-lost:N or validation-error:N (a number > 0)");
  }
  return f;
}

void load_loader() {
  static bool loaded = false;
  if (loaded) return;
  if (volkInitialize() != VK_SUCCESS) {
    throw Unavailable(
        "no Vulkan loader found (install libvulkan1 and a driver, e.g. mesa-vulkan-drivers); "
        "the CPU backend (--backend cpu) still works");
  }
  loaded = true;
}

bool has_layer(const char* name) {
  std::uint32_t n = 0;
  vkEnumerateInstanceLayerProperties(&n, nullptr);
  std::vector<VkLayerProperties> layers(n);
  vkEnumerateInstanceLayerProperties(&n, layers.data());
  return std::any_of(layers.begin(), layers.end(), [&](const VkLayerProperties& l) {
    return std::strcmp(l.layerName, name) == 0;
  });
}

VkInstance make_instance(bool validation, bool sync_validation,
                         const std::vector<std::string>& surface_extensions = {}) {
  load_loader();
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "vkphys";
  app.apiVersion = VK_API_VERSION_1_1;
  std::vector<const char*> layers;
  std::vector<const char*> extensions;
  if (validation) {
    if (!has_layer("VK_LAYER_KHRONOS_validation")) {
      throw Unavailable(
          "validation requested but VK_LAYER_KHRONOS_validation is not installed "
          "(apt-get install vulkan-validationlayers)");
    }
    layers.push_back("VK_LAYER_KHRONOS_validation");
    extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
  }
  for (const std::string& e : surface_extensions) extensions.push_back(e.c_str());
  VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  // Synchronization validation: the layer tracks every buffer and image range each command
  // reads or writes and reports an access that no barrier orders after an earlier conflicting
  // one (SYNC-HAZARD-*, as errors). It is a feature of VK_LAYER_KHRONOS_validation, so it
  // needs the layer (above) and VK_EXT_validation_features, which the layer provides.
  const VkValidationFeatureEnableEXT sync =
      VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
  VkValidationFeaturesEXT features{VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT};
  features.enabledValidationFeatureCount = 1;
  features.pEnabledValidationFeatures = &sync;
  if (validation && sync_validation) {
    extensions.push_back(VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
    info.pNext = &features;
  }
  info.pApplicationInfo = &app;
  info.enabledLayerCount = static_cast<std::uint32_t>(layers.size());
  info.ppEnabledLayerNames = layers.data();
  info.enabledExtensionCount = static_cast<std::uint32_t>(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  VkInstance instance = VK_NULL_HANDLE;
  VkResult r = vkCreateInstance(&info, nullptr, &instance);
  if (r == VK_ERROR_EXTENSION_NOT_PRESENT) {
    std::string names;
    for (const std::string& e : surface_extensions) names += (names.empty() ? "" : ", ") + e;
    throw Unavailable("the Vulkan loader cannot draw to this window system (instance extensions " +
                      names + " missing); `vkphys render` still draws to PNG files");
  }
  if (r != VK_SUCCESS) {
    throw Unavailable("no Vulkan instance could be created (VkResult " + std::to_string(r) +
                      "); the CPU backend (--backend cpu) still works");
  }
  // Instance and device functions from the loader: its entry points dispatch on each handle's
  // own chain, so several Contexts (one with the validation layer, one without) can live in one
  // process. volkLoadDevice would make the global table the last device's driver functions,
  // skipping the loader: every other Context's calls then went through that device's chain (a
  // process that mixed them crashed at exit; tests/test_gpu_contexts.cpp). The loader's
  // dispatch costs one indirect call per Vulkan call: nothing next to a dispatch. Extension
  // functions are the exception: the table holds only what the last instance enabled, so the
  // debug messenger's are kept per Context, and the window's surface functions (`vkphys view`,
  // host/gpu/swapchain.cpp) need its Context to be the last one opened.
  volkLoadInstance(instance);
  return instance;
}

bool has_device_extension(VkPhysicalDevice pd, const char* name) {
  std::uint32_t n = 0;
  vkEnumerateDeviceExtensionProperties(pd, nullptr, &n, nullptr);
  std::vector<VkExtensionProperties> extensions(n);
  vkEnumerateDeviceExtensionProperties(pd, nullptr, &n, extensions.data());
  return std::any_of(extensions.begin(), extensions.end(), [&](const VkExtensionProperties& e) {
    return std::strcmp(e.extensionName, name) == 0;
  });
}

int type_rank(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return 0;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return 1;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return 3;
    default:
      return 4;
  }
}

const char* type_name(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return "discrete";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return "integrated";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return "virtual";
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return "cpu";
    default:
      return "other";
  }
}

std::optional<std::uint32_t> compute_queue_family(VkPhysicalDevice pd) {
  std::uint32_t n = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, nullptr);
  std::vector<VkQueueFamilyProperties> families(n);
  vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, families.data());
  for (std::uint32_t i = 0; i < n; ++i) {
    if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) return i;
  }
  return std::nullopt;
}

DeviceInfo describe(VkPhysicalDevice pd, std::uint32_t index) {
  VkPhysicalDeviceSubgroupProperties subgroup{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  subgroup.pNext = &driver;
  VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  props.pNext = &subgroup;
  vkGetPhysicalDeviceProperties2(pd, &props);
  const VkPhysicalDeviceLimits& lim = props.properties.limits;
  DeviceInfo d;
  d.index = index;
  d.name = props.properties.deviceName;
  d.type = type_name(props.properties.deviceType);
  d.driver = std::string(driver.driverName) + " " + driver.driverInfo;
  d.api_version = props.properties.apiVersion;
  d.max_workgroup_size = lim.maxComputeWorkGroupSize[0];
  d.max_workgroup_invocations = lim.maxComputeWorkGroupInvocations;
  d.max_storage_buffer_range = lim.maxStorageBufferRange;
  d.max_compute_shared_memory = lim.maxComputeSharedMemorySize;
  d.subgroup_size = subgroup.subgroupSize;
  d.subgroup_arithmetic = (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) != 0 &&
                          (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT) != 0;
  d.subgroup_ballot = (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) != 0 &&
                      (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_BALLOT_BIT) != 0;
  d.timestamp_period_ns = lim.timestampPeriod;
  VkPhysicalDeviceMemoryProperties mem;
  vkGetPhysicalDeviceMemoryProperties(pd, &mem);
  for (std::uint32_t i = 0; i < mem.memoryHeapCount; ++i) {
    if (mem.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) {
      d.device_local_bytes += mem.memoryHeaps[i].size;
    }
  }
  if (has_device_extension(pd, VK_KHR_VULKAN_MEMORY_MODEL_EXTENSION_NAME)) {
    VkPhysicalDeviceVulkanMemoryModelFeaturesKHR model{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES_KHR};
    VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    features.pNext = &model;
    vkGetPhysicalDeviceFeatures2(pd, &features);
    // Device scope too: with the model on, every shader's device-scope atomics need it.
    d.memory_model = model.vulkanMemoryModel == VK_TRUE && model.vulkanMemoryModelDeviceScope;
  }
  if (auto family = compute_queue_family(pd)) {
    std::uint32_t n = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, nullptr);
    std::vector<VkQueueFamilyProperties> families(n);
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, families.data());
    d.timestamps = families[*family].timestampValidBits > 0 && lim.timestampPeriod > 0.0f;
  }
  return d;
}

// Physical devices with a compute queue, ordered best first (discrete GPUs first).
std::vector<VkPhysicalDevice> ordered_devices(VkInstance instance) {
  std::uint32_t n = 0;
  vkEnumeratePhysicalDevices(instance, &n, nullptr);
  std::vector<VkPhysicalDevice> all(n);
  vkEnumeratePhysicalDevices(instance, &n, all.data());
  std::vector<VkPhysicalDevice> usable;
  for (VkPhysicalDevice pd : all) {
    if (compute_queue_family(pd)) usable.push_back(pd);
  }
  std::stable_sort(usable.begin(), usable.end(), [](VkPhysicalDevice a, VkPhysicalDevice b) {
    VkPhysicalDeviceProperties pa, pb;
    vkGetPhysicalDeviceProperties(a, &pa);
    vkGetPhysicalDeviceProperties(b, &pb);
    return type_rank(pa.deviceType) < type_rank(pb.deviceType);
  });
  return usable;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

std::vector<DeviceInfo> Context::list_devices() {
  VkInstance instance = make_instance(false, false);
  std::vector<DeviceInfo> out;
  std::uint32_t i = 0;
  for (VkPhysicalDevice pd : ordered_devices(instance)) out.push_back(describe(pd, i++));
  vkDestroyInstance(instance, nullptr);
  return out;
}

namespace {
std::atomic<std::uint64_t> process_validation_errors{0};
}  // namespace

std::uint64_t Context::validation_errors_in_process() {
  return process_validation_errors.load(std::memory_order_relaxed);
}

VKAPI_ATTR VkBool32 VKAPI_CALL Context::on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                   VkDebugUtilsMessageTypeFlagsEXT,
                                                   const VkDebugUtilsMessengerCallbackDataEXT* data,
                                                   void* user) {
  if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) {
    auto* self = static_cast<Context*>(user);
    ++self->validation_errors_;
    process_validation_errors.fetch_add(1, std::memory_order_relaxed);
    std::fprintf(stderr, "VULKAN VALIDATION ERROR: %s\n", data->pMessage);
    std::fflush(stderr);
  }
  return VK_FALSE;
}

std::unique_ptr<Context> Context::create(const ContextOptions& options) {
  std::unique_ptr<Context> ctx(new Context());
  ctx->validation_ = options.validation || options.sync_validation;
  ctx->sync_validation_ = options.sync_validation;
  ctx->instance_ =
      make_instance(ctx->validation_, ctx->sync_validation_, options.surface_extensions);
  if (ctx->validation_) {
    VkDebugUtilsMessengerCreateInfoEXT info{
        VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    info.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT |
                           VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT;
    info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT;
    info.pfnUserCallback = &Context::on_message;
    info.pUserData = ctx.get();
    // This instance's own entry points: volk's table holds the last instance's, and an instance
    // opened later without the layer has none (its null would be called at our destruction).
    auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(ctx->instance_, "vkCreateDebugUtilsMessengerEXT"));
    ctx->destroy_messenger_ = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(ctx->instance_, "vkDestroyDebugUtilsMessengerEXT"));
    if (!create || !ctx->destroy_messenger_) {
      throw Unavailable("the Vulkan loader has no VK_EXT_debug_utils for the validation layer");
    }
    check(create(ctx->instance_, &info, nullptr, &ctx->messenger_),
          "vkCreateDebugUtilsMessengerEXT");
  }
  std::vector<VkPhysicalDevice> devices = ordered_devices(ctx->instance_);
  if (devices.empty()) {
    throw Unavailable(
        "no Vulkan device with a compute queue found (install mesa-vulkan-drivers for lavapipe); "
        "the CPU backend (--backend cpu) still works");
  }
  std::size_t pick = 0;
  if (!options.device.empty()) {
    const std::string& want = options.device;
    bool numeric = std::all_of(want.begin(), want.end(),
                               [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
    if (numeric) {
      pick = std::stoul(want);
      if (pick >= devices.size()) {
        throw Unavailable("--device " + want + ": only " + std::to_string(devices.size()) +
                          " Vulkan device(s) found (see `vkphys info`)");
      }
    } else {
      pick = devices.size();
      for (std::size_t i = 0; i < devices.size(); ++i) {
        if (lower(describe(devices[i], 0).name).find(lower(want)) != std::string::npos) {
          pick = i;
          break;
        }
      }
      if (pick == devices.size()) {
        throw Unavailable("--device " + want +
                          ": no Vulkan device name contains it (see `vkphys info`)");
      }
    }
  }
  ctx->physical_ = devices[pick];
  ctx->info_ = describe(ctx->physical_, static_cast<std::uint32_t>(pick));
  ctx->queue_family_ = *compute_queue_family(ctx->physical_);

  float priority = 1.0f;
  VkDeviceQueueCreateInfo queue{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queue.queueFamilyIndex = ctx->queue_family_;
  queue.queueCount = 1;
  queue.pQueuePriorities = &priority;
  VkDeviceCreateInfo dinfo{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  dinfo.queueCreateInfoCount = 1;
  dinfo.pQueueCreateInfos = &queue;
  std::vector<const char*> device_extensions;
  if (!options.surface_extensions.empty()) {
    if (!has_device_extension(ctx->physical_, VK_KHR_SWAPCHAIN_EXTENSION_NAME)) {
      throw Unavailable("Vulkan device " + ctx->info_.name +
                        " cannot present to a window (no VK_KHR_swapchain); `vkphys render` "
                        "still draws to PNG files");
    }
    device_extensions.push_back(VK_KHR_SWAPCHAIN_EXTENSION_NAME);
  }
  VkPhysicalDeviceVulkanMemoryModelFeaturesKHR model{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES_KHR};
  if (ctx->info_.memory_model) {
    device_extensions.push_back(VK_KHR_VULKAN_MEMORY_MODEL_EXTENSION_NAME);
    model.vulkanMemoryModel = VK_TRUE;
    model.vulkanMemoryModelDeviceScope = VK_TRUE;
    dinfo.pNext = &model;
  }
  dinfo.enabledExtensionCount = static_cast<std::uint32_t>(device_extensions.size());
  dinfo.ppEnabledExtensionNames = device_extensions.data();
  check(vkCreateDevice(ctx->physical_, &dinfo, nullptr, &ctx->device_), "vkCreateDevice");
  vkGetDeviceQueue(ctx->device_, ctx->queue_family_, 0, &ctx->queue_);
  VkPhysicalDeviceProperties properties;
  vkGetPhysicalDeviceProperties(ctx->physical_, &properties);
  ctx->pipeline_cache_ = std::make_unique<PipelineCache>(ctx->device_, properties);

  VkCommandPoolCreateInfo pinfo{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pinfo.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pinfo.queueFamilyIndex = ctx->queue_family_;
  check(vkCreateCommandPool(ctx->device_, &pinfo, nullptr, &ctx->pool_), "vkCreateCommandPool");
  ctx->fence_ = ctx->create_fence();
  ctx->inject_faults(faults_from_environment());
  return ctx;
}

Context::~Context() {
  if (device_) {
    vkDeviceWaitIdle(device_);
    vkDestroyFence(device_, fence_, nullptr);
    vkDestroyCommandPool(device_, pool_, nullptr);
    pipeline_cache_.reset();  // saves the cache while the device is alive
    vkDestroyDevice(device_, nullptr);
  }
  if (messenger_) destroy_messenger_(instance_, messenger_, nullptr);
  if (instance_) vkDestroyInstance(instance_, nullptr);
}

VkPipelineCache Context::pipeline_cache() const {
  return pipeline_cache_ ? pipeline_cache_->handle() : VK_NULL_HANDLE;
}

VkCommandBuffer Context::allocate_command_buffer() const {
  VkCommandBufferAllocateInfo info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  info.commandPool = pool_;
  info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  info.commandBufferCount = 1;
  VkCommandBuffer cb = VK_NULL_HANDLE;
  check(vkAllocateCommandBuffers(device_, &info, &cb), "vkAllocateCommandBuffers");
  return cb;
}

void Context::free_command_buffer(VkCommandBuffer cb) const {
  vkFreeCommandBuffers(device_, pool_, 1, &cb);
}

void Context::inject_faults(const Faults& faults) const {
  faults_ = faults;
  submits_ = 0;
  lost_ = false;
}

VkResult Context::injected_allocation_result(VkDeviceSize bytes) const {
  const bool fails = faults_.fail_allocations_from && bytes >= faults_.fail_allocations_from;
  return fails ? VK_ERROR_OUT_OF_DEVICE_MEMORY : VK_SUCCESS;
}

void Context::submit_and_wait(std::span<const VkCommandBuffer> cbs) const {
  submit(cbs, fence_);
  wait(fence_);
}

void Context::submit(std::span<const VkCommandBuffer> cbs, VkFence fence) const {
  // A simulated loss: this submit and every later one fail before reaching the queue.
  ++submits_;
  if (lost_ || (faults_.lose_device_at_submit && submits_ >= faults_.lose_device_at_submit)) {
    lost_ = true;
    throw DeviceLost("vkQueueSubmit");
  }
  if (submits_ == faults_.validation_error_at_submit && messenger_) report_injected_error();
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = static_cast<std::uint32_t>(cbs.size());
  submit.pCommandBuffers = cbs.data();
  check(vkQueueSubmit(queue_, 1, &submit, fence), "vkQueueSubmit");
}

void Context::wait(VkFence fence) const {
  check(vkWaitForFences(device_, 1, &fence, VK_TRUE, UINT64_MAX), "vkWaitForFences");
  check(vkResetFences(device_, 1, &fence), "vkResetFences");
}

VkFence Context::create_fence() const {
  VkFenceCreateInfo info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkFence fence = VK_NULL_HANDLE;
  check(vkCreateFence(device_, &info, nullptr, &fence), "vkCreateFence");
  return fence;
}

void Context::destroy_fence(VkFence fence) const {
  if (fence) vkDestroyFence(device_, fence, nullptr);
}

// Through the layer's own path: the message reaches on_message as the layer's errors do.
void Context::report_injected_error() const {
  auto submit = reinterpret_cast<PFN_vkSubmitDebugUtilsMessageEXT>(
      vkGetInstanceProcAddr(instance_, "vkSubmitDebugUtilsMessageEXT"));
  if (!submit) return;
  VkDebugUtilsMessengerCallbackDataEXT data{
      VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CALLBACK_DATA_EXT};
  data.pMessageIdName = "VKPHYS-INJECTED";
  data.pMessage = "an error injected by VKPHYS_INJECT_FAULT=validation-error:N";
  submit(instance_, VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
         VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT, &data);
}

void Context::run_once(const std::function<void(VkCommandBuffer)>& record) const {
  VkCommandBuffer cb = allocate_command_buffer();
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  check(vkBeginCommandBuffer(cb, &begin), "vkBeginCommandBuffer");
  record(cb);
  check(vkEndCommandBuffer(cb), "vkEndCommandBuffer");
  submit_and_wait(cb);
  free_command_buffer(cb);
}

Context::MemoryType Context::find_memory_type(std::uint32_t type_bits, VkMemoryPropertyFlags flags,
                                              VkMemoryPropertyFlags preferred) const {
  VkPhysicalDeviceMemoryProperties mem;
  vkGetPhysicalDeviceMemoryProperties(physical_, &mem);
  for (VkMemoryPropertyFlags want : {flags | preferred, flags}) {
    for (std::uint32_t i = 0; i < mem.memoryTypeCount; ++i) {
      const VkMemoryPropertyFlags has = mem.memoryTypes[i].propertyFlags;
      if ((type_bits & (1u << i)) && (has & want) == want) return {i, has};
    }
  }
  throw Error("Vulkan: no memory type with the requested properties");
}

}  // namespace vkphys::vk
