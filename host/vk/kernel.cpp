#include "host/vk/kernel.h"

#include <vector>

#include "host/vk/record_counts.h"

namespace vkphys::vk {

namespace {
constexpr std::uint32_t kSetsPerPool = 64;
}

Kernel::Kernel(const Context& ctx, std::string name, std::span<const std::uint32_t> spirv,
               std::uint32_t push_bytes, std::span<const std::uint32_t> constants)
    : ctx_(ctx), name_(std::move(name)), bindings_(used_bindings(spirv)), push_bytes_(push_bytes) {
  VkShaderModuleCreateInfo minfo{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  minfo.codeSize = spirv.size_bytes();
  minfo.pCode = spirv.data();
  check(vkCreateShaderModule(ctx.device(), &minfo, nullptr, &module_), "vkCreateShaderModule");

  std::vector<VkDescriptorSetLayoutBinding> layout_bindings(bindings_.size());
  for (std::size_t i = 0; i < bindings_.size(); ++i) {
    layout_bindings[i].binding = bindings_[i].binding;
    layout_bindings[i].descriptorType = bindings_[i].type;
    layout_bindings[i].descriptorCount = 1;
    layout_bindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  }
  VkDescriptorSetLayoutCreateInfo linfo{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  linfo.bindingCount = static_cast<std::uint32_t>(layout_bindings.size());
  linfo.pBindings = layout_bindings.data();
  check(vkCreateDescriptorSetLayout(ctx.device(), &linfo, nullptr, &set_layout_),
        "vkCreateDescriptorSetLayout");

  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes};
  VkPipelineLayoutCreateInfo pinfo{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  pinfo.setLayoutCount = 1;
  pinfo.pSetLayouts = &set_layout_;
  pinfo.pushConstantRangeCount = push_bytes ? 1 : 0;
  pinfo.pPushConstantRanges = push_bytes ? &range : nullptr;
  check(vkCreatePipelineLayout(ctx.device(), &pinfo, nullptr, &layout_), "vkCreatePipelineLayout");

  std::vector<VkSpecializationMapEntry> entries(constants.size());
  for (std::size_t i = 0; i < constants.size(); ++i) {
    entries[i] = {static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(4 * i), 4};
  }
  VkSpecializationInfo spec{};
  spec.mapEntryCount = static_cast<std::uint32_t>(entries.size());
  spec.pMapEntries = entries.data();
  spec.dataSize = constants.size_bytes();
  spec.pData = constants.data();

  VkComputePipelineCreateInfo cinfo{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  cinfo.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  cinfo.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  cinfo.stage.module = module_;
  cinfo.stage.pName = "main";
  cinfo.stage.pSpecializationInfo = constants.empty() ? nullptr : &spec;
  cinfo.layout = layout_;
  check(
      vkCreateComputePipelines(ctx.device(), ctx.pipeline_cache(), 1, &cinfo, nullptr, &pipeline_),
      ("vkCreateComputePipelines(" + name_ + ")").c_str());
}

Kernel::~Kernel() {
  VkDevice dev = ctx_.device();
  for (VkDescriptorPool p : pools_) vkDestroyDescriptorPool(dev, p, nullptr);
  vkDestroyPipeline(dev, pipeline_, nullptr);
  vkDestroyPipelineLayout(dev, layout_, nullptr);
  vkDestroyDescriptorSetLayout(dev, set_layout_, nullptr);
  vkDestroyShaderModule(dev, module_, nullptr);
}

void Kernel::reset_sets() {
  for (VkDescriptorPool p : pools_) vkDestroyDescriptorPool(ctx_.device(), p, nullptr);
  pools_.clear();
  sets_in_pool_ = 0;
}

VkDescriptorSet Kernel::bind(std::initializer_list<const Buffer*> buffers) {
  return bind(std::span<const Buffer* const>(buffers.begin(), buffers.size()));
}

VkDescriptorSet Kernel::bind(std::span<const Buffer* const> buffers) {
  for (const ShaderBinding& b : bindings_) {
    if (b.binding >= buffers.size() || !buffers[b.binding] || !buffers[b.binding]->handle()) {
      throw Error("Kernel " + name_ + ": bind() has no buffer for binding " +
                  std::to_string(b.binding) + ", which the shader uses");
    }
  }
  if (pools_.empty() || sets_in_pool_ == kSetsPerPool) {
    const auto n = static_cast<std::uint32_t>(bindings_.size());
    VkDescriptorPoolSize sizes[2] = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kSetsPerPool * n},
                                     {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, kSetsPerPool * n}};
    VkDescriptorPoolCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    info.maxSets = kSetsPerPool;
    info.poolSizeCount = 2;
    info.pPoolSizes = sizes;
    VkDescriptorPool pool = VK_NULL_HANDLE;
    check(vkCreateDescriptorPool(ctx_.device(), &info, nullptr, &pool), "vkCreateDescriptorPool");
    pools_.push_back(pool);
    sets_in_pool_ = 0;
  }
  VkDescriptorSetAllocateInfo ainfo{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  ainfo.descriptorPool = pools_.back();
  ainfo.descriptorSetCount = 1;
  ainfo.pSetLayouts = &set_layout_;
  VkDescriptorSet set = VK_NULL_HANDLE;
  check(vkAllocateDescriptorSets(ctx_.device(), &ainfo, &set), "vkAllocateDescriptorSets");
  ++sets_in_pool_;

  std::vector<VkDescriptorBufferInfo> infos(bindings_.size());
  std::vector<VkWriteDescriptorSet> writes(bindings_.size());
  for (std::size_t i = 0; i < bindings_.size(); ++i) {
    infos[i] = {buffers[bindings_[i].binding]->handle(), 0, VK_WHOLE_SIZE};
    writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    writes[i].dstSet = set;
    writes[i].dstBinding = bindings_[i].binding;
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = bindings_[i].type;
    writes[i].pBufferInfo = &infos[i];
  }
  vkUpdateDescriptorSets(ctx_.device(), static_cast<std::uint32_t>(writes.size()), writes.data(), 0,
                         nullptr);
  return set;
}

void Kernel::bind_common(VkCommandBuffer cb, VkDescriptorSet set, const void* push) const {
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_);
  vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout_, 0, 1, &set, 0, nullptr);
  if (push_bytes_) {
    if (!push) throw Error("Kernel " + name_ + ": push constants required");
    vkCmdPushConstants(cb, layout_, VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes_, push);
  }
}

void Kernel::dispatch(VkCommandBuffer cb, VkDescriptorSet set, std::uint32_t groups,
                      const void* push) const {
  if (groups == 0) return;
  bind_common(cb, set, push);
  vkCmdDispatch(cb, groups, 1, 1);
  RecordCounts::count_dispatch();
}

void Kernel::dispatch_indirect(VkCommandBuffer cb, VkDescriptorSet set, const Buffer& args,
                               VkDeviceSize offset, const void* push) const {
  bind_common(cb, set, push);
  vkCmdDispatchIndirect(cb, args.handle(), offset);
  RecordCounts::count_dispatch();
}

namespace {

// One global memory barrier (every barrier here is one: the step's buffers are few and shared).
void memory_barrier(VkCommandBuffer cb, VkAccessFlags src_access, VkAccessFlags dst_access,
                    VkPipelineStageFlags src_stages, VkPipelineStageFlags dst_stages) {
  VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  mb.srcAccessMask = src_access;
  mb.dstAccessMask = dst_access;
  vkCmdPipelineBarrier(cb, src_stages, dst_stages, 0, 1, &mb, 0, nullptr, 0, nullptr);
  RecordCounts::count_barrier();
}

constexpr VkAccessFlags kDeviceAccess =
    VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_INDIRECT_COMMAND_READ_BIT |
    VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_UNIFORM_READ_BIT;
constexpr VkPipelineStageFlags kDeviceStages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT |
                                               VK_PIPELINE_STAGE_TRANSFER_BIT |
                                               VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT;

}  // namespace

void barrier(VkCommandBuffer cb) {
  memory_barrier(cb, VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT, kDeviceAccess,
                 VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                 kDeviceStages);
}

void barrier_to_host_and_queue(VkCommandBuffer cb) {
  memory_barrier(cb, VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                 VK_ACCESS_HOST_READ_BIT | kDeviceAccess,
                 VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                 VK_PIPELINE_STAGE_HOST_BIT | kDeviceStages);
}

void compute_barrier(VkCommandBuffer cb) {
  memory_barrier(cb, VK_ACCESS_SHADER_WRITE_BIT,
                 VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT,
                 VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT,
                 VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
}

Timestamps::Timestamps(const Context& ctx, std::uint32_t count) : ctx_(ctx), count_(count) {
  if (!ctx.info().timestamps || count == 0) return;
  VkQueryPoolCreateInfo info{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  info.queryType = VK_QUERY_TYPE_TIMESTAMP;
  info.queryCount = count;
  check(vkCreateQueryPool(ctx.device(), &info, nullptr, &pool_), "vkCreateQueryPool");
}

Timestamps::~Timestamps() {
  if (pool_) vkDestroyQueryPool(ctx_.device(), pool_, nullptr);
}

void Timestamps::reset(VkCommandBuffer cb) const {
  if (pool_) vkCmdResetQueryPool(cb, pool_, 0, count_);
}

void Timestamps::write(VkCommandBuffer cb, std::uint32_t index) const {
  if (pool_) vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, pool_, index);
}

void Timestamps::copy_to(VkCommandBuffer cb, const Buffer& dst) const {
  if (!pool_) return;
  vkCmdCopyQueryPoolResults(cb, pool_, 0, count_, dst.handle(), 0, sizeof(std::uint64_t),
                            VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
}

std::vector<double> Timestamps::read_intervals_ms() const {
  if (!pool_) return {};
  std::vector<std::uint64_t> ticks(count_);
  check(vkGetQueryPoolResults(ctx_.device(), pool_, 0, count_, ticks.size() * sizeof(std::uint64_t),
                              ticks.data(), sizeof(std::uint64_t),
                              VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
        "vkGetQueryPoolResults");
  return intervals_ms(ticks.data());
}

std::vector<double> Timestamps::intervals_ms(const std::uint64_t* ticks) const {
  if (!pool_) return {};
  std::vector<double> ms;
  double period = static_cast<double>(ctx_.info().timestamp_period_ns) * 1e-6;
  for (std::uint32_t i = 1; i < count_; ++i) {
    ms.push_back(static_cast<double>(ticks[i] - ticks[i - 1]) * period);
  }
  return ms;
}

}  // namespace vkphys::vk
