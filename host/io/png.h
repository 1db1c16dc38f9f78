// PNG files (8-bit RGBA, zlib-compressed) for `vkphys render`.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace vkphys::io {

// The PNG encoding of a width x height RGBA image, rows top to bottom.
std::string png_bytes(std::uint32_t width, std::uint32_t height,
                      const std::vector<std::uint8_t>& rgba);

}  // namespace vkphys::io
