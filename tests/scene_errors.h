// Helpers for the scene-file error tests (tests/test_scene_file.cpp, tests/test_rigid_scenes.cpp):
// parse a scene that must fail and check its one-line message.
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>

#include "host/io/scene_file.h"
#include "host/sim/backend.h"

namespace vkphys::test {

// The message of the SceneError that parsing `text` throws (a failure if none is thrown).
inline std::string text_error(std::string_view text) {
  try {
    io::parse_scene(text, "<test>");
  } catch (const io::SceneError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no SceneError for:\n" << text;
  return {};
}

inline std::string error_of(const nlohmann::json& scene) {
  return text_error(scene.dump());
}

// Every error is one line that starts with the source name and contains each of `parts`.
inline void expect_error(const std::string& message,
                         std::initializer_list<std::string_view> parts) {
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  EXPECT_EQ(message.rfind("<test>: ", 0), 0u) << message;
  for (std::string_view part : parts) {
    EXPECT_NE(message.find(part), std::string::npos)
        << "missing \"" << part << "\" in: " << message;
  }
}

// The message of the std::invalid_argument that loading `s` on the CPU backend throws (the C++
// API's checks, host/sim/world_setup.h), or "no error".
inline std::string load_error(const Scene& s) {
  try {
    make_cpu_backend()->load(s);
  } catch (const std::invalid_argument& e) {
    return std::string(e.what());
  }
  return std::string("no error");
}

}  // namespace vkphys::test
