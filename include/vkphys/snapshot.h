/// \file
/// A checkpoint of a World: everything its next step reads (vkphys/world.h, World::save).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "vkphys/export.h"
#include "vkphys/scene.h"

namespace vkphys {

/// The scene, the step count, every body's position, orientation and velocity, the joints'
/// accumulated impulses and last step's contacts with their impulses (the warm-start source),
/// and the contact-list capacities. World::load continues from it bit-identically on the backend
/// that saved it (the same device for the GPU backend); on the other backend it continues the
/// same physics, rounded differently. Immutable; copies share the data.
class VKPHYS_API Snapshot {
 public:
  /// The file: a small binary header, the scene as scene JSON (docs/scene-format.md) and the
  /// carried buffers as raw little-endian floats, for this build only (docs/api.md). Written
  /// whole to PATH.partial and then renamed over PATH, so a process killed while writing leaves
  /// the earlier file at PATH intact (not proof against power loss: nothing is fsynced). Throws
  /// vkphys::Error if the file cannot be written.
  void write(const std::filesystem::path& path) const;
  /// Throws vkphys::Error naming the file and what is wrong with it.
  static Snapshot read(const std::filesystem::path& path);

  std::uint64_t step() const;   ///< steps the saved World had taken since its scene was loaded
  std::string backend() const;  ///< "cpu" or "gpu"
  const Scene& scene() const;   ///< the scene the saved World ran

  struct Data;  ///< private to the library

 private:
  friend class World;
  explicit Snapshot(std::shared_ptr<const Data> data);
  std::shared_ptr<const Data> data_;
};

}  // namespace vkphys
