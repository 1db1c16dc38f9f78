// The helpers of tools/internal.h: what bench, view and export-scene share beyond the public
// API.
#include "tools/internal.h"

#include <fmt/format.h>

#include <stdexcept>

namespace vkphys::tools {

vk::ContextOptions context_options(const Options& opt) {
  return {
      .device = opt.device, .validation = opt.validation, .sync_validation = opt.sync_validation};
}

void check_size(const char* flag, std::uint64_t size, const std::string& what, std::uint64_t max) {
  if (size <= max) return;
  throw std::runtime_error(
      fmt::format("{} {}: {} takes at most {} (the scene loader's limits: "
                  "kMaxBodies = {}, kMaxParticles = {})",
                  flag, size, what, max, io::kMaxBodies, io::kMaxParticles));
}

}  // namespace vkphys::tools
