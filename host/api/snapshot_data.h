// What a vkphys::Snapshot holds (vkphys/snapshot.h).
#pragma once

#include <string>

#include "host/sim/backend.h"
#include "vkphys/snapshot.h"

namespace vkphys {

struct Snapshot::Data {
  std::string backend;  // "cpu" or "gpu": the kind that saved it
  Scene scene;
  CarriedState state;
};

}  // namespace vkphys
