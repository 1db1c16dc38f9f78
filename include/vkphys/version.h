/// \file
/// The version of the libvkphys a program runs against.
#pragma once

#include "vkphys/export.h"
namespace vkphys {

/// "MAJOR.MINOR.PATCH" of the installed library (the CMake package's version).
VKPHYS_API const char* version();

}  // namespace vkphys
