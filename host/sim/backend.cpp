// The out-of-line part of host/sim/backend.h: the stage table's names, the host renumbering.
#include "host/sim/backend.h"

#include "host/sim/particle_order.h"

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

void Backend::renumber_particles(const Scene& scene, const std::vector<std::uint32_t>& to) {
  CarriedState s = save();
  relabel_carried(s, static_cast<std::uint32_t>(scene.bodies.size() + scene.planes.size()), to);
  restore(scene, s);
}

}  // namespace vkphys
