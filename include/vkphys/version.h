/// \file
/// The version of the libvkphys a program runs against.
#pragma once

namespace vkphys {

/// "MAJOR.MINOR.PATCH" of the installed library (the CMake package's version).
const char* version();

}  // namespace vkphys
