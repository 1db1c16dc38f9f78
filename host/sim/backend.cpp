// The out-of-line part of host/sim/backend.h: the stage table's names.
#include "host/sim/backend.h"

namespace vkphys {

const char* stage_name(Stage s) {
#define VKPHYS_STAGE_NAME(name) #name,
  static const char* const names[] = {VKPHYS_STAGE_TABLE(VKPHYS_STAGE_NAME)};
#undef VKPHYS_STAGE_NAME
  return names[static_cast<std::size_t>(s)];
}

}  // namespace vkphys
