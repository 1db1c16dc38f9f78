/// \file
/// Scene files (docs/scene-format.md) read into a Scene and written from one, for a program that
/// changes a scene before making its World (World::from_file reads and builds in one call).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "vkphys/export.h"
#include "vkphys/scene.h"

namespace vkphys {

/// Reads and checks a scene file; Error names the file, the field and the rule, as `vkphys run`
/// does.
VKPHYS_API Scene read_scene_file(const std::filesystem::path& path);
/// Scene JSON text, checked as a file is (`source_name` stands for the file in errors).
VKPHYS_API Scene scene_from_json(std::string_view json, std::string_view source_name = "<json>");
/// The scene as scene-file JSON (version 2) that scene_from_json reads back to the same scene.
VKPHYS_API std::string scene_to_json(const Scene& scene);
/// One line: the scene's name, its bodies, joints, particles, planes and materials, time step and
/// solver budget (what `vkphys run` prints first).
VKPHYS_API std::string scene_summary(const Scene& scene);

}  // namespace vkphys
