/// \file
/// A picture of a World (World::render): RGBA pixels drawn by the Vulkan renderer of `vkphys
/// render`, and its PNG file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "vkphys/export.h"

namespace vkphys {

struct VKPHYS_API Picture {
  std::uint32_t width = 0, height = 0;  ///< [pixels]
  std::vector<std::uint8_t> rgba;       ///< 8-bit RGBA, rows top to bottom, 4 width height bytes
  std::string device;                   ///< the Vulkan device that drew it

  /// Writes a PNG file (through `path`.partial and a rename, so a reader never sees a torn
  /// file); throws Error naming the path if it cannot, or if rgba does not hold 4 width height
  /// bytes.
  void write_png(const std::filesystem::path& path) const;
};

}  // namespace vkphys
