// The helper of tools/internal.h: what view needs beyond the public API.
#include "tools/internal.h"

namespace vkphys::tools {

vk::ContextOptions context_options(const Options& opt) {
  return {
      .device = opt.device, .validation = opt.validation, .sync_validation = opt.sync_validation};
}

}  // namespace vkphys::tools
