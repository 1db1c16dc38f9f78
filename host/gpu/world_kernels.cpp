// The world step's compute pipelines (host/gpu/world_kernels.h).
#include "host/gpu/world_kernels.h"

#include <array>
#include <stdexcept>
#include <string>

#include "world_body.spv.h"
#include "world_color.spv.h"
#include "world_commit.spv.h"
#include "world_drive.spv.h"
#include "world_finalize.spv.h"
#include "world_fused.spv.h"
#include "world_fused_workgroup.spv.h"
#include "world_grid.spv.h"
#include "world_narrowphase.spv.h"
#include "world_ode.spv.h"
#include "world_pcontact.spv.h"
#include "world_reach.spv.h"
#include "world_sweep.spv.h"
#include "world_tree.spv.h"
#include "world_unit.spv.h"

namespace vkphys {
namespace {

template <std::size_t N>
std::span<const std::uint32_t> words(const std::uint32_t (&spv)[N]) {
  return {spv, N};
}

}  // namespace

WorldConstants::WorldConstants(std::optional<Stage> fault) {
  if (!fault) return;
  const std::uint32_t v = 1u + static_cast<std::uint32_t>(*fault);
  bool known = false;
#define VKPHYS_KNOWN_FAULT(name, value) known = known || (v == (value) && (value) != 0u);
  VKPHYS_FAULTS(VKPHYS_KNOWN_FAULT)
#undef VKPHYS_KNOWN_FAULT
  if (!known) {
    throw std::invalid_argument(std::string("make_gpu_backend: fault stage \"") +
                                stage_name(*fault) +
                                "\" has no fault (broadphase, narrowphase, predict, solve do)");
  }
  values[0] = v;
}
static_assert(kern::FAULT_BROADPHASE == 1u + static_cast<std::uint32_t>(Stage::broadphase));
static_assert(kern::FAULT_NARROWPHASE == 1u + static_cast<std::uint32_t>(Stage::narrowphase));
static_assert(kern::FAULT_PREDICT == 1u + static_cast<std::uint32_t>(Stage::predict));
static_assert(kern::FAULT_SOLVE == 1u + static_cast<std::uint32_t>(Stage::solve));

WorldKernels::WorldKernels(const vk::Context& c, std::span<const std::uint32_t> k)
    : ctx_(c), constants_(k.begin(), k.end()) {}

vk::Kernel& WorldKernels::made(Shader s) {
  struct Source {
    const char* name;
    std::span<const std::uint32_t> spirv;
  };
#define VKPHYS_WORLD_SHADER_SOURCE(name) Source{"world_" #name, words(world_##name##_spv)},
  static const std::array<Source, static_cast<std::size_t>(Shader::count)> kSources{
      {VKPHYS_WORLD_SHADERS(VKPHYS_WORLD_SHADER_SOURCE)}};
#undef VKPHYS_WORLD_SHADER_SOURCE
  const auto i = static_cast<std::size_t>(s);
  if (!shaders_[i]) {
    shaders_[i] = std::make_unique<vk::Kernel>(ctx_, kSources[i].name, kSources[i].spirv,
                                               kWorldPush, constants_);
  }
  return *shaders_[i];
}

vk::Kernel& WorldKernels::ode(std::uint32_t mode) {
  std::unique_ptr<vk::Kernel>& k = ode_.at(mode);
  if (!k) {
    std::vector<std::uint32_t> c = constants_;
    c.push_back(mode);  // constant_id 1
    k = std::make_unique<vk::Kernel>(ctx_, "world_ode mode " + std::to_string(mode),
                                     words(world_ode_spv), kWorldPush, c);
  }
  return *k;
}

vk::Kernel& WorldKernels::fused() {
  if (!fused_) {
    // Buffers coherent within the workgroup only on a GPU with the Vulkan memory model,
    // device-wide otherwise (shaders/world_fused_workgroup.comp says why a CPU driver is not).
    const bool workgroup = ctx_.info().memory_model && ctx_.info().type != "cpu";
    fused_ = workgroup ? std::make_unique<vk::Kernel>(ctx_, "world_fused_workgroup",
                                                      words(world_fused_workgroup_spv), kWorldPush,
                                                      constants_)
                       : std::make_unique<vk::Kernel>(ctx_, "world_fused", words(world_fused_spv),
                                                      kWorldPush, constants_);
  }
  return *fused_;
}

std::vector<vk::Kernel*> WorldKernels::all() {
  std::vector<vk::Kernel*> a;
  for (const std::unique_ptr<vk::Kernel>& k : shaders_) {
    if (k) a.push_back(k.get());
  }
  if (fused_) a.push_back(fused_.get());
  for (const std::unique_ptr<vk::Kernel>& k : ode_) {
    if (k) a.push_back(k.get());
  }
  return a;
}

}  // namespace vkphys
