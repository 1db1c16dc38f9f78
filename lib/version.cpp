// The shared library's own source (host/CMakeLists.txt): its version, from the CMake project.
#include "vkphys/version.h"

namespace vkphys {

const char* version() {
  return VKPHYS_VERSION;
}

}  // namespace vkphys
