// Versioned JSON scene files: strict parsing and validation, particle generators, a summary line.
//
// The format is documented field by field in docs/scene-format.md; scenes/ holds examples.
// Parsing is strict: unknown keys, duplicate keys, wrong types, out-of-range values, unknown
// material names, overlapping or wall-penetrating particles and oversized scenes are all errors.
// Every error is a SceneError whose message is one line naming the file, the JSON path of the
// field, the offending value and the rule, e.g.
//     scenes/x.json: particles[0].radius = -0.1: must be > 0
// Generated scenes are bit-identical on every platform: lattice jitter uses a self-contained
// splitmix64 stream, never the implementation-defined std:: distributions.
#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

#include "vkphys/limits.h"
#include "vkphys/scene.h"

namespace vkphys::io {

// The versions this build reads: every version from kOldestSceneFormatVersion to
// kSceneFormatVersion, the newest (the one write_scene_json writes). Version 2 adds mixed scenes,
// applied forces and fields, kinematic paths and scheduled impulses (docs/scene-format.md).
inline constexpr int kOldestSceneFormatVersion = 1;
inline constexpr int kSceneFormatVersion = 2;

// The loader's size limits are public (vkphys/limits.h): kMaxParticles, kMaxBodies, kMaxJoints.
using vkphys::kMaxBodies;
using vkphys::kMaxJoints;
using vkphys::kMaxParticles;
// Surface triangles, the generators' and "triangles"' together: two per particle. A cloth or a
// soft box gives fewer than two per particle of its own (a cloth 2 (nu-1)(nv-1) < 2 nu nv; a
// box 4 ((nx-1)(ny-1) + (ny-1)(nz-1) + (nz-1)(nx-1)) < 2 nx ny nz for every side >= 2), so only
// "triangles" can pass the limit, and its reader checks it.
// A mesh cloth's triangles are its file's, so its reader checks the limit too.
inline constexpr std::uint32_t kMaxTriangles = 2 * kMaxParticles;
inline constexpr std::uint32_t kMaxGroup = (1u << 24) - 1;  // a particle's collision group

// A scene file that cannot be read or is not a valid scene. what() is one line for the user.
struct SceneError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Reads and parses a scene file; the path as given names the file in error messages.
Scene load_scene(const std::filesystem::path& path);

// Parses scene JSON text; source_name names it in error messages (a path, or e.g. "<test>").
// Files the scene names (mesh cloths' "mesh") are relative to base_dir (empty: the current
// directory); load_scene passes the scene file's folder.
Scene parse_scene(std::string_view json_text, std::string_view source_name,
                  const std::filesystem::path& base_dir = {});

// One line: name, bodies (static ones) and joints and/or particles (static ones), planes,
// materials, time step, solver iterations.
std::string scene_summary(const Scene& scene);

// The scene as version-2 scene JSON that parse_scene reads back to an identical Scene: every
// setting explicit, floats in their shortest exact form, particles one "particle" generator each,
// bodies with "mass" or "static", quaternion orientations and body-frame joint anchors and axes;
// forces, torques, kinematic paths and impulses where the scene has them. A last body that is
// exactly add_world_body's (host/sim/rigid_scenes.h), that a joint uses and that nothing else
// refers to is written as "world" references. Throws std::invalid_argument for a scene no file
// can hold (non-finite numbers, duplicate material names, a particle mass that 1/m cannot
// reproduce, kinematic paths out of the reader's order (bodies, then particles, each ascending
// and at most one per target), a target out of range, an impulse on a particle away from its
// centre).
std::string write_scene_json(const Scene& scene);

}  // namespace vkphys::io
