// The out-of-line part of host/sim/backend.h: the stage table's names.
#include "host/sim/backend.h"

namespace vkphys {

// The stages the kernels' NaN check names are the table's (kernels/stages.h).
static_assert(kern::STAGE_PREDICT == static_cast<std::uint32_t>(Stage::predict));
static_assert(kern::STAGE_SOLVE == static_cast<std::uint32_t>(Stage::solve));
static_assert(kStageCount <= 8, "kern::nonfinite_code keeps a stage in 3 bits");

const char* stage_name(Stage s) {
#define VKPHYS_STAGE_NAME(name) #name,
  static const char* const names[] = {VKPHYS_STAGE_TABLE(VKPHYS_STAGE_NAME)};
#undef VKPHYS_STAGE_NAME
  return names[static_cast<std::size_t>(s)];
}

}  // namespace vkphys
