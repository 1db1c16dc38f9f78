// The plan of a checkpointed `vkphys run` (DIR/run.json): what `vkphys resume DIR` needs to
// continue the run as it was started. The scene, with the command line's solver overrides
// applied, travels in the checkpoint itself (vkphys/snapshot.h); this holds the rest.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace vkphys::tools {

struct RunPlan {
  std::string scene;          // the scene file the run started from (shown, not read again)
  std::string backend;        // "cpu" or "gpu"
  std::string device;         // --device as given ("" = the default choice)
  std::uint64_t steps = 0;    // the run's last step
  std::uint32_t every = 0;    // a frame every `every` steps (0: first and last)
  bool vtk = false;           // frames also as VTK XML
  bool vtk_contacts = false;  // and each frame's contacts
  std::uint32_t checkpoint_every = 0;  // a checkpoint every N steps (and at the first and last)
};

// Writes DIR/run.json (through a .partial file and a rename).
void write_run_plan(const std::filesystem::path& dir, const RunPlan& plan);
// Reads DIR/run.json; throws std::runtime_error naming the file and the field that is missing or
// wrong.
RunPlan read_run_plan(const std::filesystem::path& dir);

}  // namespace vkphys::tools
