// The fuzz targets' common first step: the input as scene text, parsed. A SceneError is the
// loader's answer to a bad input, not a finding: the target then stops there.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "host/io/scene_file.h"

namespace vkphys::fuzz {

inline std::optional<Scene> parse_input(const std::uint8_t* data, std::size_t size) {
  try {
    return io::parse_scene(std::string_view(reinterpret_cast<const char*>(data), size), "<fuzz>");
  } catch (const io::SceneError&) {
    return std::nullopt;
  }
}

}  // namespace vkphys::fuzz
