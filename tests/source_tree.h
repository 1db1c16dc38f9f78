// The source tree the tests read files from: the shipped scenes and their meshes, docs/.
#pragma once

#include <filesystem>

namespace vkphys::test {

inline const std::filesystem::path kSourceDir = VKPHYS_SOURCE_DIR;
inline const std::filesystem::path kScenes = kSourceDir / "scenes";

}  // namespace vkphys::test
